"""The exact Hex solver (bots/hex/solver.py).

Golden data (docs/protocols/hex.md section 7.2): the winning first moves of 1x1 to 4x4, recomputed by
the solver; the theory of non-square boards (the player whose edges are closer wins, first or
second); the symmetries (a 180-degree rotation keeps the winning moves, a transposition with
the colours exchanged keeps them transposed); and a plain-Python negamax over `State` as the
oracle on random small positions, the swap included.
"""

from __future__ import annotations

import random
import time

import pytest

from bots.hex import solver as S
from bots.hex.mcts import SOLVE_NODES
from bots.hex.board import BLACK, EMPTY, SWAP, WHITE, State, cell_name, empty, from_moves, parse_cell

GOLDEN = {1: "a1", 2: "b1 a2", 3: "c1 a2 b2 c2 a3", 4: "d1 c2 b3 a4"}


@pytest.mark.parametrize("size", sorted(GOLDEN))
def test_golden_first_moves(size):
    got = S.first_move_wins(size)
    assert sorted(got) == sorted(parse_cell(name, size, size) for name in GOLDEN[size].split())
    assert " ".join(cell_name(m, size) for m in got) == GOLDEN[size]  # cells in order, row by row


@pytest.mark.parametrize("w, h", [(2, 3), (3, 2), (3, 4), (4, 3), (2, 4), (1, 3), (3, 1)])
def test_non_square_boards_go_to_the_closer_edges(w, h):
    # Black joins top and bottom (h rows apart), White left and right (w columns apart)
    got = S.first_move_wins(w, h)
    assert got == (list(range(w * h)) if w > h else [])


def rotate_cell(cell: int, w: int, h: int) -> int:
    return w * h - 1 - cell


def rotate(state: State) -> State:
    board = bytes(state.board[rotate_cell(c, state.width, state.height)] for c in range(state.cells))
    return state._replace(board=board, last=None)


def transpose_cell(cell: int, w: int, h: int) -> int:
    row, col = divmod(cell, w)
    return col * h + row


def transpose_swap(state: State) -> State:
    """Mirrored across the a1 diagonal, colours exchanged (and the side to move)."""
    w, h = state.width, state.height
    board = bytearray(w * h)
    for c in range(w * h):
        v = state.board[c]
        board[transpose_cell(c, w, h)] = 3 - v if v else EMPTY
    return State(h, w, bytes(board), 3 - state.to_move, False, state.plies, None)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_first_moves_are_symmetric(size):
    got = set(S.first_move_wins(size))
    assert {rotate_cell(c, size, size) for c in got} == got


def oracle_wins(state: State, memo: dict) -> bool:
    """Plain negamax over State: does the side to move win?"""
    key = state.key()
    if key not in memo:
        if state.is_terminal():
            memo[key] = state.winner() == state.to_move
        else:
            memo[key] = any(not oracle_wins(state.play(m), memo) for m in state.legal_moves())
    return memo[key]


def oracle_moves(state: State, memo: dict) -> list[int]:
    return sorted((m for m in state.legal_moves() if not oracle_wins(state.play(m), memo)),
                  key=lambda m: (m == SWAP, m))


def random_position(rng: random.Random, w: int, h: int, empties: int) -> State:
    """A legal, unfinished position with about `empties` empty cells, or None."""
    s = empty(w, h)
    while s.board.count(EMPTY) > empties:
        s = s.play(rng.choice(s.legal_moves()))
        if s.is_terminal():
            return None
    return s


def random_positions(seed: int, count: int, shapes: list, empties: tuple[int, int]):
    """`count` positions from random_position, of the board shapes (w, h) and numbers of
    empty cells given."""
    rng = random.Random(seed)
    found = 0
    while found < count:
        w, h = rng.choice(shapes)
        s = random_position(rng, w, h, rng.randint(*empties))
        if s is not None:
            found += 1
            yield s


SMALL = [(3, 3), (4, 3), (3, 4), (4, 4), (5, 3), (2, 5)]
MIDDLE = [(4, 4), (5, 4), (4, 5), (5, 5)]


def test_against_the_plain_negamax():
    memo: dict = {}
    won = 0
    for s in random_positions(1, 120, SMALL, (1, 8)):
        expect = oracle_moves(s, memo)
        assert S.winning_moves(s) == expect
        proof = S.solve(s)
        assert proof.winner == (s.to_move if expect else 3 - s.to_move)
        assert (proof.move in expect) if expect else proof.move is None
        won += bool(expect)
    assert 20 < won < 100


