"""Go rules (bots/go/board.py), checked against docs/protocols/go.md sections 2 and 5.2:
captures, suicide, ko and positional superko (and the course referee's pass-key variant),
area scoring, the State contract, and the kernel's pure-Python oracle Board
(tests/go/oracle.py) agreeing with State along random games."""

import copy
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.go.board import (
    BLACK,
    PASS,
    WHITE,
    IllegalMove,
    State,
    empty,
    from_diagram,
    from_moves,
    geometry,
    parse_point,
    point_name,
    render,
    setup,
)
from tests.go.oracle import Board


def P(name, size=9):
    return parse_point(name, size)


def diagram(state):
    """The board as rows of X/O/., top row first (the from_diagram format)."""
    n = state.size
    ch = {0: ".", 1: "X", 2: "O"}
    return "\n".join("".join(ch[state.board[r * n + c]] for c in range(n)) for r in range(n - 1, -1, -1))


def brute_strings(board, size):
    """Strings as {frozenset(stones): (colour, liberties)} by plain flood fill."""
    nbrs = geometry(size).neighbours
    seen, out = set(), {}
    for p, k in enumerate(board):
        if k and p not in seen:
            group, libs, todo = {p}, set(), [p]
            while todo:
                x = todo.pop()
                for y in nbrs[x]:
                    if board[y] == k and y not in group:
                        group.add(y)
                        todo.append(y)
                    elif not board[y]:
                        libs.add(y)
            seen |= group
            out[frozenset(group)] = (k, libs)
    return out


def check_board_invariants(b: Board):
    """Every incremental structure of the Board equals its recomputation from the colours."""
    size, col = b.size, b.colour
    nbrs = geometry(size).neighbours
    assert sorted(b.empties) == [p for p in range(b.n) if not col[p]]
    for i, p in enumerate(b.empties):
        assert b.epos[p] == i
    h = 0
    for p, k in enumerate(col):
        if k:
            h ^= geometry(size).zobrist[k][p]
    assert b.hash == h
    for stones, (_, libs) in brute_strings(bytes(col), size).items():
        roots = {b.root[x] for x in stones}
        assert len(roots) == 1
        r = roots.pop()
        assert r in stones and b.ssize[r] == len(stones)
        assert set(b.string(r)) == set(stones)
        pseudo = [y for x in stones for y in nbrs[x] if not col[y]]
        assert (b.nlib[r], b.lsum[r], b.lsq[r]) == (len(pseudo), sum(pseudo), sum(y * y for y in pseudo))
        assert b.liberties(r) == libs and libs
        assert b._atari(r) == (len(libs) == 1)


# -- names and construction -------------------------------------------------------------------

