"""Virtual connections for Hex (H-search) and the cells the side to move must play.

For a colour c, a *virtual connection* (VC) between two points (a group of c's stones, one of
c's edges, or an empty cell) is one c keeps whatever the opponent does, moving first, using
only the empty cells of its *carrier*; a *semi-connection* (SC) is one c makes if c moves
first, by playing its *key*, a cell of its carrier.  H-search (Anshelevich, "A hierarchical
approach to computer Hex", 2002) builds them from three rules (docs/protocols/hex.md section
6.4):

- base: two adjacent points are virtually connected, with an empty carrier;
- AND: VC(x, g, A) and VC(g, y, B) with A and B disjoint, x not in B and y not in A give
  VC(x, y, A + B) when g is c's group, and SC(x, y, A + B + {g}) when g is an empty cell;
- OR: SCs of x and y whose carriers have no cell in common give VC(x, y, their union).

The AND rule never joins through an edge when `edges` is off (Benzene's `and_over_edge 0`):
two points each joined to an edge are joined for nothing the edges' own connection needs
(a chain that passes an edge twice has a shorter one that passes it once), and every point
near an edge would join every other, filling the capped lists and the work limit with them.
Without it a search of 1,000,000 steps finds a little more than it did with it, 16 times
faster, and mostly ends (nothing left to try) long before (docs/benchmarks/hex.md).

Every connection found is real (each rule is sound); the search stops at a work limit, and
what it has not found yet it simply does not know.  The lists of each pair are capped (KV
VCs, KS SCs, the smaller carriers kept first come), as in MoHex's H-search.

Must-play: when c (not to move) has SCs between its two edges, the side to move loses by
playing outside the intersection of their carriers (c then plays the key of an SC that move
left alone and holds a VC between its edges).  `must_play` returns that intersection, or
nothing when it would prove nothing (no SC, a VC already, or an empty intersection: c holds
two disjoint threats and the game is lost whatever we play).
"""

from __future__ import annotations

import numpy as np

from bots.cache import caching

CACHE = caching()

from numba import njit  # noqa: E402  (after the cache directory is chosen)

# (numba's disk cache of this file does not see a change to these constants in kernel.py: edit
# this file too if they change, as a new release does by installing both anew)
from .kernel import EMPTY, FIRST_SIDE, OFF, PW, SECOND_SIDE, TOMOVE  # noqa: E402
from search.uct import KNOW_KEEP, KNOW_LOSS, KNOW_NONE  # noqa: E402

KV = 4  # VCs kept for each pair of points
KS = 8  # SCs kept for each pair of points
OR_DEPTH = 4  # at most this many SCs combined by one OR
WORK = 50_000  # AND-rule steps (one pair of carriers tried) before the search stops: never
# through an edge, the search ends before this in most 11x11 positions (about 2 ms at the median)

NONE, MUST, LOST = 0, 1, 2  # must_play's answers: nothing proved, the cells must be played, c is connected


@njit(cache=CACHE, inline="always")
def _disjoint(a, b):
    for i in range(a.shape[0]):
        if a[i] & b[i]:
            return False
    return True


@njit(cache=CACHE, inline="always")
def _within(a, b):
    """Whether every cell of a is in b."""
    for i in range(a.shape[0]):
        if a[i] & ~b[i]:
            return False
    return True


@njit(cache=CACHE, inline="always")
def _has(a, cell):
    """Whether carrier a holds padded cell `cell` (never for a negative one)."""
    if cell < 0:
        return False
    return (a[cell >> 6] >> np.uint64(cell & 63)) & np.uint64(1) != 0


