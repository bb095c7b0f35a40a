"""The `mcts` Go player: UCT with RAVE and priors over the numba kernels (bots.go.kernel).

One search: the root is the State (its moves filtered by the full rules, superko included),
iterations run in chunks until the deadline, a node limit or an early stop (the most
visited move can no longer be overtaken in the time left, or it wins almost surely), and
the most visited legal move is played.  The tree is kept between moves: when the new
State is the old root followed by our move and one reply, that grandchild becomes the
root.  Several worker processes search the same State independently (root parallelism);
`choose` returns its root visit counts in `SearchResult.votes` and the caller adds them up.

Passing: a pass ends the game after the opponent's pass, so when the opponent has just
passed and the board as it stands (dead stones count as alive) wins for us, we pass at
once.  Otherwise PASS is one more root move with a losing prior, and the playouts (which
play on until only eyes are left) score it honestly; so the player captures dead stones
and fills its own area before passing, as CGOS, the course referee and GNU Go's
--capture-all-dead rules require.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

import numpy as np

from search.budget import Budget, SearchResult

from . import book, kernel as K
from .board import PASS, State
from .fallback import random_move
from .kernel import padded, to_kernel, unpadded  # also imported from here by the tests

CHUNK = 128  # iterations between clock checks (a few ms)
SAFETY = 0.01  # seconds kept back from the deadline for the return trip


def two_moves_between(before: State, after: State) -> tuple[int, int] | None:
    """The moves (ours, theirs) that lead from `before` to `after`, or None if no two do.
    (Our move is found on the board, theirs is `after.last`; the merged vote of several
    workers may not be the move this worker preferred, so it is not remembered.)"""
    if before.size != after.size or after.to_move != before.to_move or after.last is None:
        return None
    me = before.to_move
    ours = [p for p in range(len(after.board)) if after.board[p] == me and not before.board[p]]
    for m1 in ours or [PASS]:
        if not before.is_legal(m1):
            continue
        mid = before.play(m1)
        if not mid.is_legal(after.last):
            continue
        nxt = mid.play(after.last)
        if nxt.board == after.board and nxt.passes == after.passes and nxt.ko == after.ko:
            return m1, after.last
    return None


@dataclass
class MCTS:
    """UCT + RAVE + priors, heavy playouts, tree reuse, early stop, book openings."""

    playouts: int | None = None  # a cap on iterations per move (None: the clock decides)
    heavy: bool = True  # playouts answer the last move and avoid self-atari
    use_book: bool = True
    reuse: bool = True
    early_stop: bool = True
    capacity: int = 1_500_000  # tree nodes (about 40 bytes each)
    seed: int | None = None
    parallel = True  # workers may search the same State; their votes are added up

    _tree: tuple | None = field(default=None, init=False, repr=False)
    _root_state: State | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.capacity < 10_000:
            raise ValueError("capacity must be at least 10000 nodes")
        K.seed(self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "little"))

    # -- the search -----------------------------------------------------------------------
    def choose(self, state: State, context: dict | None, budget: Budget) -> SearchResult:
        start = time.monotonic()
        if state.is_terminal():
            return SearchResult(PASS)
        if state.passes == 1 and self._wins_now(state):
            return SearchResult(PASS, 1.0, 0, 0, time.monotonic() - start)
        if self.use_book:
            move = book.lookup(state)
            if move is not None:
                return SearchResult(move, 0.5, 0, 0, time.monotonic() - start, ((move, 1),))
        V, I, meta = self._root_for(state)
        size = state.size
        legal = state.legal_moves()
        mask = np.zeros((size + 2) ** 2, np.uint8)
        for m in legal:
            if m != PASS:
                mask[padded(m, size)] = 1
        root = int(meta[1])
        if I[K.INCHILD, root]:  # a reused root: forbid the children the full rules forbid
            first = I[K.ICHILD, root]
            for ch in range(first, first + I[K.INCHILD, root]):
                p = I[K.IMOVE, ch]
                if p >= 0 and not mask[p]:
                    V[K.PN, ch] += 1e9
        B, S = to_kernel(state)
        deadline = budget.deadline - SAFETY
        limit = self.playouts if self.playouts is not None else budget.nodes
        done = 0
        began = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= deadline or (limit is not None and done >= limit):
                break
            n = CHUNK if limit is None else min(CHUNK, limit - done)
            got = K.run(V, I, meta, B, S, state.komi, self.heavy, mask, n)
            done += got
            if got < n:  # the tree is full: start afresh next time
                self._tree = None
                break
            if self.early_stop and done >= 4 * CHUNK and self._settled(V, I, root, done, now - began, deadline - now):
                break
        votes = self._votes(V, I, root, size, set(legal))
        if not votes:  # no playout finished (a tiny budget): the move the priors like best
            move, value = self._by_prior(V, I, meta, root, B, S, mask, state, legal), 0.5
        else:
            move = max(votes, key=lambda mv: mv[1])[0]
            ch = K.child_of(I, root, padded(move, size))
            value = float(V[K.VW, ch] / V[K.VN, ch]) if V[K.VN, ch] else 0.5
        return SearchResult(move, value, 0, done, time.monotonic() - start, tuple(votes))

    def _wins_now(self, state: State) -> bool:
        s = state.score()
        return s > 0 if state.to_move == 1 else s < 0

    def _root_for(self, state: State):
        """The tree for `state`: the old one re-rooted if it leads here, else a new one."""
        old, self._root_state = self._root_state, state
        if self.reuse and self._tree is not None and old is not None and old.komi == state.komi:
            moves = two_moves_between(old, state)
            if moves is not None:
                V, I, meta = self._tree
                mine = K.child_of(I, int(meta[1]), padded(moves[0], state.size))
                node = K.child_of(I, mine, padded(moves[1], state.size)) if mine >= 0 else -1
                if node >= 0 and meta[0] < 0.6 * V.shape[1]:
                    meta[1] = node
                    return self._tree
        self._tree = K.new_tree(self.capacity)
        return self._tree

    def _settled(self, V, I, root, done, elapsed, left) -> bool:
        """Stop early when the most visited move cannot be overtaken in the time left, or
        when it wins almost surely (over 95%) with a fifth of the expected work done."""
        first = I[K.ICHILD, root]
        visits = V[K.VN, first:first + I[K.INCHILD, root]]
        if visits.shape[0] < 2:
            return True
        top2 = np.partition(visits, -2)[-2:]
        rate = done / max(elapsed, 1e-6)
        if top2[1] - top2[0] > rate * left:
            return True
        best = first + int(np.argmax(visits))
        return bool(V[K.VN, best] > 0 and V[K.VW, best] / V[K.VN, best] > 0.95
                    and done > 0.2 * (done + rate * left))

    @staticmethod
    def _by_prior(V, I, meta, root, B, S, mask, state: State, legal: list) -> int:
        """The root child its priors like best (captures, escapes, patterns, nearness to the last
        move: the most prior wins, then the best prior rate); the root is expanded for it if
        no iteration did; a random non-eye move if even that cannot be done."""
        if not I[K.INCHILD, root]:
            K.expand(V, I, meta, root, B, S, mask)
        first = I[K.ICHILD, root]
        scored = [((V[K.PW, ch], (V[K.PW, ch] + 1.0) / (V[K.PN, ch] + 2.0)),
                   unpadded(int(I[K.IMOVE, ch]), state.size)) for ch in range(first, first + I[K.INCHILD, root])]
        allowed = set(legal)
        scored = [(score, move) for score, move in scored if move in allowed and move != PASS]
        if scored:
            return max(scored)[1]
        return random_move(state, random.Random(state.key()))

    def _votes(self, V, I, root, size, legal: set) -> list[tuple[int, int]]:
        first = I[K.ICHILD, root]
        out = []
        for ch in range(first, first + I[K.INCHILD, root]):
            move = unpadded(int(I[K.IMOVE, ch]), size)
            if move in legal and V[K.VN, ch] > 0:
                out.append((move, int(V[K.VN, ch])))
        return out

