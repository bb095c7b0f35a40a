"""Negamax alpha-beta for deterministic two-player games without draws, and an exact solver.

Works on a mutable position with make/undo (the hot loop allocates nothing per node):

    pos.to_move                 whose turn it is
    pos.moves() -> list         legal moves (hashable)
    pos.play(m) / pos.undo()
    pos.key() -> hashable       the transposition key (may fold symmetries)
    pos.evaluate() -> float     heuristic in (-1, 1) for the side to move
    pos.WIN_FOR_STUCK           +1 if a side with no move wins (Dodo), -1 if it loses (Gopher)

`search` is iterative deepening with a transposition table, the table move first and
the history heuristic after it; it checks its own clock and never starts an iteration it
does not expect to finish.  `solve` is the same search with win/loss values only and no
depth limit: its table entries are exact, so a player keeps them between moves.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .budget import Budget, SearchResult

if TYPE_CHECKING:
    from .contracts import Position

    class _Position(Position, Protocol):
        """The position negamax reads (see the module docstring)."""

        WIN_FOR_STUCK: int

        def evaluate(self) -> float: ...

    Table = dict[Hashable, tuple[int, int, float, Any]]  # key: (depth, flag, value, best move)

WIN = 1000.0
EXACT, LOWER, UPPER = 0, 1, 2
FOREVER = 1 << 30  # the depth of an exact entry
CHECK_EVERY = 255  # nodes between clock checks (a mask)


class _Timeout(Exception):
    pass


@dataclass
class Stats:
    nodes: int = 0
    horizon: bool = False  # did a leaf stop at the depth limit (so values are guesses)?


class _Search:
    def __init__(self, pos: _Position, table: Table, history: dict[Any, int], deadline: float,
                 node_cap: float) -> None:
        self.pos, self.table, self.history = pos, table, history
        self.deadline, self.node_cap = deadline, node_cap
        self.stats = Stats()

    def node(self, depth: int, alpha: float, beta: float, root: list[Any] | None = None) -> float:
        """Negamax value of the position.  At the root, `root` is the ordered list of moves to
        search: no table probe or store (the list may be a restriction) and `best_move` is set."""
        st = self.stats
        st.nodes += 1
        if not st.nodes & CHECK_EVERY and (time.monotonic() > self.deadline or st.nodes > self.node_cap):
            raise _Timeout
        pos = self.pos
        key = pos.key()
        history = self.history
        if root is None:
            entry = self.table.get(key)
            first = None
            if entry is not None:
                d, flag, value, first = entry
                if d >= depth and (flag == EXACT or flag == LOWER and value >= beta
                                   or flag == UPPER and value <= alpha):
                    if -WIN < value < WIN:
                        st.horizon = True  # a heuristic value: the subtree was not seen to its end
                    return value
            moves = pos.moves()
            if not moves:
                value = pos.WIN_FOR_STUCK * WIN
                self.table[key] = (FOREVER, EXACT, value, None)
                return value
            if depth <= 0:
                st.horizon = True
                return pos.evaluate()
            moves.sort(key=lambda m: history.get(m, 0), reverse=True)
            if first is not None and first in moves:
                moves.remove(first)
                moves.insert(0, first)
        else:
            moves = root
        original_alpha = alpha
        best, best_move = -2 * WIN, moves[0]
        for m in moves:
            pos.play(m)
            try:
                value = -self.node(depth - 1, -beta, -alpha)
            finally:
                pos.undo()
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        history[m] = history.get(m, 0) + depth * depth
                        break
        if root is not None:
            self.best_move = best_move
            return best
        flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
        # +-WIN are the extreme values, so even a bound on them is exact and valid at any depth.
        self.table[key] = (FOREVER if abs(best) >= WIN else depth, flag, best, best_move)
        return best

    def root(self, moves: list[Any], depth: int) -> tuple[float, object, bool]:
        """Search every root move at `depth` (a proven win ends it: WIN is the window's top);
        (value, best move, whether a leaf hit the horizon)."""
        self.stats.horizon = False
        value = self.node(depth, -WIN, WIN, moves)
        return value, self.best_move, self.stats.horizon


def search(pos: _Position, budget: Budget, max_depth: int = 64, table: Table | None = None,
           history: dict[Any, int] | None = None, root_moves: list[Any] | None = None) -> SearchResult:
    """Iterative deepening negamax; the best move of the last completed iteration.

    The value is from the side to move's view: +-WIN is a proven win/loss, anything in
    (-1, 1) is the heuristic.  Stops early when the result is proven or no leaf reached
    the depth limit (the search saw the whole game).  `root_moves` restricts the root.
    """
    start = time.monotonic()
    deadline = budget.deadline
    table = {} if table is None else table
    history = {} if history is None else history
    moves = pos.moves() if root_moves is None else list(root_moves)
    if not moves:
        return SearchResult(None, pos.WIN_FOR_STUCK * WIN, 0, 0, 0.0)
    s = _Search(pos, table, history, deadline, budget.nodes or float("inf"))
    best_move, value, depth_done = moves[0], 0.0, 0
    fallback = moves[0]  # best move of the last iteration that did not prove a loss
    last = 0.0
    for depth in range(1, max_depth + 1):
        t0 = time.monotonic()
        if depth > 1 and t0 + last * 3 > deadline:  # the next iteration would not finish
            break
        ordered = sorted(moves, key=lambda m: (m != best_move, -history.get(m, 0)))
        try:
            v, m, horizon = s.root(ordered, depth)
        except _Timeout:
            break
        last = time.monotonic() - t0
        value, best_move, depth_done = v, m, depth
        if v > -WIN:
            fallback = m
        if abs(v) >= WIN or not horizon:
            break
    move = best_move if value > -WIN else fallback
    return SearchResult(move, value, depth_done, s.stats.nodes, time.monotonic() - start)


def solve(pos: _Position, deadline: float, table: Table, history: dict[Any, int] | None = None,
          node_cap: float = float("inf"), root_moves: list[Any] | None = None) -> tuple[int, object, int] | None:
    """Prove the game from `pos`: (+1 win / -1 loss for the side to move, a best move, nodes),
    or None when the deadline or the node cap comes first.  `table` keeps exact entries only."""
    moves = pos.moves() if root_moves is None else list(root_moves)
    if not moves:
        return (int(pos.WIN_FOR_STUCK), None, 0)
    s = _Search(pos, table, {} if history is None else history, deadline, node_cap)
    try:
        value, move, _ = s.root(sorted(moves, key=lambda m: -s.history.get(m, 0)), FOREVER)
    except _Timeout:
        return None
    return (1 if value > 0 else -1, move, s.stats.nodes)
