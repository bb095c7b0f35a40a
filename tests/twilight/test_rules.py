"""Rules of Vampires vs Werewolves, checked against docs/protocols/twilight.md sections 7-9."""

import math
import random

import pytest
from hypothesis import given, settings, strategies as st

from bots.twilight.rules import (
    IllegalMove, Species, apply_update, outcomes, resolve, state_from_cells, validate,
    win_probability,
)
from protocol.twilight import Cell, Move

V, W = Species.VAMPIRES, Species.WEREWOLVES


def board(*cells, rows=4, cols=6, to_move=V, ply=0, max_plies=200):
    return state_from_cells(rows, cols, [Cell(*c) for c in cells], to_move, ply, max_plies)


# 4 rows x 6 columns (not square, so x/y mix-ups show).  Vampires 10 at (2,1), 3 at (1,1),
# 2 at (5,3); werewolves 4 at (4,1); humans 5 at (0,3).
BASE = board((2, 1, 0, 10, 0), (1, 1, 0, 3, 0), (5, 3, 0, 2, 0), (4, 1, 0, 0, 4), (0, 3, 5, 0, 0))


def rejected(state, moves, reason):
    with pytest.raises(IllegalMove, match=reason):
        validate(state, state.to_move, [Move(*m) for m in moves])


def accepted(state, moves):
    validate(state, state.to_move, [Move(*m) for m in moves])


# -- §7 validation: one test per losing rule ------------------------------------------------

def test_rule1_zero_moves():
    rejected(BASE, [], "no move")


def test_rule2_cell_both_source_and_target():
    rejected(BASE, [(2, 1, 5, 3, 2), (1, 1, 3, 2, 1)], "both a source and a target")
    rejected(BASE, [(2, 1, 5, 2, 1)], "both a source and a target")  # from == to


def test_rule3_source_without_our_species():
    rejected(BASE, [(3, 2, 1, 3, 3)], "holds no vampires")  # empty cell
    rejected(BASE, [(4, 1, 1, 3, 1)], "holds no vampires")  # werewolves' cell
    rejected(BASE, [(0, 3, 1, 0, 2)], "holds no vampires")  # human cell
    rejected(BASE._replace(to_move=W), [(2, 1, 1, 3, 1)], "holds no werewolves")


def test_rule4_count_exceeds_source():
    rejected(BASE, [(2, 1, 11, 3, 2)], "sends 11 units from a cell holding 10")
    accepted(BASE, [(2, 1, 10, 3, 2)])


def test_rule5_sum_leaving_one_source_exceeds_it():
    rejected(BASE, [(2, 1, 6, 3, 2), (2, 1, 5, 3, 0)], "11 units leave")
    accepted(BASE, [(2, 1, 6, 3, 2), (2, 1, 4, 3, 0)])


@pytest.mark.parametrize("target", [(4, 1), (0, 1), (2, 3), (4, 3), (0, 3)])
def test_rule6_target_not_adjacent(target):
    rejected(BASE, [(2, 1, 1, *target)], "not to an adjacent cell")


@pytest.mark.parametrize("count", [0, -1])
def test_rule7_count_zero(count):
    rejected(BASE, [(2, 1, count, 3, 2)], "at least 1")


def test_rule8_coordinates_outside_grid():
    # x is bounded by the 6 columns, y by the 4 rows; the last one is a source outside
    for move in [(5, 3, 1, 6, 3), (5, 3, 1, 5, 4), (5, 3, 1, 6, 2), (1, 1, 1, 0, -1),
                 (6, 0, 1, 5, 0)]:
        rejected(BASE, [move], "outside the 4x6 grid")
    accepted(BASE, [(5, 3, 2, 4, 2)])
    accepted(board((5, 0, 0, 1, 0), (0, 0, 0, 0, 1)), [(5, 0, 1, 5, 1)])


def test_rule9_more_than_255_into_one_target():
    big = board((0, 0, 0, 128, 0), (2, 0, 0, 128, 0), (5, 3, 0, 0, 1))
    rejected(big, [(0, 0, 128, 1, 1), (2, 0, 128, 1, 1)], "256 units move into")
    accepted(big, [(0, 0, 127, 1, 1), (2, 0, 128, 1, 1)])  # exactly 255


