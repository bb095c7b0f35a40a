"""The numba Go kernels (bots/go/kernel.py) against the pure-Python oracle (tests/go/oracle.py).

Along random games on 5x5, 7x7, 9x9 and 13x13 (seeded loops and hypothesis), the kernel
board built by `to_kernel(state)` and the one played move by move with `kernel.play` must
agree with `State`/`Board` on: colours, fast legality (suicide and simple ko) for both
colours, eyes, areas, owners of points, atari (the oracle string has exactly one liberty),
captures and the ko point.  A move the kernel allows is never one `State.check` rejects except for superko.
`libs_after` and `captures_by` are compared with brute-force counts, `moves` with the
oracle's legal non-eye moves; playouts are replayed step by step against the oracle; the
MCTS tree functions are checked for legal children, masks, visit sums and a capture.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.go import kernel as K
from bots.go.board import (
    BLACK,
    PASS,
    WHITE,
    IllegalMove,
    State,
    empty,
    from_diagram,
    geometry,
    owners,
    parse_point,
    setup,
)
from bots.go.mcts import padded, to_kernel, unpadded
from tests.go.oracle import Board

SIZES = (5, 7, 9, 13)
NO_MASK = np.zeros(0, np.uint8)


# -- oracle helpers ---------------------------------------------------------------------------

def neighbours(p: int, size: int) -> list[int]:
    r, c = divmod(p, size)
    return [rr * size + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < size and 0 <= cc < size]


def string_at(board: bytes, p: int, size: int) -> tuple[set[int], set[int]]:
    """(stones, liberties) of the string at p, by flood fill (independent of board.py)."""
    colour = board[p]
    stones, libs, todo = {p}, set(), [p]
    while todo:
        x = todo.pop()
        for y in neighbours(x, size):
            if board[y] == 0:
                libs.add(y)
            elif board[y] == colour and y not in stones:
                stones.add(y)
                todo.append(y)
    return stones, libs


def brute_captures(board: bytes, p: int, c: int, size: int) -> int:
    """Stones c captures by playing on the empty point p."""
    seen: set[int] = set()
    total = 0
    for y in neighbours(p, size):
        if board[y] == 3 - c and y not in seen:
            stones, libs = string_at(board, y, size)
            seen |= stones
            if libs == {p}:
                total += len(stones)
    return total


def brute_libs_after(board: bytes, p: int, c: int, size: int, enough: int) -> int:
    """Liberties of c's string at p after c plays p, capped at `enough` (a capture: enough)."""
    if brute_captures(board, p, c, size):
        return enough
    stones = {p}
    for y in neighbours(p, size):
        if board[y] == c:
            stones |= string_at(board, y, size)[0]
    libs = {y for x in stones for y in neighbours(x, size) if board[y] == 0 and y != p}
    return min(len(libs), enough)


def kernel_colours(B: np.ndarray, size: int) -> bytes:
    return bytes(int(B[K.COL, padded(p, size)]) for p in range(size * size))


def assert_agrees(state: State, B: np.ndarray, S: np.ndarray) -> None:
    """Everything the kernel board knows, against the oracle."""
    n = state.size
    oracle = Board(state)
    assert kernel_colours(B, n) == state.board
    assert int(S[K.TOMOVE]) == state.to_move
    assert int(S[K.KO]) == (padded(state.ko, n) if state.ko != PASS else -1)
    assert tuple(int(x) for x in K.area(B, S)) == state.area()
    own = K.owners(B, S)
    assert [int(own[padded(p, n)]) for p in range(n * n)] == owners(state.board, geometry(n).neighbours)
    assert not own[B[K.COL] == K.EDGE].any()
    assert int(K.stones(B, S, BLACK)) == len(state.stones(BLACK))
    assert int(K.stones(B, S, WHITE)) == len(state.stones(WHITE))
    # the empty-point list and its positions
    empties = [padded(p, n) for p in range(n * n) if not state.board[p]]
    assert int(S[K.NEMPTY]) == len(empties)
    listed = [int(x) for x in B[K.EMP, :S[K.NEMPTY]]]
    assert sorted(listed) == sorted(empties)
    assert all(int(B[K.EPOS, q]) == i for i, q in enumerate(listed))
    for p in range(n * n):
        q = padded(p, n)
        if state.board[p]:
            assert bool(K.in_atari(B, int(B[K.ROOT, q]))) == (len(state.liberties(p)) == 1), p
            assert int(B[K.SSIZE, int(B[K.ROOT, q])]) == len(string_at(state.board, p, n)[0])
            continue
        for c in (BLACK, WHITE):
            assert bool(K.is_legal(B, S, q, c)) == oracle.is_legal(p, c), (p, c)
            assert bool(K.is_eye(B, S, q, c)) == oracle.is_eye(p, c), (p, c)
        # never more permissive than the full rules, except for superko
        if state.is_terminal():
            continue
        if K.is_legal(B, S, q, state.to_move):
            try:
                state.check(p)
            except IllegalMove as exc:
                assert exc.reason == "superko", (p, exc.reason)
        else:
            assert not state.is_legal(p), p


