"""The numba Hex kernels (bots/hex/kernel.py) against plain Python.

The oracle is `bots.hex.board` (`connected`, `State.play`, `State.legal_moves`) and, for the
bridge replies and the immediate wins, brute force written here: on thousands of random
boards (square and not, 1x1 to 11x11) the kernel must agree on who has joined their edges,
the winner of full boards (exactly one colour), its moves and children (the empty cells, and
the swap exactly when `State.swap_allowed()`), playing moves and the swap, the cells that win
at once, the bridge-save reply to an intrusion, and its playouts must fill the board
alternately and return the winner the oracle sees on the filled board.  The metamorphic
tests: a 180-degree rotation keeps the winner, a transposition with the colours exchanged
exchanges it.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.hex import kernel as K
from bots.hex.board import (BLACK, EMPTY, OFFSETS, SWAP, WHITE, State, connected, empty, from_moves, from_rows,
                            parse_cell)

SIZES = [(w, h) for w in range(1, 9) for h in range(1, 9)] + [(11, 11), (13, 13), (11, 7), (19, 19)]


def random_board(rng: random.Random, w: int, h: int, fill: float) -> bytes:
    return bytes(rng.choice((BLACK, WHITE)) if rng.random() < fill else EMPTY for _ in range(w * h))


def full_board(rng: random.Random, w: int, h: int) -> bytes:
    return random_board(rng, w, h, 1.0)


def state_of(w: int, h: int, board: bytes, to_move: int = BLACK, last: int | None = None,
             swap: bool = False) -> State:
    stones = sum(1 for v in board if v)
    return State(w, h, board, to_move, swap, stones, last)


def stack_for(pos: np.ndarray) -> np.ndarray:
    return np.empty(K.space(pos), np.int32)


def random_game(rng: random.Random, w: int, h: int, swap: bool = False, upto: int | None = None) -> State:
    """A legal state: random moves (the swap sometimes) until the end or `upto` moves."""
    s = empty(w, h, swap)
    while not s.is_terminal() and (upto is None or s.plies < upto):
        moves = s.legal_moves()
        s = s.play(SWAP if SWAP in moves and rng.random() < 0.5 else rng.choice(moves))
    return s


# -- the board and who has won -------------------------------------------------------------------

def test_padding_and_conversion():
    for w, h in [(1, 1), (3, 5), (11, 11), (19, 19)]:
        pos = K.new_position(w, h, False)
        assert K.space(pos) == (w + 2) * (h + 2)
        assert K.board_of(pos) == bytes(w * h)
        for cell in range(w * h):
            p = K.padded(cell, w)
            assert K.unpadded(p, w) == cell
            assert pos[K.OFF + p] == EMPTY
        board = pos[K.OFF:]
        pw = w + 2
        assert all(board[c] == K.TOP for c in range(1, pw - 1))
        assert all(board[(h + 1) * pw + c] == K.BOTTOM for c in range(1, pw - 1))
        assert all(board[r * pw] == K.LEFT and board[r * pw + pw - 1] == K.RIGHT for r in range(1, h + 1))
        assert {board[0], board[pw - 1], board[(h + 1) * pw], board[-1]} == {K.NEUTRAL}
    assert K.padded(SWAP, 11) == SWAP and K.unpadded(SWAP, 11) == SWAP


def test_connects_and_full_winner_against_the_oracle():
    rng = random.Random(1)
    boards = 0
    for _ in range(25):
        for w, h in SIZES:
            board = full_board(rng, w, h)
            pos = K.to_kernel(state_of(w, h, board))
            stack = stack_for(pos)
            black, white = connected(w, h, board, BLACK), connected(w, h, board, WHITE)
            assert black != white  # the Hex theorem: exactly one colour joins its edges
            assert bool(K.connects(pos, BLACK, stack)) == black
            assert bool(K.connects(pos, WHITE, stack)) == white
            assert K.board_of(pos) == board  # connects leaves the board as it was
            assert K.winner(pos) == (BLACK if black else WHITE)
            assert K.full_winner(pos, stack) == (BLACK if black else WHITE)
            boards += 1
    assert boards > 1500


def test_connects_on_partial_boards_and_the_last_move():
    rng = random.Random(2)
    for _ in range(15):
        for w, h in SIZES:
            board = random_board(rng, w, h, rng.random())
            pos = K.to_kernel(state_of(w, h, board))
            stack = stack_for(pos)
            for colour in (BLACK, WHITE):
                assert bool(K.connects(pos, colour, stack)) == connected(w, h, board, colour)
    for _ in range(300):  # legal games: the winner as State sees it, from the last move
        w, h = rng.randint(1, 8), rng.randint(1, 8)
        s = random_game(rng, w, h, upto=rng.randint(0, w * h))
        pos = K.to_kernel(s)
        assert K.winner(pos) == (s.winner() or 0)


def rotate(board: bytes, w: int, h: int) -> bytes:
    return bytes(board[w * h - 1 - c] for c in range(w * h))


def transpose_swap(board: bytes, w: int, h: int) -> bytes:
    """The board mirrored across the a1 diagonal (h x w), colours exchanged."""
    out = bytearray(w * h)
    for r in range(h):
        for c in range(w):
            v = board[r * w + c]
            out[c * h + r] = 3 - v if v else 0
    return bytes(out)


def test_rotation_keeps_and_transposition_exchanges_the_winner():
    rng = random.Random(3)
    for _ in range(20):
        for w, h in SIZES:
            board = full_board(rng, w, h)
            stack = np.empty((w + 2) * (h + 2), np.int32)
            win = K.full_winner(K.to_kernel(state_of(w, h, board)), stack)
            assert K.full_winner(K.to_kernel(state_of(w, h, rotate(board, w, h))), stack) == win
            assert K.full_winner(K.to_kernel(state_of(h, w, transpose_swap(board, w, h))), stack) == 3 - win


# -- moves ------------------------------------------------------------------------------------

def children_of(state: State, mask=None) -> list[int]:
    pos = K.to_kernel(state)
    space = K.space(pos)
    moves = np.empty(space + 1, np.int32)
    prior = np.zeros((2, space + 1), np.float32)
    mask = np.zeros(0, np.uint8) if mask is None else mask
    out = []
    for params in ((K.PRIORS, True, K.NO_GAMMAS, 0.0), (0, False, K.NO_GAMMAS, 0.0)):
        n = K.children(pos, params, mask, moves, prior)
        assert np.all(prior[0, :n] > 0) and np.all(prior[1, :n] >= 0) and np.all(prior[1, :n] <= prior[0, :n])
        if not params[0]:
            assert np.all(prior[0, :n] == K.PRIOR_EVEN)
        out.append(sorted(K.unpadded(int(m), state.width) for m in moves[:n]))
    assert out[0] == out[1]
    return out[0]


def test_children_are_the_legal_moves():
    rng = random.Random(4)
    swaps = 0
    for _ in range(600):
        w = rng.randint(1, 9)
        h = w if rng.random() < 0.6 else rng.randint(1, 9)
        s = random_game(rng, w, h, swap=rng.random() < 0.5, upto=rng.choice((0, 1, 1, 2, 3, rng.randint(0, w * h))))
        got = children_of(s)
        assert got == sorted(s.legal_moves())  # [] for a finished game
        assert (SWAP in got) == (s.swap_allowed() and not s.is_terminal())
        swaps += SWAP in got
    assert swaps > 20


def test_children_mask_filters_cells():
    s = empty(5, swap=True).play(7)
    space = 7 * 7
    mask = np.zeros(space, np.uint8)
    for cell in (0, 3, 12):
        mask[K.padded(cell, 5)] = 1
    assert children_of(s, mask) == [SWAP, 0, 3, 12]


def test_play_and_swap_match_the_rules():
    rng = random.Random(5)
    for _ in range(300):
        w = rng.randint(1, 8)
        h = w if rng.random() < 0.5 else rng.randint(1, 8)
        s = empty(w, h, swap=rng.random() < 0.7)
        pos = K.to_kernel(s)
        while not s.is_terminal():
            moves = s.legal_moves()
            m = SWAP if SWAP in moves and rng.random() < 0.5 else rng.choice(moves)
            K.play(pos, K.padded(m, w))
            s = s.play(m)
            fresh = K.to_kernel(s)
            assert K.board_of(pos) == s.board
            if s.plies != 1:  # FIRST (the stone a swap moves) matters only after the first move
                fresh[K.FIRST] = pos[K.FIRST]
            assert np.array_equal(pos, fresh)  # the slots too (to move, plies, last, empties)
            assert pos[K.TOMOVE] == s.to_move and pos[K.PLIES] == s.plies
            assert bool(K.swap_allowed(pos)) == s.swap_allowed()


def test_swap_moves_the_stone_to_the_transposed_cell():
    s = empty(5, swap=True).play("b4")
    pos = K.to_kernel(s)
    assert K.swap_allowed(pos)
    K.play(pos, K.SWAP_MOVE)
    after = s.play(SWAP)
    assert K.board_of(pos) == after.board
    assert after.at(after.board.index(WHITE)) == WHITE and after.name(after.board.index(WHITE)) == "d2"
    assert pos[K.TOMOVE] == BLACK and pos[K.LAST] == K.SWAP_MOVE and not K.swap_allowed(pos)


# -- immediate wins ------------------------------------------------------------------------------

def test_win_cells_against_brute_force():
    rng = random.Random(6)
    found = 0
    for _ in range(1500):
        w, h = rng.randint(1, 7), rng.randint(1, 7)
        board = random_board(rng, w, h, rng.random())
        pos = K.to_kernel(state_of(w, h, board))
        out = np.empty(K.space(pos), np.int32)
        for colour in (BLACK, WHITE):
            expect = []
            if not connected(w, h, board, colour):
                for cell in range(w * h):
                    if board[cell] == EMPTY:
                        b = bytearray(board)
                        b[cell] = colour
                        if connected(w, h, bytes(b), colour):
                            expect.append(cell)
            n = K.win_cells(pos, colour, out)
            assert sorted(K.unpadded(int(p), w) for p in out[:n]) == expect
            found += bool(expect)
    assert found > 300


# -- bridges -----------------------------------------------------------------------------------

def colour_at(board: bytes, w: int, h: int, col: int, row: int) -> int:
    """A cell's colour, the padding included: off the top or bottom Black, off the sides
    White, off both (a corner) nobody."""
    off_rows, off_cols = not 0 <= row < h, not 0 <= col < w
    if off_rows and off_cols:
        return -1
    if off_rows:
        return BLACK
    if off_cols:
        return WHITE
    return board[row * w + col]


def saves_oracle(board: bytes, w: int, h: int, x: int, c: int) -> set[int]:
    """The cells y next to x, empty, whose two common neighbours with x are both c's."""
    row, col = divmod(x, w)
    out = set()
    for dc, dr in OFFSETS:
        yc, yr = col + dc, row + dr
        if not (0 <= yc < w and 0 <= yr < h) or board[yr * w + yc] != EMPTY:
            continue
        common = [(col + ec, row + er) for ec, er in OFFSETS
                  if (col + ec - yc, row + er - yr) in OFFSETS]
        assert len(common) == 2
        if all(colour_at(board, w, h, cc, rr) == c for cc, rr in common):
            out.add(yr * w + yc)
    return out


