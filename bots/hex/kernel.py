"""numba kernels for Hex: the board inside search, fill-the-board playouts with bridge-save
replies, and the moves and priors that the shared MCTS tree (search.uct) searches with.

A position is ONE int32 array (so copying it is one memcpy): NSLOTS slots, then the padded
board of PW x PH = (width + 2) x (height + 2) cells, padded cell p = (row + 1) * PW + col + 1
at `pos[OFF + p]`.  The padding stands for the edges: the top row is TOP (Black), the bottom
row BOTTOM (Black), the left column LEFT (White), the right column RIGHT (White), the four
corners NEUTRAL.  A cell's colour is `value & 3` (TOP and BOTTOM are Black, LEFT and RIGHT
White; the 4 and 8 bits tell an edge's first and second side), so a stone next to its edge
"touches" a stone of its colour, and a stone on the second row makes a bridge with its edge
through the two cells between them, exactly as with another stone (edge templates for free).

Slots: TOMOVE, PLIES (moves so far, a swap included), SWAPRULE (the pie rule is on), LAST
(the last move: a padded cell, SWAP_MOVE, or NO_MOVE), WIDTH, HEIGHT, PW, PH, NEMPTY (empty
cells), FIRST (Black's first stone, for the swap).

Moves in the tree: padded cells (>= 0, AMAF-tracked) and SWAP_MOVE (-1), the canonical pie
move of bots.hex.board (the one stone moves to the transposed cell and turns White; Black
moves next), so players 1 and 2 alternate at every move as the tree requires.

Playouts (docs/protocols/hex.md section 6.1): the empty cells are filled in random order,
alternately, then ONE flood fill decides the winner (a full board has exactly one).  With
`bridges` on, a player whose bridge the opponent's last move intruded into (two of its stones,
or a stone and its edge through the padding, with exactly two empty common neighbours, one
just taken) answers in the other cell of the bridge.

`children` lists every empty cell (and SWAP_MOVE when the swap is allowed) with priors: the
learned ones (the features of `move_features` weighed by bots.hex.gammas) when the params hold
gammas, else the hand-set ones (an even prior, plus prior wins for a cell that makes a bridge
with an own stone or edge and for a cell next to the last move; see PRIOR_* for what the arena
said about these and others), and prior wins for the swap of a first stone off Black's edge
rows either way, leaving out the inferior cells with
F_INFERIOR (dead cells, edge-bridge carriers and cells dominated by a killer, see the
inferior cells section), and
nothing for a finished position (which is then a leaf: its playout returns the winner, since
filling a decided board cannot change who joined the edges).  `is_over` is always False: the
contract allows it, `children` never expands a finished position, and a flood fill from the
last move at every step of every descent cost 10-30% of the iterations (measured on 11x11
and 7x7).

Speed (one core, `playout_rate`): about 540,000 fill playouts a second from the empty 11x11
board (370,000 on 13x13), 340,000 with bridge-save replies (240,000); a plain-Python fill
playout does about 21,000-30,000.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from bots.cache import caching

CACHE = caching()  # compiled kernels go to the per-user cache (bots.cache), never into the package

from numba import njit  # noqa: E402  (after the cache directory is chosen)

from search import uct  # noqa: E402  (caches into that directory too)

from .board import BLACK, EMPTY, SWAP, WHITE  # noqa: E402

if TYPE_CHECKING:
    from .board import State

NEUTRAL = 3
FIRST_SIDE, SECOND_SIDE = 4, 8  # bits of the padding: top or left, bottom or right
TOP, BOTTOM = BLACK | FIRST_SIDE, BLACK | SECOND_SIDE
LEFT, RIGHT = WHITE | FIRST_SIDE, WHITE | SECOND_SIDE
SEEN = 16  # a flood fill's mark on a stone (cleared again, or the board is thrown away)

SWAP_MOVE = SWAP  # -1: the pie move in the tree (AMAF ignores it)
NO_MOVE = -2  # LAST before any move

TOMOVE, PLIES, SWAPRULE, LAST, WIDTH, HEIGHT, PW, PH, NEMPTY, FIRST = range(10)
NSLOTS = 10
OFF = NSLOTS  # the board starts here in the position array

# Priors of the tree's moves (visits and wins, for the mover; an even prior of 10 visits, as in
# bots.go.kernel).  Each feature was kept because the arena said so (bots.hex.mcts, 11x11, 5000
# iterations a move, 200 games in pairs of colours from random two-move openings): bridges and
# nearness together won 113/200 against the even prior (58/100 at 0.2 s a move; 231/400 with
# the bridge-save reply added, which alone won 95/200: not kept); a prior of losses for the edge
# rows early on, on top of the three, lost 95/200 against the three without it: not kept.  The
# swap gets no AMAF statistics (a negative move), so against moves that do it was not chosen
# even after the centre opening f6 on 11x11; with PRIOR_SWAP for a first stone off Black's edge rows the player won
# 56/80 games with the swap rule on against itself without (0.2 s a move, from the empty board).
PRIOR_EVEN = 10.0
PRIOR_BRIDGE = 6.0  # makes a bridge with an own stone (or its own edge), both carriers empty
PRIOR_NEAR = 6.0  # next to the last move
PRIOR_SWAP = 20.0  # the swap of a first stone off Black's own edge rows (AMAF never helps it)
F_BRIDGE, F_NEAR, F_SWAP = 2, 4, 8  # the priors' features (params[0]: the bits in use)
F_INFERIOR = 16  # not a prior: the cells `left_out` finds are left out of the children
PRIORS = F_BRIDGE | F_NEAR | F_SWAP  # the features the player uses


# -- the position ------------------------------------------------------------------------------

@njit(cache=CACHE)
def new_position(width, height, swap):
    """The empty width x height board, Black to move."""
    pw = width + 2
    ph = height + 2
    pos = np.zeros(OFF + pw * ph, np.int32)
    for r in range(ph):
        for c in range(pw):
            p = r * pw + c
            top_or_bottom = r == 0 or r == ph - 1
            left_or_right = c == 0 or c == pw - 1
            if top_or_bottom and left_or_right:
                v = NEUTRAL
            elif r == 0:
                v = TOP
            elif r == ph - 1:
                v = BOTTOM
            elif c == 0:
                v = LEFT
            elif c == pw - 1:
                v = RIGHT
            else:
                v = EMPTY
            pos[OFF + p] = v
    pos[TOMOVE] = BLACK
    pos[PLIES] = 0
    pos[SWAPRULE] = 1 if swap else 0
    pos[LAST] = NO_MOVE
    pos[WIDTH] = width
    pos[HEIGHT] = height
    pos[PW] = pw
    pos[PH] = ph
    pos[NEMPTY] = width * height
    pos[FIRST] = -1
    return pos


def padded(cell: int, width: int) -> int:
    """The padded cell of a State's cell (row * width + col); SWAP stays SWAP."""
    if cell < 0:
        return cell
    return (cell // width + 1) * (width + 2) + cell % width + 1


def unpadded(p: int, width: int) -> int:
    """The State's cell of a padded cell; SWAP (any negative) stays as it is."""
    if p < 0:
        return p
    return (p // (width + 2) - 1) * width + p % (width + 2) - 1


def to_kernel(state: State) -> np.ndarray:
    """The kernel position of a `bots.hex.board.State`."""
    w = state.width
    pos = new_position(w, state.height, bool(state.swap))
    board = pos[OFF:]
    stones = 0
    for cell, v in enumerate(state.board):
        if v:
            board[padded(cell, w)] = v
            stones += 1
    pos[TOMOVE] = state.to_move
    pos[PLIES] = state.plies
    pos[NEMPTY] = state.cells - stones
    pos[LAST] = NO_MOVE if state.last is None else padded(state.last, w)
    if state.plies == 1 and stones == 1:
        pos[FIRST] = padded(state.board.index(BLACK), w) if BLACK in state.board else -1
    return pos


def board_of(pos: np.ndarray) -> bytes:
    """The unpadded board (as `State.board`) of a kernel position: for tests and tools."""
    w, h, pw = int(pos[WIDTH]), int(pos[HEIGHT]), int(pos[PW])
    return bytes(int(pos[OFF + (r + 1) * pw + c + 1]) & 3 for r in range(h) for c in range(w))


@njit(cache=CACHE)
def swap_allowed(pos):
    return pos[SWAPRULE] != 0 and pos[PLIES] == 1 and pos[WIDTH] == pos[HEIGHT] and pos[FIRST] >= 0


@njit(cache=CACHE)
def play(pos, move):
    """The side to move plays `move` (an empty padded cell, or SWAP_MOVE when allowed); the
    caller knows it is legal."""
    c = pos[TOMOVE]
    if move == SWAP_MOVE:
        pw = pos[PW]
        first = pos[FIRST]
        r, col = first // pw, first % pw
        pos[OFF + first] = EMPTY
        pos[OFF + col * pw + r] = WHITE  # transposed (square board: same padded width)
        pos[TOMOVE] = BLACK
        pos[PLIES] = 2
        pos[LAST] = SWAP_MOVE
        return
    pos[OFF + move] = c
    pos[NEMPTY] -= 1
    pos[PLIES] += 1
    if pos[PLIES] == 1:
        pos[FIRST] = move
    pos[TOMOVE] = 3 - c
    pos[LAST] = move


# -- who has won ----------------------------------------------------------------------------

@njit(cache=CACHE)
def group_sides(pos, p, stack):
    """The sides (FIRST_SIDE | SECOND_SIDE bits) of its own edges that the group of the stone
    at padded cell p touches.  `stack` is scratch of at least the board's size; the board is
    left as it was."""
    board = pos[OFF:]
    pw = np.int64(pos[PW])
    c = board[p]
    sides = 0
    board[p] = c | SEEN
    stack[0] = p
    n = 1
    i = 0
    while i < n:
        x = stack[i]
        i += 1
        for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
            y = x + d
            v = board[y]
            if v == c:
                board[y] = c | SEEN
                stack[n] = y
                n += 1
            elif v & 3 == c and v & (FIRST_SIDE | SECOND_SIDE):
                sides |= v & (FIRST_SIDE | SECOND_SIDE)
    for j in range(n):
        board[stack[j]] = c
    return sides


@njit(cache=CACHE)
def connects(pos, c, stack):
    """Does colour c join its two edges?  (Any position; the board is left as it was.)"""
    board = pos[OFF:]
    pw = np.int64(pos[PW])
    ph = np.int64(pos[PH])
    n = 0
    if c == BLACK:  # from the cells next to the top edge
        for col in range(1, pw - 1):
            p = pw + col
            if board[p] == c:
                board[p] = c | SEEN
                stack[n] = p
                n += 1
    else:
        for r in range(1, ph - 1):
            p = r * pw + 1
            if board[p] == c:
                board[p] = c | SEEN
                stack[n] = p
                n += 1
    found = False
    i = 0
    while i < n and not found:
        x = stack[i]
        i += 1
        for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
            y = x + d
            v = board[y]
            if v == c:
                board[y] = c | SEEN
                stack[n] = y
                n += 1
            elif v == (c | SECOND_SIDE):
                found = True
    for j in range(n):
        board[stack[j]] = c
    return found


@njit(cache=CACHE)
def winner(pos):
    """The colour that has joined its edges (the last mover first), or 0."""
    stack = np.empty(pos.shape[0] - OFF, np.int32)
    last = pos[LAST]
    if last >= 0:  # only the last move can have ended the game
        return pos[OFF + last] if group_sides(pos, last, stack) == FIRST_SIDE | SECOND_SIDE else 0
    for c in (BLACK, WHITE):
        if connects(pos, c, stack):
            return c
    return 0


@njit(cache=CACHE)
def full_winner(pos, stack):
    """The winner of a FULL board: Black if Black joins top and bottom, else White.  Marks
    Black's stones it reaches (the board is thrown away after a playout)."""
    board = pos[OFF:]
    pw = np.int64(pos[PW])
    n = 0
    for col in range(1, pw - 1):
        p = pw + col
        if board[p] == BLACK:
            board[p] = BLACK | SEEN
            stack[n] = p
            n += 1
    while n:
        n -= 1
        x = stack[n]
        for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
            y = x + d
            v = board[y]
            if v == BLACK:
                board[y] = BLACK | SEEN
                stack[n] = y
                n += 1
            elif v == BOTTOM:
                return BLACK
    return WHITE


@njit(cache=CACHE)
def win_cells(pos, c, out):
    """The empty cells where c would join its edges at once: written to `out` (padded), the
    count returned.  (0 if c has already joined them.)"""
    board = pos[OFF:]
    size = pos.shape[0] - OFF
    pw = np.int64(pos[PW])
    mark = np.zeros(size, np.int8)  # bit 1: reached from the first side, bit 2: from the second
    stack = np.empty(size, np.int32)
    for side in (1, 2):
        edge = c | (FIRST_SIDE if side == 1 else SECOND_SIDE)
        n = 0
        for p in range(size):  # the stones next to that edge
            if board[p] == c:
                for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
                    q = p + d
                    if 0 <= q < size and board[q] == edge:
                        mark[p] |= side
                        stack[n] = p
                        n += 1
                        break
        while n:
            n -= 1
            x = stack[n]
            for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
                y = x + d
                if board[y] == c and not mark[y] & side:
                    mark[y] |= side
                    stack[n] = y
                    n += 1
    k = 0
    for p in range(size):
        if board[p] == EMPTY:
            touch = 0
            for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
                v = board[p + d]
                if v == c:
                    touch |= mark[p + d]
                elif v == (c | FIRST_SIDE):
                    touch |= 1
                elif v == (c | SECOND_SIDE):
                    touch |= 2
            if touch == 3:
                out[k] = p
                k += 1
        elif board[p] == c and mark[p] == 3:
            return 0
    return k


# -- bridges ------------------------------------------------------------------------------------

@njit(cache=CACHE, inline="always")
def save_reply(board, pw, x, c):
    """The bridge-save reply for c to a stone just played at padded cell x (`board` the padded
    board, pos[OFF:], of padded width `pw`): the other carrier of a bridge of c's that x
    intruded into (the first found), or -1.  Around x, for three neighbours in a row (cyclic
    order), if the outer two are c's (stones or edge) and the middle one is empty, the outer
    two make a bridge whose carriers are x and the middle one.  Branch-free up to the answer:
    bit k of `own` / `emp` is the k-th neighbour of x, in the cyclic order (dcol, drow) =
    (1,0) (1,-1) (0,-1) (-1,0) (-1,1) (0,1)."""
    v = board[x + 1]
    own = np.int64(v & 3 == c)
    emp = np.int64(v == EMPTY)
    v = board[x - pw + 1]
    own |= np.int64(v & 3 == c) << 1
    emp |= np.int64(v == EMPTY) << 1
    v = board[x - pw]
    own |= np.int64(v & 3 == c) << 2
    emp |= np.int64(v == EMPTY) << 2
    v = board[x - 1]
    own |= np.int64(v & 3 == c) << 3
    emp |= np.int64(v == EMPTY) << 3
    v = board[x + pw - 1]
    own |= np.int64(v & 3 == c) << 4
    emp |= np.int64(v == EMPTY) << 4
    v = board[x + pw]
    own |= np.int64(v & 3 == c) << 5
    emp |= np.int64(v == EMPTY) << 5
    # the middle cell k: empty, with the cells k - 1 and k + 1 (cyclically) c's
    found = emp & ((own << 1) | (own >> 5)) & ((own >> 1) | (own << 5)) & 63
    if found == 0:
        return -1
    if found & 1:
        return x + 1
    if found & 2:
        return x - pw + 1
    if found & 4:
        return x - pw
    if found & 8:
        return x - 1
    if found & 16:
        return x + pw - 1
    return x + pw


# -- inferior cells -------------------------------------------------------------------------------
#
# Cells that are never better than another move (docs/protocols/hex.md section 6.3), left out of
# the tree's moves with F_INFERIOR:
#
# * Dead: the cell's colour cannot change who wins.  Three local patterns prove it, each in its
#   six turns, the padding counting as stones of its edge's colour (a neutral corner as
#   neither): four neighbours in a row of one colour; three in a row of one colour and, facing
#   the middle one, a stone of the other; two in a row of one colour facing two of the other.
# * Captured at an edge: the two empty cells between a stone on its side's second row and its
#   edge (the edge bridge).  An intrusion into one is answered in the other, and the intruder
#   is then dead; a move there by the owner gains what it already has.
# * Dominated (for the side to move, see `left_out`): a vulnerable cell, one that an
#   opponent's stone on a neighbour y would kill, is no better than y itself; it is left out
#   while y stays among the moves.

@njit(cache=CACHE, inline="always")
def _turned(m, k):
    """The 6-bit neighbour mask m turned by k places (bit k becomes bit 0)."""
    return ((m >> k) | (m << (6 - k))) & 63


@njit(cache=CACHE)
def _around(board, pw, x):
    """Bit masks of x's six neighbours (save_reply's cyclic order): (Black's, White's, empty,
    edge padding)."""
    black = np.int64(0)
    white = np.int64(0)
    empty = np.int64(0)
    edge = np.int64(0)
    k = 0
    for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
        v = board[x + d]
        bit = np.int64(1) << k
        if v & 3 == BLACK:
            black |= bit
        elif v & 3 == WHITE:
            white |= bit
        elif v == EMPTY:
            empty |= bit
        if v & (FIRST_SIDE | SECOND_SIDE):
            edge |= bit
        k += 1
    return black, white, empty, edge


@njit(cache=CACHE, inline="always")
def _dead_by(black, white):
    """Whether neighbour masks like these prove a cell dead (the three patterns)."""
    for k in range(6):
        for a, b in ((_turned(black, k), _turned(white, k)), (_turned(white, k), _turned(black, k))):
            if a & 15 == 15 or (a & 7 == 7 and b & 16) or (a & 3 == 3 and b & 24 == 24):
                return True
    return False


@njit(cache=CACHE)
def dead(board, pw, x):
    """Whether the empty padded cell x is dead by the three patterns (`board` the padded
    board, pos[OFF:], of padded width `pw`)."""
    black, white, _, _ = _around(board, pw, x)
    return _dead_by(black, white)


@njit(cache=CACHE, inline="always")
def _killers_by(black, white, empty, c):
    """The empty neighbours (a mask, save_reply's order) where a stone of c's would make these
    masks dead: the cell is then vulnerable for the other side."""
    found = np.int64(0)
    for k in range(6):
        bit = np.int64(1) << k
        if empty & bit and (_dead_by(black | bit, white) if c == BLACK else _dead_by(black, white | bit)):
            found |= bit
    return found


@njit(cache=CACHE, inline="always")
def _inferior_by(black, white, empty, edge):
    """Whether neighbour masks like these make a cell dead or an edge-bridge carrier."""
    for own in (black, white):
        stone = own & ~edge
        wall = own & edge
        before_stone = (stone << 1) | (stone >> 5)  # bit k: neighbour k - 1 is a stone
        after_stone = (stone >> 1) | (stone << 5)
        before_wall = (wall << 1) | (wall >> 5)
        after_wall = (wall >> 1) | (wall << 5)
        if empty & ((before_stone & after_wall) | (before_wall & after_stone)) & 63:
            return True
    return _dead_by(black, white)


@njit(cache=CACHE)
def inferior(board, pw, x):
    """Whether the empty padded cell x is dead or a carrier of an edge bridge of either side:
    three neighbours of x in a row are a stone, an empty cell and that stone's own edge."""
    black, white, empty, edge = _around(board, pw, x)
    return _inferior_by(black, white, empty, edge)


@njit(cache=CACHE)
def left_out(board, pw, c, mask, out):
    """out[p] = 1 for each empty padded cell p that c need not play (`mask`, if not empty,
    limits the moves): inferior, or vulnerable with a killer y that stays among the moves
    (y allowed, not inferior, not vulnerable itself), since c playing y is then at least as
    good (docs/protocols/hex.md section 6.3).  Two passes, each cell's neighbours read once."""
    size = board.shape[0]
    kill = np.zeros(size, np.int8)  # bit 6: inferior; bits 0-5: the killers
    for p in range(size):
        if board[p] == EMPTY:
            black, white, empty, edge = _around(board, pw, p)
            kill[p] = _killers_by(black, white, empty, 3 - c) | (64 if _inferior_by(black, white, empty, edge) else 0)
    for p in range(size):
        out[p] = 0
        if board[p] != EMPTY:
            continue
        if kill[p] & 64:
            out[p] = 1
            continue
        k = 0
        for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
            y = p + d
            if kill[p] >> k & 1 and kill[y] == 0 and not (mask.shape[0] and not mask[y]):
                out[p] = 1
                break
            k += 1


# -- playouts ------------------------------------------------------------------------------------

# numba's generator is one per process: search.uct's seed/seeded serve every game
seed, seeded = uct.seed, uct.seeded


@njit(cache=CACHE)
def fill(pos, amaf, bridges):
    """Fill the board from `pos` in random order, alternately from the side to move (with
    `bridges`: answering an intrusion into a bridge in its other cell), and return the winner.
    `amaf[p]` gets the colour that played p, where it is still 0."""
    board = pos[OFF:]
    size = board.shape[0]
    pw = np.int64(pos[PW])
    cells = np.empty(size, np.int32)
    n = 0
    for p in range(size):
        if board[p] == EMPTY:
            cells[n] = p
            n += 1
    left = n
    c = pos[TOMOVE]
    last = pos[LAST]
    while left:
        p = -1
        if bridges and last >= 0:
            p = save_reply(board, pw, last, c)
        while p < 0:  # a random empty cell (cells taken by a reply are dropped when drawn)
            j = np.random.randint(0, n)
            q = cells[j]
            n -= 1
            cells[j] = cells[n]
            if board[q] == EMPTY:
                p = q
        board[p] = c
        if amaf[p] == 0:
            amaf[p] = c
        left -= 1
        last = p
        c = 3 - c
    pos[NEMPTY] = 0
    return full_winner(pos, cells)


@njit(cache=CACHE)
def playouts(pos0, count, bridges):
    """`count` playouts from the position; Black's wins (for benchmarks and tests)."""
    amaf = np.zeros(pos0.shape[0] - OFF, np.int32)
    wins = 0
    for _ in range(count):
        pos = pos0.copy()
        if fill(pos, amaf, bridges) == BLACK:
            wins += 1
    return wins


def playout_rate(size: int = 11, seconds: float = 1.0, bridges: bool = False, height: int | None = None) -> float:
    """Fill playouts per second from the empty size x size board (one core), measured for
    about `seconds` (for `bots bench hex`); `bridges`: with bridge-save replies."""
    pos = new_position(size, size if height is None else height, False)
    playouts(pos, 10, bridges)  # compiled (or loaded) before the clock starts
    start, n = time.perf_counter(), 0
    while True:
        playouts(pos, 500, bridges)
        n += 500
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


# -- learned priors: move features and their weights (bots.hex.gammas learns them) --------------
#
# A move is a set of features, one from each group, seen from the mover: a White move is read
# on the transposed board, so that "own" edges are always the first and last rows, and a
# pattern and its 180-degree turn are one pattern (the board's only symmetries that keep the
# colours).  The groups (FEATURE_SIZES, in order):
#
# - RING: the six neighbours, each empty, own, the opponent's (a stone or an edge) or a neutral
#   corner of the padding, in cyclic order from the cell above; the smaller code of the pattern
#   and its turn (4**6 codes);
# - MADE: the bridges the move makes with own stones or edges, both carriers empty (0, 1, 2,
#   3 or more);
# - CUT: the opponent's bridges it intrudes into, the other carrier empty (0, 1, 2 or more);
# - SAVE: whether it restores an own bridge the opponent intruded into, by its last move or an
#   older one (none, the last move, older);
# - NEAR: where it stands from the last move (none, a neighbour, a bridge away, another cell at
#   distance 2, at 3, farther);
# - EDGE: its distance to its own edges (0 to 3 rows, the last meaning 3 or more) times 4, plus
#   its distance to the opponent's;
# - FAR: the six cells a bridge away, read as RING reads the neighbours (a cell beyond the
#   padding reads as the padding cell nearest it: the edge, or a neutral corner); with RING,
#   the twelve cells within distance 2 that MoHex 2.0's patterns see, as two groups of six.
#
# The same function computes them at training (tools/hex_gammas.py) and at play (`children`).
# They live in this file because numba's disk cache of `children` (and search.uct's digest of
# the game's kernel files) would not see a change made to them in another file.

RING, MADE, CUT, SAVE, NEAR, EDGE, FAR = range(7)
FEATURE_SIZES = (4096, 4, 3, 3, 6, 16, 4096)
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


@njit(cache=CACHE, inline="always")
def _reads(v, c):
    """How c reads a padded cell's value in a pattern: 0 empty, 1 own (a stone or an edge), 2
    the opponent's, 3 a neutral corner."""
    if v == EMPTY:
        return 0
    if v & 3 == 3:
        return 3
    return 1 if v & 3 == c else 2


@njit(cache=CACHE, inline="always")
def _pattern(state):
    """The code of six cells read in cyclic order (2 bits each): the smaller of the pattern's
    and its 180-degree turn's."""
    code = 0
    turned = 0
    for k in range(6):
        code |= state[k] << (2 * k)
        turned |= state[(k + 3) % 6] << (2 * k)
    return min(code, turned)


@njit(cache=CACHE)
def move_features(board, pw, ph, last, p, c, out):
    """Write the feature of each group (an index into all the groups' gammas) of c playing the
    empty padded cell p into out[:NGROUPS], using out[NGROUPS:WORK] as scratch.  `board` is
    the padded board (pos[OFF:]) of padded width pw and height ph, `last` the last move (a
    padded cell, or negative for none)."""
    r0, c0 = p // pw, p % pw
    white = c != BLACK
    state = out[NGROUPS:NGROUPS + 6]  # each neighbour: 0 empty, 1 own, 2 the opponent's, 3 neutral
    cell = out[NGROUPS + 6:WORK]
    for k in range(6):
        dr, dc = (_DC[k], _DR[k]) if white else (_DR[k], _DC[k])
        q = p + dr * pw + dc
        cell[k] = q
        state[k] = _reads(board[q], c)
    out[RING] = _pattern(state)
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
    out[MADE] = FEATURE_OFFSETS[MADE] + min(bridges_made(board, pw, ph, p, c), 3)
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
    for k in range(6):  # the far cell of the bridge whose carriers are neighbours k and k + 1
        j = (k + 1) % 6
        dr, dc = (_DC[k] + _DC[j], _DR[k] + _DR[j]) if white else (_DR[k] + _DR[j], _DC[k] + _DC[j])
        state[k] = _reads(board[min(max(r0 + dr, 0), ph - 1) * pw + min(max(c0 + dc, 0), pw - 1)], c)
    out[FAR] = FEATURE_OFFSETS[FAR] + _pattern(state)


@njit(cache=CACHE)
def move_strength(board, pw, ph, last, p, c, gammas, scratch):
    """The product of the gammas of c playing p's features (`scratch`: WORK int64s)."""
    move_features(board, pw, ph, last, p, c, scratch)
    s = 1.0
    for i in range(NGROUPS):
        s *= gammas[scratch[i]]
    return s


# -- the search: search.uct's tree with Hex's moves, priors and playouts --------------------------
#
# A position is the int32 array above; the search's params are (the priors' features, an int of
# F_* bits, 0 for an even prior everywhere; bridge replies in playouts, a bool; the learned
# priors' gammas, NO_GAMMAS for the hand-set ones; their weight in prior visits, a float; and
# bots.hex.vc.knowledge's AND steps, an int).

@njit(cache=CACHE, inline="always")
def bridges_made(board, pw, ph, p, c):
    """How many bridges c makes by playing the empty padded cell p: an own stone or edge at the
    far cell, both carriers (neighbours k and k + 1 in _DR/_DC's order) empty."""
    r, col = p // pw, p % pw
    n = 0
    for k in range(6):
        j = (k + 1) % 6
        rr, cc = r + _DR[k] + _DR[j], col + _DC[k] + _DC[j]
        if 0 <= rr < ph and 0 <= cc < pw and board[rr * pw + cc] & 3 == c \
                and board[p + _DR[k] * pw + _DC[k]] == EMPTY and board[p + _DR[j] * pw + _DC[j]] == EMPTY:
            n += 1
    return n


@njit(cache=CACHE, inline="always")
def _priors(board, pw, ph, last, p, c, features):
    """(prior visits, prior wins) of c playing the empty padded cell p (`last` the last move;
    `features` the F_* bits in use)."""
    pn = PRIOR_EVEN
    pw_ = PRIOR_EVEN / 2
    if features & F_BRIDGE and bridges_made(board, pw, ph, p, c) > 0:
        pn += PRIOR_BRIDGE
        pw_ += PRIOR_BRIDGE
    if last >= 0 and features & F_NEAR:
        for d in (1, -pw + 1, -pw, -1, pw - 1, pw):
            if p + d == last:
                pn += PRIOR_NEAR
                pw_ += PRIOR_NEAR
                break
    return pn, pw_


@njit(cache=CACHE)
def children(pos, params, mask, moves, prior):
    """search.uct's `children`: nothing if the game is over; else every empty cell (only
    those with mask[p] != 0 when `mask` is not empty) with its priors, and SWAP_MOVE when the
    swap is allowed (an even prior).  With learned gammas (params[2] not empty) a cell's
    priors come from its strength (`move_strength`) instead of the hand-set features: the
    strongest cell wins all its params[3] prior visits, a cell 1/100 as strong a tenth."""
    if winner(pos) != 0:
        return 0
    features = params[0]
    gammas, weight = params[2], params[3]
    learned = gammas.shape[0] > 0
    scratch = np.empty(WORK, np.int64)
    strongest = 0.0
    board = pos[OFF:]
    size = board.shape[0]
    c = pos[TOMOVE]
    pw = np.int64(pos[PW])
    ph = np.int64(pos[PH])
    last = np.int64(pos[LAST])
    k = 0
    spare = -1  # a cell left out, kept in case all are (the game is decided: any move)
    out = np.zeros(size if features & F_INFERIOR else 0, np.int8)
    if features & F_INFERIOR:
        left_out(board, pw, c, mask, out)
    for p in range(size):
        if board[p] != EMPTY:
            continue
        if mask.shape[0] and not mask[p]:
            continue
        if out.shape[0] and out[p]:
            spare = p
            continue
        moves[k] = p
        if learned:
            s = move_strength(board, pw, ph, last, p, c, gammas, scratch)
            prior[1, k] = s
            strongest = max(strongest, s)
        elif features:
            prior[0, k], prior[1, k] = _priors(board, pw, ph, last, p, c, features)
        else:
            prior[0, k], prior[1, k] = PRIOR_EVEN, PRIOR_EVEN / 2
        k += 1
    if learned:
        for i in range(k):
            prior[0, i] = PRIOR_EVEN + weight
            prior[1, i] = PRIOR_EVEN / 2 + weight * np.sqrt(prior[1, i] / strongest)
    if k == 0 and spare >= 0:
        moves[0] = spare
        prior[0, 0] = PRIOR_EVEN
        prior[1, 0] = PRIOR_EVEN / 2
        k = 1
    if swap_allowed(pos):
        moves[k] = SWAP_MOVE
        prior[0, k] = PRIOR_EVEN
        prior[1, k] = PRIOR_EVEN / 2
        row = pos[FIRST] // pw
        if features & F_SWAP and 1 < row < ph - 2:  # a first stone away from Black's edges
            prior[0, k] += PRIOR_SWAP
            prior[1, k] += PRIOR_SWAP
        k += 1
    return k


@njit(cache=CACHE)
def _to_move(pos):
    return pos[TOMOVE]


@njit(cache=CACHE)
def _copy(pos):
    return pos.copy()


@njit(cache=CACHE)
def _is_over(pos):
    return False


@njit(cache=CACHE)
def _playout(pos, params, amaf):
    """search.uct's `playout`: a fill playout (bridge replies if params[1]); 1.0 when player 1
    wins it, else 0.0."""
    return 1.0 if fill(pos, amaf, params[1]) == 1 else 0.0


def space(pos: np.ndarray) -> int:
    """The size of the tree's move space for this position (the padded board)."""
    return int(pos.shape[0] - OFF)
