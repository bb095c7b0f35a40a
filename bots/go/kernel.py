"""numba kernels for Go: the board inside search, playouts, and the moves and priors that
the shared MCTS tree (search.uct) searches with.

The board is two small int64 arrays, so copying it is one memcpy.  Every point, colour and
count passed between kernels is an int64 (literals as `np.int64(2)`): numba compiles a kernel
once per combination of argument types, and int32 reads or a literal would compile it again
(tests/test_kernel_signatures.py).

* `B[row, point]` on a padded board of width W = size + 2 (a ring of EDGE points around it,
  point = (r + 1) * W + c + 1): COL (colour), ROOT and NXT (strings as circular lists with a
  root label), NLIB/LSUM/LSQ (per root: pseudo-liberty count, sum and sum of squares; a
  string is in atari iff nlib * lsq == lsum^2, with lsum / nlib its last liberty), SSIZE
  (stones per root), EMP/EPOS (the empty points, in any order, and their positions).
* `S[slot]`: TOMOVE, KO (the point the side to move may not retake, or -1), PASSES, NEMPTY,
  CAPB/CAPW, LAST/LAST2 (the last two moves, -1 for a pass or none), SIZE, WIDTH.

`to_kernel(state)` builds the arrays of a `bots.go.board.State`; `padded` and `unpadded`
convert between the State's points (row * size + col) and padded ones.

Only suicide and simple ko are known here; positional superko needs the game's history and
is applied at the root by the caller (bots.go.mcts, bots.go.fallback), which also checks
every move it sends with the full rules.  The pure-Python `Board` of tests/go/oracle.py
implements the same board and is the oracle these kernels are tested against.

Playouts ("heavy" as in MoGo/michi): answer the last move first (capture a string it left
in atari, save our own string it put in atari, but not by a run into a ladder that works),
else play a 3x3 pattern move next to it (hane, cut, edge shapes), else a random legal move
that fills no own eye and is seldom a self-atari (9 in 10 are refused) unless it is a
throw-in, a lone stone's, as in michi's playouts; a pass when nothing is left.

The search (`SEARCH`, a search.uct.Kernel): UCT with RAVE in search.uct's tree, over Go's
kernels here: a position is (B, S), the moves are padded points and PASS, `children` lists the
legal moves that fill no own eye with their priors (captures, escapes, self-atari, ladders
that work and runs into them, patterns, nearness to the last move, the line in an empty
area) and PASS, playouts are the heavy (or light) ones above, scored by area with komi.
bots.go.mcts is the player around it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bots.cache import caching

CACHE = caching()  # compiled kernels go to the per-user cache (bots.cache), never into the package

from numba import njit  # noqa: E402  (after the cache directory is chosen)

from search import uct  # noqa: E402  (caches into that directory too)
# the tree's layout, for readers of a search's tree (bots.go.mcts, the tests)
from search.uct import ICHILD, IMOVE, INCHILD, PN, PW, RN, RW, VN, VW, child_of, new_tree  # noqa: E402,F401

if TYPE_CHECKING:
    from .board import State

EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
PASS = -1
COL, ROOT, NXT, NLIB, LSUM, LSQ, SSIZE, EMP, EPOS = range(9)
TOMOVE, KO, PASSES, NEMPTY, CAPB, CAPW, LAST, LAST2, SIZE, WIDTH = range(10)
NSLOTS = 10

# Priors of the tree's moves (michi's published constants: an even prior of 10 visits, priors
# for captures, self-atari, closeness to the last move; the tree policy is search.uct's).
PRIOR_EVEN = 10.0
PRIOR_CAPTURE_ONE = 15.0
PRIOR_CAPTURE_MANY = 30.0
PRIOR_ESCAPE = 20.0
PRIOR_SELFATARI = 10.0
PRIOR_NEAR = (24.0, 22.0)  # at distance 1 (the 8 neighbours) and 2 of the last move
PRIOR_EMPTY_AREA = 10.0
PRIOR_PASS_LOSSES = 20.0
PROB_ANSWER = 0.9  # playouts: how often the answer to the last move is tried
PROB_REJECT_SELFATARI = 0.9  # sequential tests of 1.0 and 0.6 both lost (docs/benchmarks/go.md)
PROB_PATTERN = 0.9  # playouts: how often a 3x3 pattern move next to the last move is tried
SCORE_POINTS = 20.0  # a margin of this many points earns a playout all of `reward`'s bonus
PRIOR_PATTERN = 10.0
PRIOR_LADDER = 20.0  # losing visits of a move whose string a ladder catches (more than a self-atari's)

# 3x3 patterns around an empty point (the centre, the move), after MoGo's hand-made patterns
# (Gelly, Wang, Munos, Teytaud, "Modification of UCT with patterns in Monte-Carlo Go", 2006,
# figure 2: hane, cut and edge shapes).  X = the mover's stone, O = the opponent's, . = empty,
# # = off the board, ? = anything, x = not X, o = not O.  Matched in all 8 orientations and
# with the colours swapped.
PATTERNS = (
    ("XOX", "...", "???"),  # hane: enclosing hane
    ("XO.", "...", "?.?"),  # hane: non-cutting hane
    ("XO?", "X..", "x.?"),  # hane: magari
    (".O.", "X..", "..."),  # hane: diagonal attachment
    ("XO?", "O.o", "?o?"),  # cut: unprotected cut
    ("XO?", "O.X", "???"),  # cut: peeped cut
    ("?X?", "O.O", "ooo"),  # cut: de
    ("OX?", "o.O", "???"),  # cut: keima
    ("X.?", "O.?", "##?"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block side cut
    ("?X?", "x.O", "###"),  # edge: block side connection
    ("?XO", "x.x", "###"),  # edge: sagari
    ("?OX", "X.O", "###"),  # edge: cut
)
# the 8 neighbours in code order: N, NE, E, SE, S, SW, W, NW as (row, col) in a pattern
_RING = ((0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0))
_ALLOWED = {"X": (1,), "O": (2,), ".": (0,), "#": (3,), "?": (0, 1, 2, 3), "x": (0, 2, 3), "o": (0, 1, 3)}


def _pattern_table() -> np.ndarray:
    """table[code] = 1 if the 8 neighbours (2 bits each: 0 empty, 1 mover, 2 opponent, 3 edge,
    in _RING order) match a pattern in some orientation."""
    table = np.zeros(1 << 16, np.uint8)
    swap = str.maketrans("XOxo", "OXox")  # a point the opponent wants is one we want too
    for rows in PATTERNS + tuple(tuple(r.translate(swap) for r in rows) for rows in PATTERNS):
        grid = [list(r) for r in rows]
        for _ in range(4):
            grid = [list(r) for r in zip(*grid[::-1], strict=True)]  # rotate
            for g in (grid, [r[::-1] for r in grid]):  # and mirror
                codes = [0]
                for i, (r, c) in enumerate(_RING):
                    codes = [code | (v << (2 * i)) for code in codes for v in _ALLOWED[g[r][c]]]
                table[codes] = 1
    return table


PATTERN_TABLE = _pattern_table()


def _pattern_classes() -> tuple[np.ndarray, int]:
    """(class of each 3x3 code, number of classes): codes one rotation or mirror apart share a
    class (the colours stay relative to the mover); the learned priors weigh a class.  Classes
    are numbered in the order of their smallest code."""
    codes = np.arange(1 << 16, dtype=np.int64)
    canon = codes.copy()
    for k in range(4):  # a quarter turn moves each neighbour two places round the ring
        for mirror in (False, True):
            out = np.zeros_like(codes)
            for i in range(8):
                j = ((-i if mirror else i) + 2 * k) % 8
                out |= ((codes >> (2 * i)) & 3) << (2 * j)
            canon = np.minimum(canon, out)
    smallest, classes = np.unique(canon, return_inverse=True)
    return classes.astype(np.int64), len(smallest)


PATTERN_CLASS, NPATTERN_CLASSES = _pattern_classes()


# -- the board ---------------------------------------------------------------------------------

@njit(cache=CACHE)
def new_board(size):
    """The empty board (Black to move)."""
    w = size + 2
    B = np.zeros((9, w * w), np.int64)
    S = np.zeros(NSLOTS, np.int64)
    for p in range(w * w):
        B[ROOT, p] = p
        B[NXT, p] = p
        r, c = p // w, p % w
        if r == 0 or c == 0 or r == w - 1 or c == w - 1:
            B[COL, p] = EDGE
        else:
            B[EMP, S[NEMPTY]] = p
            B[EPOS, p] = S[NEMPTY]
            S[NEMPTY] += 1
    S[TOMOVE] = BLACK
    S[KO] = -1
    S[LAST] = -1
    S[LAST2] = -1
    S[SIZE] = size
    S[WIDTH] = w
    return B, S


@njit(cache=CACHE)
def _libs(B, r, q, sign):
    B[NLIB, r] += sign
    B[LSUM, r] += sign * q
    B[LSQ, r] += sign * q * q


@njit(cache=CACHE)
def in_atari(B, r):
    n = np.int64(B[NLIB, r])
    s = np.int64(B[LSUM, r])
    return n > 0 and n * np.int64(B[LSQ, r]) == s * s


@njit(cache=CACHE)
def last_liberty(B, r):
    return B[LSUM, r] // B[NLIB, r]


@njit(cache=CACHE)
def _merge(B, a, b):
    """Merge the strings with roots a and b; returns the surviving root."""
    if B[SSIZE, a] < B[SSIZE, b]:
        a, b = b, a
    x = b
    while True:  # relabel the smaller string
        B[ROOT, x] = a
        x = B[NXT, x]
        if x == b:
            break
    na, nb = B[NXT, a], B[NXT, b]
    B[NXT, a], B[NXT, b] = nb, na
    B[NLIB, a] += B[NLIB, b]
    B[LSUM, a] += B[LSUM, b]
    B[LSQ, a] += B[LSQ, b]
    B[SSIZE, a] += B[SSIZE, b]
    return a


@njit(cache=CACHE)
def _remove(B, S, r):
    """Take the string with root r off the board; returns its size."""
    w = np.int64(S[WIDTH])
    x = r
    while True:
        B[COL, x] = EMPTY
        B[EMP, S[NEMPTY]] = x
        B[EPOS, x] = S[NEMPTY]
        S[NEMPTY] += 1
        x = B[NXT, x]
        if x == r:
            break
    n = 0
    x = r
    while True:
        for d in (1, -1, w, -w):
            y = x + d
            k = B[COL, y]
            if k == BLACK or k == WHITE:
                _libs(B, B[ROOT, y], x, np.int64(1))
        n += 1
        nx = B[NXT, x]
        B[ROOT, x] = x
        B[NXT, x] = x
        x = nx
        if x == r:
            break
    return n


@njit(cache=CACHE)
def place(B, S, p, c):
    """Put a stone of colour c on the empty point p (no legality check), capture, set ko."""
    w = np.int64(S[WIDTH])
    o = 3 - c
    i = B[EPOS, p]
    S[NEMPTY] -= 1
    q = B[EMP, S[NEMPTY]]
    B[EMP, i] = q
    B[EPOS, q] = i
    B[COL, p] = c
    B[ROOT, p] = p
    B[NXT, p] = p
    B[NLIB, p] = 0
    B[LSUM, p] = 0
    B[LSQ, p] = 0
    B[SSIZE, p] = 1
    for d in (1, -1, w, -w):
        y = p + d
        k = B[COL, y]
        if k == EMPTY:
            _libs(B, p, y, np.int64(1))
        elif k == BLACK or k == WHITE:
            _libs(B, B[ROOT, y], p, np.int64(-1))
    r = p
    for d in (1, -1, w, -w):
        y = p + d
        if B[COL, y] == c and B[ROOT, y] != r:
            r = _merge(B, r, B[ROOT, y])
    captured = 0
    ko = -1
    for d in (1, -1, w, -w):
        y = p + d
        if B[COL, y] == o and B[NLIB, B[ROOT, y]] == 0:
            captured += _remove(B, S, B[ROOT, y])
            ko = y
    if captured:
        S[CAPB + c - 1] += captured
    S[KO] = ko if captured == 1 and B[SSIZE, r] == 1 and in_atari(B, r) else -1
    return captured


@njit(cache=CACHE)
def is_legal(B, S, p, c):
    """Empty, not the ko point (for the side to move), not suicide."""
    if B[COL, p] != EMPTY or (p == S[KO] and c == S[TOMOVE]):
        return False
    w = np.int64(S[WIDTH])
    for d in (1, -1, w, -w):
        y = p + d
        k = B[COL, y]
        if k == EMPTY:
            return True
        if k == c:
            if not in_atari(B, B[ROOT, y]):
                return True
        elif k == 3 - c:
            if in_atari(B, B[ROOT, y]):
                return True
    return False


@njit(cache=CACHE)
def is_eye(B, S, p, c):
    """p is empty, every neighbour is c (or the edge), and the diagonals hold at most one
    enemy stone (none on the edge or in the corner)."""
    if B[COL, p] != EMPTY:
        return False
    w = np.int64(S[WIDTH])
    for d in (1, -1, w, -w):
        k = B[COL, p + d]
        if k != c and k != EDGE:
            return False
    bad = 0
    edge = 0
    for d in (w + 1, w - 1, -w + 1, -w - 1):
        k = B[COL, p + d]
        if k == EDGE:
            edge = 1
        elif k == 3 - c:
            bad += 1
    return bad + edge < 2


@njit(cache=CACHE)
def play(B, S, p):
    """The side to move plays p (a padded point, or PASS); the caller knows it is legal."""
    c = S[TOMOVE]
    if p == PASS:
        S[PASSES] += 1
        S[KO] = -1
    else:
        place(B, S, p, c)
        S[PASSES] = 0
    S[TOMOVE] = 3 - c
    S[LAST2] = S[LAST]
    S[LAST] = p


@njit(cache=CACHE)
def add_libs(B, S, r, out, n, cap, skip):
    """Add the liberties of the string with root r other than `skip` to the `n` distinct points
    in `out`, up to `cap` in all; the new count."""
    w = np.int64(S[WIDTH])
    x = r
    while True:
        for e in (1, -1, w, -w):
            z = x + e
            if z != skip and B[COL, z] == EMPTY:
                dup = False
                for j in range(n):
                    dup = dup or out[j] == z
                if not dup:
                    out[n] = z
                    n += 1
                    if n >= cap:
                        return n
        x = B[NXT, x]
        if x == r:
            break
    return n


@njit(cache=CACHE)
def libs_after(B, S, p, c, enough):
    """Liberties the string of p would have after c plays there, counted up to `enough` and
    never past 3 (a capture counts as that cap).  For self-atari tests: 1 means self-atari.  The
    liberties found are kept in two scalars, not an array: playouts ask this for most moves."""
    enough = min(enough, np.int64(3))
    w = np.int64(S[WIDTH])
    a = np.int64(-1)  # the first two distinct liberties found (p's empty neighbours are distinct)
    b = np.int64(-1)
    n = np.int64(0)
    for d in (1, -1, w, -w):
        y = p + d
        k = B[COL, y]
        if k == EMPTY:
            if n == 0:
                a = y
            elif n == 1:
                b = y
            n += 1
        elif k == 3 - c and in_atari(B, B[ROOT, y]):
            return enough
    if n >= enough:
        return enough
    for d in (1, -1, w, -w):
        y = p + d
        if B[COL, y] != c:
            continue
        r = B[ROOT, y]
        x = r
        while True:
            for e in (1, -1, w, -w):
                z = x + e
                if z != p and z != a and z != b and B[COL, z] == EMPTY:
                    if n == 0:
                        a = z
                    elif n == 1:
                        b = z
                    n += 1
                    if n >= enough:
                        return enough
            x = B[NXT, x]
            if x == r:
                break
    return n


# -- ladders: is a string in atari caught if it runs? -----------------------------------------
#
# The reading michi's fix_atari and Pachi's is_ladder do: the string's side extends on its last
# liberty (or captures an attacker in atari); three liberties or more is an escape, one is a
# capture; with two the attacker tries an atari on each and the reading goes on.  A budget of
# nodes bounds it: a ladder not read to its end counts as an escape.

LADDER_NODES = 120  # positions read per question in the tree
LADDER_NODES_PLAYOUT = 24  # and in a playout (the common straight ladder needs about 2 a step)
LADDER_DEPTH = 64  # plies read at most


@njit(cache=CACHE)
def string_libs(B, S, r, out, cap):
    """The distinct liberties of the string with root r into `out`, at most `cap`; the count."""
    return add_libs(B, S, r, out, np.int64(0), cap, np.int64(-1))


@njit(cache=CACHE)
def _escapes_of(B, S, p, out):
    """The moves that may get the string at p (in atari, its side to move) out: capture an
    attacker in atari, or extend on its last liberty; the count written into `out`."""
    c = B[COL, p]
    r = B[ROOT, p]
    w = np.int64(S[WIDTH])
    n = 0
    x = r
    while True:
        for e in (1, -1, w, -w):
            z = x + e
            if B[COL, z] == 3 - c and in_atari(B, B[ROOT, z]) and n < out.shape[0] - 1:
                q = last_liberty(B, B[ROOT, z])
                dup = False
                for j in range(n):
                    dup = dup or out[j] == q
                if not dup:
                    out[n] = q
                    n += 1
        x = B[NXT, x]
        if x == r:
            break
    out[n] = last_liberty(B, r)
    return n + 1


@njit(cache=CACHE)
def _copy_into(B2, S2, B, S):
    """B2[:], S2[:] = B, S as plain loops: an array assignment checks shapes with an error
    message whose formatting costs seconds of compiling."""
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B2[i, j] = B[i, j]
    for i in range(S.shape[0]):
        S2[i] = S[i]


@njit(cache=CACHE)
def _gets_out(B, S, p, attacking, libs, nodes):
    """Ladder reading at the string at p, as an AND/OR search with its own stack (numba's cache
    cannot load recursive functions).  Not `attacking`: the string is in atari and its side is
    to move.  `attacking`: it has the two liberties libs[0], libs[1] and the attacker is to
    move.  True if the string gets out: a run to three liberties, or a reading cut off by
    `nodes` positions or the depth; False if it is caught whatever it does."""
    D = min(LADDER_DEPTH, 2 * S[SIZE] + 4)  # a ladder crosses the board in about 2 * size plies
    BB = np.empty((D + 1, B.shape[0], B.shape[1]), np.int64)
    SS = np.empty((D + 1, S.shape[0]), np.int64)
    cand = np.empty((D + 1, 6), np.int64)
    ncand = np.zeros(D + 1, np.int64)
    nxt = np.zeros(D + 1, np.int64)
    attack = np.zeros(D + 1, np.bool_)
    _copy_into(BB[0], SS[0], B, S)
    c = B[COL, p]
    attack[0] = attacking
    if attacking:
        cand[0, 0], cand[0, 1] = libs[0], libs[1]
        ncand[0] = 2
    else:
        ncand[0] = _escapes_of(B, S, p, cand[0])
    mine = np.empty(3, np.int64)
    level = 0
    have = False  # a result of level + 1 is waiting in `out`
    out = False
    while True:
        if have:
            have = False
            if attack[level] != out:  # an escape found (defender), or a capture (attacker)
                if level == 0:
                    return out
                level -= 1
                have = True
                continue
        if nxt[level] == ncand[level]:  # every try failed: the defender is caught, the attacker is not
            out = attack[level]
            if level == 0:
                return out
            level -= 1
            have = True
            continue
        q = cand[level, nxt[level]]
        nxt[level] += 1
        mover = 3 - c if attack[level] else c
        if not is_legal(BB[level], SS[level], q, mover):
            continue
        k = level + 1
        if k > D or nodes <= 0:  # read no further: the string gets out
            out = True
            have = True
            continue
        nodes -= 1
        _copy_into(BB[k], SS[k], BB[level], SS[level])
        place(BB[k], SS[k], q, mover)
        SS[k, TOMOVE] = 3 - mover
        nxt[k] = 0
        if attack[level]:
            if BB[k, COL, p] != c or not in_atari(BB[k], BB[k, ROOT, p]):
                continue  # no atari: this try does not catch it
            attack[k] = False
            ncand[k] = _escapes_of(BB[k], SS[k], p, cand[k])
        else:
            n = string_libs(BB[k], SS[k], BB[k, ROOT, p], mine, np.int64(3))
            if n >= 3:  # out
                out = True
                have = True
                continue
            if n < 2:
                continue  # still in atari: this run fails
            attack[k] = True
            cand[k, 0], cand[k, 1] = mine[0], mine[1]
            ncand[k] = 2
        level = k


@njit(cache=CACHE)
def ladder_caught(B, S, p, nodes):
    """The string at p is in atari: is it caught even with its side to move (a ladder that
    works, or no way out at all)?  False when the reading runs out of `nodes`."""
    S2 = S.copy()
    S2[TOMOVE] = B[COL, p]
    return not _gets_out(B, S2, p, np.bool_(False), np.zeros(2, np.int64), nodes)


@njit(cache=CACHE)
def ladder_after(B, S, q, c, nodes):
    """c plays q: 1 if a string of c's there would then be caught in a ladder (a useless
    escape), 2 if it puts an enemy string next to q in atari that is then caught, else 0."""
    B2 = B.copy()
    S2 = S.copy()
    place(B2, S2, q, c)
    S2[TOMOVE] = 3 - c
    libs = np.empty(2, np.int64)
    if string_libs(B2, S2, B2[ROOT, q], libs, np.int64(2)) == 2:
        if not _gets_out(B2, S2, q, np.bool_(True), libs, nodes):
            return 1
    w = np.int64(S[WIDTH])
    for d in (1, -1, w, -w):
        y = q + d
        if B2[COL, y] == 3 - c and B[COL, y] == 3 - c and in_atari(B2, B2[ROOT, y]) \
                and not in_atari(B, B[ROOT, y]) and ladder_caught(B2, S2, y, nodes):
            return 2
    return 0


@njit(cache=CACHE)
def area(B, S, max_region=1 << 30):
    """(black, white) area: stones plus empty regions that touch one colour only (and have
    at most `max_region` points: a search's evaluation does not count half an empty board)."""
    size = S[SIZE]
    w = np.int64(S[WIDTH])
    mark = np.zeros(w * w, np.int8)
    stack = np.empty(w * w, np.int64)
    black = 0
    white = 0
    for r in range(size):
        for cc in range(size):
            p = (r + 1) * w + cc + 1
            k = B[COL, p]
            if k == BLACK:
                black += 1
            elif k == WHITE:
                white += 1
            elif mark[p] == 0:
                mark[p] = 1
                top = 0
                stack[0] = p
                top = 1
                count = 0
                touch = 0
                while top:
                    top -= 1
                    x = stack[top]
                    count += 1
                    for d in (1, -1, w, -w):
                        y = x + d
                        ky = B[COL, y]
                        if ky == EMPTY:
                            if mark[y] == 0:
                                mark[y] = 1
                                stack[top] = y
                                top += 1
                        elif ky == BLACK:
                            touch |= 1
                        elif ky == WHITE:
                            touch |= 2
                if count <= max_region:
                    if touch == 1:
                        black += count
                    elif touch == 2:
                        white += count
    return black, white


@njit(cache=CACHE)
def score(B, S, komi):
    b, w = area(B, S)
    return b - w - komi


@njit(cache=CACHE)
def owners(B, S):
    """The owner of every padded point (int8): a stone's colour, or for an empty region the
    one colour that touches it; EMPTY for a region touching both or none, and for the ring."""
    w = np.int64(S[WIDTH])
    own = np.zeros(w * w, np.int8)
    mark = np.zeros(w * w, np.int8)
    stack = np.empty(w * w, np.int64)
    region = np.empty(w * w, np.int64)
    for p in range(w * w):
        k = B[COL, p]
        if k == BLACK or k == WHITE:
            own[p] = k
        elif k == EMPTY and mark[p] == 0:
            mark[p] = 1
            stack[0] = p
            top = 1
            count = 0
            touch = 0
            while top:
                top -= 1
                x = stack[top]
                region[count] = x
                count += 1
                for d in (1, -1, w, -w):
                    y = x + d
                    ky = B[COL, y]
                    if ky == EMPTY:
                        if mark[y] == 0:
                            mark[y] = 1
                            stack[top] = y
                            top += 1
                    elif ky == BLACK or ky == WHITE:
                        touch |= ky
            if touch == BLACK or touch == WHITE:
                for i in range(count):
                    own[region[i]] = touch
    return own


# -- from a State -------------------------------------------------------------------------------

def padded(point: int, size: int) -> int:
    """The padded point of a State's point (row * size + col); PASS stays PASS."""
    return PASS if point == PASS else (point // size + 1) * (size + 2) + point % size + 1


def unpadded(p: int, size: int) -> int:
    """The State's point of a padded point; PASS (or any negative) is PASS."""
    return PASS if p < 0 else (p // (size + 2) - 1) * size + p % (size + 2) - 1


def to_kernel(state: State, before: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The kernel board (B, S) of `state`: its stones, side to move, ko point, passes and last
    move (kept: playouts and priors answer it), and `before`, the move before the last, if the
    caller knows it (the learned priors weigh the distance to it).  The superko history is not
    carried."""
    B, S = new_board(state.size)
    board = state.board
    for colour in (BLACK, WHITE):
        for p, k in enumerate(board):
            if k == colour:
                place(B, S, padded(p, state.size), colour)
    S[TOMOVE] = state.to_move
    S[KO] = padded(state.ko, state.size) if state.ko != PASS else -1
    S[PASSES] = state.passes
    S[LAST] = -1 if state.last is None else padded(state.last, state.size)
    S[LAST2] = -1 if before is None else padded(before, state.size)
    return B, S


# -- playouts ----------------------------------------------------------------------------------

# numba's generator is one per process: search.uct's seed/seeded serve every game
seed, seeded = uct.seed, uct.seeded


@njit(cache=CACHE)
def pattern_code(B, S, p, c):
    """The 3x3 neighbourhood of p seen by c, as PATTERN_TABLE's index."""
    w = np.int64(S[WIDTH])
    code = np.int64(0)
    i = 0
    for d in (-w, -w + 1, 1, w + 1, w, w - 1, -1, -w - 1):  # N NE E SE S SW W NW (row 0 is the top)
        code |= np.int64(B[COL, p + d]) << (2 * i)  # EMPTY 0, BLACK 1, WHITE 2, EDGE 3: Black's view
        i += 1
    if c == WHITE:  # White's view: the fields holding 1 or 2 (two bits that differ) flip both bits
        differ = (code ^ (code >> 1)) & 0x5555
        code ^= differ | (differ << 1)
    return code


@njit(cache=CACHE)
def matches_pattern(B, S, p, c):
    return PATTERN_TABLE[pattern_code(B, S, p, c)] != 0


@njit(cache=CACHE)
def _pattern_move(B, S, c):
    """A random empty neighbour of the last move that matches a 3x3 pattern for c, is legal,
    fills no own eye and is not a self-atari; -1 if none."""
    last = S[LAST]
    if last < 0:
        return -1
    w = np.int64(S[WIDTH])
    found = 0  # a bit per neighbour, in the order below (no array: this runs for most moves)
    n = 0
    i = 0
    for d in (-w, -w + 1, 1, w + 1, w, w - 1, -1, -w - 1):
        p = last + d
        if B[COL, p] == EMPTY and matches_pattern(B, S, p, c) and is_legal(B, S, p, c) \
                and not is_eye(B, S, p, c) and libs_after(B, S, p, c, np.int64(2)) >= 2:
            found |= 1 << i
            n += 1
        i += 1
    if n == 0:
        return -1
    k = np.random.randint(n)  # the k-th match, counting from 0
    i = 0
    for d in (-w, -w + 1, 1, w + 1, w, w - 1, -1, -w - 1):
        if found >> i & 1:
            if k == 0:
                return last + d
            k -= 1
        i += 1
    return -1


@njit(cache=CACHE)
def _answer_last(B, S, c, ladders):
    """A move answering the last move: capture an enemy string next to it that is in atari,
    or save our string it put in atari (capture a neighbour of ours in atari, else extend if
    that gains liberties and, with `ladders`, does not run into a ladder); -1 if none."""
    last = S[LAST]
    if last < 0:
        return -1
    w = np.int64(S[WIDTH])
    for d in (0, 1, -1, w, -w):
        y = last + d
        k = B[COL, y]
        if k != BLACK and k != WHITE:
            continue
        r = B[ROOT, y]
        if not in_atari(B, r):
            continue
        lib = last_liberty(B, r)
        if k == 3 - c:  # capture
            if is_legal(B, S, lib, c):
                return lib
        else:  # save our string: capture an attacker in atari, else extend
            x = r
            while True:
                for e in (1, -1, w, -w):
                    z = x + e
                    if B[COL, z] == 3 - c and in_atari(B, B[ROOT, z]):
                        q = last_liberty(B, B[ROOT, z])
                        if is_legal(B, S, q, c):
                            return q
                x = B[NXT, x]
                if x == r:
                    break
            if is_legal(B, S, lib, c):
                n = libs_after(B, S, lib, c, np.int64(3))
                if n >= 3 or n == 2 and not (
                        ladders and ladder_after(B, S, lib, c, np.int64(LADDER_NODES_PLAYOUT)) == 1):
                    return lib
    return -1


@njit(cache=CACHE)
def _lone(B, S, p, c):
    """No stone of c next to p: c's stone there would be a string of one."""
    w = np.int64(S[WIDTH])
    for d in (1, -1, w, -w):
        if B[COL, p + d] == c:
            return False
    return True


@njit(cache=CACHE)
def random_move(B, S, c, heavy, throwins):
    """A random legal move for c that fills no own eye (heavy: refuse most self-ataris, of
    any size; with `throwins` only those of two stones or more, as michi does); PASS when none
    is left.  Reorders EMP (harmless)."""
    m = S[NEMPTY]
    k = 0
    while k < m:
        j = k + np.random.randint(m - k)
        p = B[EMP, j]
        if is_legal(B, S, p, c) and not is_eye(B, S, p, c):
            if not heavy or libs_after(B, S, p, c, np.int64(2)) >= 2 or throwins and _lone(B, S, p, c) \
                    or np.random.random() > PROB_REJECT_SELFATARI:
                return p
        q = B[EMP, k]
        B[EMP, k] = p
        B[EMP, j] = q
        B[EPOS, p] = k
        B[EPOS, q] = j
        k += 1
    return PASS


@njit(cache=CACHE)
def playout(B, S, komi, amaf, max_moves, heavy, ladders, throwins):
    """Play on until two passes (or max_moves): the area score, black - white - komi.
    `amaf[p]` gets the colour that played p first, + 4 * (its move's index + 1), where it is
    still 0 (search.uct's `playout`).  `ladders`: heavy
    playouts do not run from an atari into a ladder; `throwins`: they play self-ataris of one
    stone."""
    moves = 0
    while S[PASSES] < 2 and moves < max_moves:
        c = S[TOMOVE]
        p = -1
        if heavy and np.random.random() < PROB_ANSWER:
            p = _answer_last(B, S, c, ladders)
        if heavy and p < 0 and np.random.random() < PROB_PATTERN:
            p = _pattern_move(B, S, c)
        if p < 0:
            p = random_move(B, S, c, heavy, throwins)
        if p >= 0 and amaf[p] == 0:
            amaf[p] = c + 4 * (moves + 1)
        play(B, S, p)
        moves += 1
    return score(B, S, komi)


@njit(cache=CACHE)
def playouts(B0, S0, komi, count, heavy, ladders, throwins):
    """`count` playouts from the position; returns Black's wins (for benchmarks and tests)."""
    amaf = np.zeros(B0.shape[1], np.int32)
    wins = 0
    for _ in range(count):
        B = B0.copy()
        S = S0.copy()
        if playout(B, S, komi, amaf, 3 * S[SIZE] * S[SIZE], heavy, ladders, throwins) > 0:
            wins += 1
    return wins


# -- the search: search.uct's tree with Go's moves, priors and playouts -------------------------
#
# A position is (B, S); the search's params are (komi, heavy playouts, ladders, gammas, weight,
# shapes, throw-ins): the learned priors' gammas, weight and large patterns, or NO_GAMMAS for
# michi's priors.

@njit(cache=CACHE)
def _distance(S, a, b):
    w = np.int64(S[WIDTH])
    dr = abs(a // w - b // w)
    dc = abs(a % w - b % w)
    return max(dr, dc) if max(dr, dc) <= 1 else dr + dc


@njit(cache=CACHE)
def _near_stones(B, S, p, radius):
    """Is there a stone within Manhattan distance `radius` of p?"""
    w = np.int64(S[WIDTH])
    size = S[SIZE]
    r0, c0 = p // w, p % w
    for dr in range(-radius, radius + 1):
        for dc in range(-radius + abs(dr), radius - abs(dr) + 1):
            r, cc = r0 + dr, c0 + dc
            if 1 <= r <= size and 1 <= cc <= size:
                k = B[COL, r * w + cc]
                if k == BLACK or k == WHITE:
                    return True
    return False


@njit(cache=CACHE)
def _line(S, p):
    w = np.int64(S[WIDTH])
    size = S[SIZE]
    r, c = p // w - 1, p % w - 1
    return min(min(r, c), min(size - 1 - r, size - 1 - c)) + 1


@njit(cache=CACHE)
def _ataris(B, S, p, c):
    """Is p one of the two liberties of an enemy string next to it (c playing p is an atari)?"""
    w = np.int64(S[WIDTH])
    libs = np.empty(3, np.int64)
    for d in (1, -1, w, -w):
        y = p + d
        if B[COL, y] == 3 - c and string_libs(B, S, B[ROOT, y], libs, np.int64(3)) == 2:
            return True
    return False


@njit(cache=CACHE)
def _priors(B, S, p, c, ladders):
    """(prior visits, prior wins) of c playing p; `ladders`: read the ladders p starts."""
    pn = PRIOR_EVEN
    pw = PRIOR_EVEN / 2
    w = np.int64(S[WIDTH])
    captured = captures_by(B, S, p, c)
    if captured:
        v = PRIOR_CAPTURE_ONE if captured == 1 else PRIOR_CAPTURE_MANY
        pn += v
        pw += v
    libs = libs_after(B, S, p, c, np.int64(3))
    ladder = 0
    if ladders and not captured:
        ladder = ladder_after(B, S, p, c, np.int64(LADDER_NODES)) if libs == 2 or _ataris(B, S, p, c) else 0
        if ladder == 1:  # our string there would be caught in a ladder
            pn += PRIOR_LADDER
        elif ladder == 2:  # an atari whose ladder works
            pn += PRIOR_CAPTURE_ONE
            pw += PRIOR_CAPTURE_ONE
    for d in (1, -1, w, -w):  # saving a string of ours in atari
        y = p + d
        if B[COL, y] == c and in_atari(B, B[ROOT, y]) and libs >= 2 and ladder != 1:
            pn += PRIOR_ESCAPE
            pw += PRIOR_ESCAPE
            break
    if libs == 1 and not captured:
        pn += PRIOR_SELFATARI
    if matches_pattern(B, S, p, c):
        pn += PRIOR_PATTERN
        pw += PRIOR_PATTERN
    last = S[LAST]
    if last >= 0:
        dist = _distance(S, p, last)
        if 1 <= dist <= 2:
            pn += PRIOR_NEAR[dist - 1]
            pw += PRIOR_NEAR[dist - 1]
    if not _near_stones(B, S, p, 3):
        line = _line(S, p)
        if line <= 2:
            pn += PRIOR_EMPTY_AREA
        elif line == 3:
            pn += PRIOR_EMPTY_AREA
            pw += PRIOR_EMPTY_AREA
    return pn, pw


# -- learned priors: move features and their weights (bots.go.gammas learns them) -------------
#
# A move is one feature from each group below; its strength is the product of its features'
# weights (gammas), and its probability its share of all moves' strengths (Coulom's
# generalized Bradley-Terry model, "Computing Elo ratings of move patterns in the game of Go",
# 2007).  The groups, in the order of `move_features`: its 3x3 pattern class; the stones it
# captures (none, 1, 2-4, 5+); a string of ours next to it in atari (none, saved with 3+
# liberties, with 2, not saved); a self-atari (no, of one stone, of more); an atari (no,
# one whose ladder works, another); its string caught in a ladder (no, yes); its distance to
# the last move and to the one before (none, 1 to 5, more: as _distance); its line (1 to 5+);
# no stone within distance 3 (no, yes).  Then, with a table of large patterns (`shapes`, sorted
# codes of `large_codes`), one more group: the largest known diamond around the move (slot 0:
# none known, slot i: shapes[i - 1]); its gammas follow the fixed groups' NFEATURES.
FEATURE_SIZES = (NPATTERN_CLASSES, 4, 4, 3, 3, 2, 7, 7, 5, 2)
FEATURE_OFFSETS = tuple(sum(FEATURE_SIZES[:i]) for i in range(len(FEATURE_SIZES)))
NFEATURES = sum(FEATURE_SIZES)
NGROUPS = len(FEATURE_SIZES) + 1  # with the large patterns' group
_F = FEATURE_OFFSETS
NO_SHAPES = np.zeros(0, np.int64)  # no large patterns: every move is in slot 0


def _diamond_points() -> tuple[np.ndarray, np.ndarray]:
    """The points within Manhattan distance 3 of a move as (dr, dc): the distance-2 diamond
    first (4 at distance 1, the 4 diagonal neighbours, 4 at distance 2 in line), then the 12 at
    distance 3; and (8 symmetries, 24): under each rotation and mirror, which of them lands on
    each point.  Every symmetry maps the first 12 onto themselves, so one pass codes both."""
    base = [(-1, 0), (0, 1), (1, 0), (0, -1), (-1, 1), (1, 1), (1, -1), (-1, -1), (-2, 0), (0, 2), (2, 0), (0, -2),
            (-3, 0), (0, 3), (3, 0), (0, -3), (-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1)]
    images = []
    for flip in (False, True):
        for turn in range(4):
            image = []
            for dr, dc in base:
                if flip:
                    dc = -dc
                for _ in range(turn):
                    dr, dc = dc, -dr
                image.append(base.index((dr, dc)))
            images.append(image)
    return np.array(base, np.int64), np.array(images, np.int64)


DIAMOND, DIAMOND_IMAGES = _diamond_points()
SMALL_DIAMOND = 12  # points of the distance-2 diamond
LARGE_TAG = np.int64(1) << 50  # marks a distance-3 code, so the two kinds never collide


@njit(cache=CACHE)
def large_codes(B, S, p, c):
    """(the distance-2 diamond's code, the distance-3 diamond's code | LARGE_TAG) around p,
    seen by c: 2 bits a point (empty, c's, the opponent's, off the board), the least code of
    the 8 rotations and mirrors."""
    w = np.int64(S[WIDTH])
    size = S[SIZE]
    r0, c0 = p // w, p % w
    n = DIAMOND.shape[0]
    v = np.empty(n, np.int64)
    for i in range(n):
        r, cc = r0 + DIAMOND[i, 0], c0 + DIAMOND[i, 1]
        v[i] = 3
        if 1 <= r <= size and 1 <= cc <= size:
            k = B[COL, r * w + cc]
            v[i] = 0 if k == EMPTY else 1 if k == c else 2
    small = np.int64(1) << 62
    large = np.int64(1) << 62
    for s in range(8):
        code = np.int64(0)
        for i in range(n):
            code |= v[DIAMOND_IMAGES[s, i]] << np.int64(2 * i)
            if i == SMALL_DIAMOND - 1:
                small = min(small, code)
        large = min(large, code)
    return small, large | LARGE_TAG


@njit(cache=CACHE)
def shape_slot(shapes, small, large):
    """The large patterns' slot of a move with these codes: the distance-3 diamond's if the
    table knows it, else the distance-2 one's, else 0."""
    n = shapes.shape[0]
    for code in (large, small):
        i = np.searchsorted(shapes, code)
        if i < n and shapes[i] == code:
            return i + 1
    return 0


@njit(cache=CACHE)
def _distance_bin(S, p, q):
    if q < 0:
        return 0
    d = _distance(S, p, q)
    return d if d <= 5 else 6


@njit(cache=CACHE)
def move_features(B, S, p, c, ladders, shapes, out):
    """The feature of each group of c playing p (legal, not an own eye) into out[0..10], as
    indexes into the gamma vector; `shapes`: the large patterns' table (NO_SHAPES for none)."""
    w = np.int64(S[WIDTH])
    out[0] = PATTERN_CLASS[pattern_code(B, S, p, c)]
    captured = captures_by(B, S, p, c)
    out[1] = _F[1] + (0 if captured == 0 else 1 if captured == 1 else 2 if captured <= 4 else 3)
    libs = libs_after(B, S, p, c, np.int64(3))
    atari = _ataris(B, S, p, c)
    ladder = 0
    if ladders and not captured and (libs == 2 or atari):
        ladder = ladder_after(B, S, p, c, np.int64(LADDER_NODES))
    save = 0
    size = 1
    for d in (1, -1, w, -w):
        y = p + d
        if B[COL, y] == c:
            r = B[ROOT, y]
            dup = False
            for e in (1, -1, w, -w):
                if e == d:
                    break
                dup = dup or (B[COL, p + e] == c and B[ROOT, p + e] == r)
            if not dup:
                size += B[SSIZE, r]
            if in_atari(B, r):
                save = 3 if libs <= 1 or ladder == 1 else 1 if libs >= 3 else 2
    out[2] = _F[2] + save
    out[3] = _F[3] + (0 if libs != 1 or captured else 1 if size == 1 else 2)
    out[4] = _F[4] + (0 if not atari else 1 if ladder == 2 else 2)
    out[5] = _F[5] + (1 if ladder == 1 else 0)
    out[6] = _F[6] + _distance_bin(S, p, S[LAST])
    out[7] = _F[7] + _distance_bin(S, p, S[LAST2])
    out[8] = _F[8] + min(_line(S, p), 5) - 1
    out[9] = _F[9] + (0 if _near_stones(B, S, p, 3) else 1)
    slot = 0
    if shapes.shape[0]:
        small, large = large_codes(B, S, p, c)
        slot = shape_slot(shapes, small, large)
    out[10] = NFEATURES + slot


@njit(cache=CACHE)
def move_strength(B, S, p, c, ladders, gammas, shapes, scratch):
    """The product of the gammas of c playing p's features."""
    move_features(B, S, p, c, ladders, shapes, scratch)
    s = 1.0
    for i in range(scratch.shape[0]):
        s *= gammas[scratch[i]]
    return s


@njit(cache=CACHE)
def children(pos, params, mask, moves, prior):
    """search.uct's `children`: the legal moves that fill no own eye, with their priors
    (_priors), and PASS, with losing priors unless the opponent just passed (or nothing else
    is left).  A non-empty `mask` (the root: the moves legal under the full rules) filters
    the points."""
    B, S = pos
    c = S[TOMOVE]
    gammas, weight = params[3], params[4]
    learned = gammas.shape[0] > 0
    scratch = np.empty(NGROUPS, np.int64)
    k = 0
    strongest = 0.0
    for j in range(S[NEMPTY]):
        p = B[EMP, j]
        if mask.shape[0] and not mask[p]:
            continue
        if is_legal(B, S, p, c) and not is_eye(B, S, p, c):
            moves[k] = p
            if learned:
                s = move_strength(B, S, p, c, params[2], gammas, params[5], scratch)
                prior[1, k] = s
                strongest = max(strongest, s)
            else:
                prior[0, k], prior[1, k] = _priors(B, S, p, c, params[2])
            k += 1
    if learned:  # the strongest move wins all its `weight` prior visits, a move 1/100 as strong a tenth
        for i in range(k):
            prior[0, i] = PRIOR_EVEN + weight
            prior[1, i] = PRIOR_EVEN / 2 + weight * np.sqrt(prior[1, i] / strongest)
    moves[k] = PASS
    if S[LAST] == PASS and S[PASSES] > 0 or k == 0:
        prior[0, k] = PRIOR_EVEN
        prior[1, k] = PRIOR_EVEN / 2
    else:
        prior[0, k] = PRIOR_EVEN + PRIOR_PASS_LOSSES
        prior[1, k] = 0.0
    return k + 1


@njit(cache=CACHE)
def _to_move(pos):
    return pos[1][TOMOVE]


@njit(cache=CACHE)
def _copy(pos):
    return pos[0].copy(), pos[1].copy()


@njit(cache=CACHE)
def _play(pos, move):
    play(pos[0], pos[1], np.int64(move))


@njit(cache=CACHE)
def _is_over(pos):
    return pos[1][PASSES] >= 2


@njit(cache=CACHE)
def _playout(pos, params, amaf):
    """search.uct's `playout`: heavy or light playouts to the end, scored by area with komi;
    what the result is worth to Black (`reward`)."""
    B, S = pos
    komi, heavy, ladders, throwins, bonus = params[0], params[1], params[2], params[6], params[7]
    return reward(playout(B, S, komi, amaf, 3 * S[SIZE] * S[SIZE], heavy, ladders, throwins), bonus)


@njit(cache=CACHE)
def reward(margin, bonus):
    """A playout's worth to Black from its margin (Black's area less White's and komi): 1 a
    win, 0 a loss, 0.5 a jigo; with `bonus` > 0 a win is worth 1 - bonus plus bonus times its
    margin's share of SCORE_POINTS (capped), and a loss as much less than bonus, so that of
    two moves that win as often the one that wins by more is preferred (Pachi's val_scale)."""
    if margin == 0:
        return 0.5
    share = min(abs(margin), SCORE_POINTS) / SCORE_POINTS
    if margin > 0:
        return 1.0 - bonus + bonus * share
    return bonus * (1.0 - share)


SEARCH = uct.Kernel(uct.GameKernels(_to_move, _copy, _play, _is_over, children, _playout), "go")


NO_GAMMAS = np.zeros(0)  # the search's params without learned priors: michi's hand-set ones


def run(V, I, meta, B0, S0, komi, heavy, root_mask, count, ladders=False, gammas=NO_GAMMAS, weight=0.0,  # noqa: E741
        shapes=NO_SHAPES, throwins=False, bonus=0.0):
    """`count` iterations of the Go search in the tree (V, I, meta) from the board (B0, S0)
    (fewer if the tree fills up); returns how many were done.  For tests and tools: the
    player goes through SEARCH.search."""
    scratch = SEARCH.scratch(B0.shape[1])
    params = (komi, heavy, ladders, gammas, weight, shapes, throwins, bonus)
    return SEARCH.run(V, I, meta, (B0, S0), params, root_mask, count, SEARCH.policy, *scratch)


@njit(cache=CACHE)
def moves(B, S, out):
    """Fill `out` with the legal moves of the side to move that fill no own eye; the count."""
    c = S[TOMOVE]
    n = 0
    for j in range(S[NEMPTY]):
        p = B[EMP, j]
        if is_legal(B, S, p, c) and not is_eye(B, S, p, c):
            out[n] = p
            n += 1
    return n


@njit(cache=CACHE)
def captures_by(B, S, p, c):
    """Stones c would capture by playing p."""
    w = np.int64(S[WIDTH])
    total = 0
    roots = np.empty(4, np.int64)
    k = 0
    for d in (1, -1, w, -w):
        y = p + d
        if B[COL, y] == 3 - c and in_atari(B, B[ROOT, y]):
            r = B[ROOT, y]
            dup = False
            for j in range(k):
                dup = dup or roots[j] == r
            if not dup:
                roots[k] = r
                k += 1
                total += B[SSIZE, r]
    return total


@njit(cache=CACHE)
def influence(B, S):
    """(black, white): empty points closer to one colour's stones (weight 2 at distance 1,
    1 at distance 2, Manhattan) than to the other's: a cheap territory estimate."""
    w = np.int64(S[WIDTH])
    size = S[SIZE]
    black = 0
    white = 0
    for j in range(S[NEMPTY]):
        p = B[EMP, j]
        r0, c0 = p // w, p % w
        total = 0
        for dr in range(-2, 3):
            for dc in range(-2 + abs(dr), 3 - abs(dr)):
                r, cc = r0 + dr, c0 + dc
                if (dr or dc) and 1 <= r <= size and 1 <= cc <= size:
                    k = B[COL, r * w + cc]
                    weight = 2 if abs(dr) + abs(dc) == 1 else 1
                    if k == BLACK:
                        total += weight
                    elif k == WHITE:
                        total -= weight
        if total > 0:
            black += 1
        elif total < 0:
            white += 1
    return black, white


@njit(cache=CACHE)
def stones(B, S, c):
    n = 0
    for j in range(B.shape[1]):
        if B[COL, j] == c:
            n += 1
    return n
