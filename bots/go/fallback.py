"""The Go fallback moves: the move the search's priors like best, and a uniformly random legal
move that fills none of our own eyes.

Every Go session computes a fallback move before it asks a worker for a search (it is sent if
the search is late or fails: the workers still starting, a game clock's last fractions of a
second): `prior_move`, the move the search would try first, which captures, saves a string
in atari, answers the last move and keeps shape (bots.go.kernel.children: the learned priors
on 9x9, michi's elsewhere).  The `random` player plays `random_move`, and the players fall
back on it.  Both run on the numba kernel's board (bots/go/kernel.py); the random pick is
legal by the kernel's fast test (suicide and simple ko), is no own eye, and is confirmed by
the full rules (`State.is_legal`, superko included).  `warm()` loads these kernels (compiling
them if the disk cache is cold): the players' warm-up runs it in every worker, and the GTP
engine, the CGOS session and the course drop-in run it in their own process in the
background.  Until it is done both are drawn with the rules alone (`State.legal_moves`, a plain
eye test; the priors' move by simple tactics): a first compile takes 20-40 s, and the fallback
is what a move asked for meanwhile gets (issue 28), so it must never wait for one.

This module sits below the players (players, alphabeta and mcts import it; it imports only
the rules, the kernel and the priors' table), so none of them has to import another for it.
"""

from __future__ import annotations

import random
import threading

import numpy as np

from . import gammas
from . import kernel as K
from .board import PASS, State, geometry

LOADED = threading.Event()  # set by warm(): the random move's kernels are in this process
PRIORS = threading.Event()  # set by warm(): the priors' kernels too

TRIES = 4  # fast picks confirmed with the full rules before the full-rules draw
PRIOR_WEIGHT = 20.0  # mcts's prior_weight (the order of the priors does not depend on it)


def random_move(state: State, rng: random.Random) -> int:
    """A uniformly random legal move that fills none of our own eyes; PASS when none is left.

    The kernel's random generator is seeded from `rng` (one draw) for the picks, so the
    same `rng` state gives the same move; its own stream resumes afterwards (`K.seeded`).
    The fast pick skips superko: each pick is confirmed with the full rules, and after
    TRIES refusals the move is drawn from `state.legal_moves()` instead.
    """
    return _by_the_kernels(state, rng) if LOADED.is_set() else _by_the_rules(state, rng)


def prior_move(state: State, rng: random.Random) -> int:
    """The legal move the search's priors like best with the `mcts` player's settings (the
    shipped learned priors on 9x9, michi's priors elsewhere; ladders read); while the kernels
    are not loaded, the move simple tactics like best (`_by_tactics`); PASS when nothing else
    is left."""
    if not PRIORS.is_set():
        return _by_tactics(state, rng)
    move = _by_priors(state)
    return move if move is not None else random_move(state, rng)


def _by_tactics(state: State, rng: random.Random) -> int:
    """Without the kernels, by the rules alone: the move that captures most, else one that
    takes a string of ours out of atari (to two liberties or more), else a random one that is
    no self-atari, on the third line or above if it can; never into a point whose every
    neighbour is ours (PASS when only those are left).  About 1 ms on 9x9."""
    me, size = state.to_move, state.size
    theirs_before = state.board.count(3 - me)
    rescues = {lib for p in state.stones(me) if len(libs := state.liberties(p)) == 1 for lib in libs}
    best, best_score = PASS, None
    for m in _no_own_eye(state):
        after = state.play(m)
        captured = theirs_before - after.board.count(3 - me)
        liberties = len(after.liberties(m))
        saved = liberties >= 2 and m in rescues  # the last liberty of a string of ours
        row, col = divmod(m, size)
        high = min(row, col, size - 1 - row, size - 1 - col) >= 2
        safe = captured > 0 or liberties >= 2  # no self-atari
        score = (captured, saved, safe, high, rng.random())
        if best_score is None or score > best_score:
            best, best_score = m, score
    return best


def _by_priors(state: State) -> int | None:
    table = gammas.shipped() if state.size == gammas.SIZE else gammas.NONE
    params = (state.komi, True, True, table.gammas, PRIOR_WEIGHT, table.shapes, True, 0.0)
    return best_by_priors(K.to_kernel(state), params, legal_mask(state.size, state.legal_moves()), state.size)


def legal_mask(size: int, legal: list[int]) -> np.ndarray:
    """The kernel's points (padded) of `legal`, the moves the full rules allow (the root mask
    of bots.go.kernel.children)."""
    mask = np.zeros((size + 2) ** 2, np.uint8)
    for m in legal:
        if m != PASS:
            mask[K.padded(m, size)] = 1
    return mask


def best_by_priors(pos, params, mask: np.ndarray, size: int) -> int | None:
    """Of the moves `mask` allows (bots.go.kernel.children, with a search's `params`), the one
    the priors like best: the most prior wins, then the best prior rate; None if only PASS."""
    scratch = K.SEARCH.scratch(mask.shape[0])
    n = K.children(pos, params, mask, scratch.moves, scratch.prior)
    visits, wins = scratch.prior
    scored = [((float(wins[i]), (float(wins[i]) + 1.0) / (float(visits[i]) + 2.0)), int(scratch.moves[i]))
              for i in range(n) if scratch.moves[i] != PASS]
    return K.unpadded(max(scored)[1], size) if scored else None


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
    moves = _no_own_eye(state)
    return rng.choice(moves) if moves else PASS


def _no_own_eye(state: State) -> list[int]:
    """The legal moves but PASS, by the rules alone, that fill no point whose every neighbour
    is ours (the plain eye test of the moves drawn without the kernels)."""
    board, me = state.board, state.to_move
    nbrs = geometry(state.size).neighbours
    return [m for m in state.legal_moves() if m != PASS and not all(board[n] == me for n in nbrs[m])]


def warm() -> None:
    """Load (or compile) the kernels `random_move` and `prior_move` use; once per process."""
    from .board import empty

    state = empty(5).play(12)
    _by_the_kernels(state, random.Random(0))
    B, S = K.to_kernel(state)
    K.is_eye(B, S, K.padded(0, state.size), state.to_move)  # the full-rules draw's eye test
    LOADED.set()
    for size in (gammas.SIZE, 5):  # the priors: learned, and michi's
        _by_priors(empty(size).play(12))
    PRIORS.set()