def test_save_reply_against_the_oracle():
    rng = random.Random(7)
    saves = 0
    for _ in range(3000):
        w, h = rng.randint(1, 7), rng.randint(1, 7)
        board = bytearray(random_board(rng, w, h, rng.random()))
        x = rng.randrange(w * h)
        c = rng.choice((BLACK, WHITE))
        board[x] = 3 - c  # the opponent's intrusion
        board = bytes(board)
        pos = K.to_kernel(state_of(w, h, board))
        expect = saves_oracle(board, w, h, x, c)
        got = K.save_reply(pos[K.OFF:], w + 2, K.padded(x, w), c)
        if expect:
            assert K.unpadded(int(got), w) in expect
            saves += 1
        else:
            assert got == -1
    assert saves > 300


def dead_cells(state: State) -> list[int]:
    pos = K.to_kernel(state)
    w = state.width
    return [c for c in range(state.cells) if not state.board[c] and K.dead(pos[K.OFF:], w + 2, K.padded(c, w))]


def truly_dead(w: int, h: int, board: bytes, x: int) -> bool:
    """The definition: for every filling of the other empty cells, x's colour never changes
    the winner."""
    others = [c for c in range(w * h) if not board[c] and c != x]
    for bits in range(1 << len(others)):
        filled = bytearray(board)
        for i, c in enumerate(others):
            filled[c] = BLACK if bits >> i & 1 else WHITE
        filled[x] = BLACK
        as_black = connected(w, h, bytes(filled), BLACK)
        filled[x] = WHITE
        if connected(w, h, bytes(filled), BLACK) != as_black:
            return False
    return True


