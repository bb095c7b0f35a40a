"""The Go players, by name: random, alphabeta (seed 001), mcts (the strong engine).

Every player takes an immutable `State` and a `Budget` and returns a `SearchResult` whose
move is legal on that State (a point or PASS).  `context` is a dict or None; the key
players read is "time_left" (seconds on our whole clock, when the session knows it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from search.budget import Budget, SearchResult

from .board import PASS, Board, State
from .alphabeta import AlphaBeta
from .mcts import MCTS


def random_move(state: State, rng: random.Random) -> int:
    """A uniformly random legal move that fills none of our own eyes; PASS when none is left."""
    board = Board(state)
    for _ in range(4):  # the fast test skips superko: confirm with the full rules
        move = board.legal_random_move(rng)
        if move == PASS or state.is_legal(move):
            return move
    moves = [m for m in state.legal_moves() if m != PASS and not board.is_eye(m, state.to_move)]
    return rng.choice(moves) if moves else PASS


@dataclass
class Random:
    """Uniformly random legal moves that never fill an own eye (so games end)."""

    seed: int | None = None

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, state: State, context: dict | None, budget: Budget) -> SearchResult:
        return SearchResult(random_move(state, self._rng), 0.0, 0, 1, 0.0)


PLAYERS = {"random": Random, "alphabeta": AlphaBeta, "mcts": MCTS}


def warm() -> None:
    """Compile (or load from the disk cache) every kernel the players use; the runner calls
    it in each worker at start, so no move pays for it."""
    import time

    from .board import empty

    state = empty(9)
    MCTS(capacity=10_000, use_book=False, seed=1).choose(state, None, Budget(10.0, nodes=200))
    AlphaBeta(seed=1)._search(state.play(40), 2, time.monotonic() + 10.0)
