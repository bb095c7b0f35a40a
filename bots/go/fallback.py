"""The Go fallback move: a uniformly random legal move that fills none of our own eyes.

Every Go session computes one before it asks a worker for a search (it is sent if the search
is late or fails), the `random` player plays it, and the `alphabeta` and `mcts` players fall
back on it.  It runs on the numba kernel's board (bots/go/kernel.py): the kernel picks a
random point that is legal by its fast test (suicide and simple ko) and is no own eye, and
the full rules (`State.is_legal`, superko included) confirm it.  `warm()` loads these
kernels (compiling them if the disk cache is cold): the players' warm-up runs it in every
worker, and the GTP engine, the CGOS session and the course drop-in run it in their own
process in the background.  Until it is done the move is drawn with the rules alone
(`State.legal_moves`, a plain eye test): a first compile takes 20-40 s, and the fallback is
what a move asked for meanwhile gets (issue 28), so it must never wait for one.

This module sits below the players (players, alphabeta and mcts import it; it imports only
the rules and the kernel), so none of them has to import another for it.
"""

from __future__ import annotations

import random
import threading

from . import kernel as K
from .board import PASS, State, geometry

LOADED = threading.Event()  # set by warm(): the kernels are in this process

TRIES = 4  # fast picks confirmed with the full rules before the full-rules draw


def random_move(state: State, rng: random.Random) -> int:
    """A uniformly random legal move that fills none of our own eyes; PASS when none is left.

    The kernel's random generator is seeded from `rng` (one draw) for the picks, so the
    same `rng` state gives the same move; its own stream resumes afterwards (`K.seeded`).
    The fast pick skips superko: each pick is confirmed with the full rules, and after
    TRIES refusals the move is drawn from `state.legal_moves()` instead.
    """
    return _by_the_kernels(state, rng) if LOADED.is_set() else _by_the_rules(state, rng)


def _by_the_kernels(state: State, rng: random.Random) -> int:
    B, S = K.to_kernel(state)
    c = state.to_move
    with K.seeded(rng.getrandbits(32)):
        for _ in range(TRIES):
            p = K.random_move(B, S, c, False, False)
            move = K.unpadded(p, state.size)
            if move == PASS or state.is_legal(move):
                return move
    size = state.size
    moves = [m for m in state.legal_moves() if m != PASS and not K.is_eye(B, S, K.padded(m, size), c)]
    return rng.choice(moves) if moves else PASS


def _by_the_rules(state: State, rng: random.Random) -> int:
    """`random_move` without the kernels: a random legal move, not into a point whose every
    neighbour is ours (PASS when only those are left)."""
    board, me = state.board, state.to_move
    nbrs = geometry(state.size).neighbours
    moves = [m for m in state.legal_moves() if m != PASS and not all(board[n] == me for n in nbrs[m])]
    return rng.choice(moves) if moves else PASS


def warm() -> None:
    """Load (or compile) the kernels `random_move` uses; a few hundred ms once per process."""
    from .board import empty

    state = empty(5).play(12)
    _by_the_kernels(state, random.Random(0))
    B, S = K.to_kernel(state)
    K.is_eye(B, S, K.padded(0, state.size), state.to_move)  # the full-rules draw's eye test
    LOADED.set()
