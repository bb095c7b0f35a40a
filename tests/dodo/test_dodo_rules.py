"""Dodo rules (bots/dodo/rules.py), checked against docs/protocols/gnd.md sections 7 and 9.2-9.3."""

import pickle
import random

import pytest
from hypothesis import given, settings, strategies as st

from bots.dodo.rules import FORWARD, IllegalMove, Position, State, mobility, start
from bots.gnd.hexagon import BLUE, RED, grid

SEEDS = st.integers(min_value=0, max_value=2 ** 32 - 1)
RED_DIRS = {(1, 1), (1, 0), (0, 1)}
BLUE_DIRS = {(-1, -1), (-1, 0), (0, -1)}


def add(c, d):
    return c[0] + d[0], c[1] + d[1]


def board(size, red=(), blue=(), to_move=RED):
    cells = {c: RED for c in red}
    cells.update({c: BLUE for c in blue})
    return State.from_cells(size, cells, to_move)


def reference_moves(state):
    g = state.grid
    p = state.to_move
    dirs = RED_DIRS if p == RED else BLUE_DIRS
    cells = state.cells()
    return {(c, add(c, d)) for c in g.cells if cells[c] == p
            for d in dirs if add(c, d) in g and cells[add(c, d)] == 0}


def random_game(state, rng, plies=None):
    out = [state]
    while not state.is_terminal() and (plies is None or len(out) <= plies):
        state = state.play(rng.choice(state.legal_moves()))
        out.append(state)
    return out


def mirror(state):
    """The q <-> r reflection applied to both colours."""
    flipped = {(r, q): v for (q, r), v in state.cells().items()}
    return State.from_cells(state.size, flipped, state.to_move)


def progress(state, player):
    sign = 1 if player == RED else -1
    return sum(sign * (q + r) for (q, r), v in state.cells().items() if v == player)


def snapshot(pos):
    return (pos.to_move, pos.stones[:], pos.keys, pos.key(), len(pos.history))


# -- layouts -----------------------------------------------------------------------------

@pytest.mark.parametrize("n, count", [(4, 10), (5, 22), (6, 32)])
def test_gnd_layout_counts_and_mirror(n, count):
    s = start(n, "gnd")
    assert s.red.bit_count() == s.blue.bit_count() == count
    assert s.to_move == RED and s.red & s.blue == 0
    cells = s.cells()
    reds = {c for c, v in cells.items() if v == RED}
    blues = {c for c, v in cells.items() if v == BLUE}
    assert blues == {(-q, -r) for q, r in reds}
    assert all(q + r <= -2 for q, r in reds)  # red starts at small q + r
    assert not s.is_terminal()


def test_gnd_layout_shapes():
    red4 = {c for c, v in start(4).cells().items() if v == RED}
    assert red4 == {c for c in grid(4).cells if c[0] + c[1] <= -3}
    red5 = {c for c, v in start(5).cells().items() if v == RED}
    assert red5 == {c for c in grid(5).cells if c[0] + c[1] <= -3} | {(-2, 0), (-1, -1), (0, -2)}
    assert (-3, 1) not in red5 and (1, -3) not in red5
    assert start(4, "steere").red.bit_count() == 13
    with pytest.raises(ValueError, match="unknown Dodo layout"):
        start(4, "nope")


# -- moves -------------------------------------------------------------------------------

def test_forward_table():
    assert set(FORWARD[RED]) == RED_DIRS and set(FORWARD[BLUE]) == BLUE_DIRS


