"""Move features of the Hex search's learned priors (bots.hex.gammas weighs them).

A move is a set of features, one from each group, seen from the mover: a White move is read
on the transposed board, so that "own" edges are always the first and last rows, and a
pattern and its 180-degree turn are one pattern (the board's only symmetries that keep the
colours).  The groups (FEATURE_SIZES, in order):

- RING: the six neighbours, each empty, own, the opponent's (a stone or an edge) or a neutral
  corner of the padding, in cyclic order from the cell above; the smaller code of the pattern
  and its turn (4**6 codes);
- MADE: the bridges the move makes with own stones or edges, both carriers empty (0, 1, 2,
  3 or more);
- CUT: the opponent's bridges it intrudes into, the other carrier empty (0, 1, 2 or more);
- SAVE: whether it restores an own bridge the opponent intruded into, by its last move or an
  older one (none, the last move, older);
- NEAR: where it stands from the last move (none, a neighbour, a bridge away, another cell at
  distance 2, at 3, farther);
- EDGE: its distance to its own edges (0 to 3 rows, the last meaning 3 or more) times 4, plus
  its distance to the opponent's.

The kernel computes the same features at training (tools/hex_gammas.py) and at play
(bots.hex.kernel.children), on the padded board of bots.hex.kernel.
"""

from __future__ import annotations

import numpy as np

from bots.cache import caching

CACHE = caching()

from numba import njit  # noqa: E402  (after the cache directory is chosen)

from .board import EMPTY  # noqa: E402

RING, MADE, CUT, SAVE, NEAR, EDGE = range(6)
FEATURE_SIZES = (4096, 4, 3, 3, 6, 16)
FEATURE_OFFSETS = tuple(int(x) for x in np.cumsum((0,) + FEATURE_SIZES[:-1]))
NGROUPS = len(FEATURE_SIZES)
NFEATURES = sum(FEATURE_SIZES)
WORK = NGROUPS + 12  # the length of move_features' `out`: the features, then its scratch
NO_GAMMAS = np.zeros(0, np.float64)  # no learned priors: the hand-set ones

# The six neighbours in cyclic order, (drow, dcol), as Black reads them; White reads the
# transposed ones (dcol, drow).  Neighbours k and k + 3 face each other; neighbours k and k + 1
# are the carriers of the bridge to the cell at their sum.
_DR = np.array([-1, -1, 0, 1, 1, 0], np.int64)
_DC = np.array([0, 1, 1, 0, -1, -1], np.int64)


@njit(cache=CACHE)
def move_features(board, pw, ph, last, p, c, out):
    """Write the feature of each group (an index into all the groups' gammas) of c playing the
    empty padded cell p into out[:NGROUPS], using out[NGROUPS:WORK] as scratch.  `board` is
    the padded board (pos[OFF:]) of padded width pw and height ph, `last` the last move (a
    padded cell, or negative for none)."""
    r0, c0 = p // pw, p % pw
    white = c != 1
    state = out[NGROUPS:NGROUPS + 6]  # each neighbour: 0 empty, 1 own, 2 the opponent's, 3 neutral
    cell = out[NGROUPS + 6:WORK]
    for k in range(6):
        dr, dc = (_DC[k], _DR[k]) if white else (_DR[k], _DC[k])
        q = p + dr * pw + dc
        cell[k] = q
        v = board[q]
        if v == EMPTY:
            state[k] = 0
        elif v & 3 == 3:
            state[k] = 3
        elif v & 3 == c:
            state[k] = 1
        else:
            state[k] = 2
    code = 0
    turned = 0
    for k in range(6):
        code |= state[k] << (2 * k)
        turned |= state[(k + 3) % 6] << (2 * k)
    out[RING] = min(code, turned)
    made = 0
    for k in range(6):
        k1 = (k + 1) % 6
        if state[k] == 0 and state[k1] == 0:
            dr = _DR[k] + _DR[k1]
            dc = _DC[k] + _DC[k1]
            if white:
                dr, dc = dc, dr
            r, col = r0 + dr, c0 + dc
            if 0 <= r < ph and 0 <= col < pw:
                v = board[r * pw + col]
                if v != EMPTY and v & 3 == c:
                    made += 1
    cut = 0
    save = 0
    for k in range(6):
        before, after = state[(k + 5) % 6], state[(k + 1) % 6]
        if before == 2 and after == 2 and state[k] == 0:
            cut += 1
        elif before == 1 and after == 1 and state[k] == 2 and board[cell[k]] == 3 - c:
            if cell[k] == last:
                save = 1
            elif save == 0:
                save = 2
    out[MADE] = FEATURE_OFFSETS[MADE] + min(made, 3)
    out[CUT] = FEATURE_OFFSETS[CUT] + min(cut, 2)
    out[SAVE] = FEATURE_OFFSETS[SAVE] + save
    near = 0
    if last >= 0:
        dr, dc = last // pw - r0, last % pw - c0
        d = (abs(dr) + abs(dc) + abs(dr + dc)) // 2
        if d == 1:
            near = 1
        elif d == 2:  # a bridge away, or two steps in a line (both offsets even)
            near = 3 if dr % 2 == 0 and dc % 2 == 0 else 2
        elif d == 3:
            near = 4
        else:
            near = 5
    out[NEAR] = FEATURE_OFFSETS[NEAR] + near
    h, w = ph - 2, pw - 2
    row, col = r0 - 1, c0 - 1
    if white:
        own, other = min(col, w - 1 - col), min(row, h - 1 - row)
    else:
        own, other = min(row, h - 1 - row), min(col, w - 1 - col)
    out[EDGE] = FEATURE_OFFSETS[EDGE] + 4 * min(own, 3) + min(other, 3)


@njit(cache=CACHE)
def move_strength(board, pw, ph, last, p, c, gammas, scratch):
    """The product of the gammas of c playing p's features (`scratch`: WORK int64s)."""
    move_features(board, pw, ph, last, p, c, scratch)
    s = 1.0
    for i in range(NGROUPS):
        s *= gammas[scratch[i]]
    return s
