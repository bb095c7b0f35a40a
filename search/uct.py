"""A game-agnostic Monte-Carlo tree in numba: UCT with RAVE (AMAF) and priors, as in MoGo and
michi, for games whose moves, priors and playouts are numba kernels (Go and Hex).

A game hands its kernels to `Kernel` once, at import; the compiled search then runs whole
iterations (descent, expansion with priors, playout, back-up with AMAF) in compiled code, and
Python only checks the clock between chunks (`Kernel.search`).

The tree (`new_tree`) is preallocated arrays (a search allocates nothing, and keeping the tree
for the next move costs nothing):

* `V` float32[6, capacity]: VN visits, VW wins, PN/PW prior visits and prior wins, RN/RW
  AMAF (RAVE) visits and wins.  A node's statistics are those of the player who made the
  move that leads to it: a win is a win for that player.
* `I` int32[3, capacity]: IMOVE the move that leads to the node, ICHILD its first child
  (children are contiguous; -1 until it is expanded), INCHILD how many children it has.
  (Only the nodes in use are written, so only their pages take memory: see `new_tree`.)
* `meta` int64[2]: nodes in use, the root (0 in a new tree; `reroot` moves it down).

Moves are ints.  A move m >= 0 is a slot of the game's move space [0, space) (a point, a
cell) and AMAF tracks it; a negative move (Go's pass) is a move AMAF ignores.  Players are 1
and 2 and alternate at every move (a pass included); 0 stands for a draw.

# What a game supplies (`GameKernels`): six numba functions, each `@njit(cache=True)`

`pos` is the game's position, any numba value (typically a tuple of arrays, mutated in
place); `params` is a value the game wants in its kernels during a search (Go: komi and the
playout policy).  Both are passed to `Kernel.search` as they are.

* `to_move(pos) -> int`: the player to move, 1 or 2.
* `copy(pos) -> pos`: an independent copy (each iteration plays on one).
* `play(pos, move)`: play a move that `children` listed, in place.
* `is_over(pos) -> bool`: the game has ended (Go: two passes).  The tree never expands a
  finished position; it may be False for a finished game whose result more moves cannot
  change (Hex), at the cost of a deeper tree.
* `children(pos, params, mask, moves, prior) -> int`: the moves the tree may try here and
  their priors: write them to `moves[k]`, `prior[0, k]` (prior visits, > 0: the tree's win
  rate of a move is (wins + prior wins) / (visits + prior visits), so an unvisited move is
  ranked by its prior) and `prior[1, k]` (prior wins for the mover, 0 to the prior visits),
  and return how many (at most `moves.shape[0]`: space + 1 unless `Kernel.scratch` was told
  otherwise).  `mask` (uint8) is empty, except at the root when the caller passes one: then
  only moves m >= 0 with mask[m] != 0 may be listed (the full rules, e.g. Go's superko),
  negative moves as the game decides.  Zero moves makes the position a leaf, scored by
  `playout`.
* `playout(pos, params, amaf) -> float`: play the game out from `pos` (it may be finished
  already) and return what it is worth to player 1, from 0 to 1: 1.0 a win, 0.0 a loss, 0.5
  a draw, or between when the game grades a result by its margin (Go's `score_bonus`); the
  tree counts that share of a win for player 1 and the rest for player 2.  For each move
  m >= 0 it plays, set `amaf[m]` to its player if `amaf[m]` is still 0 (the tree has marked
  the moves played on the way down, so a move counts for the player who played it first), or
  to its player + 4 * (k + 1) for the playout's k-th move (from 0): then the policy's
  `distance` can weigh AMAF by how soon a move was played (the tree marks its own moves
  negative, -(player + 4 * (ply + 1))).
* `knowledge(pos, params, keep) -> int` (optional: `no_knowledge` by default): what deeper
  analysis proves about a position the search has come back to often (the policy's
  `know_visits`, 0: never asked).  KNOW_NONE: nothing; KNOW_WIN or KNOW_LOSS: the player to
  move wins or loses whatever happens (the node becomes a leaf with that result, and the move
  into it a sure win or loss for its mover); KNOW_KEEP: every move m >= 0 with keep[m] == 0
  (int8[space]) loses (those children get a prior of a billion lost visits).  It must be
  sound: the tree treats what it says as proven.  (MoHex computes its virtual connections the
  same way, at nodes with 256 visits.)

All randomness comes from numba's generator (`np.random` inside the kernels), one stream
per process that the game seeds; so a search with a fixed seed and an iteration cap is
reproducible.

# Compilation and numba's disk cache

`Kernel` builds, from one template, a search function whose calls to the game's kernels are
ordinary calls between compiled functions (so they are compiled and optimised together, as
if written in one module), named for the game and for a digest of the source files of the
game's kernels.  numba caches it on disk like any `cache=True` function: its cache entry is
stale when this file changes (numba's own check) or when a game kernel's file changes (a new
name).  (numba cannot cache a function that takes another compiled function as an argument:
a function type's identity changes in every process.)

This module never chooses numba's cache directory: the application does, by setting
`NUMBA_CACHE_DIR` before numba is first imported (bots: `bots.cache.configure_numba()`, which
each numba game package runs on import).  Without a directory in numba's configuration when
a function here is defined (the tree's kernels: at this module's import; a game's search: at
`Kernel(...)`), nothing is cached on disk and everything compiles at each start: never is a
cache written next to these sources.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
import re
import time
import types
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import njit

from .root import settled


def caching() -> bool:
    """Does numba cache to a directory the application chose (see the module docstring)?"""
    return bool(numba.config.CACHE_DIR)


CACHE = caching()  # for the tree's own kernels

VN, VW, PN, PW, RN, RW = range(6)  # rows of V
IMOVE, ICHILD, INCHILD = range(3)  # rows of I
NODES, ROOT = range(2)  # slots of meta

# michi's published tree policy: RAVE equivalence 3500, expansion after 8 visits
RAVE_EQUIV = 3500.0
EXPAND_VISITS = 8
KNOW_NONE, KNOW_WIN, KNOW_LOSS, KNOW_KEEP = range(4)  # the answers of a game's `knowledge`
PROVEN_WIN, PROVEN_LOSS = -2, -3  # I[ICHILD] of a proven leaf: the player to move there wins / loses
SURE_VISITS = 1e9  # the prior visits of a move known to lose (or, all won, to win)
CHUNK = 128  # iterations between clock checks (a few ms)
SURE = 0.95  # early stop: the most visited move wins more than this ...
SHARE = 0.2  # ... with this share of the expected iterations done
CAPACITY = 8_000_000  # the players' tree room, in nodes: 288 MB at most, taken as it fills (new_tree)
REUSE_NODES = 900_000  # a tree kept for the next move holds fewer nodes than this (32 MB)


class Tree(NamedTuple):
    """The arrays of one tree (see the module docstring)."""

    V: np.ndarray
    I: np.ndarray  # noqa: E741
    meta: np.ndarray


def new_tree(capacity: int) -> Tree:
    """An empty tree of room for `capacity` nodes: just the root, unexpanded.  A node takes 36
    bytes, but only once it is used: the arrays are zeroed pages the system maps as the tree
    grows into them, so a large capacity costs memory only when a long search fills it."""
    V = np.zeros((6, capacity), np.float32)
    I = np.zeros((3, capacity), np.int32)  # noqa: E741
    I[ICHILD, 0] = -1
    I[IMOVE, 0] = -1
    meta = np.zeros(2, np.int64)
    meta[NODES] = 1
    return Tree(V, I, meta)


class Scratch(NamedTuple):
    """Work arrays of one search, allocated once per search (see `Kernel.scratch`)."""

    path: np.ndarray  # int32: the nodes of one descent
    amaf: np.ndarray  # int32[space]: who played each move first in one iteration, and when
    moves: np.ndarray  # int32: `children` output
    prior: np.ndarray  # float32[2, len(moves)]: `children` output
    keep: np.ndarray  # int8[space]: `knowledge` output


@njit(cache=CACHE)
def no_knowledge(pos: Any, params: Any, keep: np.ndarray) -> int:
    """The default `knowledge`: nothing is ever proven."""
    return KNOW_NONE


class GameKernels(NamedTuple):
    """A game's numba kernels for the tree (see the module docstring for each contract)."""

    to_move: Any
    copy: Any
    play: Any
    is_over: Any
    children: Any
    playout: Any
    knowledge: Any = no_knowledge


