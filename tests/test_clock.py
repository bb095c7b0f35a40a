"""bots.clock, the time manager of every game with a clock for the whole game: it spends the
clock (issue 11: Go at 10 s per side thought 0.05 s a move and ended with 9 s unused), never
runs it out, and learns what a move costs besides thinking from the server's clock."""

from __future__ import annotations

import pytest

from bots.clock import MAX_SHARE, MIN_SECONDS, RESERVE, Overhead, move_seconds
from bots.go.board import empty
from bots.go.clock import move_seconds as go_move_seconds


def simulate(main_time: float, own_moves: int, estimate, latency: float, gift: float, overhead: Overhead,
             learn: bool = True) -> tuple[float, float, list[float]]:
    """A sudden-death game of `own_moves` moves, each charged (thinking + latency - gift) as
    CGOS charges it, the budget from `move_seconds` with moves-left `estimate(i)`.  Returns
    (clock left at the end, total thinking, the budgets)."""
    left, thought, budgets, before = main_time, 0.0, [], None
    for i in range(own_moves):
        if before is not None and learn:
            overhead.observe(before[0], left, before[1])
        think = move_seconds(left, estimate(i), overhead.value)
        budgets.append(think)
        before = (left, think)
        left -= max(0.0, think + latency - gift)
        thought += think
        assert left > 0, f"the clock ran out at move {i + 1}"
    return left, thought, budgets


@pytest.mark.parametrize("main_time", [5.0, 10.0, 30.0, 300.0, 1800.0])
@pytest.mark.parametrize("latency, gift", [(0.0, 0.25), (0.1, 0.25), (0.05, 0.0), (0.3, 0.0)])
def test_a_game_spends_most_of_its_clock_and_never_runs_out(main_time, latency, gift):
    # 9x9 Go: our moves from 81 empties, one stone a move, a 36-move game
    moves = 36
    if (latency - gift) * moves > 0.5 * main_time:
        pytest.skip("the network alone would take the clock")
    left, thought, budgets = simulate(main_time, moves, lambda i: max(81 - 2 * i, 20) * 0.45, latency, gift,
                                      Overhead(0.2))
    charged = main_time - left
    assert charged >= 0.75 * main_time, f"used {charged:.2f} of {main_time} s"
    assert left >= 0.02 * main_time
    assert min(budgets[1:]) > MIN_SECONDS or main_time <= 5  # no move starved after the first


def test_the_issue_case_ten_seconds_on_cgos_thinks_for_real():
    """10 s per side on CGOS (0.25 s given back per move): the old manager thought 0.05 s a
    move; after one move the overhead is learned and moves get several tenths."""
    overhead = Overhead(0.2)
    _, thought, budgets = simulate(10.0, 36, lambda i: max(81 - 2 * i, 20) * 0.45, 0.02, 0.25, overhead)
    assert overhead.value == pytest.approx(-0.23, abs=0.05)
    assert min(budgets[4:20]) >= 0.3
    assert thought >= 15  # the given-back time is spent too


def test_one_move_takes_at_most_a_quarter_of_what_is_left():
    assert move_seconds(10.0, 1.0, 0.0) == pytest.approx(10.0 * (1 - RESERVE) * MAX_SHARE)
    assert move_seconds(10.0, 0.2, 0.0) == move_seconds(10.0, 1.0, 0.0)


def test_the_floor_and_a_clock_already_gone():
    assert move_seconds(0.0, 10) == move_seconds(-3.0, 10) == MIN_SECONDS
    assert move_seconds(1.0, 100, overhead=0.5) == MIN_SECONDS
    assert move_seconds(1.0, 100, overhead=0.5, floor=0.01) == 0.01


def test_overhead_follows_the_clock_and_stays_in_bounds():
    o = Overhead(0.2)
    for _ in range(30):
        o.observe(before=10.0, after=10.0 - 0.5 - 0.3, thought=0.5)  # 0.3 s of network each move
    assert o.value == pytest.approx(0.3, abs=0.01)
    o.observe(before=10.0, after=-1000.0, thought=0.0)  # one absurd reading
    assert o.value == o.high
    o2 = Overhead(0.0)
    o2.observe(before=10.0, after=50.0, thought=0.1)  # a clock that grew: clamped
    assert o2.value == o2.low


def test_go_uses_the_shared_manager():
    s = empty(9)
    assert go_move_seconds(s, time_left=10.0, overhead=0.0) == move_seconds(10.0, 81 * 0.45, 0.0)
    assert go_move_seconds(s, per_move=2.0, time_left=10.0) == pytest.approx(2.0 - 0.1)  # per move wins
