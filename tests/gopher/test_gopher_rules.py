"""Gopher rules (bots/gopher/rules.py), checked against docs/protocols/gnd.md sections 9.1 and 10."""

import pickle
import random

import pytest
from hypothesis import given, settings, strategies as st

from bots.gopher.rules import IllegalMove, Position, State, legal_mask, start
from bots.gnd.hexagon import BLUE, DIRECTIONS, RED, grid

SEEDS = st.integers(min_value=0, max_value=2 ** 32 - 1)
SIZES = st.sampled_from([3, 4, 5, 6])


def add(c, d):
    return c[0] + d[0], c[1] + d[1]


def board(size, red=(), blue=(), to_move=RED):
    cells = {c: RED for c in red}
    cells.update({c: BLUE for c in blue})
    return State.from_cells(size, cells, to_move)


def reference_legal(state, player=None):
    """The rule read straight off docs/protocols/gnd.md section 9.1, one cell at a time."""
    p = state.to_move if player is None else player
    g = state.grid
    cells = state.cells()
    if not any(cells.values()):
        return set(g.cells)
    out = set()
    for c in g.cells:
        if cells[c]:
            continue
        around = [cells[add(c, d)] for d in DIRECTIONS if add(c, d) in g]
        if around.count(p) == 0 and around.count(3 - p) == 1:
            out.add(c)
    return out


def random_game(size, rng, plies=None):
    """States of a uniformly random game from the empty board (to the end, or `plies` long)."""
    s = start(size)
    out = [s]
    while not s.is_terminal() and (plies is None or len(out) <= plies):
        s = s.play(rng.choice(s.legal_moves()))
        out.append(s)
    return out


def image(state, k):
    g = state.grid
    return State(state.size, g.transform(state.red, k), g.transform(state.blue, k), state.to_move)


def snapshot(pos):
    return (pos.to_move, pos.stones[:], [None, pos.count[RED][:], pos.count[BLUE][:]],
            pos.legal[:], list(pos.keys), pos.key(), len(pos.history))


# -- first move and the placement rule ---------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 6, 8])
def test_first_move_anywhere(n):
    s = start(n)
    assert s.to_move == RED and s.red == s.blue == 0
    assert set(s.legal_moves()) == set(grid(n).cells)
    assert all(s.is_legal(c) for c in grid(n).cells)
    assert not s.is_terminal() and s.winner() is None


def test_start_checks_size():
    with pytest.raises(ValueError):
        start(1)
    with pytest.raises(ValueError):
        start(13)


def test_blue_answers_next_to_the_first_stone():
    s = start(4).play((0, 0))
    assert s.to_move == BLUE
    assert set(s.legal_moves()) == {(1, 0), (0, 1), (1, 1), (-1, 0), (0, -1), (-1, -1)}
    s = start(4).play((3, 3))  # a corner: three neighbours
    assert set(s.legal_moves()) == {(2, 3), (3, 2), (2, 2)}


def test_hand_built_red_to_move():
    s = board(4, red=[(0, 0)], blue=[(1, 0)])
    # neighbours of the blue stone, minus the occupied centre and the cells touching red
    assert set(s.legal_moves()) == {(2, 0), (2, 1), (1, -1)}
    assert set(s.legal_moves()) == reference_legal(s)


def test_hand_built_two_enemy_stones_forbid():
    s = board(4, red=[(-2, -2)], blue=[(0, 0), (2, 1)], to_move=RED)
    # (1,0) and (1,1) touch both blue stones: forbidden; other blue neighbours are fine
    legal = set(s.legal_moves())
    assert (1, 0) not in legal and (1, 1) not in legal
    assert (0, 1) in legal and (-1, 0) in legal and (3, 2) in legal and (2, 0) in legal
    assert (-1, -1) not in legal  # touches red (-2,-2)
    assert legal == reference_legal(s)
    expected = ({add((0, 0), d) for d in DIRECTIONS} | {add((2, 1), d) for d in DIRECTIONS}) & set(grid(4).cells)
    expected -= {(1, 0), (1, 1)}  # two enemy neighbours
    expected -= {add((-2, -2), d) for d in DIRECTIONS}  # a friendly neighbour
    expected -= {(0, 0), (2, 1)}
    assert legal == expected