def test_dead_cells_are_dead_by_the_definition():
    """Every cell the patterns call dead is dead by exhaustive filling (boards up to 5x5 with
    at most 9 empty cells), edges and corners included; and many are found."""
    rng = random.Random(13)
    found = edge = 0
    for _ in range(1500):
        w, h = rng.randint(2, 5), rng.randint(2, 5)
        empties = rng.randint(1, min(9, w * h))
        cells = rng.sample(range(w * h), empties)
        board = bytes(EMPTY if c in cells else rng.choice((BLACK, WHITE)) for c in range(w * h))
        for x in dead_cells(state_of(w, h, board)):
            assert truly_dead(w, h, board, x), (w, h, board, x)
            found += 1
            r, c = divmod(x, w)
            edge += r in (0, h - 1) or c in (0, w - 1)
    assert found > 500 and edge > 200


@pytest.mark.parametrize("rows, cell", [
    (["-----", "--BB-", "-B-B-", "-----", "-----"], "c3"),  # four in a row: b3 c2 d2 d3
    (["-----", "--BB-", "---B-", "-W---", "-----"], "c3"),  # three in a row, a White facing c2
    (["-----", "--BB-", "-----", "-WW--", "-----"], "c3"),  # two facing two: c2 d2 against b4 c4
    (["-----", "-----", "-----", "-----", "-B-B-"], "c5"),  # on Black's bottom edge: b5 d5 and the edge
])
def test_dead_patterns(rows, cell):
    s = from_rows(rows)
    assert parse_cell(cell, 5, 5) in dead_cells(s)


