"""Twilight endgames: the pursuit tables (bots.twilight.pursuit), exact against a brute force,
and the planner's evaluation that reads them (`planner:hunt=1`)."""

from __future__ import annotations

import pytest

from bots.twilight import planner as planner_module
from bots.twilight.planner import Planner, endgame
from bots.twilight.pursuit import moves_to_catch, tables
from bots.twilight.rules import Cell, Species, State, state_from_cells

V, W = Species.VAMPIRES, Species.WEREWOLVES


def position(rows: int, cols: int, vampires, werewolves, to_move=V, ply=0, max_plies=200, humans=()) -> State:
    cells = [Cell(x, y, 0, n, 0) for x, y, n in vampires] + [Cell(x, y, 0, 0, n) for x, y, n in werewolves]
    cells += [Cell(x, y, n, 0, 0) for x, y, n in humans]
    return state_from_cells(rows, cols, cells, to_move, ply, max_plies)


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


# -- the planner's evaluation -------------------------------------------------------------------------


def test_with_hunt_the_evaluation_sees_a_hunt_progress(monkeypatch):
    """`planner:hunt=1` values a position one pursuit move closer higher; the default planner
    (hunt=0: the change is not accepted yet, docs/benchmarks/twilight.md) and a board too large
    for the tables see no difference."""
    closer = position(8, 8, [(3, 3, 210)], [(6, 3, 104)], to_move=W, ply=86)
    farther = position(8, 8, [(2, 3, 210)], [(6, 3, 104)], to_move=W, ply=86)
    hunting = [planner_module.PlannerModel(V, s, Planner(hunt=True)).evaluate(s) for s in (closer, farther)]
    assert hunting[0] > hunting[1]
    default = [planner_module.PlannerModel(V, s, Planner()).evaluate(s) for s in (closer, farther)]
    assert default[0] == default[1]
    monkeypatch.setattr(planner_module, "PURSUIT_CELLS", 0)
    too_large = [planner_module.PlannerModel(V, s, Planner(hunt=True)).evaluate(s) for s in (closer, farther)]
    assert too_large[0] == too_large[1]