def test_hand_built_friendly_neighbour_forbids():
    s = board(3, red=[(0, 0), (2, 2)], blue=[(1, 1)], to_move=RED)
    # each free neighbour of blue (1,1) touches a red stone: (1,0), (0,1) touch (0,0), (2,1), (1,2) touch (2,2)
    assert s.legal_moves() == []
    assert s.is_terminal() and s.winner() == BLUE
    # blue in the same position: cells touching exactly one red, no blue
    b = s._replace(to_move=BLUE)
    # only the outer neighbours of (0,0): (1,0), (0,1), (1,2), (2,1) also touch blue (1,1)
    assert set(b.legal_moves()) == reference_legal(b) == {(-1, 0), (0, -1), (-1, -1)}


def test_both_players_masks_on_one_position():
    s = board(4, red=[(0, 0), (-2, 1)], blue=[(1, 1), (-3, -3)], to_move=BLUE)
    g = grid(4)
    for p in (RED, BLUE):
        assert set(g.to_cells(legal_mask(s, p))) == reference_legal(s, p)


@settings(max_examples=60, deadline=None)
@given(SIZES.flatmap(lambda n: st.tuples(
    st.just(n), st.dictionaries(st.sampled_from(grid(n).cells), st.sampled_from([RED, BLUE]), min_size=1))),
    st.sampled_from([RED, BLUE]))
def test_legal_mask_matches_reference_on_arbitrary_boards(case, to_move):
    n, cells = case
    s = State.from_cells(n, cells, to_move)
    assert set(s.legal_moves()) == reference_legal(s)
    assert set(s.grid.to_cells(legal_mask(s, 3 - to_move))) == reference_legal(s, 3 - to_move)


def test_occupied_and_off_board_are_illegal():
    s = board(4, red=[(0, 0)], blue=[(1, 0)])
    assert not s.is_legal((0, 0)) and not s.is_legal((1, 0))
    assert not s.is_legal((4, 0)) and not s.is_legal((-3, 1))
    t = start(4).play((0, 0))
    assert not t.is_legal((0, 0))


def test_check_messages():
    s = board(4, red=[(0, 0)], blue=[(1, 0)])
    with pytest.raises(IllegalMove, match="not on the board"):
        s.check((4, 4))
    with pytest.raises(IllegalMove, match="not on the board"):
        s.check((-3, 1))
    with pytest.raises(IllegalMove, match="occupied"):
        s.check((0, 0))
    with pytest.raises(IllegalMove, match="occupied"):
        s.check((1, 0))
    with pytest.raises(IllegalMove, match="exactly one enemy stone and no friendly one"):
        s.check((1, 1))  # touches red (0,0)
    with pytest.raises(IllegalMove, match="exactly one enemy stone"):
        s.check((-3, -3))  # touches nothing
    assert issubclass(IllegalMove, ValueError)
    s.check((2, 0))  # legal: no exception
    with pytest.raises(IllegalMove):
        s.play((1, 1))


def test_check_rejects_list_cell_with_illegal_move():
    s = start(4)
    with pytest.raises(IllegalMove):
        s.check([9, 9])


def test_play_returns_new_state_and_leaves_old_unchanged():
    s0 = start(4)
    s1 = s0.play((0, 0))
    assert s0 == State(4, 0, 0, RED)
    assert s1 is not s0 and isinstance(s1, State)
    assert s1.at((0, 0)) == RED and s1.to_move == BLUE
    s2 = s1.play((1, 0))
    assert s1.at((1, 0)) == 0 and s1.to_move == BLUE
    assert s2.at((1, 0)) == BLUE and s2.to_move == RED
    assert s2.red == s1.red
    assert pickle.loads(pickle.dumps(s2)) == s2
    assert s2.key() == (4, s2.red, s2.blue, RED)


# -- end of game -------------------------------------------------------------------------

def test_side_to_move_without_a_move_loses():
    s = board(3, red=[(0, 0), (2, 2)], blue=[(1, 1)], to_move=RED)
    assert s.is_terminal() and s.winner() == BLUE
    # same idea with colours swapped
    t = board(3, red=[(1, 1)], blue=[(0, 0), (2, 2)], to_move=BLUE)
    assert t.is_terminal() and t.winner() == RED
    # a running game has no winner
    assert board(3, red=[(0, 0)], to_move=BLUE).winner() is None