def test_red_moves_forward_into_empty_cells():
    s = board(4, red=[(0, 0)], blue=[(-3, -3)])
    assert set(s.legal_moves()) == {((0, 0), (1, 1)), ((0, 0), (1, 0)), ((0, 0), (0, 1))}
    s = board(4, red=[(0, 0)], blue=[(1, 1)])
    assert set(s.legal_moves()) == {((0, 0), (1, 0)), ((0, 0), (0, 1))}
    s = board(4, red=[(0, 0), (1, 0)], blue=[(0, 1)])  # own checkers block too
    assert set(s.legal_moves()) == {((0, 0), (1, 1)), ((1, 0), (2, 1)), ((1, 0), (2, 0)), ((1, 0), (1, 1))}
    s = board(4, red=[(3, 0)], blue=[(-3, -3)])  # the edge: only (0,1) stays on the board
    assert s.legal_moves() == [((3, 0), (3, 1))]
    s = board(4, red=[(3, 3)], blue=[(-3, -3)])  # blue's home corner: no move at all
    assert s.legal_moves() == []


def test_blue_moves_backwards_in_red_terms():
    s = board(4, red=[(3, 3)], blue=[(0, 0)], to_move=BLUE)
    assert set(s.legal_moves()) == {((0, 0), (-1, -1)), ((0, 0), (-1, 0)), ((0, 0), (0, -1))}
    s = board(4, red=[(-1, -1), (0, -1)], blue=[(0, 0)], to_move=BLUE)
    assert s.legal_moves() == [((0, 0), (-1, 0))]
    s = board(4, red=[(3, 3)], blue=[(-3, -3)], to_move=BLUE)
    assert s.legal_moves() == []


@settings(max_examples=50, deadline=None)
@given(st.sampled_from([3, 4, 5, 6]).flatmap(lambda n: st.tuples(
    st.just(n), st.dictionaries(st.sampled_from(grid(n).cells), st.sampled_from([RED, BLUE])))),
    st.sampled_from([RED, BLUE]))
def test_legal_moves_match_reference_on_arbitrary_boards(case, to_move):
    n, cells = case
    s = State.from_cells(n, cells, to_move)
    moves = s.legal_moves()
    assert len(moves) == len(set(moves)) == mobility(s, to_move)
    assert set(moves) == reference_moves(s)
    assert all(s.is_legal(m) for m in moves)


def test_check_rejections():
    s = board(4, red=[(0, 0), (1, 0)], blue=[(0, 1), (-1, -1), (2, 2)])
    s.check(((0, 0), (1, 1)))  # legal
    with pytest.raises(IllegalMove, match="does not hold a checker of player 1"):
        s.check(((0, 1), (-1, 1)))  # the opponent's checker
    with pytest.raises(IllegalMove, match="does not hold a checker"):
        s.check(((-2, -2), (-1, -1)))  # an empty cell
    with pytest.raises(IllegalMove, match="occupied"):
        s.check(((0, 0), (0, 1)))  # onto the opponent
    with pytest.raises(IllegalMove, match="occupied"):
        s.check(((0, 0), (1, 0)))  # onto one's own checker
    with pytest.raises(IllegalMove, match="not one step forward"):
        s.check(((0, 0), (-1, 0)))  # backwards
    with pytest.raises(IllegalMove, match="not one step forward"):
        s.check(((0, 0), (0, -1)))
    with pytest.raises(IllegalMove, match="not one step forward"):
        s.check(((1, 0), (2, -1)))  # (1,-1) is not even adjacent
    with pytest.raises(IllegalMove, match="not one step forward"):
        s.check(((1, 0), (3, 1)))  # two steps into an empty cell
    with pytest.raises(IllegalMove, match="not on the board"):
        s.check(((0, 0), (4, 4)))
    with pytest.raises(IllegalMove, match="not on the board"):
        s.check(((3, -1), (3, 0)))
    blue = s._replace(to_move=BLUE)
    blue.check(((0, 1), (-1, 0)))
    with pytest.raises(IllegalMove, match="not one step forward"):
        blue.check(((0, 1), (1, 2)))  # red's forward is blue's backward
    with pytest.raises(IllegalMove, match="does not hold a checker of player 2"):
        blue.check(((0, 0), (-1, 0)))
    with pytest.raises(IllegalMove):
        s.play(((0, 0), (-1, 0)))


@pytest.mark.parametrize("move", [None, 5, "ab", (), ((0, 0),), ((0, 0), (1, 1), (2, 2)), ((0,), (1, 1)),
                                  ((0, 0, 0), (1, 1, 1)), (((0, 0),), (1, 1)), ("(0, 0)", "(1, 1)")])