# -- numba's random generator: one stream per process, shared by every game's kernels --------------

@njit(cache=CACHE)
def seed(value: int) -> None:
    """Seed the generator every kernel draws from (np.random inside njit code)."""
    np.random.seed(value)


@njit(cache=CACHE)
def _draw_seed() -> int:
    return np.random.randint(0, 2 ** 31 - 1)


@contextmanager
def seeded(value: int) -> Iterator[None]:
    """Run a block with the generator seeded with `value` (0 <= value < 2**32), then resume the
    interrupted stream, reseeded from one draw of it: a search's own seeding stays
    reproducible, and no two processes' streams are made alike by the block's seed."""
    resume = _draw_seed()
    seed(value)
    try:
        yield
    finally:
        seed(resume)


# -- the tree's own kernels ------------------------------------------------------------------

@njit(cache=CACHE)
def select(V: np.ndarray, I: np.ndarray, node: int, rave_equiv: float) -> int:
    """The child of `node` with the highest RAVE-blended win rate (ties broken at random)."""
    first = I[ICHILD, node]
    n = I[INCHILD, node]
    best = -1
    best_u = -1.0
    offset = np.random.randint(n)
    for j in range(n):
        ch = first + (j + offset) % n
        v = V[VN, ch] + V[PN, ch]
        u = (V[VW, ch] + V[PW, ch]) / v
        av = V[RN, ch]
        if av > 0:
            beta = av / (av + v + v * av / rave_equiv)
            u = beta * (V[RW, ch] / av) + (1.0 - beta) * u
        if u > best_u:
            best_u = u
            best = ch
    return best


