"""An exact Hex solver for positions with few empty cells (and for the small boards' first moves).

The position is reduced, once, to bitmasks over its empty cells (at most MAX_EMPTIES, cell i
of `empties` is bit i): for each colour c, `nbr[c][i]` is the set of empty cells that cell i
reaches in one step for c, directly or through a group of c's stones already on the board,
and `adjA[c]`, `adjB[c]` the empty cells next to c's first and second edge (through its
groups too).  A node of the search is then two bitmasks (the empty cells Black and White
have filled since), so a connection test is a closure over at most MAX_EMPTIES bits.

The search (numba) is a negamax over won/lost with:

* immediate wins: the side to move wins at once if a cell joins its edges (no search);
* the must-play reduction: if the opponent can join its edges at two cells we lose; at one
  cell, only that cell is tried (every other move loses at once);
* a transposition table (proven results and the winning move, keyed by both bitmasks);
* move ordering: the table's move first, then cells next to both players' edge-connected
  groups before the others, the centre before the sides;
* virtual connections (bots.hex.vc's H-search), at nodes with at least `vc_min` empty cells:
  the side to move wins if it holds a VC or a semi-connection between its edges, loses if the
  opponent holds a VC, and may play only in the intersection of the carriers of the
  opponent's semi-connections (every other move leaves one of them whole, and the opponent
  completes it).  Each rule is sound, so the search still proves only what is true; it
  proves it with far fewer nodes once connections decide the game, long before the edges
  are joined.

The search keeps its own stack (numba's disk cache cannot hold a recursive function: a
recursive function loaded from it crashes).

There are no draws in Hex and a full board has exactly one winner, so "won" and "lost" are
the only values.  The search stops at a node limit or a deadline (checked every 4096 nodes)
and then proves nothing.  The swap move (pie rule) is not in the bitmask search: `solve`
tries it on its own, from Python, where it is allowed.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from bots.cache import caching

CACHE = caching()  # compiled kernels go to the per-user cache (bots.cache), never into the package

from numba import njit, objmode  # noqa: E402  (after the cache directory is chosen)

from .board import BLACK, SWAP, WHITE, State, empty, neighbours  # noqa: E402
from .kernel import OFF, TOMOVE, padded, to_kernel  # noqa: E402
from .vc import hsearch  # noqa: E402

MAX_EMPTIES = 63  # bits of an int64 mask (bit 63 is the sign: unused)
TT_BITS = 20  # 2**20 entries (about 18 MB)
CHECK_EVERY = 4096  # nodes between deadline checks
DEFAULT_NODES = 2_000_000
VC_MIN = 12  # H-search at the nodes with at least this many empty cells (below, plain search is cheaper)
VC_WORK = 20_000  # ... of at most this many AND steps for each colour
NO_VC = MAX_EMPTIES + 1  # a vc_min that turns the H-search off

DEBRUIJN = 0x03F79D71B4CB0A89  # a de Bruijn sequence: lowest set bit -> bit index


def _ctz_table() -> np.ndarray:
    table = np.zeros(64, np.int64)
    for i in range(63):
        table[(((1 << i) * DEBRUIJN) & (2 ** 64 - 1)) >> 58] = i
    return table


CTZ = _ctz_table()
NODES, LIMIT, ABORTED, VCS = range(4)  # slots of the search's counters (VCS: H-searched nodes)


class Graph(NamedTuple):
    """A position reduced to bitmasks over its empty cells (see the module docstring)."""

    empties: list  # the State's cells, bit i = empties[i]
    nbr: np.ndarray  # int64[2, k]: one step for Black (row 0) and White (row 1)
    adj: np.ndarray  # int64[2, 2]: [colour - 1, 0] next to the first edge, [.., 1] the second
    order: np.ndarray  # int64[k]: the bits, centre first
    connected: int  # a colour that has joined its edges already, or 0


class Proof(NamedTuple):
    """What `solve` found: `winner` the colour that wins with best play (None: unproven),
    `move` a winning move for the side to move (None unless it wins), `nodes` searched."""

    winner: int | None
    move: int | None
    nodes: int


def reduce(state: State) -> Graph:
    """The bitmask graph of `state` (ValueError with more than MAX_EMPTIES empty cells)."""
    w, h = state.width, state.height
    board = state.board
    cells = w * h
    empties = [c for c in range(cells) if board[c] == 0]
    k = len(empties)
    if k > MAX_EMPTIES:
        raise ValueError(f"{k} empty cells: the solver takes at most {MAX_EMPTIES}")
    bit = {cell: i for i, cell in enumerate(empties)}
    nbrs = neighbours(w, h)
    nbr = np.zeros((2, max(k, 1)), np.int64)
    adj = np.zeros((2, 2), np.int64)
    connected = 0
    for colour in (BLACK, WHITE):
        a_node, b_node = cells, cells + 1  # the two edges as nodes of the union-find
        parent = list(range(cells + 2))

        def find(x: int, parent: list[int] = parent) -> int:  # this colour's union-find
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def sides(cell: int, colour: int = colour) -> tuple[bool, bool]:
            row, col = divmod(cell, w)
            if colour == BLACK:
                return row == 0, row == h - 1
            return col == 0, col == w - 1

        for cell in range(cells):
            if board[cell] != colour:
                continue
            on_a, on_b = sides(cell)
            if on_a:
                parent[find(cell)] = find(a_node)
            if on_b:
                parent[find(cell)] = find(b_node)
            for n in nbrs[cell]:
                if board[n] == colour:
                    parent[find(n)] = find(cell)
        if find(a_node) == find(b_node):
            connected = colour
        touching: dict[int, int] = {}  # group root -> the empty cells next to it
        groups_of = []
        for i, cell in enumerate(empties):
            on_a, on_b = sides(cell)
            groups = {find(n) for n in nbrs[cell] if board[n] == colour}
            if on_a:
                groups.add(find(a_node))
            if on_b:
                groups.add(find(b_node))
            groups_of.append(groups)
            for g in groups:
                touching[g] = touching.get(g, 0) | (1 << i)
        for i, cell in enumerate(empties):
            mask = 0
            for n in nbrs[cell]:
                if n in bit:
                    mask |= 1 << bit[n]
            for g in groups_of[i]:
                mask |= touching[g]
            nbr[colour - 1, i] = mask & ~(1 << i)
        adj[colour - 1, 0] = touching.get(find(a_node), 0)
        adj[colour - 1, 1] = touching.get(find(b_node), 0)
    # static order: the centre first (distance in the hex metric from the board's middle)
    def spread(cell: int) -> float:
        row, col = divmod(cell, w)
        dr, dc = row - (h - 1) / 2, col - (w - 1) / 2
        return max(abs(dr), abs(dc), abs(dr + dc))

    order = np.array(sorted(range(k), key=lambda i: (spread(empties[i]), i)), np.int64)
    return Graph(empties, nbr, adj, order, connected)


# -- the search (numba) ----------------------------------------------------------------------

@njit(cache=CACHE, inline="always")
def _low(x):
    """The index of the lowest set bit of x (x > 0)."""
    return CTZ[(((x & -x) * DEBRUIJN) >> 58) & 63]


@njit(cache=CACHE)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=CACHE)
def _reach(nbr, ci, start, stones):
    """The cells of `stones` reached from `start & stones` by c's steps, and every cell one
    step from them."""
    todo = start & stones
    reach = todo
    near = np.int64(0)
    while todo:
        i = _low(todo)
        todo &= todo - 1
        step = nbr[ci, i]
        near |= step
        new = step & stones & ~reach
        reach |= new
        todo |= new
    return reach, near


@njit(cache=CACHE)
def _threats(nbr, adj, ci, stones, free):
    """For colour ci + 1 with its `stones` (bits): (joined already, the free cells that join
    its edges at once, the cells next to its first-edge groups, ... second-edge groups)."""
    ra, near_a = _reach(nbr, ci, adj[ci, 0], stones)
    if ra & adj[ci, 1]:
        return True, np.int64(0), np.int64(0), np.int64(0)
    rb, near_b = _reach(nbr, ci, adj[ci, 1], stones)
    na = adj[ci, 0] | near_a
    nb = adj[ci, 1] | near_b
    return False, na & nb & free, na, nb


@njit(cache=CACHE)
def _slot(sb, sw, bits):
    h = (sb * np.int64(-7046029254386353131)) ^ (sw * np.int64(-4658895280553007687))
    return (h >> (64 - bits)) & ((1 << bits) - 1)


@njit(cache=CACHE)
def _connections(sb, sw, c, base, pcell, work):
    """H-search at the node (sb, sw filled, c to move) of the position `base` (a kernel
    position; bit i is its padded cell pcell[i]): (1, 0) if c holds a VC or a semi-connection
    between its edges, (-1, 0) if the opponent holds a VC or semi-connections whose carriers
    have no empty cell in common, else (2, the bits c may play: all, or the cells in every
    carrier of the opponent's semi-connections)."""
    pos = base.copy()
    k = pcell.shape[0]
    everything = np.int64(0)
    for i in range(k):
        m = np.int64(1) << i
        everything |= m
        if sb & m:
            pos[OFF + pcell[i]] = BLACK
        elif sw & m:
            pos[OFF + pcell[i]] = WHITE
    pos[TOMOVE] = c
    n, _, _, _, nvc, _, nsc = hsearch(pos, c, work, np.bool_(True))
    if n < 0 or nvc[1] or nsc[1]:  # pair (0, 1): the two edges
        return 1, np.int64(0)
    n, _, _, _, nvc, sc, nsc = hsearch(pos, 3 - c, work, np.bool_(True))
    if n < 0 or nvc[1]:
        return -1, np.int64(0)
    if nsc[1] == 0:
        return 2, everything & ~(sb | sw)
    keep = np.int64(0)
    for i in range(k):
        m = np.int64(1) << i
        if (sb | sw) & m:
            continue
        p = pcell[i]
        inside = True
        for t in range(nsc[1]):
            if not (sc[1, t, p >> 6] >> np.uint64(p & 63)) & np.uint64(1):
                inside = False
                break
        if inside:
            keep |= m
    return (2, keep) if keep else (-1, np.int64(0))


@njit(cache=CACHE, inline="always")
def _enter(d, SB, SW, C, SLOT, MOVES, N, IDX, nbr, adj, order, full, tt_b, tt_w, tt_v, tt_m, vc, stats):
    """Open the node at depth d (its position in SB[d], SW[d], C[d]): 1 / -1 if it is won /
    lost for the side to move without a search, else 2 with its moves to try in
    MOVES[d, :N[d]] (the table's move, then cells next to both edge-groups of a player, next
    to one, the others; the centre first in each).  `vc` = (base, pcell, vc_min, work): the
    H-search's arguments (`_connections`)."""
    sb = SB[d]
    sw = SW[d]
    c = C[d]
    ci = c - 1
    oi = 2 - c
    free = full & ~(sb | sw)
    mine = sb if c == BLACK else sw
    theirs = sw if c == BLACK else sb
    done, wins, my_a, my_b = _threats(nbr, adj, ci, mine, free)
    if done or wins:
        return 1
    done, losses, their_a, their_b = _threats(nbr, adj, oi, theirs, free)
    if done:
        return -1
    if losses:
        if losses & (losses - 1):
            return -1  # two cells win for them: one move cannot stop both
        cand = losses  # the must-play reduction
    else:
        cand = free
    if cand == 0:
        return -1  # a full board that we have not joined: theirs
    slot = _slot(sb, sw, TT_BITS)
    SLOT[d] = slot
    first = np.int64(-1)
    if tt_b[slot] == sb and tt_w[slot] == sw:
        if tt_v[slot] != 0:
            return tt_v[slot]
        first = np.int64(tt_m[slot])
    base, pcell, vc_min, work = vc
    if not losses and _popcount(free) >= vc_min:
        stats[VCS] += 1
        r, keep = _connections(sb, sw, c, base, pcell, work)
        if r != 2:
            tt_b[slot] = sb
            tt_w[slot] = sw
            tt_v[slot] = r
            tt_m[slot] = -1
            return r
        cand &= keep
    hot = my_a & my_b | their_a & their_b  # cells next to both edge-groups of a player
    near = my_a | my_b | their_a | their_b
    n = 0
    if first >= 0 and cand & (np.int64(1) << first):
        MOVES[d, 0] = first
        n = 1
        cand &= ~(np.int64(1) << first)
    for phase in range(3):
        if phase == 0:
            pick = cand & hot
        elif phase == 1:
            pick = cand & near & ~hot
        else:
            pick = cand & ~near
        if pick == 0:
            continue
        for j in range(order.shape[0]):
            i = order[j]
            if pick & (np.int64(1) << i):
                MOVES[d, n] = i
                n += 1
    N[d] = n
    IDX[d] = 0
    return 2


@njit(cache=CACHE)
def _search(sb0, sw0, c0, nbr, adj, order, full, tt_b, tt_w, tt_v, tt_m, stats, deadline, vc):
    """Does the side to move c0 (1 Black, 2 White) win?  1 yes, -1 no, 0 unknown (the node
    limit or the deadline stopped the search).  sb0 / sw0: the cells Black / White filled.
    A depth-first search with its own stack (numba cannot cache recursive functions)."""
    k = order.shape[0]
    depth = k + 2
    SB = np.empty(depth, np.int64)
    SW = np.empty(depth, np.int64)
    C = np.empty(depth, np.int64)
    SLOT = np.empty(depth, np.int64)
    MOVES = np.empty((depth, max(k, 1)), np.int64)
    N = np.zeros(depth, np.int64)
    IDX = np.zeros(depth, np.int64)
    d = 0
    seen = stats[VCS]
    SB[0] = sb0
    SW[0] = sw0
    C[0] = c0
    stats[NODES] += 1
    r = _enter(0, SB, SW, C, SLOT, MOVES, N, IDX, nbr, adj, order, full, tt_b, tt_w, tt_v, tt_m, vc, stats)
    while True:
        if r == 2:  # an open node: its next move, or lost when none is left
            if IDX[d] < N[d]:
                m = np.int64(1) << MOVES[d, IDX[d]]
                IDX[d] += 1
                if C[d] == BLACK:
                    SB[d + 1] = SB[d] | m
                    SW[d + 1] = SW[d]
                else:
                    SB[d + 1] = SB[d]
                    SW[d + 1] = SW[d] | m
                C[d + 1] = 3 - C[d]
                d += 1
                stats[NODES] += 1
                if stats[NODES] > stats[LIMIT]:
                    stats[ABORTED] = 1
                    return 0
                if stats[NODES] % CHECK_EVERY == 0 or stats[VCS] != seen:  # an H-search costs
                    seen = stats[VCS]                                         # a thousand nodes
                    with objmode(now="float64"):
                        now = time.monotonic()
                    if now > deadline:
                        stats[ABORTED] = 1
                        return 0
                r = _enter(d, SB, SW, C, SLOT, MOVES, N, IDX, nbr, adj, order, full, tt_b, tt_w, tt_v, tt_m, vc, stats)
                continue
            slot = SLOT[d]
            tt_b[slot] = SB[d]
            tt_w[slot] = SW[d]
            tt_v[slot] = -1
            tt_m[slot] = -1
            r = -1
        # the node at d is decided: r for its side to move
        if d == 0:
            return r
        d -= 1
        if r == -1:  # that move wins for the parent
            slot = SLOT[d]
            tt_b[slot] = SB[d]
            tt_w[slot] = SW[d]
            tt_v[slot] = 1
            tt_m[slot] = MOVES[d, IDX[d] - 1]
            r = 1
        else:
            r = 2


@njit(cache=CACHE)
def _root(c, nbr, adj, order, k, tt_b, tt_w, tt_v, tt_m, stats, deadline, every, values, vc):
    """Search the position (nothing filled yet, c to move): `values[i]` = 1 / -1 / 0 (won,
    lost, unknown) for c playing bit i, all of them if `every`, else up to the first win.
    Returns the first winning bit found, or -1."""
    full = (np.int64(1) << k) - 1 if k < 63 else np.int64(-1) ^ (np.int64(1) << 63)
    for i in range(k):
        values[i] = 0
    best = -1
    for j in range(order.shape[0]):
        with objmode(now="float64"):
            now = time.monotonic()
        if now > deadline:  # each move's first node may run an H-search before its search looks
            stats[ABORTED] = 1
            return best
        i = order[j]
        m = np.int64(1) << i
        if c == BLACK:
            done, _, _, _ = _threats(nbr, adj, np.int64(0), m, full & ~m)
        else:
            done, _, _, _ = _threats(nbr, adj, np.int64(1), m, full & ~m)
        if done:
            r = 1
        elif c == BLACK:
            r = -_search(m, np.int64(0), np.int64(2), nbr, adj, order, full, tt_b, tt_w, tt_v, tt_m, stats,
                         deadline, vc)
        else:
            r = -_search(np.int64(0), m, np.int64(1), nbr, adj, order, full, tt_b, tt_w, tt_v, tt_m, stats,
                         deadline, vc)
        if stats[ABORTED]:
            return best
        values[i] = r
        if r == 1 and best < 0:
            best = i
            if not every:
                return best
    return best


class Table:
    """A transposition table (reused by the searches of one process)."""

    def __init__(self, bits: int = TT_BITS) -> None:
        size = 1 << bits
        self.b = np.zeros(size, np.int64)
        self.w = np.zeros(size, np.int64)
        self.v = np.zeros(size, np.int8)
        self.m = np.zeros(size, np.int8)

    def clear(self) -> None:
        self.v[:] = 0
        self.m[:] = -1
        self.b[:] = -1  # no position has every bit of both masks set


_TABLE: Table | None = None


def _table() -> Table:
    global _TABLE
    if _TABLE is None:
        _TABLE = Table()
    return _TABLE


def _values(state: State, every: bool, nodes: int, seconds: float | None,
            vc_min: int) -> tuple[dict, int | None, int, bool]:
    """({move: True won / False lost} for the moves searched, a winning cell or None, nodes,
    whether the search finished).  No swap here (see `solve`)."""
    g = reduce(state)
    k = len(g.empties)
    if k == 0:
        return {}, None, 0, True
    table = _table()
    table.clear()  # the bits mean other cells in another position
    stats = np.zeros(4, np.int64)
    stats[LIMIT] = nodes
    deadline = time.monotonic() + (1e9 if seconds is None else seconds)
    values = np.zeros(k, np.int8)
    vc = (to_kernel(state), np.array([padded(cell, state.width) for cell in g.empties], np.int64),
          np.int64(vc_min), np.int64(VC_WORK))
    best = _root(state.to_move, g.nbr, g.adj, g.order, k, table.b, table.w, table.v, table.m, stats, deadline,
                 every, values, vc)
    out = {g.empties[i]: bool(values[i] == 1) for i in range(k) if values[i] != 0}
    return out, (g.empties[best] if best >= 0 else None), int(stats[NODES]), not stats[ABORTED]


def solve(state: State, nodes: int = DEFAULT_NODES, seconds: float | None = None, vc_min: int = VC_MIN) -> Proof:
    """Who wins `state` with best play, and a winning move for the side to move when it is
    the winner; unproven (winner None) when `nodes` or `seconds` run out first, or with more
    than MAX_EMPTIES empty cells.  A swap, where allowed, is tried after the cells.  H-search
    runs at the nodes with at least `vc_min` empty cells (NO_VC: nowhere)."""
    w = state.winner()
    if w is not None:
        return Proof(w, None, 0)
    me = state.to_move
    if state.board.count(0) > MAX_EMPTIES:
        return Proof(None, None, 0)
    start = time.monotonic()
    values, best, used, finished = _values(state, False, nodes, seconds, vc_min)
    if best is not None:
        return Proof(me, best, used)
    if state.swap_allowed():
        left = None if seconds is None else max(0.0, seconds - (time.monotonic() - start))
        after = solve(state.play(SWAP), max(1, nodes - used), left, vc_min)
        used += after.nodes
        if after.winner == me:
            return Proof(me, SWAP, used)
        if after.winner is None:
            finished = False
    return Proof(3 - me if finished else None, None, used)


def winning_moves(state: State, nodes: int = DEFAULT_NODES, seconds: float | None = None,
                  vc_min: int = VC_MIN) -> list[int] | None:
    """Every winning move of the side to move (cells in order, then SWAP), or None when the
    search could not finish.  [] when every move loses.  `vc_min` as in `solve`."""
    if state.is_terminal():
        return []
    if state.board.count(0) > MAX_EMPTIES:
        return None
    start = time.monotonic()
    values, _, used, finished = _values(state, True, nodes, seconds, vc_min)
    if not finished:
        return None
    moves = sorted(m for m, won in values.items() if won)
    if state.swap_allowed():
        left = None if seconds is None else max(0.0, seconds - (time.monotonic() - start))
        after = solve(state.play(SWAP), max(1, nodes - used), left, vc_min)
        if after.winner is None:
            return None
        if after.winner == state.to_move:
            moves.append(SWAP)
    return moves


def first_move_wins(width: int, height: int | None = None) -> list[int]:
    """The winning first moves for Black on the empty board (no swap), by exhaustive search."""
    moves = winning_moves(empty(width, height), nodes=1 << 62)
    assert moves is not None
    return moves


def warm() -> None:
    """Compile (or load) the search: a 3x3 opening and a position with a swap."""
    first_move_wins(3)
    solve(empty(2, swap=True).play(0))