def test_live_cells_are_not_dead():
    assert dead_cells(empty(5)) == []
    s = from_rows(["-----", "--B--", "-----", "--W--", "-----"])
    assert dead_cells(s) == []


def inferior_cells(state: State) -> list[int]:
    pos = K.to_kernel(state)
    w = state.width
    return [c for c in range(state.cells)
            if not state.board[c] and K.inferior(pos[K.OFF:], w + 2, K.padded(c, w))]


@pytest.mark.parametrize("rows, cells", [
    (["-----", "--B--", "-----", "-----", "-----"], ["c1", "d1"]),  # Black's bridge to the top
    (["-----", "-----", "-----", "-B---", "-----"], ["a5", "b5"]),  # ... and to the bottom
    (["-----", "-----", "---W-", "-----", "-----"], ["e2", "e3"]),  # White's to the right
    (["-----", "-----", "-----", "-----", "--W--"], []),  # White on Black's edge row: no bridge
    (["-----", "-----", "--B--", "-----", "-----"], []),  # the middle: nothing
])
def test_edge_bridge_carriers_are_inferior(rows, cells):
    s = from_rows(rows)
    assert inferior_cells(s) == sorted(parse_cell(c, 5, 5) for c in cells)


def value(w: int, h: int, board: bytes, to_move: int, moves, memo: dict) -> bool:
    """Whether the side to move wins, by brute force, each side playing only `moves(board, c)`."""
    key = (board, to_move)
    if key not in memo:
        if connected(w, h, board, 3 - to_move):
            memo[key] = False
        else:
            memo[key] = any(not value(w, h, board[:c] + bytes([to_move]) + board[c + 1:], 3 - to_move, moves, memo)
                            for c in moves(board, to_move))
    return memo[key]