@njit(cache=CACHE)
def _points(board, pw, c, pid, cell_of):
    """Number the points of c: point 0 is c's first edge with every stone joined to it, 1 the
    second, then c's other groups, then the empty cells; pid[p] is the point of padded cell p
    (-1: the opponent's stones and edges, the corners).  Returns the number of points, or -1 if
    c's edges are joined already."""
    size = board.shape[0]
    stack = np.empty(size, np.int64)
    for p in range(size):
        pid[p] = -1
    n = 0
    for point in range(2):
        edge = c | (FIRST_SIDE if point == 0 else SECOND_SIDE)
        k = 0
        for p in range(size):
            if board[p] == edge:
                pid[p] = point
                stack[k] = p
                k += 1
        while k:
            k -= 1
            x = stack[k]
            for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
                y = x + d
                if 0 <= y < size and board[y] == c:
                    if pid[y] == 1 - point:
                        return -1
                    if pid[y] < 0:
                        pid[y] = point
                        stack[k] = y
                        k += 1
        cell_of[point] = -1
        n += 1
    for p in range(size):
        if board[p] == c and pid[p] < 0:
            pid[p] = n
            cell_of[n] = -1
            stack[0] = p
            k = 1
            while k:
                k -= 1
                x = stack[k]
                for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
                    y = x + d
                    if board[y] == c and pid[y] < 0:
                        pid[y] = n
                        stack[k] = y
                        k += 1
            n += 1
    for p in range(size):
        if board[p] == EMPTY:
            pid[p] = n
            cell_of[n] = p
            n += 1
    return n


@njit(cache=CACHE)
def _add(lists, counts, i, carrier):
    """Add `carrier` to pair i's list (at most lists.shape[1] long) unless a carrier in it is
    within it; one that holds it is replaced.  Returns the slot, or -1 if nothing was added."""
    n = counts[i]
    for k in range(n):
        if _within(lists[i, k], carrier):
            return -1
    for k in range(n):
        if _within(carrier, lists[i, k]):
            lists[i, k, :] = carrier
            return k
    if n == lists.shape[1]:
        return -1
    lists[i, n, :] = carrier
    counts[i] = n + 1
    return n


@njit(cache=CACHE)
def hsearch(pos, c, work, edges):
    """H-search for colour c on the kernel position `pos` (see the module's docstring; `edges`:
    the AND rule may join through an edge, as the solver's H-search still does).
    Returns (points, pid, cell_of, vc, nvc, sc, nsc): pair (x, y), x < y, is vc[x * points + y]."""
    board = pos[OFF:]
    size = board.shape[0]
    pw = np.int64(pos[PW])
    words = (size + 63) // 64
    pid = np.empty(size, np.int64)
    cell_of = np.empty(size + 2, np.int64)
    n = _points(board, pw, c, pid, cell_of)
    if n < 0:
        return n, pid, cell_of, np.zeros((1, KV, words), np.uint64), np.ones(1, np.int64), \
            np.zeros((1, KS, words), np.uint64), np.zeros(1, np.int64)
    vc = np.empty((n * n, KV, words), np.uint64)
    nvc = np.zeros(n * n, np.int64)
    sc = np.empty((n * n, KS, words), np.uint64)
    nsc = np.zeros(n * n, np.int64)
    queue = np.empty((n * n * KV, 2), np.int64)  # (pair, slot) of each new VC
    head = 0
    tail = 0
    empty = np.zeros(words, np.uint64)
    for p in range(size):  # base: adjacent points, read from the board's cells (the padding's
        x = pid[p]           # offsets would wrap around to the other side)
        if x < 0 or (board[p] != EMPTY and board[p] != c):
            continue
        for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
            q = p + d
            y = pid[q] if 0 <= q < size else -1
            if y >= 0 and y != x:
                i = min(x, y) * n + max(x, y)
                k = _add(vc, nvc, i, empty)
                if k >= 0:
                    queue[tail, 0] = i
                    queue[tail, 1] = k
                    tail += 1
    u = np.empty(words, np.uint64)
    inter = np.empty((OR_DEPTH + 1, words), np.uint64)
    union = np.empty((OR_DEPTH + 1, words), np.uint64)
    pick = np.empty(OR_DEPTH + 1, np.int64)
    steps = 0
    while head < tail and steps < work:
        i = queue[head, 0]
        a = vc[i, queue[head, 1]].copy()
        head += 1
        x0, y0 = i // n, i % n
        for side in range(2):
            g, e = (x0, y0) if side == 0 else (y0, x0)  # g the middle point, e the end
            gcell, ecell = cell_of[g], cell_of[e]
            if g < 2 and not edges:  # points 0 and 1 are c's edges
                continue
            for z in range(n):
                if z == g or z == e:
                    continue
                j = g * n + z if g < z else z * n + g
                for k in range(nvc[j]):
                    steps += 1
                    b = vc[j, k]
                    if not _disjoint(a, b) or _has(b, ecell) or _has(a, cell_of[z]):
                        continue
                    for w in range(words):
                        u[w] = a[w] | b[w]
                    o = e * n + z if e < z else z * n + e
                    if gcell < 0:  # through c's group: a VC
                        slot = _add(vc, nvc, o, u)
                        if slot >= 0 and tail < queue.shape[0]:
                            queue[tail, 0] = o
                            queue[tail, 1] = slot
                            tail += 1
                        continue
                    u[gcell >> 6] |= np.uint64(1) << np.uint64(gcell & 63)  # through an empty cell: an SC
                    skip = False
                    for m in range(nvc[o]):
                        if _within(vc[o, m], u):
                            skip = True
                            break
                    if skip:
                        continue
                    s = _add(sc, nsc, o, u)
                    if s < 0:
                        continue
                    # OR: the new SC with others of the pair, their carriers' intersection empty
                    depth = 0
                    inter[0, :] = u
                    union[0, :] = u
                    pick[0] = -1
                    while depth >= 0:
                        pick[depth] += 1
                        t = pick[depth]
                        if t >= nsc[o] or depth == OR_DEPTH:
                            depth -= 1
                            continue
                        if t == s:
                            continue
                        progress = False
                        zero = True
                        for w in range(words):
                            v = inter[depth, w] & sc[o, t, w]
                            inter[depth + 1, w] = v
                            union[depth + 1, w] = union[depth, w] | sc[o, t, w]
                            if v != inter[depth, w]:
                                progress = True
                            if v:
                                zero = False
                        if not progress:
                            continue
                        if zero:
                            slot = _add(vc, nvc, o, union[depth + 1])
                            if slot >= 0 and tail < queue.shape[0]:
                                queue[tail, 0] = o
                                queue[tail, 1] = slot
                                tail += 1
                            continue
                        depth += 1
                        pick[depth] = t
    return n, pid, cell_of, vc, nvc, sc, nsc