@njit(cache=CACHE)
def attach(V: np.ndarray, I: np.ndarray, meta: np.ndarray, node: int, moves: np.ndarray, prior: np.ndarray,
           n: int) -> bool:
    """Give `node` the children moves[:n] with their priors; False (nothing done) when the
    tree has no room for them."""
    start = meta[NODES]
    if start + n >= V.shape[1]:
        return False
    for j in range(n):
        k = start + j
        I[IMOVE, k] = moves[j]
        I[ICHILD, k] = -1
        I[INCHILD, k] = 0
        V[VN, k] = 0.0
        V[VW, k] = 0.0
        V[PN, k] = prior[0, j]
        V[PW, k] = prior[1, j]
        V[RN, k] = 0.0
        V[RW, k] = 0.0
    I[ICHILD, node] = start
    I[INCHILD, node] = n
    meta[NODES] = start + n
    return True


@njit(cache=CACHE)
def backup(V: np.ndarray, I: np.ndarray, path: np.ndarray, depth: int, first: int, reward: float,
           amaf: np.ndarray, distance: float = 0.0) -> None:
    """Count one playout worth `reward` to player 1 (1 - reward to player 2) along
    path[:depth + 1] (path[0] is the root, where player `first` was to move), and AMAF: every
    sibling along the path whose move its mover played later in the iteration counts it too
    (amaf's marks, see `playout`).  With `distance` > 0 and a playout that marks when it
    played, a move played soon after the sibling's turn counts more, as in Pachi: weight
    1 + distance * (L - ply) / (L - i + 1), the move played at `ply` of the iteration's L,
    the sibling's turn at ply i."""
    mover = first
    for i in range(1, depth + 1):
        ch = path[i]
        V[VN, ch] += 1.0
        V[VW, ch] += reward if mover == 1 else 1.0 - reward
        mover = 3 - mover
    V[VN, path[0]] += 1.0
    length = depth
    if distance > 0.0:
        for m in range(amaf.shape[0]):
            if amaf[m] > 3:
                length = max(length, depth + (amaf[m] >> 2))
    mover = first
    for i in range(depth + 1):
        parent = path[i]
        start = I[ICHILD, parent]
        gain = reward if mover == 1 else 1.0 - reward
        for j in range(I[INCHILD, parent]):
            ch = start + j
            m = I[IMOVE, ch]
            if m < 0:
                continue
            mark = amaf[m]
            if mark < 0:  # the tree's own move, at ply (mark >> 2) - 1
                mark = -mark
                ply = (mark >> 2) - 1
            else:  # the playout's, at ply depth + (mark >> 2) - 1 when it said (else -1: unknown)
                ply = depth + (mark >> 2) - 1 if mark > 3 else -1
            if mark & 3 != mover:
                continue
            weight = 1.0
            if distance > 0.0 and ply >= 0:
                weight += distance * (length - ply) / (length - i + 1)
            V[RN, ch] += weight
            V[RW, ch] += weight * gain
        mover = 3 - mover