def kernel_moves(w: int, h: int, features: int):
    """The cells `children` lists for a board and a side to move, with these features."""
    def moves(board: bytes, to_move: int) -> list[int]:
        pos = K.to_kernel(state_of(w, h, board, to_move))
        out = np.empty(K.space(pos) + 1, np.int32)
        prior = np.zeros((2, K.space(pos) + 1), np.float32)
        n = K.children(pos, (features, False, K.NO_GAMMAS, 0.0), np.zeros(0, np.uint8), out, prior)
        return [K.unpadded(int(p), w) for p in out[:n]]
    return moves


def test_leaving_inferior_cells_out_keeps_every_position_s_value():
    """The value of a position with both sides playing only the children F_INFERIOR leaves
    (no dead, captured or dominated cell) is its true value: random boards up to 5x5 with at
    most 7 empty cells, either side to move."""
    rng = random.Random(17)
    pruned = 0
    for _ in range(150):
        w, h = rng.randint(2, 5), rng.randint(2, 5)
        cells = rng.sample(range(w * h), rng.randint(1, min(7, w * h)))
        board = bytes(EMPTY if c in cells else rng.choice((BLACK, WHITE)) for c in range(w * h))
        if connected(w, h, board, BLACK) or connected(w, h, board, WHITE):
            continue
        every, kept = kernel_moves(w, h, 0), kernel_moves(w, h, K.F_INFERIOR)
        for to_move in (BLACK, WHITE):
            pruned += len(every(board, to_move)) - len(kept(board, to_move))
            assert value(w, h, board, to_move, kept, {}) == value(w, h, board, to_move, every, {}), (w, h, board)
    assert pruned > 100


@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_a_vulnerable_cell_is_left_out_for_its_killer(to_move):
    """c3 touches Black's c2 d2 d3: a White stone on b4 (facing d2) or a Black one on b3 (four
    in a row) would kill it, so for either side c3 is no better than that killer, which stays."""
    board = from_rows(["-----", "--BB-", "---B-", "-----", "-----"]).board
    moves = kernel_moves(5, 5, K.F_INFERIOR)(board, to_move)
    c3, b4, b3 = (parse_cell(c, 5, 5) for c in ("c3", "b4", "b3"))
    assert c3 in kernel_moves(5, 5, 0)(board, to_move)
    assert c3 not in moves and (b4 if to_move == BLACK else b3) in moves


def test_children_leave_inferior_cells_out_only_with_the_feature():
    s = from_rows(["-----", "--BB-", "-B-B-", "-----", "-----"])
    c3 = parse_cell("c3", 5, 5)
    pos = K.to_kernel(s)
    moves = np.empty(K.space(pos) + 1, np.int32)
    prior = np.zeros((2, K.space(pos) + 1), np.float32)
    none = np.zeros(0, np.uint8)
    n = K.children(pos, (K.PRIORS, True, K.NO_GAMMAS, 0.0), none, moves, prior)
    assert K.padded(c3, 5) in moves[:n]
    m = K.children(pos, (K.PRIORS | K.F_INFERIOR, True, K.NO_GAMMAS, 0.0), none, moves, prior)
    assert set(moves[:m]) <= set(moves[:n]) - {K.padded(c, 5) for c in inferior_cells(s)}
    assert K.padded(c3, 5) not in moves[:m] and m < n - 2  # c3 and the carriers at the top
    only = np.zeros(K.space(pos), np.uint8)
    only[K.padded(c3, 5)] = 1  # the only move allowed is inferior: it is still a child
    n = K.children(pos, (K.PRIORS | K.F_INFERIOR, True, K.NO_GAMMAS, 0.0), only, moves, prior)
    assert n == 1 and moves[0] == K.padded(c3, 5)