@njit(cache=CACHE)
def must_play(pos, work, out):
    """The cells the side to move must play (see the module's docstring): out[p] = 1 for each
    padded cell p in the intersection of the carriers of the opponent's SCs between its
    edges.  Returns MUST (out written), LOST (the opponent is connected, holds a VC between
    its edges, or two SCs with disjoint carriers) or NONE (nothing proved); out is all 0
    unless MUST."""
    c = 3 - pos[TOMOVE]
    n, pid, cell_of, vc, nvc, sc, nsc = hsearch(pos, c, work, np.bool_(False))  # (np.bool_: a literal
    # would compile hsearch once more, for that constant)
    out[:] = 0
    if n < 0 or nvc[1]:  # pair (0, 1): c's two edges
        return LOST
    if nsc[1] == 0:
        return NONE
    inter = sc[1, 0].copy()
    for k in range(1, nsc[1]):
        for w in range(inter.shape[0]):
            inter[w] &= sc[1, k, w]
    found = False
    for p in range(out.shape[0]):
        if _has(inter, p):
            out[p] = 1
            found = True
    return MUST if found else LOST


@njit(cache=CACHE)
def knowledge(pos, params, keep):
    """search.uct's `knowledge` for the tree's nodes (`mcts:know`): the side to move loses if
    the opponent holds a VC between its edges or two SCs with disjoint carriers, and must
    play in the intersection of the opponent's SCs' carriers if it holds SCs (`must_play`,
    with params[4] AND steps; 0: nothing is ever proven)."""
    work = params[4]
    if work <= 0:
        return KNOW_NONE
    found = must_play(pos, work, keep)
    if found == LOST:
        return KNOW_LOSS
    if found == MUST:
        return KNOW_KEEP
    return KNOW_NONE
