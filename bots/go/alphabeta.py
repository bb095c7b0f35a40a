"""The `alphabeta` Go player: seed 001 ("CSGO", Alexandre Soulié) on our kernels.

The seed's design, kept:
* the first 15 moves come from one opening line of the book (ours, built by self-play);
  when the line's move is illegal (the opponent took the point) the player enters the
  "disturbed opening" mode and plays random legal moves until move 16;
* then alpha-beta whose depth adapts to the clock: it starts at 2; after a move that took
  `t` seconds, with `left` seconds on the 30-minute clock and `e` empty points, the depth
  goes up by one (at most 6) if 2·t·e <= left, and down by one (at least 2) if t·e > 1.5·left;
* critical modes: depth 2 when under 60 s are left, depth 1 under 10 s;
* if a first-ply move captures many stones (`huge_capture`), the depth is capped at 3;
* the evaluation is our stones plus the stones we captured, plus a tiny increasing
  tie-break that orders otherwise equal leaves (the seed adds ~1e-15; a double cannot hold
  1e-15 next to 40, so the increment here is 1e-9).

Kept better than the seed: the search runs by iterative deepening up to that depth and
stops at the move's deadline (or its node budget, when the budget has one: then the depth
goes up to `max_depth`) with the best move of the last completed depth, moves are
ordered by captures (and the previous depth's best move first), and own eyes are never
filled.  Positions inside the search know simple ko only; the root's moves are filtered by
the full rules (superko).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from search.budget import Budget, SearchResult
from search.contracts import Context

from . import book, kernel as K
from .board import PASS, State, parse_point
from .fallback import random_move
from .kernel import padded, to_kernel, unpadded

TOTAL = 30 * 60.0  # the course's clock, when the session does not say how much is left
BOOK_MOVES = 15
TIE = 1e-9


class _Timeout(Exception):
    pass


@dataclass
class AlphaBeta:
    """Seed 001's adaptive-depth alpha-beta with its opening line and critical modes."""

    min_depth: int = 2
    max_depth: int = 6
    huge_capture: int = 6  # stones captured at ply 1 that cap the depth at 3
    seed: int | None = None

    _depth: int = field(default=2, init=False)
    _line: list | None = field(default=None, init=False, repr=False)
    _disturbed: bool = field(default=False, init=False)
    _counter: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if not 1 <= self.min_depth <= self.max_depth:
            raise ValueError("need 1 <= min_depth <= max_depth")
        self._rng = random.Random(self.seed)
        self._depth = self.min_depth

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        start = time.monotonic()
        if state.is_terminal():
            return SearchResult(PASS)
        ply = self._ply(state)
        if ply == 0 or ply == 1:  # a new game: pick a line, leave the disturbed mode
            lines = [line for line in book.lines() if len(line) > ply]
            self._line = self._rng.choice(lines) if lines else None
            self._disturbed = False
            self._depth = self.min_depth
        if ply < BOOK_MOVES + 1:
            move = self._opening(state, ply)
            if move is not None:
                return SearchResult(move, 0.0, 0, 0, time.monotonic() - start)
        time_left = (context or Context()).time_left
        # a node budget makes the move reproducible: deepen to max_depth until the nodes run out
        depth = self.max_depth if budget.nodes else self._target_depth(time_left)
        move, value, reached, nodes = self._search(state, depth, budget.deadline - 0.01, budget.nodes)
        used = time.monotonic() - start
        self._adapt(used, state, time_left)
        return SearchResult(move, value, reached, nodes, used)

    # -- the seed's opening -------------------------------------------------------------------
    @staticmethod
    def _ply(state: State) -> int:
        return sum(1 for k in state.board if k) + sum(state.captures)

    def _opening(self, state: State, ply: int) -> int | None:
        if ply >= BOOK_MOVES:
            return random_move(state, self._rng) if self._disturbed else None
        if not self._disturbed and self._line is not None and ply < len(self._line):
            move = parse_point(self._line[ply], state.size) if state.size == 9 else None
            if move is not None and state.is_legal(move):
                return move
            self._disturbed = True
        return random_move(state, self._rng) if self._disturbed else None

    # -- depth control -------------------------------------------------------------------------
    def _target_depth(self, time_left: float | None) -> int:
        if time_left is not None and time_left < 10:
            return 1
        if time_left is not None and time_left < 60:
            return min(2, self.max_depth)
        return self._depth

    def _adapt(self, used: float, state: State, time_left: float | None) -> None:
        left = (time_left if time_left is not None else TOTAL) - used
        empties = state.board.count(0)
        if self._depth < self.max_depth and 2 * used * empties <= left:
            self._depth += 1
        elif self._depth > self.min_depth and used * empties > 1.5 * left:
            self._depth -= 1

    # -- the search ----------------------------------------------------------------------------
    def _search(self, state: State, depth: int, deadline: float,
                node_limit: int | None = None) -> tuple[int, float, int, int]:
        B, S = to_kernel(state)
        me = state.to_move
        size = state.size
        root = [padded(m, size) for m in state.legal_moves() if m != PASS]
        root = [p for p in root if not K.is_eye(B, S, p, me)]
        if not root:
            return PASS, 0.0, 0, 0
        caps = {p: K.captures_by(B, S, p, me) for p in root}
        if depth > 3 and max(caps.values()) >= self.huge_capture:
            depth = 3
        root.sort(key=lambda p: -caps[p])
        self._nodes = 0
        self._deadline = deadline
        self._node_limit = node_limit or 1 << 62
        self._me = me
        buf = np.empty((depth + 2, B.shape[1]), np.int64)
        best, best_value, reached = root[0], 0.0, 0
        for d in range(1, depth + 1):
            try:
                value, move = self._root(B, S, root, d, buf)
            except _Timeout:
                break
            best, best_value, reached = move, value, d
            root.remove(move)
            root.insert(0, move)
        return unpadded(best, size), best_value, reached, self._nodes

    def _root(self, B, S, root, depth, buf):
        alpha, best = -np.inf, root[0]
        for p in root:
            value = -self._negamax(B, S, p, depth - 1, -np.inf, -alpha, buf)
            if value > alpha:
                alpha, best = value, p
        return alpha, best

    def _negamax(self, B0, S0, move, depth, alpha, beta, buf) -> float:
        """The value, for the side to move after `move`, of playing `move` in (B0, S0)."""
        self._nodes += 1
        if self._nodes >= self._node_limit or (self._nodes & 255 == 0 and time.monotonic() > self._deadline):
            raise _Timeout
        B, S = B0.copy(), S0.copy()
        K.play(B, S, move)
        if depth == 0 or S[K.PASSES] >= 2:
            return self._evaluate(B, S)
        out = buf[depth]
        n = K.moves(B, S, out)
        if n == 0:
            return -self._negamax(B, S, PASS, depth - 1, -beta, -alpha, buf)
        c = S[K.TOMOVE]
        order = sorted(out[:n], key=lambda p: -K.captures_by(B, S, p, c))
        for p in order:
            value = -self._negamax(B, S, p, depth - 1, -beta, -alpha, buf)
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
        return alpha

    def _evaluate(self, B, S) -> float:
        """Seed 001: our stones plus our captures, and the tiny increasing tie-break; from the
        side to move's point of view (negamax)."""
        self._counter += 1
        me, you = self._me, 3 - self._me
        black, white = K.influence(B, S)
        territory = black - white
        if me == 2:
            territory = -territory
        value = (K.stones(B, S, me) + S[K.CAPB + me - 1] - K.stones(B, S, you) - S[K.CAPB + you - 1]
                 + territory + self._counter * TIE)
        return value if S[K.TOMOVE] == me else -value