def assert_counts(state: State, B: np.ndarray, S: np.ndarray) -> None:
    """libs_after, captures_by and moves against brute force."""
    n = state.size
    oracle = Board(state)
    out = np.empty(B.shape[1], np.int32)
    count = int(K.moves(B, S, out))
    expected = {padded(p, n) for p in range(n * n)
                if not state.board[p] and oracle.is_legal(p) and not oracle.is_eye(p, state.to_move)}
    assert len(set(out[:count].tolist())) == count
    assert set(out[:count].tolist()) == expected
    for p in range(n * n):
        if state.board[p]:
            continue
        q = padded(p, n)
        for c in (BLACK, WHITE):
            caps = brute_captures(state.board, p, c, n)
            assert int(K.captures_by(B, S, q, c)) == caps, (p, c)
            for enough in (1, 2, 3):
                assert int(K.libs_after(B, S, q, c, enough)) == brute_libs_after(state.board, p, c, n, enough), \
                    (p, c, enough)
        if state.is_legal(p):  # the capture count is what the move really takes
            after = state.play(p)
            i = state.to_move - 1
            assert after.captures[i] - state.captures[i] == int(K.captures_by(B, S, q, state.to_move))


def random_game(size: int, rng: random.Random, length: int, pass_rate: float = 0.02):
    """Yield (state, kernel board played incrementally) along a random game (legal moves,
    eye filling allowed, so captures and kos are frequent)."""
    state = empty(size)
    B, S = K.new_board(size)
    yield state, B, S
    for _ in range(length):
        if state.is_terminal():
            return
        moves = state.legal_moves()[:-1]  # points only: passes come at `pass_rate`
        move = PASS if not moves or rng.random() < pass_rate else rng.choice(moves)
        state = state.play(move)
        K.play(B, S, padded(move, size))
        yield state, B, S