def test_merge_into_owned_cell_above_255():
    big = board((0, 0, 0, 200, 0), (1, 0, 0, 100, 0), (5, 3, 0, 0, 1))
    rejected(big, [(0, 0, 200, 1, 0)], "merging into")
    rejected(big, [(1, 0, 56, 0, 0)], "merging into")
    accepted(big, [(1, 0, 55, 0, 0)])  # 200 + 55 == 255


def test_legal_split_merge_and_diagonals():
    accepted(BASE, [(2, 1, 4, 1, 0), (2, 1, 6, 3, 2)])  # split into two targets
    accepted(BASE, [(2, 1, 10, 1, 2), (1, 1, 3, 1, 2)])  # two groups into one empty cell
    for dx, dy in [(-1, -1), (1, -1), (-1, 1), (1, 1)]:
        accepted(BASE, [(2, 1, 10, 2 + dx, 1 + dy)])
    accepted(BASE, [(2, 1, 10, 1, 1)])  # merge with an own group that stays
    accepted(BASE._replace(to_move=W), [(4, 1, 2, 5, 0), (4, 1, 2, 3, 2)])


# -- §8.1 deterministic resolution ---------------------------------------------------------

def after(state, *moves, seed=0):
    return resolve(state, [Move(*m) for m in moves], random.Random(seed))[0]


def test_move_into_empty_cell_and_partial_departure():
    s = after(BASE, (2, 1, 4, 3, 2))
    assert s.vampires == ((1, 1, 3), (2, 1, 6), (3, 2, 4), (5, 3, 2))
    assert s.werewolves == BASE.werewolves and s.humans == BASE.humans
    assert after(BASE, (2, 1, 10, 3, 2)).vampires == ((1, 1, 3), (3, 2, 10), (5, 3, 2))


def test_merge_with_own_group():
    assert after(BASE, (2, 1, 10, 1, 1)).vampires == ((1, 1, 13), (5, 3, 2))


def test_conversion_at_exactly_equal_numbers():
    s = board((1, 2, 0, 5, 0), (0, 3, 5, 0, 0), (5, 0, 0, 0, 2))
    for seed in range(5):
        t = after(s, (1, 2, 5, 0, 3), seed=seed)
        assert t.vampires == ((0, 3, 10),) and t.humans == ()


def test_moves_into_one_target_are_summed():
    s = board((1, 2, 0, 2, 0), (0, 2, 0, 3, 0), (0, 3, 5, 0, 0), (5, 0, 0, 0, 4))
    assert after(s, (1, 2, 2, 0, 3), (0, 2, 3, 0, 3)).vampires == ((0, 3, 10),)
    s = board((3, 0, 0, 3, 0), (3, 2, 0, 3, 0), (4, 1, 0, 0, 4))
    t = after(s, (3, 0, 3, 4, 1), (3, 2, 3, 4, 1))  # 6 >= 1.5 * 4 only together
    assert t.vampires == ((4, 1, 6),) and t.werewolves == ()


def test_kill_at_exactly_one_and_a_half():
    s = board((3, 1, 0, 6, 0), (4, 1, 0, 0, 4), (0, 0, 0, 0, 1))
    for seed in range(5):
        t = after(s, (3, 1, 6, 4, 1), seed=seed)
        assert t.vampires == ((4, 1, 6),) and t.werewolves == ((0, 0, 1),)
    assert len(outcomes(s, [Move(3, 1, 6, 4, 1)])) == 1  # no battle, not a sure-win battle


def test_just_below_one_and_a_half_is_a_random_battle():
    s = board((3, 1, 0, 5, 0), (4, 1, 0, 0, 4), (0, 0, 0, 0, 1))
    seen = {after(s, (3, 1, 5, 4, 1), seed=seed).cell(4, 1) for seed in range(60)}
    assert any(c.vampires for c in seen) and any(c.werewolves for c in seen)
    assert len(outcomes(s, [Move(3, 1, 5, 4, 1)])) == 2
    assert len(outcomes(board((1, 2, 0, 4, 0), (0, 3, 5, 0, 0), (5, 0, 0, 0, 1)),
                        [Move(1, 2, 4, 0, 3)])) == 2  # 4 < 5 humans


