"""UCT Monte Carlo tree search with a transposition table, proven values and tree reuse.

Works on the same mutable position as search/negamax.py, plus
`pos.playout(rng) -> winner` (random moves to the end; the position is left unchanged)
and `pos.exact_key()`.

Nodes live in a table keyed by `pos.exact_key()` (a node stores its moves, so symmetric
images must not share one): transpositions share statistics, and a table the caller
keeps between moves is tree reuse for free.  Proven values (MCTS-Solver: a child
that is lost for its mover makes the parent won; a parent whose every child is won for
its mover is lost) are exact and steer the search away from decided lines.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from typing import Any

from .budget import Budget, SearchResult
from .root import settled


class Node:
    __slots__ = ("moves", "children", "n", "w", "visits", "proven")

    def __init__(self, moves: list[Any]) -> None:
        self.moves = moves
        self.children: list[Any] = [None] * len(moves)  # a Node once expanded
        self.n = [0] * len(moves)
        self.w = [0.0] * len(moves)  # wins of this node's side to move through each move
        self.visits = 0
        self.proven = 0  # +1 the side to move wins, -1 it loses, 0 unknown


def _select(node: Node, c: float) -> int:
    best, best_score = -1, -1.0
    log_n = math.log(node.visits + 1)
    for i, child in enumerate(node.children):
        if child is not None and child.proven:
            if child.proven < 0:
                return i  # a move into a lost position for the opponent: take it
            continue  # a proven loss for us: never worth a visit
        n = node.n[i]
        if n == 0:
            return i
        score = node.w[i] / n + c * math.sqrt(log_n / n)
        if score > best_score:
            best, best_score = i, score
    return best if best >= 0 else 0  # every move loses: keep searching the first


def _settle(node: Node) -> None:
    """Propagate proven values from the children to `node`."""
    all_won_for_them = True
    for child in node.children:
        if child is None or child.proven == 0:
            all_won_for_them = False
        elif child.proven < 0:
            node.proven = 1
            return
    if all_won_for_them:
        node.proven = -1


def search(pos: Any, budget: Budget, table: dict[Hashable, Node] | None = None, c: float = 0.7, seed: int | None = None,
           max_nodes: int = 400_000, early_stop: bool = True, root_moves: list[Any] | None = None) -> SearchResult:
    """Run UCT until the budget is spent (or the answer cannot change); the best root move.

    `depth` in the result is the number of iterations (playouts) run, `nodes` the table size;
    `value` is the estimated win probability of the side to move (1.0/0.0 when proven).
    `root_moves` restricts the root to those moves (in a private table: no reuse).
    """
    start = time.monotonic()
    deadline = budget.deadline
    cap = budget.nodes or float("inf")
    table = {} if table is None else table
    if len(table) > max_nodes:
        table.clear()
    rng = random.Random(seed)
    root_key = pos.exact_key()
    if root_moves is not None:
        table = {root_key: Node(list(root_moves))}
    root = table.get(root_key)
    if root is None:
        root = table[root_key] = Node(pos.moves())
    if not root.moves:
        return SearchResult(None, 1.0 if pos.WIN_FOR_STUCK > 0 else 0.0, 0, len(table), 0.0)
    iterations = 0
    while not root.proven:
        if not iterations & 31:
            now = time.monotonic()
            if now >= deadline or iterations >= cap:
                break
            # early stop: the most visited move can no longer be overtaken in the iterations left
            if early_stop and iterations and settled(root.n, (deadline - now) * iterations / max(now - start, 1e-6)):
                break
        iterations += 1
        path = []
        node = root
        while True:
            if node.proven:
                value: float = node.proven
                break
            i = _select(node, c)
            path.append((node, i))
            pos.play(node.moves[i])
            child = node.children[i]
            if child is None:
                key = pos.exact_key()
                child = table.get(key)
                if child is None:
                    moves = pos.moves()
                    child = table[key] = Node(moves)
                    if not moves:
                        child.proven = pos.WIN_FOR_STUCK
                node.children[i] = child
                if not child.proven:
                    value = 1 if pos.playout(rng) == pos.to_move else -1
                    break
            node = child
        for _ in path:
            pos.undo()
        for node, i in reversed(path):
            value = -value
            node.visits += 1
            node.n[i] += 1
            node.w[i] += (value + 1) * 0.5
            if node.children[i].proven:
                _settle(node)
    i = _choice(root)
    n = root.n[i]
    value = 1.0 if root.proven > 0 else 0.0 if root.proven < 0 else (root.w[i] / n if n else 0.5)
    return SearchResult(root.moves[i], value, iterations, len(table), time.monotonic() - start)


def _choice(root: Node) -> int:
    """A proven win if there is one, else the most visited move not proven lost."""
    for i, child in enumerate(root.children):
        if child is not None and child.proven < 0:
            return i
    candidates = [i for i, child in enumerate(root.children) if child is None or child.proven <= 0]
    if not candidates:  # every move loses: the one that resisted best in the playouts
        candidates = list(range(len(root.moves)))
    return max(candidates, key=lambda i: (root.n[i], root.w[i]))