# -- the board --------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_new_board_is_empty(size):
    B, S = K.new_board(size)
    w = size + 2
    assert int(S[K.SIZE]) == size and int(S[K.WIDTH]) == w
    assert int(S[K.NEMPTY]) == size * size
    assert int(S[K.TOMOVE]) == BLACK and int(S[K.KO]) == -1 and int(S[K.PASSES]) == 0
    ring = [p for p in range(w * w) if p // w in (0, w - 1) or p % w in (0, w - 1)]
    assert all(int(B[K.COL, p]) == K.EDGE for p in ring)
    assert_agrees(empty(size), B, S)


def test_padded_and_unpadded_are_inverse():
    for size in SIZES:
        points = [padded(p, size) for p in range(size * size)]
        assert len(set(points)) == size * size
        assert all(unpadded(q, size) == p for p, q in enumerate(points))
        assert padded(PASS, size) == PASS and unpadded(PASS, size) == PASS


@pytest.mark.parametrize("size", [pytest.param(s, marks=pytest.mark.slow) if s >= 7 else s for s in SIZES])
def test_kernel_agrees_with_oracle_along_random_games(size):
    rng = random.Random(1000 + size)
    positions = 0
    captured = kos = 0
    games, every = {5: (4, 5), 7: (3, 7), 9: (2, 9), 13: (1, 40)}[size]
    for _ in range(games):
        for i, (state, B, S) in enumerate(random_game(size, rng, 3 * size * size)):
            assert_agrees(state, B, S)  # played move by move
            assert (int(S[K.CAPB]), int(S[K.CAPW])) == state.captures
            assert int(S[K.PASSES]) == state.passes
            assert int(S[K.LAST]) == (-1 if state.last in (None, PASS) else padded(state.last, size))
            B2, S2 = to_kernel(state)  # built from the State
            assert_agrees(state, B2, S2)
            if i % every == 0:
                assert_counts(state, B2, S2)
            positions += 1
            kos += state.ko != PASS
        captured += sum(state.captures)
    assert positions > 100 and captured > 0 and kos > 0  # the games did exercise captures and kos


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.sampled_from(SIZES), picks=st.lists(st.integers(0, 10 ** 6), min_size=5, max_size=200))
def test_kernel_agrees_with_oracle_hypothesis(size, picks):
    state = empty(size)
    B, S = K.new_board(size)
    for pick in picks:
        if state.is_terminal():
            break
        moves = state.legal_moves()
        move = moves[pick % len(moves)]
        state = state.play(move)
        K.play(B, S, padded(move, size))
    assert_agrees(state, B, S)
    assert (int(S[K.CAPB]), int(S[K.CAPW])) == state.captures
    B2, S2 = to_kernel(state)
    assert_agrees(state, B2, S2)
    assert_counts(state, B2, S2)


KO_SHAPE = """
    . . . . . . .
    . . . . . . .
    . . X O . . .
    . X O . O . .
    . . X O . . .
    . . . . . . .
    . . . . . . .
"""


def test_simple_ko_point_and_capture_count():
    black = from_diagram(KO_SHAPE, to_move=BLACK)
    B, S = to_kernel(black)
    assert_agrees(black, B, S)
    q = padded(parse_point("D4", 7), 7)
    assert int(K.captures_by(B, S, q, BLACK)) == 1  # D4 takes the white stone at C4
    K.play(B, S, q)
    after = black.play("D4")
    assert after.ko == parse_point("C4", 7)
    assert int(S[K.KO]) == padded(after.ko, 7)
    assert int(S[K.CAPB]) == 1
    assert_agrees(after, B, S)
    c4 = padded(parse_point("C4", 7), 7)
    assert not K.is_legal(B, S, c4, WHITE)  # the immediate retake is forbidden for White...
    assert K.is_legal(B, S, c4, BLACK)  # (the ko binds the side to move only)
    K.play(B, S, K.PASS)  # ...until a pass (or any other move) clears it
    assert int(S[K.KO]) == -1
    assert K.is_legal(B, S, c4, BLACK)


def test_a_multi_stone_capture_sets_no_ko():
    state = from_diagram("""
        . . . . .
        . X X . .
        X O O . .
        . X X . .
        . . . . .
    """, to_move=BLACK)
    B, S = to_kernel(state)
    q = padded(parse_point("D3", 5), 5)
    assert int(K.captures_by(B, S, q, BLACK)) == 2
    K.play(B, S, q)
    after = state.play("D3")
    assert after.captures == (2, 0) and int(S[K.CAPB]) == 2
    assert int(S[K.KO]) == -1 and after.ko == PASS
    assert_agrees(after, B, S)


def test_suicide_is_illegal_but_a_capturing_fill_is_not():
    state = from_diagram("""
        . X . . .
        X . . . .
        . . . . .
        . . . O .
        . . . . .
    """, to_move=WHITE)
    B, S = to_kernel(state)
    a5 = padded(parse_point("A5", 5), 5)
    assert not K.is_legal(B, S, a5, WHITE)  # suicide in the corner
    assert K.is_legal(B, S, a5, BLACK)
    assert K.is_eye(B, S, a5, BLACK) and not K.is_eye(B, S, a5, WHITE)
    assert int(K.libs_after(B, S, a5, WHITE, 3)) == 0