def test_point_names_match_the_referee_flat_ints():
    assert P("A1") == 0 and P("J1") == 8 and P("A2") == 9 and P("J9") == 80 and P("E5") == 40
    assert P("pass") == PASS and P(" e5 ") == 40
    assert point_name(80) == "J9" and point_name(PASS) == "PASS"
    assert [point_name(p) for p in range(9)] == ["A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "J1"]
    for size in (2, 5, 9, 13, 19, 25):
        for p in range(size * size):
            assert parse_point(point_name(p, size), size) == p
    for bad in ("I5", "K1", "A10", "A0", "", "E", "5E", "PAS", "A-1", "A²"):
        with pytest.raises(ValueError):
            parse_point(bad)


@pytest.mark.parametrize("size", [1, 26, 0])
def test_sizes_outside_2_to_25_are_refused(size):
    with pytest.raises(ValueError):
        empty(size)


def test_empty_board_and_sizes():
    for size in (2, 9, 13, 19, 25):
        s = empty(size)
        assert s.board == bytes(size * size) and s.to_move == BLACK and s.komi == 7.5
        assert len(s.legal_moves()) == size * size + 1 and s.legal_moves()[-1] == PASS
        assert s.score() == -7.5 and not s.is_terminal()


def test_from_diagram_and_setup_agree():
    s = from_diagram("""
        . . O
        X . .
        X . .
    """)
    assert s == setup(3, black=["A1", "A2"], white=["C3"])
    assert diagram(s) == "..O\nX..\nX.."
    with pytest.raises(ValueError):
        from_diagram("XO\nOX")  # strings without liberties
    with pytest.raises(ValueError):
        setup(3, black=[0], white=[0])


# -- captures ---------------------------------------------------------------------------------

def test_single_stone_capture_in_the_centre():
    s = from_diagram("""
        .....
        ..X..
        .XO..
        ..X..
        .....
    """)
    after = s.play("D3")
    assert after.at(P("C3", 5)) == 0 and after.at(P("D3", 5)) == BLACK
    assert after.captures == (1, 0)
    assert s.at(P("C3", 5)) == WHITE  # the old value is unchanged


def test_edge_and_corner_captures():
    corner = setup(5, black=["B1"], white=["A1"])
    after = corner.play("A2")
    assert after.at(0) == 0 and after.captures == (1, 0)
    edge = setup(5, black=["B1", "D1"], white=["C1"])
    after = edge.play("C2")
    assert after.at(P("C1", 5)) == 0


def test_group_capture_and_multiple_groups_at_once():
    s = from_diagram("""
        .XXX.
        XOOOX
        XO.OX
        .XOX.
        ..X..
    """)
    after = s.play("C3")
    assert after.stones(WHITE) == []
    assert after.captures == (6, 0)
    # Two separate strings captured by one stone.
    s = from_diagram("""
        .....
        .X.X.
        XO.OX
        .X.X.
        .....
    """)
    after = s.play("C3")
    assert after.stones(WHITE) == [] and after.captures == (2, 0)
    assert after.liberties(P("C3", 5)) == {P(n, 5) for n in ("B3", "D3", "C4", "C2")}
    assert after.ko == PASS


def test_capture_of_a_big_string_frees_liberties_for_its_neighbours():
    s = from_diagram("""
        OOOOO
        XXXXO
        OOO.O
        .....
        .....
    """, to_move=WHITE)
    after = s.play("D3")
    assert after.stones(BLACK) == [] and after.captures == (0, 4)
    assert after.liberties(P("E5", 5)) == {P(n, 5) for n in ("A4", "B4", "C4", "D4", "A2", "B2", "C2", "D2", "E2")}


# -- suicide ----------------------------------------------------------------------------------

def test_single_stone_suicide_is_illegal():
    s = setup(5, white=["A2", "B1"])
    assert not s.is_legal("A1")
    with pytest.raises(IllegalMove) as e:
        s.play("A1")
    assert e.value.reason == "suicide"
    assert P("A1", 5) not in s.legal_moves()
    assert s._replace(to_move=WHITE).is_legal("A1")  # not suicide for White


def test_multi_stone_suicide_is_illegal():
    s = from_diagram("""
        .....
        OOO..
        XX.O.
        OOO..
        .....
    """)
    with pytest.raises(IllegalMove) as e:
        s.play("C3")
    assert e.value.reason == "suicide"
    b = Board(s)
    assert not b.is_legal(P("C3", 5)) and b.why_illegal(P("C3", 5)) == "suicide"


def test_capture_that_looks_like_suicide_is_legal():
    # Black's stone on A1 has no liberty of its own but takes White's A2/B2/B1 group's last one.
    s = from_diagram("""
        .....
        XX...
        OOX..
        .OX..
        XOX..
    """)
    assert s.liberties(P("A3", 5)) == {P("A2", 5)} and s.liberties(P("A1", 5)) == {P("A2", 5)}
    after = s.play("A2")
    assert after.stones(WHITE) == [] and after.captures == (4, 0)
    assert Board(s).is_legal(P("A2", 5))


# -- ko and superko ---------------------------------------------------------------------------

KO = """
    .....
    .XO..
    XO.O.
    .XO..
    .....
"""


def test_simple_ko():
    s = from_diagram(KO)
    taken = s.play("C3")  # Black captures B3
    assert taken.ko == P("B3", 5) and taken.captures == (1, 0)
    with pytest.raises(IllegalMove) as e:
        taken.play("B3")
    assert e.value.reason == "superko"
    assert P("B3", 5) not in taken.legal_moves()
    b = Board(taken)
    assert not b.is_legal(P("B3", 5)) and b.why_illegal(P("B3", 5)) == "superko"
    # After a threat and an answer the board differs, so the retake is legal.
    later = taken.play("E5").play("E1")
    assert later.ko == PASS and later.is_legal("B3")
    back = later.play("B3")
    assert back.ko == P("C3", 5) and back.captures == (1, 1)


def test_ko_detection_needs_a_lone_capturing_stone():
    # Capturing one stone with a stone that joins a string is not ko.
    s = from_diagram("""
        .....
        .XO..
        XO.O.
        .XX..
        .....
    """)
    after = s.play("C3")
    assert after.ko == PASS


DOUBLE_KO = """
    .OX....
    OX.X...
    .OX....
    .......
    .XO....
    XO.O...
    .XO....
"""  # ko A (bottom): White holds B2; ko B (top): Black holds B6


def double_ko_cycle(superko):
    """Black takes ko A, White takes ko B, Black passes, White retakes ko A: Black's retake
    of ko B would recreate the starting board (not a simple-ko violation)."""
    s = from_diagram(DOUBLE_KO, superko=superko)
    for m in ("C2", "C6", PASS, "B2"):
        s = s.play(P(m, 7) if isinstance(m, str) else m)
    return s


def test_positional_superko_forbids_a_longer_cycle():
    start = from_diagram(DOUBLE_KO)
    s = double_ko_cycle("positional")
    retake = P("B6", 7)
    assert s.ko == P("C2", 7)  # the simple ko is elsewhere
    with pytest.raises(IllegalMove) as e:
        s.play(retake)
    assert e.value.reason == "superko"
    assert retake not in s.legal_moves()
    b = Board(s)
    assert b.is_legal(retake)  # the fast test knows simple ko only
    assert b.why_illegal(retake) == "superko" and retake not in b.legal_moves()
    # The position it would make is exactly the start.
    assert b.hash_after(retake) == start.position_hash()


def test_goban_superko_counts_pass_parity():
    """Course referee: the pass key XORed in by Black's pass makes the old board a new hash."""
    s = double_ko_cycle("goban")
    retake = P("B6", 7)
    assert s.pass_offset != 0
    assert retake in s.legal_moves() and Board(s).why_illegal(retake) is None
    again = s.play(retake)
    assert again.board == from_diagram(DOUBLE_KO).board
    assert Board(s).legal_moves() == s.legal_moves()


def test_goban_legal_moves_include_positional_ones_along_random_games():
    rng = random.Random(5)
    for _ in range(3):
        pos, gob = empty(5), empty(5, superko="goban")
        for _ in range(120):
            if pos.is_terminal():
                break
            legal = pos.legal_moves()
            assert set(legal) <= set(gob.legal_moves())
            m = rng.choice(legal)
            pos, gob = pos.play(m), gob.play(m)


def test_pass_clears_the_ko_point():
    taken = from_diagram(KO).play("C3")
    assert taken.play(PASS).ko == PASS
    # ...but the retake after White's pass and Black's move is still judged by superko.
    s = taken.play(PASS).play("E5")
    assert s.is_legal("B3")


# -- scoring ------------------------------------------------------------------------------------

def test_area_scoring_known_positions():
    wall = from_diagram("""
        .XO..
        .XO..
        .XO..
        .XO..
        .XO..
    """, komi=0.5)
    assert wall.area() == (10, 15) and wall.score() == -5.5
    # A lone White stone in Black's side: no dead-stone removal, so that side is nobody's.
    s = from_diagram("""
        ..X..
        ..X..
        ..X..
        ..X..
        O.X..
    """, komi=0)
    assert s.area() == (5 + 10, 1) and s.score() == 14
    s = from_diagram("""
        .X.O.
        XX.OO
        .....
        .....
        .....
    """, komi=0)
    assert s.area() == (4, 4)  # the big region touches both colours
    # A filled 9x9 game end with one-point eyes.
    end = from_diagram("""
        .XXXOOOO.
        X.XXO.OOO
        XXXXOOO.O
        XXX.XOOOO
        X.XXXO.OO
        XXXXXOOOO
        XX.XOOO.O
        X.XXXOOOO
        .XXXXO.OO
    """, komi=7.5)
    assert end.area() == (41, 40)
    assert end.score() == -6.5 and end.score_text() == "W+6.5"
    assert end._replace(komi=0).score_text() == "B+1"
    assert Board(end).area() == end.area()
    assert empty(9, komi=0).score_text() == "0" and empty(9).score_text() == "W+7.5"


def test_two_passes_end_the_game_and_decide_it():
    s = empty(5, komi=0.5).play("C3")
    assert s.play(PASS).winner() is None and not s.play(PASS).is_terminal()
    end = s.play(PASS).play(PASS)
    assert end.is_terminal() and end.legal_moves() == []
    assert end.winner() == BLACK and end.result(BLACK) == 1.0 and end.result(WHITE) == 0.0
    with pytest.raises(IllegalMove) as e:
        end.play("A1")
    assert e.value.reason == "game over"
    assert not s.play(PASS).play("A1").play(PASS).is_terminal()  # only consecutive passes count
    draw = from_moves(3, ["B2", PASS, PASS], komi=9)
    assert draw.is_terminal() and draw.winner() is None and draw.result(BLACK) == 0.5


# -- the State contract -------------------------------------------------------------------------

def test_state_is_immutable_and_play_returns_a_new_value():
    s = from_moves(9, ["E5", "D5"])
    before = copy.deepcopy(s)
    after = s.play("C5")
    assert s == before and after != s and after.to_move == WHITE and s.to_move == BLACK
    with pytest.raises(AttributeError):
        s.to_move = WHITE
    with pytest.raises(TypeError):
        s.board[0] = 1


def test_key_stability_transpositions_and_pickling():
    a = from_moves(9, ["E5", "D5", "C3", "G7"])
    b = from_moves(9, ["C3", "G7", "E5", "D5"])
    assert a.key() == b.key() and a.key() == a.key() and isinstance(a.key(), int)
    assert a._replace(to_move=WHITE).key() != a.key()
    assert a.play(PASS).key() != a._replace(to_move=WHITE).key()  # the pass count is in the key
    for s in (a, a.play(PASS), from_diagram(KO).play("C3"), double_ko_cycle("goban")):
        back = pickle.loads(pickle.dumps(s))
        assert back == s and type(back) is State and back.key() == s.key()
        assert copy.deepcopy(s).key() == s.key() == Board(s).key()
    e = IllegalMove("Black A1: suicide", "suicide")
    back = pickle.loads(pickle.dumps(e))
    assert back.reason == "suicide" and str(back) == str(e)


def test_check_reasons():
    s = from_moves(5, ["C3"])
    reasons = {}
    for move in (25, -2, "Z9", None, 1.5, True, "C3"):
        with pytest.raises(IllegalMove) as e:
            s.check(move)
        reasons[repr(move)] = e.value.reason
    assert reasons == {"25": "off board", "-2": "off board", "'Z9'": "off board", "None": "off board",
                       "1.5": "off board", "True": "off board", "'C3'": "occupied"}
    s.check("pass")
    s.check(PASS)


def test_from_moves_replays_and_refuses_illegal_moves():
    s = from_moves(9, ["E5", "E4", "D4", "PASS", "F4", "E3", "e6"], komi=6.5)
    t = empty(9, komi=6.5)
    for m in ["E5", "E4", "D4", PASS, "F4", "E3", "E6"]:
        t = t.play(m)
    assert s == t and s.komi == 6.5 and s.passes == 0
    with pytest.raises(IllegalMove):
        from_moves(9, ["E5", "E5"])


def test_render():
    text = render(from_moves(9, ["A1", "J9"]))
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHJ") and lines[-2] == lines[0]
    assert lines[1].split() == ["9"] + ["."] * 8 + ["O", "9"]
    assert lines[9].split() == ["1", "X"] + ["."] * 8 + ["1"]
    assert "Black to move" in lines[-1]
    assert render(empty(19)).splitlines()[1].startswith("19 ")


# -- the oracle Board -----------------------------------------------------------------------------

def test_board_round_trip_and_copy_independence():
    s = from_moves(9, ["E5", "D5", "E4", "D4", PASS])
    b = Board(s)
    check_board_invariants(b)
    assert b.state() == s and b.key() == s.key()
    c = b.copy()
    c.play(P("E6"))
    assert b.state() == s and c.state() == s.play("E6")
    d = b.copy(keep_history=False)
    assert d.seen is None and d.state().board == s.board


def test_push_and_undo_restore_everything():
    s = from_diagram(KO)
    b = Board(s)
    b.push(P("C3", 5))
    assert b.state() == s.play("C3")
    b.push(PASS)
    b.push(PASS)
    assert b.is_terminal()
    for _ in range(3):
        b.undo()
    assert b.state() == s
    check_board_invariants(b)
    with pytest.raises(IllegalMove):
        b.push(-9)  # off board
    assert b.state() == s and b.history == []


def test_is_eye():
    s = from_diagram("""
        .X.O.
        X.XOO
        .X...
        XX...
        .X...
    """)
    b = Board(s)
    assert b.is_eye(P("A5", 5), BLACK)  # corner, no enemy diagonal
    assert b.is_eye(P("B4", 5), BLACK)  # centre: diagonal C5 is empty
    assert b.is_eye(P("A1", 5), BLACK) and b.is_eye(P("A3", 5), BLACK)
    assert not b.is_eye(P("A5", 5), WHITE) and not b.is_eye(P("C5", 5), BLACK)
    assert b.is_eye(P("E5", 5), WHITE)
    # One enemy diagonal makes an edge point a false eye; in the centre it takes two.
    centre = Board(setup(5, black=["C2", "B3", "D3", "C4"], white=["B2"]))
    assert centre.is_eye(P("C3", 5), BLACK)
    centre = Board(setup(5, black=["C2", "B3", "D3", "C4"], white=["B2", "D4"]))
    assert not centre.is_eye(P("C3", 5), BLACK)
    side = Board(setup(5, black=["B1", "D1", "C2"], white=["B2"]))
    assert not side.is_eye(P("C1", 5), BLACK)
    side = Board(setup(5, black=["B1", "D1", "C2"]))
    assert side.is_eye(P("C1", 5), BLACK)


def test_legal_random_move_never_fills_own_eyes_and_passes_when_done():
    # Black owns everything but two eyes: nothing left for Black, and White may not play in.
    s = from_diagram("""
        .XXXX
        XXXXX
        XXX.X
        XXXXX
        XXXXX
    """)
    b = Board(s)
    rng = random.Random(1)
    assert b.legal_random_move(rng, BLACK) == PASS
    assert b.legal_random_move(rng, WHITE) == PASS  # both points are suicide for White
    s = from_diagram("""
        .X...
        XX...
        .....
        .....
        .....
    """)
    b = Board(s)
    moves = {b.legal_random_move(rng, BLACK) for _ in range(300)}
    assert P("A5", 5) not in moves and len(moves) == 25 - 4
    check_board_invariants(b)


@pytest.mark.parametrize("size", [5, 9])
def test_playouts_end_in_scored_positions(size):
    rng = random.Random(size)
    base = Board(empty(size))
    for _ in range(10):
        b = base.copy()
        score = b.playout(rng)
        check_board_invariants(b)
        st_ = b.state()
        assert b.is_terminal() and b.seen is None and 0 < b.playout_moves <= 3 * size * size
        assert score == st_.score() and st_.is_terminal()
        # At the end every empty point is an eye (light playouts): both sides have nothing left.
        for c in (BLACK, WHITE):
            assert b.legal_random_move(rng, c) == PASS
    assert base.state() == empty(size)


def test_playout_respects_max_moves():
    b = Board()
    assert b.state() == empty(9)
    b.playout(random.Random(3), max_moves=10)
    assert b.playout_moves == 10 and len(b.state().stones(BLACK)) + len(b.state().stones(WHITE)) <= 10


# -- State and Board agree --------------------------------------------------------------------------

def compare_game(size, rng, plies, superko="positional"):
    """Random game checking State and Board against each other at every ply."""
    state = empty(size, komi=7.5 if size == 9 else 0.5, superko=superko)
    board = Board(state)
    for ply in range(plies):
        assert board.state() == state
        assert board.key() == state.key()
        legal = state.legal_moves()
        assert board.legal_moves() == legal
        if state.is_terminal():
            break
        # The fast test agrees with the full one except where only superko differs.
        for p in range(size * size):
            reason = board.why_illegal(p)
            assert board.is_legal(p) == (reason is None or (reason == "superko" and p != board.ko))
            assert state.is_legal(p) == (reason is None)
        # Rare single passes; a second one (ending the game) only late, so games run long.
        p_pass = 0.03 if state.passes == 0 else 0.2 if ply > 2 * size * size else 0.0
        m = PASS if rng.random() < p_pass or len(legal) == 1 else rng.choice(legal[:-1])
        state = state.play(m)
        board.play(m)
        if rng.random() < 0.1:
            check_board_invariants(board)
        if rng.random() < 0.05:  # conversions mid-game
            board = Board(board.state())
    check_board_invariants(board)
    assert board.score() == state.score()
    return state


@pytest.mark.parametrize("size, seed", [(5, s) for s in range(6)] + [(9, s) for s in range(4)] + [(3, 4), (7, 0)])
def test_state_and_board_agree_along_random_games(size, seed):
    final = compare_game(size, random.Random(seed), plies=3 * size * size)
    assert sum(final.captures) > 0


@pytest.mark.parametrize("size", [13, 19])
def test_big_boards(size):
    compare_game(size, random.Random(size), plies=40)
    b = Board(empty(size))
    b.playout(random.Random(0))
    check_board_invariants(b)
    assert b.is_terminal() and b.score() == b.state().score()


def test_state_and_board_agree_under_goban_superko():
    compare_game(5, random.Random(11), plies=120, superko="goban")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2 ** 32 - 1), size=st.sampled_from([4, 5, 6]))
def test_state_and_board_agree_hypothesis(seed, size):
    compare_game(size, random.Random(seed), plies=60)


def test_random_games_see_superko_refusals():
    """Long random games on a tiny board do run into repetitions, and both sides refuse them."""
    rng = random.Random(7)
    refused = 0
    for _ in range(20):
        s = empty(4)
        for _ in range(80):
            if s.is_terminal():
                break
            b = Board(s)
            for p in range(16):
                if b.why_illegal(p) == "superko" and p != s.ko:
                    refused += 1
            legal = s.legal_moves()
            s = s.play(rng.choice(legal[:-1] or legal))
    assert refused > 0
