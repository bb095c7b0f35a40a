"""Expectiminimax with alpha-beta, iterative deepening and a transposition table.

The algorithm knows nothing of any game.  A model supplies the game:

    model.actions(state)          -> ordered candidate actions of the player to move
    model.outcomes(state, action) -> [(probability, next_state), ...]
    model.evaluate(state)         -> value from the root player's point of view
    model.is_terminal(state)      -> bool
    model.maximizing(state)       -> True when the root player is to move
    model.key(state)              -> hashable transposition key
    model.bound(state)            -> B with every value of the subtree inside [-B, B]
    model.risk(state, [(p, v)])   -> optional: the value of a chance node from its outcomes'
                                     exact values (e.g. the expectation less a risk premium)

Deterministic actions (one outcome) are plain alpha-beta.  Chance nodes use Ballard's
Star1 pruning, which needs the value bound B.  The search owns its deadline: it checks
the clock every 64 nodes, abandons an iteration that runs out of time, does
not start one it cannot expect to finish, and returns the best action of the last
completed iteration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from .budget import Budget, SearchResult

if TYPE_CHECKING:
    from .contracts import Model

EXACT, LOWER, UPPER = 0, 1, 2
_CHECK_EVERY = 64


class Timeout(Exception):
    """Raised inside the tree when the deadline passes."""


class _Search:
    def __init__(self, model: Any, deadline: float, node_cap: int | None) -> None:
        self.model: Model = model
        self.deadline = deadline
        self.node_cap = node_cap
        self.nodes = 0
        self.table: dict[Hashable, tuple[int, int, float, Any]] = {}  # key: (depth, flag, value, best action)
        # Optional model.risk(state, [(p, value), ...]) -> value of a chance node; without it
        # the value is the expectation, searched with Star1 pruning.
        self.risk: Callable[[Any, list[tuple[float, float]]], float] | None = getattr(model, "risk", None)

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes % _CHECK_EVERY == 0:
            if time.monotonic() >= self.deadline:
                raise Timeout
        if self.node_cap is not None and self.nodes >= self.node_cap:
            raise Timeout

    def value(self, state: Any, depth: int, alpha: float, beta: float) -> float:
        """Value of a decision node (or leaf) within the window (alpha, beta)."""
        self.tick()
        model = self.model
        if depth <= 0 or model.is_terminal(state):
            return model.evaluate(state)
        key = model.key(state)
        entry = self.table.get(key)
        first = None
        if entry is not None:
            e_depth, flag, e_value, first = entry
            if e_depth >= depth:
                if flag == EXACT:
                    return e_value
                if flag == LOWER and e_value >= beta:
                    return e_value
                if flag == UPPER and e_value <= alpha:
                    return e_value
        actions = model.actions(state)
        if not actions:
            return model.evaluate(state)
        if first is not None and first in actions:
            actions = [first] + [a for a in actions if a != first]
        maximizing = model.maximizing(state)
        a0, b0 = alpha, beta
        best_value = float("-inf") if maximizing else float("inf")
        best_action = actions[0]
        for action in actions:
            v = self.chance(state, action, depth - 1, alpha, beta)
            if maximizing:
                if v > best_value:
                    best_value, best_action = v, action
                alpha = max(alpha, v)
            else:
                if v < best_value:
                    best_value, best_action = v, action
                beta = min(beta, v)
            if alpha >= beta:
                break
        flag = UPPER if best_value <= a0 else LOWER if best_value >= b0 else EXACT
        self.table[key] = (depth, flag, best_value, best_action)
        return best_value

    def chance(self, state: Any, action: Any, depth: int, alpha: float, beta: float) -> float:
        """Expected value of playing `action` (Star1 pruning over its outcomes)."""
        outs = self.model.outcomes(state, action)
        if len(outs) == 1:
            return self.value(outs[0][1], depth, alpha, beta)
        bound = self.model.bound(state)
        lo, hi = -bound, bound
        if self.risk is not None:  # the model prices the gamble itself: every outcome exactly
            return self.risk(state, [(p, self.value(child, depth, lo, hi)) for p, child in outs])
        done = 0.0  # sum of p * value over searched outcomes
        left = 1.0  # probability mass not searched yet
        for p, child in outs:
            left -= p
            # The child's value must lie inside this window for the node to land in (alpha, beta).
            raw_alpha = (alpha - done - left * hi) / p
            raw_beta = (beta - done - left * lo) / p
            v = self.value(child, depth, max(lo, raw_alpha), min(hi, raw_beta))
            done += p * v
            if v <= raw_alpha:  # fail low; the bound is <= alpha (clamped against rounding)
                return min(done + left * hi, alpha)
            if v >= raw_beta:  # fail high; the bound is >= beta
                return max(done + left * lo, beta)
        return done


def search(root: Any, model: Any, budget: Budget, max_depth: int, partial: bool = False) -> SearchResult:
    """Iterative deepening from depth 1 to max_depth under `budget`.

    With `partial`, an iteration cut by the deadline still counts once its first root
    action (the previous best) is done: a later action that beat it was searched with
    the window above it, so its value is exact, and the best of the finished actions is
    the better choice.  A new iteration then starts whenever time is left, since part of
    one is no longer wasted.
    """
    started = time.monotonic()
    s = _Search(model, budget.deadline, budget.nodes)
    actions = list(model.actions(root))
    if not actions:
        raise ValueError("search called on a position with no action")
    best = SearchResult(actions[0], model.evaluate(root), 0, 0, 0.0)
    if len(actions) == 1:
        return best
    maximizing = model.maximizing(root)
    last_iteration = 0.0
    growth = 4.0
    for depth in range(1, max_depth + 1):
        now = time.monotonic()
        if depth > 1 and now + last_iteration * (1.0 if partial else growth) > budget.deadline:
            break  # this iteration would not finish in time (partial: not even its first action)
        t0 = now
        scored = []
        try:
            alpha, beta = float("-inf"), float("inf")
            for action in actions:
                v = s.chance(root, action, depth - 1, alpha, beta)
                scored.append((v, action))
                if maximizing:
                    alpha = max(alpha, v)
                else:
                    beta = min(beta, v)
        except Timeout:
            if partial and scored:
                value, move = max(scored, key=lambda t: t[0]) if maximizing else min(scored, key=lambda t: t[0])
                best = SearchResult(move, value, depth, s.nodes, time.monotonic() - started)
            break
        scored.sort(key=lambda t: t[0], reverse=maximizing)
        value, move = scored[0]
        # Values of actions after the best are bounds only; their order is a hint.
        actions = [a for _, a in scored]
        duration = time.monotonic() - t0
        if last_iteration > 0.001:
            growth = min(max(duration / last_iteration, 1.5), 30.0)
        last_iteration = duration
        best = SearchResult(move, value, depth, s.nodes, time.monotonic() - started)
    return SearchResult(best.move, best.value, best.depth, s.nodes, time.monotonic() - started)