def test_libs_after_counts_up_to_three_on_a_long_string():
    state = setup(9, black=["C5", "D5", "E5"])  # F5 would make a string of four with 10 liberties
    B, S = to_kernel(state)
    f5 = parse_point("F5", 9)
    for enough in range(1, 9):
        assert int(K.libs_after(B, S, padded(f5, 9), BLACK, enough)) == \
            brute_libs_after(state.board, f5, BLACK, 9, min(enough, 3)) == min(enough, 3)


# -- playouts ---------------------------------------------------------------------------------

def middle_state(size: int, seed: int, moves: int) -> State:
    rng = random.Random(seed)
    state = empty(size)
    for _ in range(moves):
        board = Board(state)
        move = board.legal_random_move(rng)
        if move == PASS or not state.is_legal(move):
            break
        state = state.play(move)
    return state


@pytest.mark.parametrize("heavy,ladders", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("size", [5, 9])
def test_playout_steps_are_legal_for_the_oracle(size, heavy, ladders):
    """The playout's move choice (`_answer_last`, `random_move`) replayed step by step next to
    an oracle Board with simple ko only, as the kernel knows."""
    for seed in range(3):
        state = middle_state(size, seed, size * 2)
        K.seed(seed)
        B, S = to_kernel(state)
        board = Board(state)
        board.seen = None  # simple ko only, like the kernel
        steps = 0
        while int(S[K.PASSES]) < 2:
            c = int(S[K.TOMOVE])
            p = int(K._answer_last(B, S, c, ladders)) if heavy else -1
            if p >= 0:
                assert board.is_legal(unpadded(p, size), c)
            else:
                p = int(K.random_move(B, S, c, heavy, False))
                if p >= 0:
                    m = unpadded(p, size)
                    assert board.is_legal(m, c) and not board.is_eye(m, c)
                elif not heavy:  # a light playout passes only when nothing is left
                    assert not [m for m in board.empties if board.is_legal(m, c) and not board.is_eye(m, c)]
            board.play(unpadded(p, size))
            K.play(B, S, p)
            assert kernel_colours(B, size) == bytes(board.colour)
            assert int(S[K.KO]) == (padded(board.ko, size) if board.ko != PASS else -1)
            steps += 1
            assert steps < 20 * size * size
        assert (int(S[K.CAPB]) - 0, int(S[K.CAPW])) == (board.captures[1] - state.captures[0],
                                                         board.captures[2] - state.captures[1])


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("size", [5, 7, 9])
def test_playout_ends_with_two_passes_and_only_eyes_left(size, heavy):
    for seed in range(4):
        state = middle_state(size, 10 + seed, size)
        K.seed(seed)
        B, S = to_kernel(state)
        amaf = np.zeros(B.shape[1], np.int32)
        komi = 7.5
        result = float(K.playout(B, S, komi, amaf, 100_000, heavy, False, False))
        assert int(S[K.PASSES]) == 2
        final = setup(size, black=[p for p in range(size * size) if B[K.COL, padded(p, size)] == BLACK],
                      white=[p for p in range(size * size) if B[K.COL, padded(p, size)] == WHITE])
        b, w = final.area()
        assert result == b - w - komi
        last = 3 - int(S[K.TOMOVE])  # passed last, with no ko on the board
        other = int(S[K.TOMOVE])  # passed first, when a ko point may have been forbidden
        oracle = Board(final)
        empties = [p for p in range(size * size) if not final.board[p]]
        for p in empties:
            q = padded(p, size)
            fill = oracle.is_legal(p, last) and not oracle.is_eye(p, last)
            if heavy:  # heavy playouts may refuse self-ataris
                assert not fill or int(K.libs_after(B, S, q, last, 2)) < 2, p
            else:
                assert not fill, p
        if not heavy:
            left = [p for p in empties if oracle.is_legal(p, other) and not oracle.is_eye(p, other)]
            assert len(left) <= 1  # at most the point the ko forbade when it passed
        # AMAF: every point that got a stone during the playout was recorded with a colour and
        # the index of its move (+ 1), each index once
        seen = set()
        for p in range(size * size):
            q = padded(p, size)
            mark = int(amaf[q])
            assert mark == 0 or (mark & 3 in (BLACK, WHITE) and mark >> 2 >= 1 and mark >> 2 not in seen)
            seen.add(mark >> 2)
            if final.board[p] and not state.board[p]:
                assert mark & 3 in (BLACK, WHITE)
        ring = [q for q in range(B.shape[1]) if B[K.COL, q] == K.EDGE]
        assert not amaf[ring].any()


@pytest.mark.parametrize("heavy", [False, True])
def test_playouts_count_wins_in_range_and_leave_the_board_alone(heavy):
    state = middle_state(9, 5, 12)
    B, S = to_kernel(state)
    B0, S0 = B.copy(), S.copy()
    K.seed(7)
    wins = int(K.playouts(B, S, 7.5, 60, heavy, False, False))
    assert 0 <= wins <= 60
    assert np.array_equal(B, B0) and np.array_equal(S, S0)
    assert int(K.playouts(B, S, -200.0, 20, heavy, False, False)) == 20  # Black cannot lose with 200 komi
    assert int(K.playouts(B, S, 200.0, 20, heavy, False, False)) == 0


def test_heavy_playout_answers_an_atari_by_capturing():
    # White's last move E5 left its pair D5-E5 in atari (its only liberty is D4)
    state = from_diagram("""
        . . . . . . .
        . . . X X . .
        . . X O O X .
        . . . . X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """, to_move=BLACK)._replace(last=parse_point("E5", 7))
    assert state.liberties(parse_point("D5", 7)) == {parse_point("D4", 7)}
    B, S = to_kernel(state)
    assert int(K._answer_last(B, S, BLACK, True)) == padded(parse_point("D4", 7), 7)
    # and the side in atari saves its string by extending when that gains liberties, unless
    # (reading ladders) the two liberties it gains are a ladder that catches it
    white = state._replace(to_move=WHITE)
    B, S = to_kernel(white)
    run = padded(parse_point("D4", 7), 7)
    assert int(K._answer_last(B, S, WHITE, False)) == run
    assert int(K.libs_after(B, S, run, WHITE, 3)) == 2  # C4 and D3
    assert K.ladder_after(B, S, run, WHITE, 1000) == 1 and int(K._answer_last(B, S, WHITE, True)) == -1


def test_influence_of_lone_stones():
    for colour, expected in ((BLACK, (12, 0)), (WHITE, (0, 12))):
        state = setup(9, black=["E5"] if colour == BLACK else [], white=["E5"] if colour == WHITE else [])
        B, S = to_kernel(state)
        assert tuple(int(x) for x in K.influence(B, S)) == expected
    B, S = to_kernel(setup(9, black=["A1"]))
    assert tuple(int(x) for x in K.influence(B, S)) == (5, 0)  # the corner: 2 + 3 points
    B, S = to_kernel(setup(9, black=["C5"], white=["G5"]))
    black, white = (int(x) for x in K.influence(B, S))
    assert black == white == 11  # mirror images; E5, as close to both, counts for neither
    B, S = to_kernel(empty(9))
    assert tuple(int(x) for x in K.influence(B, S)) == (0, 0)


# -- the MCTS tree ----------------------------------------------------------------------------

def root_children(I: np.ndarray, meta: np.ndarray) -> list[int]:
    root = int(meta[1])
    first = int(I[K.ICHILD, root])
    return list(range(first, first + int(I[K.INCHILD, root])))


def test_new_tree_is_a_lone_root():
    V, I, meta = K.new_tree(1000)
    assert V.shape == (6, 1000) and I.shape == (3, 1000)
    assert int(meta[0]) == 1 and int(meta[1]) == 0
    assert int(I[K.INCHILD, 0]) == 0 and not V.any()
    assert int(I[K.ICHILD, 0]) == -1 and not I[:, 1:].any()  # the room beyond the root untouched


def walk_children_are_legal(V, I, node, B, S, depth=0):
    """Every child of every expanded node is a legal non-eye move or PASS at that node's
    position; a node's visits cover its children's."""
    first, n = int(I[K.ICHILD, node]), int(I[K.INCHILD, node])
    if not n:
        return 0
    c = int(S[K.TOMOVE])
    moves = [int(I[K.IMOVE, ch]) for ch in range(first, first + n)]
    assert moves.count(PASS) == 1 and len(set(moves)) == n
    for p in moves:
        assert p == PASS or (K.is_legal(B, S, p, c) and not K.is_eye(B, S, p, c))
    assert V[K.VN, node] >= V[K.VN, first:first + n].sum() - 0.5
    checked = 1
    for ch in range(first, first + n):
        if I[K.INCHILD, ch] and depth < 6:
            B2, S2 = B.copy(), S.copy()
            K.play(B2, S2, int(I[K.IMOVE, ch]))
            checked += walk_children_are_legal(V, I, ch, B2, S2, depth + 1)
    return checked


@pytest.mark.parametrize("size", [5, 9])
def test_run_expands_only_legal_moves_and_visits_add_up(size):
    state = middle_state(size, 3, size + 4)
    B, S = to_kernel(state)
    V, I, meta = K.new_tree(200_000)
    K.seed(11)
    done = int(K.run(V, I, meta, B, S, state.komi, True, NO_MASK, 1500))
    assert done == 1500
    root = int(meta[1])
    assert V[K.VN, root] == 1500
    children = root_children(I, meta)
    assert V[K.VN, children].sum() == 1500
    out = np.empty(B.shape[1], np.int32)
    legal = set(out[:int(K.moves(B, S, out))].tolist())
    assert {int(I[K.IMOVE, ch]) for ch in children} == legal | {PASS}
    assert walk_children_are_legal(V, I, root, B, S) > 1  # some nodes below the root grew too
    for ch in children:
        assert int(K.child_of(I, root, int(I[K.IMOVE, ch]))) == ch
    occupied = next(padded(p, size) for p in range(size * size) if state.board[p])
    assert int(K.child_of(I, root, occupied)) == -1
    # visits keep adding up when the search goes on in the same tree
    assert int(K.run(V, I, meta, B, S, state.komi, True, NO_MASK, 300)) == 300
    assert V[K.VN, root] == 1800 and V[K.VN, children].sum() == 1800


def test_run_respects_the_root_mask():
    state = empty(9)
    B, S = to_kernel(state)
    allowed = [parse_point(n, 9) for n in ("C3", "E5", "G7", "D4")]
    mask = np.zeros(B.shape[1], np.uint8)
    for p in allowed:
        mask[padded(p, 9)] = 1
    V, I, meta = K.new_tree(50_000)
    K.seed(2)
    assert int(K.run(V, I, meta, B, S, 7.5, True, mask, 400)) == 400
    moves = {int(I[K.IMOVE, ch]) for ch in root_children(I, meta)}
    assert moves == {padded(p, 9) for p in allowed} | {PASS}
    # deeper nodes are not masked
    assert walk_children_are_legal(V, I, int(meta[1]), B, S) > 1


def test_run_stops_when_the_tree_is_full():
    B, S = to_kernel(empty(9))
    V, I, meta = K.new_tree(300)  # room for the root's 82 children and a few expansions
    K.seed(3)
    done = int(K.run(V, I, meta, B, S, 7.5, True, NO_MASK, 5000))
    assert 0 < done < 5000
    assert int(meta[0]) <= 300
    assert V[K.VN, int(meta[1])] == done


def test_mcts_kernel_captures_a_big_group_in_atari():
    state = from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . X X X X . . .
        . X O O O O X . .
        . X O O O O . . .
        . . X X X X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move=BLACK)
    capture = parse_point("G5", 9)
    assert state.liberties(parse_point("C5", 9)) == {capture}
    B, S = to_kernel(state)
    assert int(K.captures_by(B, S, padded(capture, 9), BLACK)) == 8
    V, I, meta = K.new_tree(400_000)
    K.seed(5)
    K.run(V, I, meta, B, S, 7.5, True, NO_MASK, 3000)
    children = root_children(I, meta)
    best = max(children, key=lambda ch: V[K.VN, ch])
    assert unpadded(int(I[K.IMOVE, best]), 9) == capture


