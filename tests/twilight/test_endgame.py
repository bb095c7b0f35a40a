"""Twilight endgames played exactly: the pursuit tables (bots.twilight.pursuit) and the planner
in positions with known outcomes, both sides played by the planner: certain captures of split
groups, a hunt that outlasts the ply cap, a smaller group that runs where it is caught last."""

from __future__ import annotations

import random

import pytest

from bots.twilight import planner as planner_module
from bots.twilight.planner import Planner, endgame
from bots.twilight.pursuit import moves_to_catch, tables
from bots.twilight.rules import Cell, Species, State, state_from_cells
from search.budget import Budget

V, W = Species.VAMPIRES, Species.WEREWOLVES


def position(rows: int, cols: int, vampires, werewolves, to_move=V, ply=0, max_plies=200, humans=()) -> State:
    cells = [Cell(x, y, 0, n, 0) for x, y, n in vampires] + [Cell(x, y, 0, 0, n) for x, y, n in werewolves]
    cells += [Cell(x, y, n, 0, 0) for x, y, n in humans]
    return state_from_cells(rows, cols, cells, to_move, ply, max_plies)


def play_out(state: State, seconds: float = 0.15, plies: int = 200) -> State:
    """The planner on both sides, `seconds` a move, until the game ends (battles by a seeded
    random generator)."""
    rng, player = random.Random(1), Planner()
    while not state.is_terminal() and plies:
        state = state.play(player.choose(state, None, Budget(seconds)).move, rng)
        plies -= 1
    return state


# -- the tables -----------------------------------------------------------------------------------


def brute_force(rows: int, cols: int) -> dict:
    """The pursuit by plain recursion over positions (hunter to move), as a check of the tables."""
    cells = [(x, y) for y in range(rows) for x in range(cols)]

    def steps(x, y):
        return [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if 0 <= x + dx < cols and 0 <= y + dy < rows]

    def near(a, b):
        return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1

    value = {(h, r): 1 if near(h, r) else None for h in cells for r in cells}
    changed = True
    while changed:
        changed = False
        for h in cells:
            for r in cells:
                if near(h, r):
                    continue
                options = []
                for h2 in steps(*h):
                    worst = [value[h2, r2] for r2 in steps(*r)]
                    options.append(None if None in worst else max(worst))
                known = [o for o in options if o is not None]
                if known and (value[h, r] is None or min(known) + 1 < value[h, r]):
                    value[h, r] = min(known) + 1
                    changed = True
    return value


@pytest.mark.parametrize("rows, cols", [(3, 5), (4, 4), (5, 6)])
def test_the_tables_match_a_brute_force_pursuit(rows, cols):
    hunter, _ = tables(rows, cols)
    for (h, r), moves in brute_force(rows, cols).items():
        assert hunter[h[1] * cols + h[0], r[1] * cols + r[0]] == moves, (h, r)


def test_one_hunter_always_catches_one_runner_within_the_boards_length():
    for rows, cols in [(5, 10), (8, 8), (1, 7), (15, 29)]:
        hunter, runner = tables(rows, cols)
        assert hunter.max() <= max(rows, cols) and runner.max() <= max(rows, cols)  # cop-win: all finite
        assert (runner >= hunter).all()  # moving first, the runner can only delay the end (it may stay)
    assert moves_to_catch(8, 8, (3, 3), (4, 4), True) == 1  # next to it: take it
    assert moves_to_catch(8, 8, (0, 0), (7, 7), True) == 7  # corner to corner: the runner is cornered there
    assert moves_to_catch(8, 8, (3, 3), (5, 3), False) == moves_to_catch(8, 8, (3, 3), (5, 3), True) == 4


def test_the_endgame_is_when_no_camp_can_ever_be_taken():
    assert endgame(position(8, 8, [(0, 0, 10)], [(7, 7, 8)]))
    assert endgame(position(8, 8, [(0, 0, 10)], [(7, 7, 8)], humans=[(4, 4, 11)]))
    assert not endgame(position(8, 8, [(0, 0, 5), (1, 1, 5)], [(7, 7, 8)], humans=[(4, 4, 9)]))


# -- positions with known outcomes ---------------------------------------------------------------------


@pytest.mark.slow
def test_the_map8_endgame_is_finished_two_captures_in_a_row():
    """The issue's game: our 210 against 104 and 68 on map8 (8x8), which ran to the time cap
    two cells apart.  Each capture is certain: both are taken long before the ply cap."""
    start = position(8, 8, [(2, 3, 210)], [(4, 3, 104), (6, 6, 68)], ply=86)
    end = play_out(start)
    assert end.groups(W) == () and end.population(V) == 210 and end.ply <= 86 + 40


@pytest.mark.slow
def test_split_groups_far_apart_are_both_hunted_down():
    start = position(10, 10, [(0, 0, 30)], [(9, 9, 10), (0, 9, 12)], to_move=W, ply=100)
    end = play_out(start)
    assert end.groups(W) == () and end.population(V) == 30 and end.ply <= 100 + 60


@pytest.mark.slow
def test_a_hunt_longer_than_the_moves_left_lets_the_runner_live():
    """The runner in the middle of the board needs five of the hunter's moves to be caught; two
    are left: it runs, and the game ends at the ply cap with both alive."""
    start = position(10, 10, [(0, 0, 20)], [(5, 5, 10)], to_move=W, ply=196, max_plies=200)
    assert moves_to_catch(10, 10, (0, 0), (5, 5), False) > 2
    end = play_out(start)
    assert end.ply == 200 and end.population(W) == 10 and end.population(V) == 20


@pytest.mark.slow
def test_a_smaller_group_runs_where_it_is_caught_last():
    """Our 10 next to their 16 (1.6x: a certain kill) with eight of their moves left: staying
    loses them, and the pursuit from the middle takes longer than the game has left."""
    start = position(12, 12, [(6, 6, 16)], [(5, 5, 10)], to_move=W, ply=184, max_plies=200)
    assert moves_to_catch(12, 12, (6, 6), (5, 5), False) > 8
    end = play_out(start)
    assert end.population(W) == 10 and end.ply == 200


def test_without_the_tables_the_planner_does_not_see_the_capture(monkeypatch):
    """The pursuit is what finds the plan: with the tables switched off the evaluation of two
    positions of the hunt, one a move closer, is the same."""
    closer = position(8, 8, [(3, 3, 210)], [(6, 3, 104)], to_move=W, ply=86)
    farther = position(8, 8, [(2, 3, 210)], [(6, 3, 104)], to_move=W, ply=86)
    with_tables = [planner_module.PlannerModel(V, s, Planner()).evaluate(s) for s in (closer, farther)]
    assert with_tables[0] > with_tables[1]
    monkeypatch.setattr(planner_module, "PURSUIT_CELLS", 0)
    without = [planner_module.PlannerModel(V, s, Planner()).evaluate(s) for s in (closer, farther)]
    assert without[0] == without[1]
