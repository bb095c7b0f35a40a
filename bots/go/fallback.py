"""The Go fallback move: a uniformly random legal move that fills none of our own eyes.

Every Go session computes one before it asks a worker for a search (it is sent if the search
is late or fails), the `random` player plays it, and the `alphabeta` and `mcts` players fall
back on it.  It runs on the numba kernel's board (bots/go/kernel.py): the kernel picks a
random point that is legal by its fast test (suicide and simple ko) and is no own eye, and
the full rules (`State.is_legal`, superko included) confirm it.  `warm()` loads these
kernels (compiling them if the disk cache is cold): the players' warm-up runs it in every
worker, and the GTP engine and the CGOS session run it in their own process before the
first move, so no move pays for it.

This module sits below the players (players, alphabeta and mcts import it; it imports only
the rules and the kernel), so none of them has to import another for it.
"""

from __future__ import annotations

import random

from . import kernel as K
from .board import PASS, State

TRIES = 4  # fast picks confirmed with the full rules before the full-rules draw


def random_move(state: State, rng: random.Random) -> int:
    """A uniformly random legal move that fills none of our own eyes; PASS when none is left.

    The kernel's random generator is seeded from `rng` (one draw) for the picks, so the
    same `rng` state gives the same move; its own stream resumes afterwards (`K.seeded`).
    The fast pick skips superko: each pick is confirmed with the full rules, and after
    TRIES refusals the move is drawn from `state.legal_moves()` instead.
    """
    B, S = K.to_kernel(state)
    c = state.to_move
    with K.seeded(rng.getrandbits(32)):
        for _ in range(TRIES):
            p = K.random_move(B, S, c, False)
            move = K.unpadded(p, state.size)
            if move == PASS or state.is_legal(move):
                return move
    size = state.size
    moves = [m for m in state.legal_moves() if m != PASS and not K.is_eye(B, S, K.padded(m, size), c)]
    return rng.choice(moves) if moves else PASS


def warm() -> None:
    """Load (or compile) the kernels `random_move` uses; a few hundred ms once per process."""
    from .board import empty

    state = empty(5).play(12)
    random_move(state, random.Random(0))
    B, S = K.to_kernel(state)
    K.is_eye(B, S, K.padded(0, state.size), state.to_move)  # the full-rules draw's eye test