def reply_in_playouts(state: State, reply: int, bridges: bool, n: int = 200) -> int:
    """In how many of n seeded playouts from `state` the side to move took `reply`."""
    pos0 = K.to_kernel(state)
    p = K.padded(reply, state.width)
    hits = 0
    with K.seeded(11):
        for _ in range(n):
            amaf = np.zeros(K.space(pos0), np.int8)
            K.fill(pos0.copy(), amaf, bridges)
            hits += amaf[p] == state.to_move
    return hits


@pytest.mark.parametrize("rows, moves, intrusion, reply", [
    # two Black stones b2 and c3 in a bridge (common neighbours c2 and b3)
    (["-----", "-B---", "--B--", "-----", "-----"], 0, "c2", "b3"),
    (["-----", "-B---", "--B--", "-----", "-----"], 0, "b3", "c2"),
    # a Black stone on the second row and the top edge (a bridge through c1 and d1)
    (["-----", "--B--", "-----", "-----", "-----"], 0, "c1", "d1"),
    (["-----", "--B--", "-----", "-----", "-----"], 0, "d1", "c1"),
    # a White stone on the second column from the right (d3) and the right edge, through e3 and e2
    (["-----", "-----", "---W-", "-----", "-----"], 1, "e3", "e2"),
    # a White stone next to the left edge through a4 and a5
    (["-----", "-----", "-----", "-W---", "-----"], 1, "a5", "a4"),
])
def test_playouts_answer_an_intrusion_into_a_bridge(rows, moves, intrusion, reply):
    base = from_rows(rows)
    mover = BLACK if moves == 0 else WHITE
    s = State(base.width, base.height, base.board, 3 - mover, False, base.plies, None).play(intrusion)
    assert s.to_move == mover
    cell = parse_cell(reply, base.width, base.height)
    pos = K.to_kernel(s)
    assert K.save_reply(pos[K.OFF:], base.width + 2, K.padded(s.last, base.width), mover) == K.padded(cell, base.width)
    assert reply_in_playouts(s, cell, True) == 200  # always answered
    assert reply_in_playouts(s, cell, False) < 190  # a plain fill often does not


def test_no_reply_without_a_bridge():
    s = from_rows(["-----", "-B---", "-----", "-----", "-----"], to_move=WHITE).play("b3")
    pos = K.to_kernel(s)
    assert K.save_reply(pos[K.OFF:], 7, K.padded(s.last, 5), BLACK) == -1  # one stone, no bridge
    s = from_rows(["-----", "-B---", "-WB--", "-----", "-----"], to_move=WHITE).play("c2")
    pos = K.to_kernel(s)
    assert K.save_reply(pos[K.OFF:], 7, K.padded(s.last, 5), BLACK) == -1  # b3 is taken: no bridge left


# -- playouts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("bridges", [False, True])
def test_playouts_fill_alternately_and_return_the_oracle_winner(bridges):
    rng = random.Random(8)
    with K.seeded(5):
        for _ in range(400):
            w = rng.randint(1, 9)
            h = w if rng.random() < 0.5 else rng.randint(1, 9)
            s = random_game(rng, w, h, swap=rng.random() < 0.3, upto=rng.randint(0, w * h))
            pos = K.to_kernel(s)
            amaf = np.zeros(K.space(pos), np.int8)
            was_empty = [c for c in range(s.cells) if s.board[c] == EMPTY]
            got = K.fill(pos, amaf, bridges)
            board = K.board_of(pos)
            assert EMPTY not in board
            played = [board[c] for c in was_empty]
            # alternately from the side to move: the mover has the first and every other move
            assert played.count(s.to_move) == (len(was_empty) + 1) // 2
            assert played.count(3 - s.to_move) == len(was_empty) // 2
            assert all(amaf[K.padded(c, w)] == board[c] for c in was_empty)
            assert sum(1 for v in amaf if v) == len(was_empty)
            winner = BLACK if connected(w, h, board, BLACK) else WHITE
            assert got == winner
            if s.is_terminal():
                assert got == s.winner()  # filling cannot change a decided game