@settings(max_examples=30, deadline=None)
@given(SEEDS, SIZES)
def test_random_games_terminate_and_the_last_placer_wins(seed, n):
    states = random_game(n, random.Random(seed))
    assert len(states) - 1 <= 3 * n * (n - 1) + 1
    last = states[-1]
    assert last.is_terminal() and last.legal_moves() == []
    assert last.winner() == 3 - last.to_move
    assert all(s.winner() is None for s in states[:-1])
    # the winner is the one who placed the last stone
    prev = states[-2]
    assert last.winner() == prev.to_move
    # stones alternate: red has as many stones as blue, or one more
    for s in states:
        assert s.red.bit_count() - s.blue.bit_count() == (0 if s.to_move == RED else 1)


# -- Position (search board) -------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(SEEDS, st.sampled_from([3, 4, 5, 6]))
def test_position_agrees_with_state_and_undo_restores(seed, n):
    rng = random.Random(seed)
    g = grid(n)
    s = start(n)
    pos = Position(s)
    trail = [snapshot(pos)]
    while True:
        assert pos.state() == s
        assert sorted(pos.moves()) == sorted(g.index[c] for c in s.legal_moves())
        for p in (RED, BLUE):
            assert pos.legal[p] == legal_mask(s, p)
        fresh = Position(s)  # from-scratch construction agrees with the incremental one
        assert pos.keys == fresh.keys and pos.key() == fresh.key()
        assert pos.count == fresh.count
        if s.is_terminal():
            assert pos.moves() == []
            break
        c = rng.choice(s.legal_moves())
        i = pos.index_of(c)
        assert pos.move_of(i) == c
        pos.play(i)
        s = s.play(c)
        trail.append(snapshot(pos))
    while pos.history:
        assert snapshot(pos) == trail[len(pos.history)]
        pos.undo()
    assert snapshot(pos) == trail[0] == snapshot(Position(start(n)))
    assert pos.state() == start(n)


@settings(max_examples=15, deadline=None)
@given(SEEDS, SIZES)
def test_position_from_mid_game_state(seed, n):
    rng = random.Random(seed)
    states = random_game(n, rng)
    s = states[rng.randrange(len(states))]
    pos = Position(s)
    before = snapshot(pos)
    for m in pos.moves():
        pos.play(m)
        t = s.play(pos.move_of(m))
        assert pos.state() == t
        assert sorted(pos.moves()) == sorted(t.grid.index[c] for c in t.legal_moves())
        assert pos.key() == Position(t).key()
        pos.undo()
        assert snapshot(pos) == before


@settings(max_examples=40, deadline=None)
@given(SEEDS, SIZES)
def test_key_is_symmetric_and_symmetries_map_legal_sets(seed, n):
    rng = random.Random(seed)
    states = random_game(n, rng)
    g = grid(n)
    for s in (states[0], states[1], states[rng.randrange(len(states))], states[-1]):
        k0 = Position(s).key()
        for k in range(12):
            t = image(s, k)
            assert Position(t).key() == k0
            for p in (RED, BLUE):
                assert legal_mask(t, p) == g.transform(legal_mask(s, p), k)
            assert t.is_terminal() == s.is_terminal()


def test_keys_differ_for_non_symmetric_positions():
    n = 4
    positions = [
        start(n),
        board(n, red=[(0, 0)], to_move=BLUE),
        board(n, red=[(1, 0)], to_move=BLUE),
        board(n, red=[(2, 0)], to_move=BLUE),
        board(n, red=[(2, 1)], to_move=BLUE),
        board(n, red=[(3, 3)], to_move=BLUE),
        board(n, red=[(0, 0)], blue=[(1, 0)]),
        board(n, red=[(1, 0)], blue=[(2, 0)]),
        board(n, red=[(1, 0)], blue=[(1, 1)]),
        board(n, red=[(1, 0)], blue=[(0, 0)]),
        board(n, red=[(1, 0)], blue=[(2, 1)]),
        board(n, red=[(1, 0)], blue=[(-1, 0)]),
        board(n, red=[(1, 0)], blue=[(0, 1)]),
    ]
    keys = [Position(s).key() for s in positions]
    assert len(set(keys)) == len(keys)
    # the side to move is part of the key
    s = board(n, red=[(0, 0)], blue=[(1, 0)])
    assert Position(s).key() != Position(s._replace(to_move=BLUE)).key()
    # but (1,0)+(2,0) and its rotation (1,1)+(2,2) agree, and so do the mirror images (1,0)+(2,1), (1,0)+(1,-1)
    assert Position(board(n, red=[(1, 0)], blue=[(2, 1)])).key() == \
        Position(board(n, red=[(1, 0)], blue=[(1, -1)])).key()
    assert Position(board(n, red=[(1, 0)], blue=[(2, 0)])).key() == \
        Position(board(n, red=[(1, 1)], blue=[(2, 2)])).key()