@njit(cache=CACHE)
def child_of(I: np.ndarray, node: int, move: int) -> int:
    """The child of `node` reached by `move`, or -1."""
    first: int = I[ICHILD, node]
    for j in range(I[INCHILD, node]):
        if I[IMOVE, first + j] == move:
            return first + j
    return -1


@njit(cache=CACHE)
def learn(V: np.ndarray, I: np.ndarray, node: int, known: int, keep: np.ndarray) -> None:
    """Apply what `knowledge` said about `node` (see the module docstring): a proven node
    loses its children and becomes a leaf whose result is known; KNOW_KEEP rules out the
    children whose move is not kept."""
    if known == KNOW_WIN or known == KNOW_LOSS:
        I[INCHILD, node] = 0
        I[ICHILD, node] = PROVEN_WIN if known == KNOW_WIN else PROVEN_LOSS
        V[PN, node] += SURE_VISITS  # its mover's result, sure: a loss when the player to move wins
        if known == KNOW_LOSS:
            V[PW, node] += SURE_VISITS
    elif known == KNOW_KEEP:
        first = I[ICHILD, node]
        for j in range(I[INCHILD, node]):
            m = I[IMOVE, first + j]
            if m >= 0 and keep[m] == 0:
                V[PN, first + j] += SURE_VISITS


# -- the search: one template, specialised for each game ----------------------------------------

# The game's kernels, as `_run` calls them: `specialise` binds them in each game's copy.
_TO_MOVE: Any
_COPY: Any
_PLAY: Any
_IS_OVER: Any
_CHILDREN: Any
_PLAYOUT: Any
_KNOWLEDGE: Any
_TO_MOVE = _COPY = _PLAY = _IS_OVER = _CHILDREN = _PLAYOUT = _KNOWLEDGE = None


def _run(V: np.ndarray, I: np.ndarray, meta: np.ndarray, pos0: Any, params: Any, mask: np.ndarray, count: int,
         policy: tuple[float, float, float, float], path: np.ndarray, amaf: np.ndarray, moves: np.ndarray,
         prior: np.ndarray, keep: np.ndarray) -> int:
    """`count` iterations from the root (fewer if the tree fills up); returns how many were
    done.  `policy` is (expansion visits, RAVE equivalence, knowledge visits: 0 for none, AMAF's
    distance weight: 0 for none, see `backup`).
    The names _TO_MOVE, _COPY, _PLAY, _IS_OVER, _CHILDREN, _PLAYOUT and _KNOWLEDGE are the
    game's kernels (see `Kernel`)."""
    expand_visits, rave_equiv, know_visits, distance = policy
    empty_mask = mask[:0]
    root = meta[ROOT]
    first = _TO_MOVE(pos0)
    deepest = path.shape[0] - 1
    for done in range(count):
        pos = _COPY(pos0)
        amaf[:] = 0
        node = root
        depth = 0
        path[0] = root
        mover = first
        known = -1.0  # a proven leaf's result for player 1, instead of a playout
        while True:  # descend, expanding the first node that has enough visits
            if I[INCHILD, node] == 0:
                if I[ICHILD, node] <= PROVEN_WIN:
                    winner = mover if I[ICHILD, node] == PROVEN_WIN else 3 - mover
                    known = 1.0 if winner == 1 else 0.0
                    break
                if _IS_OVER(pos):
                    break
                if node != root and V[VN, node] < expand_visits:
                    break
                n = _CHILDREN(pos, params, mask if node == root else empty_mask, moves, prior)
                if n == 0:
                    break
                if not attach(V, I, meta, node, moves, prior, n):
                    return done
            node = select(V, I, node, rave_equiv)
            m = I[IMOVE, node]
            if m >= 0 and amaf[m] == 0:
                amaf[m] = -(mover + 4 * (depth + 1))
            _PLAY(pos, m)
            mover = 3 - mover
            depth += 1
            path[depth] = node
            if know_visits > 0.0 and V[VN, node] == know_visits and I[INCHILD, node] > 0:
                learn(V, I, node, _KNOWLEDGE(pos, params, keep), keep)
            if depth == deepest or _IS_OVER(pos):
                break
        backup(V, I, path, depth, first, known if known >= 0.0 else _PLAYOUT(pos, params, amaf), amaf,
               distance)
    return count