def test_next_state_flips_player_counts_ply_and_leaves_original_alone():
    snapshot = tuple(BASE)
    s, touched = resolve(BASE, [Move(2, 1, 4, 3, 2)], random.Random(3))
    assert (s.to_move, s.ply, s.max_plies) == (W, 1, 200)
    assert touched == {(2, 1), (3, 2)}
    assert tuple(BASE) == snapshot and BASE.ply == 0
    wolves = after(BASE._replace(to_move=W), (4, 1, 4, 5, 2))
    assert wolves.werewolves == ((5, 2, 4),) and wolves.to_move == V
    t = BASE.play([Move(2, 1, 4, 3, 2)])
    assert t == s and BASE.play([Move(2, 1, 4, 3, 2)], random.Random(9)) == s
    assert t.play([Move(4, 1, 4, 5, 2)]).ply == 2 and t.play([Move(4, 1, 4, 5, 2)]).to_move == V
    assert BASE.skip()[2:5] == BASE[2:5] and (BASE.skip().to_move, BASE.skip().ply) == (W, 1)
    assert BASE.key() == BASE.skip().skip().key()
    with pytest.raises(IllegalMove):
        BASE.play([Move(2, 1, 11, 3, 2)])


# -- §8.2-8.3 random battles ---------------------------------------------------------------

@pytest.mark.parametrize("e1,e2,p", [(2, 4, 0.25), (4, 4, 0.5), (5, 4, 0.75), (3, 4, 0.375),
                                     (1, 3, 1 / 6), (3, 5, 0.3), (7, 6, 7 / 6 - 0.5), (6, 4, 1.0)])
def test_win_probability(e1, e2, p):
    assert win_probability(e1, e2) == pytest.approx(p, abs=1e-12)


class CountingRandom(random.Random):
    """Random that counts its draws: a battle uses 1 + one per surviving-candidate unit."""

    draws = 0

    def random(self):
        self.draws += 1
        return super().random()


def sample_battle(state, move, humans, trials=20_000):
    me, x, y = state.to_move, move.x_to, move.y_to
    e1, e2 = move.count, sum(state.cell(x, y)[2:])
    rng = CountingRandom(1)
    wins, won_units, lost_units = 0, [], []
    for _ in range(trials):
        before = rng.draws
        cell = resolve(state, [move], rng)[0].cell(x, y)
        used = rng.draws - before
        attacker_won = used == 1 + e1 + (e2 if humans else 0)
        assert attacker_won or used == 1 + e2
        mine, theirs = cell[3 + me], (cell.humans if humans else cell[3 + me.other])
        assert (mine == 0 or attacker_won) and (theirs == 0 or not attacker_won)
        wins += attacker_won
        (won_units if attacker_won else lost_units).append(mine if attacker_won else theirs)
    return wins / trials, won_units, lost_units


def near(values, mean, per_unit_var, n_units):
    se = math.sqrt(n_units * per_unit_var / len(values))
    assert abs(sum(values) / len(values) - mean) < 4 * se


@pytest.mark.parametrize("e1,e2,humans", [(3, 5, True), (5, 4, False), (3, 4, False)])
def test_random_battle_statistics(e1, e2, humans):
    defender = (0, 3, e2, 0, 0) if humans else (0, 3, 0, 0, e2)
    s = board((1, 2, 0, e1, 0), defender, (5, 0, 0, 0, 1))
    p = win_probability(e1, e2)
    freq, won_units, lost_units = sample_battle(s, Move(1, 2, e1, 0, 3), humans)
    assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / 20_000)
    candidates = e1 + (e2 if humans else 0)  # each converted human survives with P too
    near(won_units, p * candidates, p * (1 - p), candidates)
    near(lost_units, (1 - p) * e2, p * (1 - p), e2)


