"""The `resistance` Hex player: Anshelevich's / Benzene's resistance evaluation
(docs/protocols/hex.md section 5.1)
under an iterative-deepening alpha-beta, the middle rung of the arena's ladder.

The evaluation (`analyse`, `evaluate`): for each colour, a resistor network between that
colour's two edges (two terminal nodes, at potentials 1 and 0); every cell is a node;
conductances between neighbours are empty-empty 1, own-empty 2 and own-own `BIG` (1000,
standing for Benzene's merging of a group into one node); an edge terminal counts as an own
stone; opponent stones are cut off (conductance 0).  With `bridges` (the default) two own
stones joined by a free bridge (both common neighbours empty), and an own stone on the second
line with both its edge cells empty (the edge template), are also joined, by `BRIDGE` (20):
a virtual connection in Hexy's spirit, weaker than a real one.  Every node leaks `EPS` to
ground so that cells cut off from both terminals leave the system solvable.  One Kirchhoff
solve per colour (a banded Cholesky factorisation compiled with numba, batched over many
positions) gives the current I from edge to edge (the resistance is R = 1/I) and every
cell's current.  The score from Black's side is log(R_white / R_black) = log(I_black /
I_white), a side with no chain left counting as I = `TINY`; the move ordering ranks empty
cells by their current in Black's network over Black's total plus the same for White.

Departures from Benzene: own stones are tied by a large conductance instead of being merged,
so an empty cell touching k stones of one group sees k parallel conductances of 2 where a
merged group would give one; the bridges above stand in for its virtual connections; no
inferior-cell knowledge.

The search (`Resistance`): a win in one, then the block of a loss in one (0-1 BFS: cells that
complete a chain), are played at once.  Otherwise the root's candidates are the `width` cells
with the most current (and the swap, when legal); iterative deepening from depth 1 to
`max_depth` plies; each interior node expands its `width` most important cells, evaluates
its children in one batch and searches them best-first with alpha-beta.  At every node a
side that can win at once scores a win, and a side facing one winning cell of the
opponent's may only block it (two or more: a loss).  The clock is checked before every
batch (with the last batch's duration as the margin, `MARGIN` kept back); the move of the
last completed depth is returned.

Known weaknesses: the plain resistance evaluation overrates the obtuse corners and the
second line on an empty board (its openings are near the edge, not in the centre); the
search is narrow (`width` cells by current) and shallow (3 plies by default), so ladders
and edge templates beyond the bridge are misjudged; no solver, no opening book.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from bots.cache import caching

CACHE = caching()  # compiled kernels go to the per-user cache (bots.cache), never into the package

from numba import njit  # noqa: E402  (after the cache directory is chosen)

from search.budget import Budget, SearchResult  # noqa: E402
from search.contracts import Context  # noqa: E402

from .board import BLACK, EMPTY, SWAP, WHITE, State, connected, neighbours  # noqa: E402
from .seed import _require_moves, edges, winning_cells  # noqa: E402

BIG = 1000.0
BRIDGE = 20.0  # a free bridge between two own stones, or an own stone to its edge (template)
EPS = 1e-7
TINY = 1e-4  # the least current: a side with no chain left (only the leaks carry current, at
# most n * EPS < 4e-5) gets this; any real chain carries at least 1/n > 2.7e-3 (n <= 361 cells)
WIN = 1.0e4  # a decided position, far above any log(I_black / I_white)
MARGIN = 0.01  # seconds kept back from the deadline


class _Timeout(Exception):
    pass


@dataclass(frozen=True)
class _Topology:
    n: int
    pu: np.ndarray  # neighbour pairs, each once (pu < pv)
    pv: np.ndarray
    inc: np.ndarray  # (n, 6): the pairs each cell belongs to, padded with `len(pu)` (a zero)
    ends: dict  # colour -> (start edge cells, goal edge cells) as arrays
    tables: dict  # colour -> (pair conductance 3x3 by cell values, terminal conductance by value)
    bridges: tuple  # (a, b, carrier1, carrier2) arrays: a and b share exactly two neighbours
    binc: np.ndarray  # (n, 6): the bridges each cell ends, padded like `inc`
    templates: dict  # colour -> ((cell, carrier1, carrier2) arrays at the start edge, the same at the goal)
    band: int  # the widest |a - b| of a neighbour pair or a bridge (the matrices' half-bandwidth)


def _incidence(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """(n, 6) indices of the links (a[i], b[i]) at each cell, padded with len(a): summing
    `_per_cell(values, index)` adds each link's value to both its cells without a matrix
    product (BLAS would start its threads for it)."""
    at = [[] for _ in range(n)]
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        at[x].append(i)
        at[y].append(i)
    out = np.full((n, max([6] + [len(row) for row in at])), len(a), dtype=np.intp)
    for c, row in enumerate(at):
        out[c, : len(row)] = row
    return out


def _per_cell(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(k, n): for each cell, the sum of `values` (k, links) over its links."""
    padded = np.concatenate([values, np.zeros((values.shape[0], 1))], axis=1)
    return padded[:, index].sum(axis=2)