# -- 3x3 patterns ---------------------------------------------------------------------------------

def test_pattern_table_matches_every_orientation_and_both_colours():
    from bots.go.board import from_diagram, parse_point

    hane = """
    .........
    .........
    .........
    ...XOX...
    .........
    .........
    .........
    .........
    .........
    """  # E5 under the O between two X: MoGo's enclosing hane for X
    rows = [line.strip() for line in hane.strip().splitlines()]
    for turn in range(4):
        for mirror in (False, True):
            grid = [list(r) for r in rows]
            for _ in range(turn):
                grid = [list(r) for r in zip(*grid[::-1], strict=True)]
            if mirror:
                grid = [r[::-1] for r in grid]
            for swap in (False, True):
                text = "\n".join("".join(r) for r in grid)
                if swap:
                    text = text.translate(str.maketrans("XO", "OX"))
                state = from_diagram(text)
                B, S = to_kernel(state)
                # the two empty points on either side of the O, off the X stones' line
                o = next(p for p in range(81) if state.board[p] == (1 if swap else 2))
                targets = [q for q in state_neighbours(o) if not state.board[q]
                           and all(state.board[y] != (2 if swap else 1) for y in state_neighbours(q))]
                assert len(targets) == 2
                hits = [q for q in targets if K.matches_pattern(B, S, padded(q, 9), 2 if swap else 1)]
                assert hits, (turn, mirror, swap)
    empty_state = from_diagram("\n".join(["." * 9] * 9))
    B, S = to_kernel(empty_state)
    assert not K.matches_pattern(B, S, padded(parse_point("E5"), 9), 1)  # nothing around: no pattern