def _digest(game: GameKernels) -> str:
    """A digest of the source files that hold the game's kernels."""
    h = hashlib.sha256()
    for path in sorted({inspect.getfile(getattr(f, "py_func", f)) for f in game}):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def specialise(game: GameKernels, name: str) -> Any:
    """The compiled search (`_run`) calling `game`'s kernels; cached on disk if `caching()`."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"a kernel name must be an identifier, not {name!r}")
    scope = dict(globals())
    scope.update(_TO_MOVE=game.to_move, _COPY=game.copy, _PLAY=game.play, _IS_OVER=game.is_over,
                 _CHILDREN=game.children, _PLAYOUT=game.playout, _KNOWLEDGE=game.knowledge)
    fn = types.FunctionType(_run.__code__, scope, "run")
    fn.__doc__ = _run.__doc__
    fn.__qualname__ = f"run_{name}_{_digest(game)}"  # numba's cache file name (see the docstring)
    return njit(cache=caching())(fn)


class Kernel:
    """One game's compiled search and the Python side every player shares: iterations in
    chunks against a deadline, an iteration cap and the early stop.

    `Kernel(game, name)` is built once, at the import of the game's kernel module (it compiles
    nothing yet; the first search compiles or loads from the disk cache, so a game warms it
    in the worker pool's initializer).  `name` (an identifier) tells games apart in the cache.
    `expand_visits` and `rave_equiv` are the tree policy (michi's values by default), and
    `know_visits` the visits at which a node asks the game's `knowledge` (0: never).
    """

    def __init__(self, game: GameKernels, name: str, expand_visits: int = EXPAND_VISITS,
                 rave_equiv: float = RAVE_EQUIV, know_visits: int = 0) -> None:
        self.game = game
        self.name = name
        self.run = specialise(game, name)
        self.policy = (float(expand_visits), float(rave_equiv), float(know_visits), 0.0)

    @staticmethod
    def scratch(space: int, branching: int | None = None, depth: int | None = None) -> Scratch:
        """Work arrays for positions whose moves are < `space`: up to `branching` children
        (space + 1 by default: each slot and one negative move) and descents of up to `depth`
        moves (4 * space + 7 by default; a deeper descent stops there and plays out)."""
        branching = space + 1 if branching is None else branching
        depth = 4 * space + 7 if depth is None else depth
        return Scratch(np.empty(depth + 1, np.int32), np.zeros(space, np.int32),
                       np.empty(branching, np.int32), np.zeros((2, branching), np.float32),
                       np.zeros(space, np.int8))

    def search(self, tree: Tree, pos: Any, params: Any, mask: np.ndarray, scratch: Scratch, deadline: float,
               limit: int | None = None, early_stop: bool = True, chunk: int = CHUNK,
               sure: float | None = SURE, share: float = SHARE,
               policy: tuple[float, float, float, float] | None = None) -> tuple[int, bool]:
        """Iterate from the tree's root (the position `pos`) until the next chunk could run past
        `deadline` (if it took as long as the longest chunk yet), `limit` iterations are done,
        or (with `early_stop`, after 4 chunks) the choice is made (`stopped`).  Returns
        (iterations done, whether the tree filled up: then the caller should start a new tree
        next time).  `mask` restricts the root's moves (see `children`; an empty uint8 array
        for none).  `policy` (expansion visits, RAVE equivalence, knowledge visits, AMAF distance) replaces
        the kernel's own for this search.  The statistics go on from those already in the
        tree (see `reroot`)."""
        V, I, meta = tree
        run = self.run
        if policy is None:
            policy = self.policy
        else:
            expand, rave, know, distance = policy
            policy = (float(expand), float(rave), float(know), float(distance))
        done = 0
        began = now = time.monotonic()
        worst = 0.0  # the longest a chunk has taken: no chunk starts that could end past the deadline
        while True:
            if now + worst >= deadline or (limit is not None and done >= limit):
                return done, False
            n = chunk if limit is None else min(chunk, limit - done)
            got = run(V, I, meta, pos, params, mask, n, policy, *scratch)
            after = time.monotonic()
            worst, now = max(worst, after - now), after
            done += got
            if got < n:
                return done, True
            if early_stop and done >= 4 * chunk and stopped(tree, done, now - began, deadline - now, sure, share):
                return done, False

    def expand(self, tree: Tree, node: int, pos: Any, params: Any, mask: np.ndarray, scratch: Scratch) -> bool:
        """Give `node` (at position `pos`) its children as an iteration would, if it has none;
        False when it cannot (the tree is full or the position has no moves)."""
        V, I, meta = tree
        if I[INCHILD, node]:
            return True
        n = self.game.children(pos, params, mask, scratch.moves, scratch.prior)
        return bool(n) and bool(attach(V, I, meta, node, scratch.moves, scratch.prior, n))


# -- reading and reusing the tree (Python) --------------------------------------------------------

def root(tree: Tree) -> int:
    return int(tree.meta[ROOT])


def children(tree: Tree, node: int) -> range:
    """The node indices of `node`'s children."""
    first = int(tree.I[ICHILD, node])
    return range(first, first + int(tree.I[INCHILD, node]))