@lru_cache(maxsize=32)
def _topology(width: int, height: int) -> _Topology:
    nbrs = neighbours(width, height)
    n = width * height
    pairs = [(c, m) for c in range(n) for m in nbrs[c] if m > c]
    pu = np.array([p[0] for p in pairs], dtype=np.intp)
    pv = np.array([p[1] for p in pairs], dtype=np.intp)
    inc = _incidence(pu, pv, n)
    ends, tables = {}, {}
    for colour in (BLACK, WHITE):
        start, goal = edges(width, height, colour)
        ends[colour] = (np.array(start, dtype=np.intp), np.array(goal, dtype=np.intp))
        opp = 3 - colour
        pair = np.zeros((3, 3))
        term = np.zeros(3)
        for a in range(3):
            term[a] = 0.0 if a == opp else BIG if a == colour else 2.0
            for b in range(3):
                if opp in (a, b):
                    pair[a, b] = 0.0
                elif a == colour and b == colour:
                    pair[a, b] = BIG
                elif colour in (a, b):
                    pair[a, b] = 2.0
                else:
                    pair[a, b] = 1.0
        tables[colour] = (pair, term)
    quads = {}  # (a, b) -> their two common neighbours, a < b, in a fixed order
    for a in range(n):
        for m in nbrs[a]:
            for b in nbrs[m]:
                if b > a and b not in nbrs[a] and (a, b) not in quads:
                    common = sorted(set(nbrs[a]) & set(nbrs[b]))
                    if len(common) == 2:
                        quads[a, b] = tuple(common)
    quads = [(a, b, *common) for (a, b), common in quads.items()]
    bridges = tuple(np.array([q[i] for q in quads], dtype=np.intp) for i in range(4))
    binc = _incidence(bridges[0], bridges[1], n)
    templates = {}
    for colour in (BLACK, WHITE):
        sides = []
        for edge in edges(width, height, colour):
            on = set(edge)
            rows = [(c, *[m for m in nbrs[c] if m in on]) for c in range(n) if c not in on]
            rows = [r for r in rows if len(r) == 3]  # two neighbours on the edge
            sides.append(tuple(np.array([r[i] for r in rows], dtype=np.intp) for i in range(3)))
        templates[colour] = tuple(sides)
    band = max([1] + [int(x) for x in pv - pu] + [int(x) for x in bridges[1] - bridges[0]])
    return _Topology(n, pu, pv, inc, ends, tables, bridges, binc, templates, band)


@njit(cache=CACHE)
def _band_solve(ab, rhs):  # pragma: no cover  (compiled)
    """Solve A x = rhs for each of k symmetric positive definite banded matrices given by their
    lower band, ab[t, i, d] = A[i, i - d] (d = 0..m), by Cholesky factorisation in place of a
    copy; single-threaded and O(n m^2) per matrix (LAPACK's dense solve is O(n^3) and starts
    OpenBLAS's threads, which stall for tens of milliseconds on a busy machine)."""
    k, n, m1 = ab.shape
    m = m1 - 1
    low = ab.copy()
    x = rhs.copy()
    for t in range(k):
        for j in range(n):
            s = low[t, j, 0]
            for d in range(1, min(j, m) + 1):
                s -= low[t, j, d] * low[t, j, d]
            ljj = np.sqrt(s)
            low[t, j, 0] = ljj
            for i in range(j + 1, min(n, j + m + 1)):
                s = low[t, i, i - j]
                for p in range(max(i - m, 0), j):
                    s -= low[t, i, i - p] * low[t, j, j - p]
                low[t, i, i - j] = s / ljj
        for i in range(n):  # L y = rhs
            s = x[t, i]
            for p in range(max(i - m, 0), i):
                s -= low[t, i, i - p] * x[t, p]
            x[t, i] = s / low[t, i, 0]
        for i in range(n - 1, -1, -1):  # L^T x = y
            s = x[t, i]
            for q in range(i + 1, min(n, i + m + 1)):
                s -= low[t, q, q - i] * x[t, q]
            x[t, i] = s / low[t, i, 0]
    return x