def test_playouts_are_seeded_and_fair():
    pos = K.new_position(11, 11, False)
    with K.seeded(3):
        a = K.playouts(pos, 2000, True)
    with K.seeded(3):
        b = K.playouts(pos, 2000, True)
    assert a == b
    assert 0.45 < K.playouts(pos, 4000, False) / 4000 < 0.6  # a small first-mover advantage
    assert K.playouts(K.new_position(1, 1, False), 10, True) == 10
    assert K.playouts(K.new_position(3, 6, False), 200, True) < K.playouts(K.new_position(6, 3, False), 200, True)


def test_playout_rate_measures():
    assert K.playout_rate(5, 0.05) > 1000
    assert K.playout_rate(5, 0.05, bridges=True) > 1000


# -- priors ------------------------------------------------------------------------------------

def prior_oracle(state: State, cell: int, features: int) -> tuple[float, float]:
    """The priors as bots.hex.kernel describes them, by brute force on the State."""
    w, h = state.width, state.height
    row, col = divmod(cell, w)
    c = state.to_move
    bridge = False
    for d1 in OFFSETS:
        for d2 in OFFSETS:
            if (d1[0] - d2[0], d1[1] - d2[1]) not in OFFSETS:
                continue  # d1 and d2 are not next to each other
            carriers = [(col + d[0], row + d[1]) for d in (d1, d2)]
            if all(0 <= x < w and 0 <= y < h and state.board[y * w + x] == EMPTY for x, y in carriers) \
                    and colour_at(state.board, w, h, col + d1[0] + d2[0], row + d1[1] + d2[1]) == c:
                bridge = True
    near = state.last is not None and state.last >= 0 and \
        any((col + dc, row + dr) == (state.last % w, state.last // w) for dc, dr in OFFSETS)
    bonus = (K.PRIOR_BRIDGE * (bridge and bool(features & K.F_BRIDGE))
             + K.PRIOR_NEAR * (near and bool(features & K.F_NEAR)))
    return K.PRIOR_EVEN + bonus, K.PRIOR_EVEN / 2 + bonus


def test_priors_against_the_oracle():
    rng = random.Random(9)
    bonuses = 0
    for _ in range(300):
        w = rng.randint(1, 8)
        h = w if rng.random() < 0.5 else rng.randint(1, 8)
        s = random_game(rng, w, h, upto=rng.randint(0, w * h))
        if s.is_terminal():
            continue
        pos = K.to_kernel(s)
        space = K.space(pos)
        moves = np.empty(space + 1, np.int32)
        prior = np.zeros((2, space + 1), np.float32)
        for features in (K.PRIORS, K.F_BRIDGE, K.F_NEAR, 0):
            n = K.children(pos, (features, True, K.NO_GAMMAS, 0.0), np.zeros(0, np.uint8), moves, prior)
            for j in range(n):
                cell = K.unpadded(int(moves[j]), w)
                assert (prior[0, j], prior[1, j]) == prior_oracle(s, cell, features), (s, cell, features)
                bonuses += prior[0, j] > K.PRIOR_EVEN
    assert bonuses > 1000


def test_swap_prior():
    def swap_prior(first: str, features: int) -> tuple[float, float]:
        s = from_moves(5, [first], swap=True)
        pos = K.to_kernel(s)
        moves = np.empty(K.space(pos) + 1, np.int32)
        prior = np.zeros((2, K.space(pos) + 1), np.float32)
        n = K.children(pos, (features, True, K.NO_GAMMAS, 0.0), np.zeros(0, np.uint8), moves, prior)
        j = list(moves[:n]).index(K.SWAP_MOVE)
        return float(prior[0, j]), float(prior[1, j])

    even = (K.PRIOR_EVEN, K.PRIOR_EVEN / 2)
    bonus = (K.PRIOR_EVEN + K.PRIOR_SWAP, K.PRIOR_EVEN / 2 + K.PRIOR_SWAP)
    for first in ("c3", "a2", "e4", "b2"):  # off Black's edge rows: worth swapping
        assert swap_prior(first, K.PRIORS) == bonus
        assert swap_prior(first, K.PRIORS & ~K.F_SWAP) == even
    for first in ("c1", "a1", "e5", "b5"):  # on them
        assert swap_prior(first, K.PRIORS) == even
