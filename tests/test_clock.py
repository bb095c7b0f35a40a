"""bots.clock, the time manager of every game with a clock for the whole game: it spends the
clock (issue 11: Go at 10 s per side thought 0.05 s a move and ended with 9 s unused), never
runs it out, and learns what a move costs besides thinking from the server's clock.  Also the
clock model Go's GTP engine and Hex's HTP engine share (issue 28): time settings, readings,
our moves, the budget from a clock, and the 2 s default."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.clock import (
    DEFAULT_SECONDS,
    MAX_SHARE,
    MIN_SECONDS,
    OVERHEAD,
    RESERVE,
    Overhead,
    TimeSettings,
    after_move,
    clock_seconds,
    move_seconds,
    read_clock,
    start_clock,
)
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


# -- the clock model of the GTP dialects (Go's GTP engine, Hex's HTP engine) -------------------------

def test_the_default_is_two_seconds_a_move_and_lives_here():
    from bots.go import clock as go_clock

    assert DEFAULT_SECONDS == 2.0
    assert go_clock.DEFAULT_SECONDS is DEFAULT_SECONDS  # Go's name for the same constant
    assert clock_seconds(None, None, 30.0) == pytest.approx(DEFAULT_SECONDS - OVERHEAD)
    assert clock_seconds(TimeSettings(0.0, 60.0, 0), None, 30.0) == clock_seconds(None, None, 30.0)
    assert clock_seconds(None, None, 30.0, overhead=0.5) == pytest.approx(1.5)


def test_settings_start_and_the_clock_after_our_moves():
    assert TimeSettings(0.0, 2.0, 1).start() == (2.0, 1)  # two seconds a move
    assert TimeSettings(90.0, 0.0, 0).start() == (90.0, 0) and TimeSettings(90.0, 0.0, 0).absolute
    assert TimeSettings(90.0, 5.0, 0).start() is None and TimeSettings(90.0, 5.0, 0).unlimited
    assert start_clock(None) is None and start_clock(TimeSettings(5.0, 30.0, 3)) == (5.0, 0)
    per_move = TimeSettings(0.0, 2.0, 1)
    assert per_move.after_move((2.0, 1), 1.9) == (2.0, 1)  # each stone starts a new period
    canadian = TimeSettings(10.0, 30.0, 2)
    assert after_move(canadian, (10.0, 0), 4.0) == (6.0, 0)
    assert after_move(canadian, (1.0, 0), 4.0) == (27.0, 1)  # main time ran out mid-move
    assert after_move(canadian, (27.0, 1), 5.0) == (30.0, 2)  # period done: a fresh one
    assert after_move(TimeSettings(5.0, 0.0, 0), (5.0, 0), 7.0) == (0.0, 0)
    assert after_move(canadian, None, 3.0) is None
    # A reading without settings: the period's length is unknown once it ends.
    assert after_move(None, (8.0, 2), 3.0) == (5.0, 1)
    assert after_move(None, (5.0, 1), 3.0) is None
    assert after_move(None, (60.0, 0), 3.0) == (57.0, 0)


def test_a_reading_is_bounded_by_the_settings():
    assert read_clock(None, 500.0, 7) == (500.0, 7)  # no settings: as it is
    assert read_clock(TimeSettings(60.0, 0.0, 0), 75.0, 0) == (75.0, 0)  # a game clock may be given time
    canadian = TimeSettings(60.0, 30.0, 5)
    assert read_clock(canadian, 45.0, 0) == (45.0, 0)
    assert read_clock(canadian, 75.0, 0) == (60.0, 0)  # more main time than there ever was
    assert read_clock(canadian, 40.0, 9) == (30.0, 5)  # more than a period holds
    assert read_clock(canadian, 12.0, 3) == (12.0, 3)
    per_move = TimeSettings(0.0, 2.0, 1)
    assert read_clock(per_move, 30.0, 0) == (0.0, 0)  # no main time in `0 S 1`: the periods come next
    assert read_clock(per_move, 30.0, 1) == (2.0, 1)
    assert read_clock(TimeSettings(0.0, 30.0, 1), 25.0, 4) == (25.0, 1)  # Japanese periods left, read as stones


def test_the_budget_from_a_clock():
    absolute = TimeSettings(300.0, 0.0, 0)
    assert clock_seconds(absolute, (300.0, 0), 36.0) == move_seconds(300.0, 36.0)  # spread over the moves left
    assert clock_seconds(absolute, (300.0, 0), 10.0) > clock_seconds(absolute, (300.0, 0), 36.0)
    assert clock_seconds(absolute, (0.0, 0), 36.0) == MIN_SECONDS
    assert clock_seconds(None, (10.0, 5), 36.0) == pytest.approx(2.0 - OVERHEAD)  # a period over its stones
    canadian = TimeSettings(2.0, 30.0, 3)
    assert clock_seconds(canadian, (2.0, 0), 36.0) == pytest.approx(10.0 - OVERHEAD)  # never slower than the rate
    assert clock_seconds(canadian, (600.0, 0), 36.0) == move_seconds(600.0, 36.0)  # main time worth more
    assert clock_seconds(canadian, (27.0, 1), 36.0) == pytest.approx(27.0 - OVERHEAD)  # the period's last stone
    assert clock_seconds(TimeSettings(0.0, 2.0, 1), (2.0, 1), 36.0, overhead=0.3) == pytest.approx(1.7)
    assert clock_seconds(TimeSettings(0.0, 0.05, 1), (0.05, 1), 36.0) == MIN_SECONDS  # the floor


READINGS = st.lists(st.one_of(
    st.tuples(st.just("read"), st.floats(0, 1e5), st.integers(0, 50)),
    st.tuples(st.just("move"), st.floats(0, 100), st.just(0))), max_size=40)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.floats(0.2, 120), st.floats(0, 0.5), READINGS)
def test_per_move_settings_never_plan_more_than_the_period(period, overhead, events):
    """`time_settings 0 S 1`: whatever the controller reads out and however long our moves
    take, no move is planned longer than S less the overhead (or the floor)."""
    settings_ = TimeSettings(0.0, period, 1)
    clock = start_clock(settings_)
    limit = max(MIN_SECONDS, period - overhead)
    for kind, value, stones in events:
        assert clock_seconds(settings_, clock, 30.0, overhead) <= limit + 1e-9
        if kind == "read":
            clock = read_clock(settings_, value, stones)
        else:
            clock = after_move(settings_, clock, value)
    assert clock_seconds(settings_, clock, 30.0, overhead) <= limit + 1e-9


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 600), st.floats(1, 120), st.integers(1, 25), st.floats(0, 0.09),
       st.integers(5, 200))
def test_a_canadian_game_never_runs_out(main_time, byo_time, byo_stones, latency, moves):
    """Every move spends its budget plus a latency under the overhead: main time runs out into
    byo-yomi, and no period ever runs out."""
    settings_ = TimeSettings(main_time, byo_time, byo_stones)
    if byo_time / byo_stones - OVERHEAD < MIN_SECONDS + latency:
        return  # periods too short for the floor: no manager can keep them
    clock = start_clock(settings_)
    for i in range(moves):
        elapsed = clock_seconds(settings_, clock, max(20.0, 40.0 - i)) + latency
        seconds, stones = clock
        if stones:
            assert seconds - elapsed >= 0, f"period ran out at move {i + 1}"
        else:
            assert seconds - elapsed + byo_time >= 0, f"main time and the first period ran out at move {i + 1}"
        clock = after_move(settings_, clock, elapsed)


def test_an_overrunning_search_is_waited_for_until_the_servers_deadline_less_a_margin():
    """Issue 28 item 8: the runner gives a search that overran its plan until clock.limit."""
    from bots.clock import NETWORK_MARGIN, OVERRUN, limit

    assert limit(1.7, per_move=2.0) == pytest.approx(2.0 - NETWORK_MARGIN)  # Twilight: 1.9 s, not 1.8
    assert limit(1.95, per_move=2.0) == 1.95  # never less than the plan
    assert limit(2.0, time_left=60.0) == OVERRUN * 2.0  # a game clock: at most twice the plan
    assert limit(2.0, time_left=3.0) == pytest.approx(3.0 - NETWORK_MARGIN)  # never the whole clock
    assert limit(2.0) is None  # no deadline known: the runner's grace


def test_a_gtp_clock_gives_the_move_limit_of_its_period():
    from bots.clock import NETWORK_MARGIN, TimeSettings
    from bots.go.gtp_engine import Engine
    from bots.go.board import BLACK

    engine = Engine(None, "random")
    assert engine.move_limit(BLACK, 1.9) is None  # no time command
    engine.set_time(TimeSettings(0.0, 2.0, 1))  # time_settings 0 2 1: 2 s a move
    assert engine.move_limit(BLACK, engine.move_budget(BLACK, engine.state)[0]) == pytest.approx(2.0 - NETWORK_MARGIN)
    engine.set_time(TimeSettings(600.0, 0.0, 0))  # absolute
    planned = engine.move_budget(BLACK, engine.state)[0]
    assert engine.move_limit(BLACK, planned) == pytest.approx(2 * planned)