def _network(topo: _Topology, cells: np.ndarray, colour: int, bridges: bool) -> tuple[np.ndarray, np.ndarray]:
    """(total currents (k,), per-cell currents (k, n)) of `colour`'s networks for k boards
    (`cells`: (k, n) cell values), with the start edge at potential 1 and the goal edge at 0."""
    k, n = cells.shape
    pair, term = topo.tables[colour]
    start, goal = topo.ends[colour]
    cond = pair[cells[:, topo.pu], cells[:, topo.pv]]  # (k, pairs)
    cs = term[cells[:, start]]  # (k, |start|)
    cg = term[cells[:, goal]]
    deg = _per_cell(cond, topo.inc)
    deg[:, start] += cs
    deg[:, goal] += cg  # separately: on a one-row board a cell touches both edges
    ab = np.zeros((k, n, topo.band + 1))  # the lower band of the Kirchhoff matrix
    ab[:, topo.pv, topo.pv - topo.pu] = -cond
    rhs = np.zeros((k, n))
    rhs[:, start] = cs
    if bridges:
        ba, bb, c1, c2 = topo.bridges
        free = (cells[:, c1] == EMPTY) & (cells[:, c2] == EMPTY)
        cb = BRIDGE * ((cells[:, ba] == colour) & (cells[:, bb] == colour) & free)
        ab[:, bb, bb - ba] -= cb
        deg += _per_cell(cb, topo.binc)
        tied = []
        for (cell, e1, e2) in topo.templates[colour]:
            ct = BRIDGE * ((cells[:, cell] == colour) & (cells[:, e1] == EMPTY) & (cells[:, e2] == EMPTY))
            np.add.at(deg, (slice(None), cell), ct)
            tied.append(ct)
        np.add.at(rhs, (slice(None), topo.templates[colour][0][0]), tied[0])
    ab[:, :, 0] = deg + EPS
    v = _band_solve(ab, rhs)
    total = (cs * (1.0 - v[:, start])).sum(axis=1)
    flow = _per_cell(np.abs(v[:, topo.pu] - v[:, topo.pv]) * cond, topo.inc)
    flow[:, start] += cs * np.abs(1.0 - v[:, start])
    flow[:, goal] += cg * np.abs(v[:, goal])
    if bridges:
        flow += _per_cell(np.abs(v[:, ba] - v[:, bb]) * cb, topo.binc)
        (sc, _, _), (gc, _, _) = topo.templates[colour]
        total += (tied[0] * (1.0 - v[:, sc])).sum(axis=1)
        np.add.at(flow, (slice(None), sc), tied[0] * np.abs(1.0 - v[:, sc]))
        np.add.at(flow, (slice(None), gc), tied[1] * np.abs(v[:, gc]))
    return total, 0.5 * flow