def test_check_rejects_malformed_input(move):
    s = board(4, red=[(0, 0)], blue=[(3, 3)])
    with pytest.raises(IllegalMove):
        s.check(move)
    assert not s.is_legal(move)


def test_check_rejects_unhashable_coordinates():
    s = board(4, red=[(0, 0)], blue=[(3, 3)])
    with pytest.raises(IllegalMove):
        s.check([[0, [0]], [1, 1]])


def test_check_accepts_lists_as_cells():
    s = board(4, red=[(0, 0)], blue=[(3, 3)])
    s.check([[0, 0], [1, 1]])  # as decoded from JSON
    t = s.play([[0, 0], [1, 1]])
    assert t.at((1, 1)) == RED and t.at((0, 0)) == 0


def test_play_returns_new_state_and_leaves_old_unchanged():
    s0 = start(4)
    m = s0.legal_moves()[0]
    s1 = s0.play(m)
    assert s0 == start(4)
    assert isinstance(s1, State) and s1 is not s0
    assert s1.at(m[0]) == 0 and s1.at(m[1]) == RED and s1.to_move == BLUE
    assert s1.blue == s0.blue and s1.red.bit_count() == s0.red.bit_count()
    assert pickle.loads(pickle.dumps(s1)) == s1
    assert s1.key() == (4, s1.red, s1.blue, BLUE)


# -- the misere win ----------------------------------------------------------------------

def test_side_to_move_without_a_move_wins():
    s = board(4, red=[(3, 3)], blue=[(0, 0)], to_move=RED)
    assert s.is_terminal() and s.winner() == RED
    t = board(4, red=[(0, 0)], blue=[(-3, -3)], to_move=BLUE)
    assert t.is_terminal() and t.winner() == BLUE
    # blocked by the opponent counts too: red (2,3) can only go to (3,3), held by blue
    u = board(4, red=[(2, 3)], blue=[(3, 3)], to_move=RED)
    assert u.legal_moves() == [] and u.winner() == RED
    # stuck but not to move: the game goes on
    v = board(4, red=[(3, 3)], blue=[(0, 0)], to_move=BLUE)
    assert not v.is_terminal() and v.winner() is None


@settings(max_examples=20, deadline=None)
@given(SEEDS, st.sampled_from([3, 4, 5, 6]))
def test_games_terminate_with_monotone_progress(seed, n):
    rng = random.Random(seed)
    s = start(n)
    # each checker can gain at most 2(N-1) - (q+r) progress, and every move gains 1 or 2
    budget = sum(2 * (n - 1) - (q + r) for (q, r), v in s.cells().items() if v == RED)
    budget += sum(2 * (n - 1) + (q + r) for (q, r), v in s.cells().items() if v == BLUE)
    states = random_game(s, rng)
    assert len(states) - 1 <= budget
    for a, b in zip(states, states[1:], strict=False):
        p = a.to_move
        assert progress(b, p) - progress(a, p) in (1, 2)
        assert progress(b, 3 - p) == progress(a, 3 - p)
    last = states[-1]
    assert last.is_terminal() and last.winner() == last.to_move
    assert all(x.winner() is None for x in states[:-1])


# -- Position (search board) -------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(SEEDS, st.sampled_from([4, 5, 6]))
def test_position_agrees_with_state_and_undo_restores(seed, n):
    rng = random.Random(seed)
    s = start(n)
    pos = Position(s)
    trail = [snapshot(pos)]
    while True:
        assert pos.state() == s
        moves = pos.moves()
        assert len(moves) == len(set(moves))
        assert {pos.move_of(m) for m in moves} == set(s.legal_moves())
        assert all(pos.index_of(pos.move_of(m)) == m for m in moves)
        fresh = Position(s)
        assert pos.keys == fresh.keys and pos.key() == fresh.key()
        if s.is_terminal():
            assert moves == []
            break
        mv = rng.choice(s.legal_moves())
        pos.play(pos.index_of(mv))
        s = s.play(mv)
        trail.append(snapshot(pos))
    while pos.history:
        assert snapshot(pos) == trail[len(pos.history)]
        pos.undo()
    assert snapshot(pos) == trail[0] == snapshot(Position(start(n)))