# -- outcomes (search model) ---------------------------------------------------------------

def test_outcomes_of_one_monster_battle():
    s = board((1, 2, 0, 5, 0), (0, 3, 0, 0, 4), (5, 0, 0, 0, 1))
    (p_win, won), (p_lost, lost) = outcomes(s, [Move(1, 2, 5, 0, 3)])
    assert (p_win, p_lost) == pytest.approx((0.75, 0.25))
    assert won.vampires == ((0, 3, 4),) and won.werewolves == ((5, 0, 1),)  # 0.75 * 5
    assert lost.vampires == () and lost.werewolves == ((0, 3, 1), (5, 0, 1))  # 0.25 * 4
    assert won.to_move == lost.to_move == W and won.ply == lost.ply == 1


def test_outcomes_of_one_human_battle():
    s = board((1, 2, 0, 2, 0), (0, 3, 5, 0, 0), (5, 0, 0, 0, 1))
    (p_win, won), (p_lost, lost) = s.outcomes([Move(1, 2, 2, 0, 3)])
    assert (p_win, p_lost) == pytest.approx((0.2, 0.8))
    assert won.vampires == ((0, 3, 1),) and won.humans == ()  # 0.2 * (2 + 5) = 1.4
    assert lost.vampires == () and lost.humans == ((0, 3, 4),)  # 0.8 * 5
    assert s.play([Move(1, 2, 2, 0, 3)]) == lost  # most probable outcome


def test_outcomes_of_two_battles_and_of_none():
    s = board((1, 2, 0, 2, 0), (0, 3, 5, 0, 0), (4, 2, 0, 5, 0), (5, 3, 0, 0, 4), (5, 0, 0, 0, 1))
    outs = outcomes(s, [Move(1, 2, 2, 0, 3), Move(4, 2, 5, 5, 3)])
    probs = sorted(p for p, _ in outs)
    assert probs == pytest.approx(sorted([0.2 * 0.75, 0.2 * 0.25, 0.8 * 0.75, 0.8 * 0.25]))
    assert sum(probs) == pytest.approx(1.0) and len({o.key() for _, o in outs}) == 4
    best = max(outs, key=lambda o: o[0])[1]
    assert best.humans == ((0, 3, 4),) and best.vampires == ((5, 3, 4),)
    (only,) = outcomes(s, [Move(1, 2, 2, 1, 1)])
    assert only[0] == 1.0 and only[1] == resolve(s, [Move(1, 2, 2, 1, 1)], random.Random(0))[0]
    with pytest.raises(IllegalMove):
        s.outcomes([Move(1, 2, 3, 1, 1)])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.booleans(), st.integers(0, 2**32))
def test_any_single_arrival_is_consistent(e1, e2, humans, seed):
    s = board((1, 2, 0, e1, 0), (0, 3, e2, 0, 0) if humans else (0, 3, 0, 0, e2), (5, 0, 0, 0, 1))
    move = [Move(1, 2, e1, 0, 3)]
    outs = outcomes(s, move)
    assert sum(p for p, _ in outs) == pytest.approx(1.0) and all(0 < p <= 1 for p, _ in outs)
    deterministic = e1 >= (1 if humans else 1.5) * e2
    assert len(outs) == (1 if deterministic else 2)
    t = resolve(s, move, random.Random(seed))[0]
    assert sum(t.cell(0, 3)[2:]) <= (e1 + e2 if humans else max(e1, e2))
    assert t.cell(1, 2) == (1, 2, 0, 0, 0)
    assert t.werewolves[-1] == (5, 0, 1) and (not deterministic or t == outs[0][1])


# -- §9 end of game ------------------------------------------------------------------------