def analyse(boards: list[bytes], width: int, height: int, bridges: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """For k boards of one size: (scores (k,), importance (k, n)).  scores[i] is board i's
    evaluation from Black's side, log(I_black / I_white) = log(R_white / R_black); importance[i]
    is each cell's current in Black's network over Black's total current plus the same for
    White (the move ordering; meaningful for empty cells)."""
    topo = _topology(width, height)
    cells = np.frombuffer(b"".join(boards), dtype=np.uint8).reshape(len(boards), topo.n).astype(np.intp)
    importance = np.zeros(cells.shape)
    totals = []
    for colour in (BLACK, WHITE):
        total, flow = _network(topo, cells, colour, bridges)
        live = total > TINY  # a side with no chain left: its leaks tell nothing
        importance[live] += flow[live] / total[live, None]
        totals.append(np.maximum(total, TINY))
    return np.log(totals[0] / totals[1]), importance


_warm = False


def warm() -> None:
    """Compile (or load from numba's disk cache) the solver once per process, so that no move
    pays for it; Resistance players call it when they are made, the registry's warm-up may
    call it in each worker."""
    global _warm
    if not _warm:
        analyse([bytes(9)], 3, 3)
        _warm = True


def evaluate(state: State, bridges: bool = True) -> float:
    """The resistance score of `state` from Black's side (positive: Black is better)."""
    return float(analyse([state.board], state.width, state.height, bridges)[0][0])


def ordered_cells(state: State, importance: np.ndarray, rng: random.Random | None = None) -> list[int]:
    """The empty cells of `state`, most important first (ties in random order with `rng`)."""
    cells = [c for c, v in enumerate(state.board) if v == EMPTY]
    if rng is not None:
        rng.shuffle(cells)
    return sorted(cells, key=lambda c: -importance[c])


@dataclass
class Resistance:
    """Iterative-deepening alpha-beta on the resistance evaluation (see the module doc).

    `max_depth`: plies searched at most; `width`: candidate cells per node (the most current);
    `bridges`: count free bridges and edge templates in the networks; `seed`: breaks ties
    among equally important cells.
    """

    max_depth: int = 3
    width: int = 10
    bridges: bool = True
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        if self.width < 1:
            raise ValueError("width must be at least 1")
        self._rng = random.Random(self.seed)
        warm()

    # -- the move --------------------------------------------------------------------------------
    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        _require_moves(state)
        self._deadline = budget.deadline - MARGIN
        self._nodes = 0
        self._batch = 0.0
        w, h, me = state.width, state.height, state.to_move
        wins = winning_cells(state.board, w, h, me)
        if wins:
            return SearchResult(self._rng.choice(wins), WIN, 1, 0, time.monotonic() - t0)
        threats = winning_cells(state.board, w, h, 3 - me)
        if len(threats) == 1:
            return SearchResult(threats[0], 0.0, 1, 0, time.monotonic() - t0)
        scores, importance = self._analyse([state], force=True)
        if threats:  # two or more: lost whatever we do; block the most important
            move = max(threats, key=lambda c: importance[0][c])
            return SearchResult(move, -WIN, 1, self._nodes, time.monotonic() - t0)
        order = ordered_cells(state, importance[0], self._rng)[: self.width]
        if state.swap_allowed():
            order.append(SWAP)
        best, value, reached = order[0], 0.0, 0
        for depth in range(1, self.max_depth + 1):
            try:
                value, order = self._root(state, order, depth)
            except _Timeout:
                break
            best, reached = order[0], depth
            if abs(value) >= WIN / 2:  # decided: deeper search cannot change it
                break
        return SearchResult(best, float(value), reached, self._nodes, time.monotonic() - t0)

    # -- the search ------------------------------------------------------------------------------
    def _analyse(self, states: list[State], force: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Batch evaluation, refused (_Timeout) when the last batch's duration would overrun the
        deadline, unless `force` (the root's own, which gives the fallback move)."""
        now = time.monotonic()
        if not force and now + self._batch > self._deadline:
            raise _Timeout
        out = analyse([s.board for s in states], states[0].width, states[0].height, self.bridges)
        self._batch = time.monotonic() - now
        self._nodes += len(states)
        return out

    def _children(self, state: State, moves: list[int]):
        """The children of `state` for `moves`, each with its value for the side that moved
        (WIN if the move joins its edges) and its importance row."""
        kids = [state.play(m) for m in moves]
        scores, importance = self._analyse(kids)
        mover = state.to_move
        values = []
        for kid, score in zip(kids, scores, strict=True):
            if connected(kid.width, kid.height, kid.board, mover):
                values.append(WIN)
            else:
                values.append(float(score) if mover == BLACK else -float(score))
        return kids, values, importance

    def _root(self, state: State, order: list[int], depth: int) -> tuple[float, list[int]]:
        """The value of the best root move at `depth` plies and the root moves reordered (best
        first, then the others by their static value)."""
        kids, values, importance = self._children(state, order)
        ranked = sorted(range(len(order)), key=lambda i: -values[i])
        if depth == 1:
            return values[ranked[0]], [order[i] for i in ranked]
        ranked.sort(key=lambda i: i != 0)  # the previous depth's best stays first
        alpha, best = -math.inf, ranked[0]
        for i in ranked:
            if values[i] >= WIN:
                v = WIN + depth
            else:
                v = -self._negamax(kids[i], importance[i], depth - 1, -math.inf, -alpha)
            if v > alpha:
                alpha, best = v, i
        rest = sorted((i for i in range(len(order)) if i != best), key=lambda i: -values[i])
        return alpha, [order[best]] + [order[i] for i in rest]

    def _negamax(self, state: State, importance: np.ndarray, depth: int, alpha: float, beta: float) -> float:
        """The value of `state` (not over) for its side to move, `depth` >= 1 plies deep."""
        w, h, me = state.width, state.height, state.to_move
        if winning_cells(state.board, w, h, me):
            return WIN + depth
        threats = winning_cells(state.board, w, h, 3 - me)
        if len(threats) > 1:
            return -(WIN + depth - 1)
        moves = threats or ordered_cells(state, importance)[: self.width]
        kids, values, imps = self._children(state, moves)
        if depth == 1:
            return max(values)
        best = -math.inf
        for i in sorted(range(len(moves)), key=lambda i: -values[i]):
            v = -self._negamax(kids[i], imps[i], depth - 1, -beta, -alpha)
            best = max(best, v)
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        return best