@settings(max_examples=20, deadline=None)
@given(SEEDS, st.sampled_from([4, 5, 6]))
def test_key_folds_the_mirror_only(seed, n):
    rng = random.Random(seed)
    states = random_game(start(n), rng)
    for s in (states[0], states[rng.randrange(len(states))], states[-1]):
        m = mirror(s)
        k = Position(s).key()
        assert Position(m).key() == k
        assert set(m.legal_moves()) == {((a[1], a[0]), (b[1], b[0])) for a, b in s.legal_moves()}
        assert m.is_terminal() == s.is_terminal()
        # the side to move is part of the key
        assert Position(s._replace(to_move=3 - s.to_move)).key() != k
        # a genuine change: any move leads to a different key unless it reaches s or its mirror
        for mv in s.legal_moves()[:4]:
            t = s.play(mv)._replace(to_move=s.to_move)
            if t not in (s, m):
                assert Position(t).key() != k


def test_key_differs_for_point_mirror_without_colour_swap():
    # the 180 degree rotation is not a colour-preserving symmetry of Dodo
    # (docs/protocols/gnd.md section 7)
    a = board(4, red=[(-3, -3)], blue=[(1, 0)])
    b = board(4, red=[(3, 3)], blue=[(-1, 0)])
    assert Position(a).key() != Position(b).key()
    c = board(4, red=[(-3, -3)], blue=[(0, 1)])  # the q <-> r mirror of a
    assert Position(a).key() == Position(c).key()


def test_position_mirror_symmetry_index():
    g = grid(5)
    pos = Position(start(5))
    t = g.symmetries[pos.sym]
    assert all(t[g.index[c]] == g.index[(c[1], c[0])] for c in g.cells)


@settings(max_examples=15, deadline=None)
@given(SEEDS, st.sampled_from([3, 4, 5, 6]))
def test_playout_leaves_position_unchanged(seed, n):
    rng = random.Random(seed)
    states = random_game(start(n), rng)
    for s in (states[0], states[len(states) // 2], states[-1]):
        pos = Position(s)
        before = snapshot(pos)
        w = pos.playout(random.Random(seed))
        assert w in (RED, BLUE)
        assert snapshot(pos) == before
        if s.is_terminal():
            assert w == s.to_move == s.winner()


class TooBig(Exception):
    pass


def outcomes(s, memo, budget=3000):
    """The set of winners reachable from s (exhaustive; raises TooBig past `budget` positions)."""
    k = s.key()
    if k not in memo:
        if len(memo) >= budget:
            raise TooBig
        if s.is_terminal():
            memo[k] = {s.winner()}
        else:
            memo[k] = set().union(*(outcomes(s.play(m), memo) for m in s.legal_moves()))
    return memo[k]


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_playout_result_is_a_reachable_outcome(seed):
    rng = random.Random(seed)
    states = random_game(start(3), rng)
    memo = {}
    for s in reversed(states[-8:]):  # from the end back: small trees first
        try:
            possible = outcomes(s, memo)
        except TooBig:  # a long game still ahead (one side stuck early): skip
            break
        pos = Position(s)
        for r in range(4):
            assert pos.playout(random.Random(seed + r)) in possible


def test_evaluate_in_range():
    rng = random.Random(5)
    for s in random_game(start(5), rng):
        v = Position(s).evaluate()
        assert -1 < v < 1


# -- clock hint --------------------------------------------------------------------------

def test_expected_moves_positive():
    rng = random.Random(11)
    for n in (3, 4, 5, 6):
        states = random_game(start(n), rng)
        for s in (states[0], states[1], states[len(states) // 2], states[-1]):
            e = s.expected_moves()
            assert isinstance(e, float) and e > 0