def test_end_of_game():
    no_vamp = board((0, 0, 3, 0, 0), (2, 2, 0, 0, 1))
    assert no_vamp.is_terminal() and no_vamp.winner() == W
    assert (no_vamp.result(W), no_vamp.result(V)) == (1.0, 0.0)
    no_wolf = board((2, 2, 0, 1, 0), to_move=W)
    assert no_wolf.is_terminal() and no_wolf.winner() == V and no_wolf.result(V) == 1.0
    cells = [(0, 0, 0, 6, 0), (5, 3, 0, 4, 0), (2, 2, 0, 0, 9), (1, 3, 50, 0, 0)]
    assert not board(*cells, ply=199).is_terminal() and board(*cells, ply=199).winner() is None
    at_limit = board(*cells, ply=200)
    assert at_limit.is_terminal() and at_limit.winner() == V and at_limit.result(W) == 0.0
    assert board(*cells, ply=10, max_plies=10).winner() == V
    cells[2] = (2, 2, 0, 0, 11)
    assert board(*cells, ply=200).winner() == W
    draw = board((0, 0, 0, 5, 0), (3, 3, 0, 0, 5), ply=200)
    assert draw.is_terminal() and draw.winner() is None
    assert draw.result(V) == draw.result(W) == 0.5


def test_a_kill_of_the_last_group_ends_the_game():
    s = board((3, 1, 0, 6, 0), (4, 1, 0, 0, 4))
    t = s.play([Move(3, 1, 6, 4, 1)])
    assert t.is_terminal() and t.winner() == V


# -- building states -----------------------------------------------------------------------

def test_state_from_cells():
    s = board((3, 0, 2, 0, 0), (1, 2, 0, 0, 7), (0, 1, 0, 4, 0), (1, 2, 0, 9, 0), (5, 0, 0, 0, 0))
    assert (s.rows, s.cols, s.to_move, s.ply) == (4, 6, V, 0)
    assert (s.humans, s.vampires, s.werewolves) == (((3, 0, 2),), ((0, 1, 4), (1, 2, 9)), ())
    assert [tuple(c) for c in s.cells()] == [(3, 0, 2, 0, 0), (0, 1, 0, 4, 0), (1, 2, 0, 9, 0)]
    with pytest.raises(ValueError, match="two populations"):
        board((1, 1, 3, 2, 0))
    for x, y in [(6, 0), (0, 4), (-1, 0), (0, -1)]:
        with pytest.raises(ValueError, match="outside"):
            board((x, y, 0, 1, 0))


def test_apply_update_overwrites_only_listed_cells():
    s = apply_update(BASE, [Cell(2, 1, 0, 0, 0), Cell(3, 2, 0, 10, 0), Cell(0, 3, 0, 0, 7)], W, 5)
    assert s.vampires == ((1, 1, 3), (3, 2, 10), (5, 3, 2))
    assert s.werewolves == ((0, 3, 7), (4, 1, 4)) and s.humans == ()
    assert (s.to_move, s.ply, s.rows, s.cols) == (W, 5, 4, 6)
    assert apply_update(BASE, [], V, 0) == BASE
    with pytest.raises(ValueError):
        apply_update(BASE, [Cell(2, 1, 1, 1, 0)], W, 1)
    with pytest.raises(ValueError):
        apply_update(BASE, [Cell(6, 0, 0, 1, 0)], W, 1)


# -- legal_moves ---------------------------------------------------------------------------

@pytest.mark.parametrize("species", [V, W])
def test_legal_moves_respect_the_merge_limit(species):
    pops = [(0, 0, 200), (1, 0, 100)]
    cells = [(x, y, 0, n, 0) if species == V else (x, y, 0, 0, n) for x, y, n in pops]
    enemy = (3, 3, 0, 0, 1) if species == V else (3, 3, 0, 1, 0)
    s = board(*cells, enemy, to_move=species)
    moves = s.legal_moves()
    merges = {(m[0].x_from, m[0].y_from): m[0].count for m in moves if (m[0].x_to, m[0].y_to) in {(0, 0), (1, 0)}}
    assert merges == {(0, 0): 155, (1, 0): 55}  # only as much as fits beside the other group
    for m in moves:
        validate(s, species, m)


def test_legal_moves_not_empty_for_a_big_group_low_on_the_board():
    s = board((5, 15, 0, 250, 0), (0, 0, 0, 0, 3), rows=20, cols=20)
    assert len(s.legal_moves()) == 8
