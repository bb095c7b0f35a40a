"""The Go players, by name: random, alphabeta (seed 001), mcts (the strong engine), and
human (the person at this terminal, bots.go.human).

Every player takes an immutable `State` and a `Budget` and returns a `SearchResult` whose
move is legal on that State (a point or PASS).  `context` is a search.contracts.Context or
None; the field players read is `time_left` (seconds on our whole clock, when the session knows it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from search.budget import Budget, SearchResult
from search.contracts import Context, Player

from .alphabeta import AlphaBeta
from .board import State
from . import fallback
from .fallback import random_move  # also imported from here (decide, course, cgos_server)
from .human import Human
from .mcts import MCTS


@dataclass
class Random:
    """Uniformly random legal moves that never fill an own eye (so games end)."""

    seed: int | None = None

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        return SearchResult(random_move(state, self._rng), 0.0, 0, 1, 0.0)


PLAYERS: dict[str, type[Player]] = {"random": Random, "alphabeta": AlphaBeta, "mcts": MCTS, "human": Human}


def warm() -> None:
    """Compile (or load from the disk cache) every kernel the players use, the fallback move
    and the GTP engine's dead-stone playouts; the runner calls it in each worker at start, so
    no move pays for it."""
    import time

    import numpy as np

    from . import kernel as K
    from .board import empty

    state = empty(9)
    MCTS(capacity=10_000, use_book=False, seed=1).choose(state, None, Budget(10.0, nodes=200))
    MCTS(capacity=10_000, use_book=False, seed=1).choose(state, None, Budget(0.0))  # the priors' move
    AlphaBeta(seed=1)._search(state.play(40), 2, time.monotonic() + 10.0)
    fallback.warm()
    B, S = K.to_kernel(state.play(40))  # as bots.go.gtp_engine.dead_stones plays and reads them
    K.playout(B, S, state.komi, np.zeros(B.shape[1], np.int32), 3 * state.size ** 2, False, False, False)
    K.owners(B, S)