def state_neighbours(p, size=9):
    r, c = divmod(p, size)
    return [(r + dr) * size + c + dc for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if 0 <= r + dr < size and 0 <= c + dc < size]
def test_throwins_let_the_playout_play_a_lone_self_atari():
    """White's only moves that fill no eye of its own are A5 and B5, inside Black's two-point
    eye, each a self-atari of one stone.  With `throwins` a heavy playout always plays one of
    them; without, it refuses most self-ataris and mostly passes."""
    state = from_diagram("""
        . . X O .
        X X X O O
        O O O O .
        O . O O O
        O O O . O
    """, to_move=WHITE)
    B, S = to_kernel(state)
    inside = {padded(p, 5) for p in (20, 21)}  # A5, B5
    for throwins, expected in ((True, lambda picks: set(picks) <= inside),
                               (False, lambda picks: picks.count(K.PASS) > 100)):
        K.seed(3)
        picks = [int(K.random_move(B.copy(), S.copy(), WHITE, True, throwins)) for _ in range(200)]
        assert expected(picks), (throwins, sorted(set(picks)))


def test_a_playout_is_worth_its_result_and_with_a_score_bonus_its_margin():
    assert (K.reward(0.5, 0.0), K.reward(-0.5, 0.0), K.reward(0.0, 0.0)) == (1.0, 0.0, 0.5)
    assert K.reward(80.5, 0.0) == 1.0 and K.reward(-80.5, 0.0) == 0.0  # no bonus: the margin is ignored
    bonus = 0.04
    worth = [K.reward(m, bonus) for m in (-30.5, -10.5, -0.5, 0.5, 10.5, 30.5)]
    assert worth == sorted(worth) and len(set(worth)) == 6  # a larger margin is worth more, to the cap ...
    assert K.reward(-K.SCORE_POINTS - 5, bonus) == 0.0 and K.reward(K.SCORE_POINTS + 5, bonus) == 1.0
    assert worth[2] < bonus < 1 - bonus < worth[3]  # ... and a narrow win is worth more than any loss
    for m in (-30.5, -10.5, -0.5):  # Black's loss by m is White's win by m: the two shares add up
        assert K.reward(m, bonus) + K.reward(-m, bonus) == pytest.approx(1.0)


def test_the_score_bonus_is_checked():
    from bots.go.mcts import MCTS
    assert MCTS(score_bonus=0.03).score_bonus == 0.03
    for wrong in (-0.1, 0.6):
        with pytest.raises(ValueError, match="score_bonus"):
            MCTS(score_bonus=wrong)