@settings(max_examples=20, deadline=None)
@given(SEEDS, SIZES)
def test_playout_leaves_position_unchanged(seed, n):
    rng = random.Random(seed)
    states = random_game(n, rng)
    for s in (states[0], states[1], states[len(states) // 2], states[-1]):
        pos = Position(s)
        before = snapshot(pos)
        w = pos.playout(random.Random(seed))
        assert w in (RED, BLUE)
        assert snapshot(pos) == before
        if s.is_terminal():
            assert w == s.winner()


def outcomes(s, memo):
    """The set of winners reachable from s (exhaustive; small positions only)."""
    k = s.key()
    if k not in memo:
        if s.is_terminal():
            memo[k] = {s.winner()}
        else:
            memo[k] = set().union(*(outcomes(s.play(c), memo) for c in s.legal_moves()))
    return memo[k]


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_playout_result_is_a_reachable_outcome(seed):
    rng = random.Random(seed)
    states = random_game(3, rng)
    memo = {}
    for s in states[2:]:
        pos = Position(s)
        possible = outcomes(s, memo)
        for r in range(5):
            assert pos.playout(random.Random(seed + r)) in possible


def test_evaluate_in_range():
    rng = random.Random(3)
    for s in random_game(5, rng):
        v = Position(s).evaluate()
        assert -1 < v < 1


# -- known theory: Edwards' strategy on N = 3 ---------------------------------------------

def red_neighbour(s, b):
    reds = [add(b, d) for d in DIRECTIONS if add(b, d) in s.grid and s.at(add(b, d)) == RED]
    assert len(reds) == 1, (b, reds)
    return reds[0]


def edwards_wins(s, stats):
    """Blue to move; Red answers every Blue stone b with b + (b - r).  True if Red wins every line."""
    assert s.to_move == BLUE
    if s.is_terminal():
        assert s.winner() == RED
        stats["leaves"] += 1
        return True
    for b in s.legal_moves():
        t = s.play(b)
        r = red_neighbour(t, b)
        m = (2 * b[0] - r[0], 2 * b[1] - r[1])
        assert t.is_legal(m), (s.cells(), b, m)
        if not edwards_wins(t.play(m), stats):
            return False
    return True


@pytest.mark.parametrize("opening", [(0, 0), (2, 2), (-2, 0)])
def test_edwards_strategy_wins_on_size_3(opening):
    stats = {"leaves": 0}
    assert edwards_wins(start(3).play(opening), stats)
    assert stats["leaves"] > 1


def test_red_loses_with_ring_one_opening_on_size_3():
    # docs/protocols/gnd.md section 10.2: on N = 3 Red loses after opening (-1,-1), wins after
    # the centre, a corner or (-2,-1)
    memo = {}

    def wins(s):  # does the side to move win with perfect play?
        k = s.key()
        if k not in memo:
            memo[k] = any(not wins(s.play(c)) for c in s.legal_moves())
        return memo[k]

    assert wins(start(3).play((-1, -1)))  # Blue, to move, wins
    assert not wins(start(3).play((0, 0)))  # Blue loses after the centre, a corner or (-2,-1)
    assert not wins(start(3).play((2, 2)))
    assert not wins(start(3).play((-2, -1)))


# -- clock hint --------------------------------------------------------------------------

def test_expected_moves_positive():
    rng = random.Random(7)
    for n in (3, 4, 6):
        states = random_game(n, rng)
        for s in (states[0], states[1], states[len(states) // 2], states[-1]):
            e = s.expected_moves()
            assert isinstance(e, float) and e > 0