def test_symmetries_of_solved_positions():
    for s in random_positions(2, 60, MIDDLE, (6, 12)):
        w, h = s.width, s.height
        moves = S.winning_moves(s)
        assert moves is not None
        assert S.winning_moves(rotate(s)) == sorted(rotate_cell(m, w, h) for m in moves)
        assert S.winning_moves(transpose_swap(s)) == sorted(transpose_cell(m, w, h) for m in moves)


def test_swap_is_a_move_of_the_solver():
    memo: dict = {}
    for size in (2, 3):
        for first in range(size * size):
            s = from_moves(size, [first], swap=True)
            assert s.swap_allowed()
            expect = oracle_moves(s, memo)
            assert S.winning_moves(s) == expect
            # the first player's winning moves are the ones the second may swap
            assert (SWAP in expect) == (first in S.first_move_wins(size))
            proof = S.solve(s)
            assert proof.winner == (WHITE if expect else BLACK)
            assert proof.move in expect if expect else proof.move is None


def test_limits_leave_it_unproven():
    s = empty(4, 5)
    assert S.solve(s, nodes=500).winner is None
    assert S.winning_moves(s, nodes=500) is None
    assert S.solve(s, seconds=0.0).winner is None
    big = empty(11)
    assert S.solve(big) == S.Proof(None, None, 0)  # more empty cells than it takes
    assert S.winning_moves(big) is None


def test_finished_and_forced_positions():
    s = from_moves(2, ["a1", "b1", "a2"])  # Black joined top and bottom
    assert s.is_terminal()
    assert S.solve(s) == S.Proof(BLACK, None, 0)
    assert S.winning_moves(s) == []
    # White to move, Black (c1, b2) threatens two cells at once (a3 and b3): lost
    s = State(3, 3, bytes([0, 0, 1, 0, 1, 0, 0, 0, 0]), WHITE, False, 2, None)
    proof = S.solve(s)
    assert proof.winner == BLACK and proof.move is None and proof.nodes <= 20


def test_solves_sixteen_empty_cells():
    # near the player's threshold (bots.hex.mcts.SOLVE_EMPTIES, 18): unfinished 5x5 positions
    # with 16 empty cells are proven within the player's node limit, and the move really wins
    rng = random.Random(5)
    done = 0
    while done < 5:
        s = random_position(rng, 5, 5, 16)
        if s is None:
            continue
        proof = S.solve(s, nodes=SOLVE_NODES)
        assert proof.winner in (BLACK, WHITE)
        if proof.move is not None:
            after = s.play(proof.move)
            assert S.solve(after).winner == s.to_move
        done += 1


def test_connections_change_no_answer():
    # H-search at every node (vc_min 1) against none: the same winning moves, every one
    for s in random_positions(7, 40, MIDDLE, (6, 13)):
        assert S.winning_moves(s, vc_min=1) == S.winning_moves(s, vc_min=S.NO_VC)


# 79 moves of an 11x11 game of `mcts` against itself (3,000 iterations a move); White to move,
# 42 empty cells, 13 plies before White joined its edges
DECIDED = ("k3 e2 f2 f3 i3 h5 g5 f8 e8 f7 e7 f6 e6 f5 e5 g4 d4 d10 e9 e10 c10 d9 c9 d8 c8 d7 b7 e3 c3 c5 "
           "f9 f10 g9 g10 h9 h10 i9 i10 b5 b6 c6 d5 d6 e4 j5 i7 k2 k1 i2 j8 h7 i6 h6 i5 j7 i8 j10 g6 g3 "
           "f4 h4 j4 k4 j6 j9 b8 c7 c4 b4 d3 c2 d2 g2 h3 h2 h1 g1 f1 e1").split()


def test_connections_prove_a_game_long_before_its_end():
    s = from_moves(11, DECIDED)
    assert s.to_move == WHITE and s.board.count(EMPTY) == 42
    assert S.solve(s, nodes=100_000, vc_min=S.NO_VC).winner is None  # beyond the plain search
    proof = S.solve(s, nodes=1_000)
    assert proof.winner == WHITE and proof.nodes <= 1_000
    after = s.play(proof.move)
    assert S.solve(after, nodes=1_000).winner == WHITE  # Black to move, lost whatever it plays


def test_connections_keep_the_deadline():
    s = from_moves(11, DECIDED[:40])  # 81 empty cells: too many
    assert S.solve(s, seconds=1.0) == S.Proof(None, None, 0)
    s = from_moves(7, "d4 c5 e3 b6 f2".split())  # 44 empty cells, far from decided
    start = time.monotonic()
    assert S.solve(s, seconds=0.05).winner is None
    assert time.monotonic() - start < 0.08
