"""A toy second user of the shared numba tree (search/uct.py): Hex on a 3x3 rhombus, in numba.

Cells are r * 3 + c.  Player 1 connects the top row to the bottom row, player 2 the left
column to the right one; a cell touches (r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1)
and (r+1, c).  A full board has exactly one winner, so playouts fill the board at random.

A position is (board int8[9], info int64[2]: the player to move, stones on the board); the
search's params are (prior visits, prior wins) of every move.  `solve` is the exact oracle
(plain Python) the tests check the search against.  `KNOWING` is the same search with exact
`knowledge` (search.uct): it reads the oracle's answers from tables in its params
(`knowing_params`), so the tests can check what the tree does with a proof.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bots.cache import caching

CACHE = caching()  # compiled kernels go to the per-user cache (bots.cache), never into the package

from numba import njit  # noqa: E402

from search import uct  # noqa: E402

N = 3
CELLS = N * N
NEIGHBOURS = np.full((CELLS, 6), -1, np.int64)
for _r in range(N):
    for _c in range(N):
        _k = 0
        for _dr, _dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)):
            if 0 <= _r + _dr < N and 0 <= _c + _dc < N:
                NEIGHBOURS[_r * N + _c, _k] = (_r + _dr) * N + _c + _dc
                _k += 1


@njit(cache=CACHE)
def winner(board):
    """1 or 2 when that player has connected its sides, else 0."""
    seen = np.zeros(CELLS, np.int8)
    stack = np.empty(CELLS, np.int64)
    for player in (1, 2):
        seen[:] = 0
        top = 0
        for i in range(N):
            start = i if player == 1 else i * N  # the top row, or the left column
            if board[start] == player:
                seen[start] = 1
                stack[top] = start
                top += 1
        while top:
            top -= 1
            x = stack[top]
            if (x // N if player == 1 else x % N) == N - 1:
                return player
            for k in range(6):
                y = NEIGHBOURS[x, k]
                if y >= 0 and seen[y] == 0 and board[y] == player:
                    seen[y] = 1
                    stack[top] = y
                    top += 1
    return 0


@njit(cache=CACHE)
def to_move(pos):
    return pos[1][0]


@njit(cache=CACHE)
def copy(pos):
    return pos[0].copy(), pos[1].copy()


@njit(cache=CACHE)
def play(pos, move):
    board, info = pos
    board[move] = info[0]
    info[0] = 3 - info[0]
    info[1] += 1


@njit(cache=CACHE)
def is_over(pos):
    return winner(pos[0]) != 0


@njit(cache=CACHE)
def children(pos, params, mask, moves, prior):
    board = pos[0]
    k = 0
    for m in range(CELLS):
        if board[m] == 0 and (mask.shape[0] == 0 or mask[m]):
            moves[k] = m
            prior[0, k] = params[0]
            prior[1, k] = params[1]
            k += 1
    return k


@njit(cache=CACHE)
def playout(pos, params, amaf):
    board, info = pos
    empty = np.empty(CELLS, np.int64)
    n = 0
    for m in range(CELLS):
        if board[m] == 0:
            empty[n] = m
            n += 1
    player = info[0]
    while n:
        j = np.random.randint(n)
        m = empty[j]
        n -= 1
        empty[j] = empty[n]
        board[m] = player
        if amaf[m] == 0:
            amaf[m] = player
        player = 3 - player
    w = winner(board)
    return 1.0 if w == 1 else 0.0 if w == 2 else 0.5  # what the result is worth to player 1


@njit(cache=CACHE)
def seed(value):
    np.random.seed(value)


@njit(cache=CACHE)
def knowledge(pos, params, keep):
    """Exact knowledge from the oracle's tables (params[2]: does the player to move win, by the
    board's base-3 index; params[3]: the bits of its winning moves): a lost position is
    proven, a won one keeps only its winning moves."""
    board, info = pos
    index = 0
    for m in range(CELLS):
        index = index * 3 + board[m]
    if not params[2][index]:
        return uct.KNOW_LOSS
    for m in range(CELLS):
        keep[m] = (params[3][index] >> m) & 1
    return uct.KNOW_KEEP


@njit(cache=CACHE)
def slow_playout(pos, params, amaf):
    """`playout` after params[2] steps of busy work (a xorshift the compiler cannot skip): an
    iteration as slow as the tests need."""
    x = np.uint64(88172645463325252)
    for _ in range(int(params[2])):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
    amaf[0] = amaf[0] | np.int8(x == np.uint64(0))  # never true (xorshift never reaches 0): keeps x alive
    return playout(pos, params, amaf)


SEARCH = uct.Kernel(uct.GameKernels(to_move, copy, play, is_over, children, playout), "hex3_toy")
PARAMS = (2.0, 1.0)
SLOW = uct.Kernel(uct.GameKernels(to_move, copy, play, is_over, children, slow_playout), "hex3_slow")
KNOW_VISITS = 16
KNOWING = uct.Kernel(uct.GameKernels(to_move, copy, play, is_over, children, playout, knowledge), "hex3_know",
                     know_visits=KNOW_VISITS)


def position(cells: str):
    """The position of a 9-character diagram ('.', '1', '2'), rows from the top; the player
    to move is 1 when the stones are even."""
    board = np.array([".12".index(ch) for ch in cells], np.int8)
    stones = int((board != 0).sum())
    return board, np.array([1 if stones % 2 == 0 else 2, stones], np.int64)


@lru_cache(maxsize=None)
def solve(cells: str, player: int) -> bool:
    """Does `player`, to move, win the position (exact, by search)?"""
    board = np.array([".12".index(ch) for ch in cells], np.int8)
    if winner(board):
        return winner(board) == player
    for m, ch in enumerate(cells):
        if ch == ".":
            after = cells[:m] + str(player) + cells[m + 1:]
            if not solve(after, 3 - player):
                return True
    return False


def index(cells: str) -> int:
    """The base-3 index of a diagram (the knowledge tables' key)."""
    out = 0
    for ch in cells:
        out = out * 3 + ".12".index(ch)
    return out


@lru_cache(maxsize=1)
def knowing_params():
    """PARAMS and the oracle's tables for `knowledge`, over every position a game can reach."""
    wins = np.zeros(3 ** CELLS, np.bool_)
    moves = np.zeros(3 ** CELLS, np.int64)
    seen = set()

    def visit(cells: str, player: int) -> None:
        if cells in seen:
            return
        seen.add(cells)
        i = index(cells)
        wins[i] = solve(cells, player)
        if winner(np.array([".12".index(ch) for ch in cells], np.int8)):
            return
        for m, ch in enumerate(cells):
            if ch == ".":
                after = cells[:m] + str(player) + cells[m + 1:]
                if not solve(after, 3 - player):
                    moves[i] |= 1 << m
                visit(after, 3 - player)

    visit("." * CELLS, 1)
    return PARAMS + (wins, moves)