def stopped(tree: Tree, done: int, elapsed: float, left: float, sure: float | None = SURE,
            share: float = SHARE) -> bool:
    """The early stop (search.root.settled) on the root's statistics, `done` iterations run
    in `elapsed` seconds and `left` seconds to go."""
    V, I, meta = tree
    node = int(meta[ROOT])
    first = int(I[ICHILD, node])
    last = first + int(I[INCHILD, node])
    rate = done / max(elapsed, 1e-6)
    return settled(V[VN, first:last], rate * left, V[VW, first:last], done, sure, share)


def root_votes(tree: Tree) -> list[tuple[int, int]]:
    """(move, visits) of every visited root move, in the tree's order."""
    V, I = tree.V, tree.I
    return [(int(I[IMOVE, ch]), int(V[VN, ch])) for ch in children(tree, root(tree)) if V[VN, ch] > 0]


def value(tree: Tree, node: int, default: float = 0.5) -> float:
    """The win rate of the player who moved into `node` (`default` before any visit)."""
    n = tree.V[VN, node]
    return float(tree.V[VW, node] / n) if n else default


def restrict_root(tree: Tree, mask: np.ndarray) -> None:
    """Keep the search off the root moves m >= 0 with mask[m] == 0 (for a reused root, whose
    children were listed without the caller's mask): a prior of a billion lost visits."""
    V, I = tree.V, tree.I
    if not mask.shape[0]:
        return
    for ch in children(tree, root(tree)):
        m = I[IMOVE, ch]
        if m >= 0 and not mask[m]:
            V[PN, ch] += 1e9


def reroot(tree: Tree, moves: Iterable[int], max_fill: float = 0.6, max_nodes: int = REUSE_NODES) -> bool:
    """Tree reuse: make the node reached from the root by `moves` the new root, if the tree has
    it, is less than `max_fill` full (a fuller tree would soon have no room left) and holds
    fewer than `max_nodes` nodes (the memory a kept tree may hold on to between moves); False
    (nothing changed) otherwise.  The rest of the old tree stays allocated but unused."""
    V, I, meta = tree
    if meta[NODES] >= min(max_fill * V.shape[1], max_nodes):
        return False
    node = int(meta[ROOT])
    for move in moves:
        node = int(child_of(I, node, move))
        if node < 0:
            return False
    meta[ROOT] = node
    if I[ICHILD, node] <= PROVEN_WIN:  # a proven leaf: the root must list its moves again
        I[ICHILD, node] = -1
    return True
