"""`alphabeta`: seed 000's design, kept working as a named player.

- Successors: for each group, the sizes of the human groups and 1.5x the enemy groups,
  sorted; a group may split off a part of each such size, sent toward the group it
  was made for, unless the remainder would be left vulnerable (an enemy could kill
  it); whole-group moves toward every prize it can take complete the list.
- Conflicts are resolved deterministically, as the seed does: sure wins are wins
  (humans at >= 1x, enemies at >= 1.5x); fewer than the humans, or facing an enemy
  1.5x larger, loses; more than the enemy but under 1.5x wins with losses; fewer than
  the enemy but not 1.5x fewer loses, with losses on their side.
- Heuristic: population difference, nearby humans we can take (bigger and closer
  first, none larger than the group), nearby enemies (a bonus for those we can kill,
  a malus for those 1.5x larger than us).
- Minimax with alpha-beta to depth 4 under the deadline (iterative deepening).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from search.budget import Budget, SearchResult
from search.contracts import Context
from search.minimax import search

from .rules import State, Species, distance, outcomes
from .tactics import Order, beats, combine, fits, threat_balance, toward

WIN = 10_000.0


def seed_battle(e1: int, kind: int, e2: int) -> bool:
    """Seed 000's deterministic reading of a random battle: does the attacker win?"""
    return kind != 0 and e1 > e2


def relevant_orders(state: State, group, enemies, cap: int = 8) -> list[Order]:
    x, y, n = group
    prizes = [(h[2], h) for h in state.humans]
    prizes += [(math.ceil(1.5 * e[2]), e) for e in enemies]
    prizes.sort(key=lambda p: (p[0], distance(x, y, p[1][0], p[1][1])))
    takeable = [p for p in prizes if p[0] <= n]
    orders: list[Order] = []
    for size, prize in takeable:  # splits: a part of exactly the size the prize needs
        rest = n - size
        if size >= n or any(beats(e[2], rest) for e in enemies):
            continue  # the remainder would be vulnerable
        part = toward(group, prize, size)
        other = next((p for s, p in takeable if s <= rest and p is not prize), None)
        remainder = toward(group, other, rest) if other else ()
        if part and (not remainder or remainder[0][3:] != part[0][3:]):
            orders.append(part + remainder)
    whole = [toward(group, p) for _, p in sorted(takeable, key=lambda p: distance(x, y, p[1][0], p[1][1]))]
    orders = [o for o in whole if o] + orders
    if not orders and enemies:  # nothing to take: move on the nearest enemy we do not fear
        e = min(enemies, key=lambda e: distance(x, y, e[0], e[1]))
        if not beats(e[2], n):
            orders.append(toward(group, e))
    return orders[:cap] + [()]


class SeedZeroModel:
    def __init__(self, me: Species, cap: int = 40) -> None:
        self.me = me
        self.cap = cap

    def actions(self, state: State) -> list[Order]:
        p = state.to_move
        enemies = state.groups(p.other)
        orders = [relevant_orders(state, g, enemies) for g in state.groups(p)]
        actions = [a for a in combine(orders, self.cap) if fits(state, a)]
        return actions or list(state.legal_moves())

    def outcomes(self, state: State, action: Order):
        return outcomes(state, action, decide=seed_battle)

    def is_terminal(self, state: State) -> bool:
        return state.is_terminal()

    def maximizing(self, state: State) -> bool:
        return state.to_move == self.me

    def key(self, state: State):
        return state.key()

    def bound(self, state: State) -> float:
        return 2 * WIN

    def evaluate(self, state: State) -> float:
        ours, theirs = state.groups(self.me), state.groups(self.me.other)
        diff = sum(g[2] for g in ours) - sum(g[2] for g in theirs)
        if state.is_terminal():
            winner = state.winner()
            return diff if winner is None else (WIN + diff if winner == self.me else -WIN + diff)
        return diff + 0.3 * (_nearby(state, ours, theirs) - _nearby(state, theirs, ours))


def _nearby(state: State, ours, theirs) -> float:
    """Seed 000's human and enemy terms for one side."""
    score = 0.0
    for hx, hy, h in state.humans:
        best = 0.0
        for x, y, n in ours:
            if h <= n:
                best = max(best, h / distance(x, y, hx, hy))
        score += best
    return score + threat_balance(ours, theirs)


@dataclass(frozen=True)
class AlphaBeta:
    """Seed 000: relevant splits, deterministic battles, three-part heuristic, depth 4."""

    max_depth: int = 4

    def __post_init__(self) -> None:
        if self.max_depth < 1:
            raise ValueError("max_depth must be at least 1")

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        return search(state, SeedZeroModel(state.to_move), budget, self.max_depth)
