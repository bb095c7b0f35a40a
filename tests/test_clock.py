"""bots.clock, the time manager of every game: on a clock for the whole game it spends the
clock (issue 11: Go at 10 s per side thought 0.05 s a move and ended with 9 s unused), never
runs it out, and learns what a move costs besides thinking from the server's clock.  Also the
clock model Go's GTP engine and Hex's HTP engine share (issue 28): time settings, readings,
our moves, the budget from a clock, and the 2 s default.  And `budget`, the one budget
function every session, engine and drop-in calls (issue 29 item 4): the budgets of every
mode pinned to their figures, and every caller's budget counted from the request's arrival."""

from __future__ import annotations

import asyncio
import math
import random
import time
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
import structlog
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.clock import (
    DEFAULT_SECONDS,
    MAX_SHARE,
    MIN_SECONDS,
    NETWORK_MARGIN,
    OVERHEAD,
    OVERRUN,
    RESERVE,
    TAIL_MOVES,
    Clock,
    Overhead,
    TimeSettings,
    after_move,
    budget,
    read_clock,
    start_clock,
)
from bots.go.board import empty
from bots.go.clock import moves_left as go_moves_left
from bots.runner import MoveReport
from search.budget import SearchResult


def go_plan(time_left: float, overhead: float) -> float:
    """The plan for the first move on an empty 9x9 board: 95% of the clock over Go's count."""
    return time_left * 0.95 / go_moves_left(empty(9)) - overhead


def move_seconds(time_left: float, moves_left: float, overhead: float = OVERHEAD, floor: float = MIN_SECONDS) -> float:
    """The seconds `budget` plans on a game clock (sudden death or main time)."""
    return budget(arrived=0.0, time_left=time_left, moves_left=moves_left, overhead=overhead, floor=floor).seconds


def clock_seconds(settings: TimeSettings | None, clock: Clock | None, moves_left: float,
                  overhead: float = OVERHEAD) -> float:
    """The seconds `budget` plans with a GTP engine's `clock` under `settings`."""
    left, stones = clock if clock is not None else (None, 0)
    return budget(arrived=0.0, time_left=left, stones=stones, settings=settings, moves_left=moves_left,
                  overhead=overhead).seconds


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


def test_the_floor_gives_way_to_a_clock_too_short_for_it():
    assert move_seconds(3.0, 10, overhead=0.5) == MIN_SECONDS  # the share less the overhead is less
    assert move_seconds(3.0, 10, overhead=0.5, floor=0.01) == 0.01
    assert move_seconds(1.0, 10, overhead=0.5) == pytest.approx(1.0 * (1 - RESERVE) / TAIL_MOVES)
    assert move_seconds(0.0, 10) == move_seconds(-3.0, 10) == 0.0  # a clock already gone: the move at once


@pytest.mark.parametrize("cost, learned", [(0.0005, True), (0.005, True), (0.02, True), (0.001, False)])
def test_a_game_longer_than_expected_keeps_its_clock(cost, learned):
    """10 s sudden death on 9x9, 60 moves of ours with the estimate at its least (9 moves) from
    move 28 on, each move costing `cost` besides thinking: the overhead learned from the clock
    (the arena, CGOS) or kept at 0.1 s (the GTP engine).  The floor alone (0.05 s a move) ran
    out at our move 52 to 55 with a learned overhead; a share of what is left only shrinks it."""
    left, _, budgets = simulate(10.0, 60, lambda i: max(81 - 2 * i, 20) * 0.45, cost, 0.0, Overhead(),
                                learn=learned)
    assert left > 0 and budgets[-1] > 0
    assert min(budgets[1:25]) > 0.1  # the opening and the middle game still think


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


def test_go_estimates_its_moves_left_from_the_empty_points_weighing_the_middle_game_most():
    from bots.go import clock as go_clock
    from bots.go.board import from_moves, setup

    assert go_clock.weight(go_clock.MIDDLE_FILL) == pytest.approx(1 + go_clock.MIDDLE_WEIGHT)
    assert go_clock.weight(0.0) < go_clock.weight(0.2) < go_clock.weight(go_clock.MIDDLE_FILL)
    assert go_clock.weight(go_clock.MIDDLE_FILL + go_clock.MIDDLE_SPAN) == go_clock.weight(1.0) == 1.0
    plain = 81 * go_clock.OWN_MOVES_PER_EMPTY
    assert go_moves_left(empty(9)) > plain  # the opening keeps time back for the middle game
    middle = from_moves(9, ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6", "C4", "D3", "C3", "F7",
                            "G3", "E7", "G6", "G7", "H7", "C6", "B6", "D7", "H4", "G4", "H5", "H3", "G2", "C2"])
    assert go_moves_left(middle) < 0.8 * middle.board.count(0) * go_clock.OWN_MOVES_PER_EMPTY  # and spends it there
    endgame = setup(9, black=range(36), white=range(45, 81))  # the middle row empty
    assert go_moves_left(endgame) == pytest.approx(20 * go_clock.OWN_MOVES_PER_EMPTY)  # counting 20 empties at least


# -- the clock model of the GTP dialects (Go's GTP engine, Hex's HTP engine) -------------------------

def test_the_default_is_two_seconds_a_move_and_lives_here():
    assert DEFAULT_SECONDS == 2.0
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
    assert clock_seconds(absolute, (0.0, 0), 36.0) == 0.0  # gone: the move at once, no floor
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
    """Issue 28 item 8: the runner gives a search that overran its plan until Budget.limit."""
    assert budget(arrived=0.0, per_move=2.0, overhead=0.3).limit == pytest.approx(2.0 - NETWORK_MARGIN)  # not 1.7
    assert budget(arrived=0.0, per_move=2.0, overhead=0.05).limit == 1.95  # never less than the plan
    sixty = budget(arrived=0.0, time_left=60.0, moves_left=30.0)
    assert sixty.limit == OVERRUN * sixty.seconds  # a game clock: at most twice the plan
    main = budget(arrived=0.0, time_left=3.0, settings=TimeSettings(3.0, 20.0, 10))  # 1.9 s, the byo-yomi rate
    assert main.seconds == pytest.approx(1.9)
    assert main.limit == pytest.approx(3.0 - NETWORK_MARGIN)  # not the whole clock
    assert budget(arrived=0.0).limit is None  # no deadline known: the runner's grace


def test_a_gtp_clock_gives_the_move_limit_of_its_period():
    from bots.go.board import BLACK
    from bots.go.gtp_engine import Engine

    engine = Engine(None, "random")
    assert engine.move_budget(BLACK, 0.0)[0].limit is None  # no time command
    engine.set_time(TimeSettings(0.0, 2.0, 1))  # time_settings 0 2 1: 2 s a move
    assert engine.move_budget(BLACK, 0.0)[0].limit == pytest.approx(2.0 - NETWORK_MARGIN)
    engine.set_time(TimeSettings(600.0, 0.0, 0))  # absolute
    planned = engine.move_budget(BLACK, 0.0)[0]
    assert planned.limit == pytest.approx(2 * planned.seconds)


@pytest.mark.parametrize("settings_, extra", [
    (TimeSettings(10.0, 0.0, 0), 1.0),  # sudden death: at most WARM_SHARE of the clock
    (TimeSettings(60.0, 0.0, 0), 1.2),  # all the workers still need
    (TimeSettings(60.0, 5.0, 1), 1.2),  # main time before byo-yomi
    (TimeSettings(0.0, 1.0, 1), 0.0),  # byo-yomi: the period is the limit
    (None, 0.0),  # no clock
])
def test_a_move_on_a_game_clock_waits_for_workers_about_to_be_ready(settings_, extra):
    """While the workers start, a move in main time gets the seconds they still need (at most
    WARM_SHARE of the clock), so it is searched rather than the fallback."""
    from bots.go.board import BLACK
    from bots.go.gtp_engine import Engine
    from bots.gtp_clock import WARM_SHARE
    from tests.helpers import ScriptedRunner

    assert WARM_SHARE == 0.1  # the first case's 1.0 s

    runner = ScriptedRunner()
    engine = Engine(runner, "random")
    engine.set_time(settings_)
    ready = engine.move_budget(BLACK, ARRIVED)[0]
    runner.warm = 1.2
    warming = engine.move_budget(BLACK, ARRIVED)[0]
    assert warming.seconds == pytest.approx(ready.seconds + extra)
    if extra:
        assert ready.limit + extra >= warming.limit >= warming.seconds
        assert warming.limit <= settings_.main - NETWORK_MARGIN
    else:
        assert warming == ready


# -- one budget function for every mode (issue 29 item 4) ------------------------------------------
# The figures are those the eight budget sites computed before they all called `budget`.

ARRIVED = 5000.0  # a monotonic reading: `budget` reads no clock, it counts from the arrival it is given


def pinned(b, seconds: float, limit: float | None) -> None:
    assert b.start == ARRIVED
    assert b.seconds == pytest.approx(seconds, abs=1e-12)
    assert b.limit is None if limit is None else b.limit == pytest.approx(limit, abs=1e-12)


def test_twilight_per_move():
    """The server's 2 s a move less the configured 0.3 s, waited for until 1.9 s."""
    from bots.twilight.session import TwilightBot

    bot = TwilightBot(name="us", port=1)
    assert (bot.move_time, bot.overhead) == (2.0, 0.3)
    pinned(budget(arrived=ARRIVED, per_move=bot.move_time, overhead=bot.overhead, floor=0.0), 1.7, 1.9)
    pinned(budget(arrived=ARRIVED, per_move=0.5, overhead=0.48, floor=0.0), 0.02, 0.4)  # no floor: as configured


def test_gnd_game_clock():
    """60 s on gnd's clock, 20 moves expected, 0.1 s overhead: 60 * 0.95 / 20 - 0.1."""
    pinned(budget(arrived=ARRIVED, time_left=60.0, moves_left=20.0, overhead=0.1), 2.75, 5.5)
    tail = 0.4 * 0.95 / TAIL_MOVES  # a clock that could not pay the floor TAIL_MOVES times
    pinned(budget(arrived=ARRIVED, time_left=0.4, moves_left=5.0, overhead=0.1), tail, 2 * tail)


def test_cgos_game_clock_with_the_time_given_back():
    """CGOS gives 0.25 s back per move: the learned overhead is negative and adds to the plan."""
    moves = 81 * 0.45  # 36.45 moves left, as an empty 9x9 board once counted
    pinned(budget(arrived=ARRIVED, time_left=10.0, moves_left=moves, overhead=-0.23),
           0.4906310013717421, 0.9812620027434842)
    pinned(budget(arrived=ARRIVED, time_left=300.0, moves_left=moves, overhead=0.2),  # the first move: 0.2 s
           7.618930041152263, 15.237860082304525)


@pytest.mark.parametrize("settings_, clock, seconds, limit", [
    (None, None, DEFAULT_SECONDS - OVERHEAD, None),  # no time command: 2 s a move, no deadline
    (TimeSettings(0.0, 60.0, 0), None, DEFAULT_SECONDS - OVERHEAD, None),  # no limit
    (TimeSettings(0.0, 2.0, 1), (2.0, 1), 1.9, 1.9),  # `0 2 1`: 2 s a move
    (TimeSettings(0.0, 2.0, 1), (1.5, 1), 1.4, 1.4),  # ... with 1.5 s read out
    (TimeSettings(0.0, 0.05, 1), (0.05, 1), MIN_SECONDS, MIN_SECONDS),  # the floor
    (TimeSettings(300.0, 0.0, 0), (300.0, 0), go_plan(300.0, OVERHEAD), 2 * go_plan(300.0, OVERHEAD)),  # absolute
    (TimeSettings(0.0, 30.0, 3), (30.0, 3), 9.9, 19.8),  # byo-yomi: a period over its stones
    (TimeSettings(2.0, 30.0, 3), (2.0, 0), 9.9, 9.9),  # main time, never slower than the byo-yomi rate
    (None, (10.0, 5), 1.9, 3.8),  # a period read out with no settings
])
def test_gtp_clocks(settings_, clock, seconds, limit):
    """Go's GTP engine on an empty 9x9 board (bots.go.clock.moves_left of it)."""
    from bots.go.board import BLACK
    from bots.go.gtp_engine import Engine

    engine = Engine(None, "random")
    engine.set_time(settings_)
    engine.clocks[BLACK] = clock
    b, left = engine.move_budget(BLACK, ARRIVED)
    pinned(b, seconds, limit)
    assert left == (None if clock is None else clock[0])


def test_hex_game_clock():
    """`param_game game_time 20` on an empty 11x11 board: 20 * 0.95 / 60.5 - 0.1."""
    from bots.hex.board import BLACK
    from bots.hex.htp import Engine

    engine = Engine(None, "random")
    engine.set_time(TimeSettings(20.0, 0.0, 0))
    b, left = engine.move_budget(BLACK, ARRIVED)
    pinned(b, 0.2140495867768595, 0.428099173553719)
    assert left == 20.0


@pytest.mark.parametrize("time_left, seconds, mode", [
    (100.0, go_plan(100.0, OVERHEAD), "normal"),
    (50.0, 0.5, "critical"),  # the share would be 1.2 s
    (5.0, 0.05, "ultra critical"),
])
def test_the_course_modes(time_left, seconds, mode):
    """The course referee's drop-in: the share of its 30-minute clock, capped by the modes."""
    from bots.go import course

    ours = SimpleNamespace(mode=course.NORMAL)
    b = course.myPlayer._budget(ours, empty(9), time_left, ARRIVED)
    assert ours.mode == mode
    pinned(b, seconds, max(seconds, min(time_left - NETWORK_MARGIN, OVERRUN * seconds)))


async def test_the_arenas_game_clock_and_pace(monkeypatch):
    """The arena: a game clock shared over the game's moves left (Go, Hex), or its own per-move
    pace, all of it thinking, with no deadline (the runner's grace); a person has no pace."""
    from bots import engine_arena
    from bots.engine_arena import OurSide
    from bots.go.arena import GoRules
    from bots.go.board import PASS
    from bots.hex.arena import HexRules

    seen = []

    async def decide(runner, game, player, params, state, b, context, **kw):
        seen.append(b)
        return (PASS if game == "go" else state.legal_moves()[0]), report(b)

    monkeypatch.setattr(engine_arena, "decide", decide)
    log = structlog.get_logger()
    go, hex_ = GoRules(), HexRules()

    async def ask(rules, per_move, time_left=None, player="random", overhead=None):
        await engine_arena._ask(rules, OurSide("a", player), rules.start(), None, per_move, 15.0, log, time_left,
                                arrived=ARRIVED, overhead=overhead or Overhead())
        return seen[-1]

    pinned(await ask(go, 2.0, 60.0), go_plan(60.0, OVERHEAD), 2 * go_plan(60.0, OVERHEAD))
    pinned(await ask(hex_, 2.0, 60.0), 0.8421487603305785, 1.684297520661157)
    pinned(await ask(go, 2.0), 2.0, None)
    pinned(await ask(go, 0.01), 0.01, None)  # no floor under the arena's own pace
    learned = Overhead()
    for _ in range(3):  # each move cost nothing besides its thinking: the overhead goes to 0
        await ask(go, 2.0, 60.0, overhead=learned)
    value = learned.value
    assert 0 <= value < OVERHEAD / 4
    pinned(await ask(go, 2.0, 60.0, overhead=learned), go_plan(60.0, value), 2 * go_plan(60.0, value))
    monkeypatch.setattr(engine_arena, "is_person", lambda game, player: True)
    pinned(await ask(go, 2.0, player="human"), math.inf, None)


def test_caps_only_lower_a_clocks_plan():
    caps = ((10.0, 0.05), (60.0, 0.5))
    assert budget(arrived=0.0, time_left=9.0, moves_left=1.0, caps=caps).seconds == 0.05  # both apply: the least
    assert budget(arrived=0.0, time_left=59.0, moves_left=100.0, caps=caps).seconds == \
        budget(arrived=0.0, time_left=59.0, moves_left=100.0).seconds  # already below 0.5
    assert budget(arrived=0.0, per_move=2.0, time_left=5.0, caps=caps).seconds == pytest.approx(1.9)  # per move wins


# -- every caller counts its budget from the request's arrival -------------------------------------
# Something slow is put between the arrival and the budget (DELAY seconds); the player must find
# DELAY less of its budget left: a budget counted from its own making would show it all.

DELAY = 0.2


class Seen:
    """How much of each budget a player was given was already gone when it got it."""

    def __init__(self) -> None:
        self.gone: list[float] = []

    def budget(self, b) -> None:
        self.gone.append(b.seconds - b.remaining())

    def check(self) -> None:
        assert self.gone and min(self.gone) >= DELAY, self.gone


def slow(fn):
    """`fn`, DELAY seconds late."""
    def late(*args, **kwargs):
        time.sleep(DELAY)
        return fn(*args, **kwargs)
    return late


def spying(seen: Seen, real=None, move=None):
    """A stand-in for bots.decide.decide: notes the budget (argument 5), then decides for real
    or answers `move(state)`."""
    async def decide(*args, **kwargs):
        seen.budget(args[5])
        if real is not None:
            return await real(*args, **kwargs)
        return move(args[4]), report(args[5])
    return decide


def report(b) -> MoveReport:
    """What a search that used all of budget `b` reports (the arena learns its overhead from it)."""
    used = time.monotonic() - b.start
    return MoveReport(None, b.seconds, used, 0, 0, max(0.0, used - b.seconds))


async def test_twilight_counts_from_the_upd(monkeypatch, runner):
    from bots.twilight import session
    from bots.twilight.rules import Species, State
    from tests.twilight.test_game_ends import end_and_bye, one_ply

    seen = Seen()
    monkeypatch.setattr(session, "decide", spying(seen, session.decide))
    monkeypatch.setattr(session, "_apply", slow(session._apply))  # after the UPD arrived
    await one_ply(runner, State(5, 5, (), ((1, 1, 9),), ((2, 2, 6),)), Species.VAMPIRES, end_and_bye)
    seen.check()


async def test_gnd_counts_from_the_servers_answer(monkeypatch, serve, runner):
    from bots.gnd import session

    seen = Seen()
    monkeypatch.setattr(session, "decide", spying(seen, session.decide))
    _, url = await serve(game="gopher", size=3, time=30.0, random=True, rcolor="blue", seed=5)
    bot = session.GndBot(game="gopher", server=url, group=7, members="us", password="pw", player="random")
    await asyncio.wait_for(session.play(bot, runner, on_state=lambda state: time.sleep(DELAY)), 60)
    seen.check()


async def test_cgos_counts_from_the_genmove_line(monkeypatch):
    from bots.go import cgos_session
    from bots.go.board import PASS, WHITE
    from protocol import cgos

    seen = Seen()
    monkeypatch.setattr(cgos_session, "decide", spying(seen, move=lambda state: PASS))

    async def send(data: bytes) -> None:
        pass

    log = structlog.get_logger()
    game = cgos_session._Game(1, WHITE, "alpha-bot", "them", empty(9)._replace(to_move=WHITE), 1, log)
    bot = cgos_session.CgosBot(name="alpha-bot", host="127.0.0.1", port=1, password="s3cret_Pw.9")
    ours = SimpleNamespace(game=game, bot=bot, runner=None, log=log, _send=send, on_state=None)
    await cgos_session._Session._genmove(ours, cgos.Genmove("w", 300.0), time.monotonic() - DELAY)
    seen.check()


def test_the_gnd_course_client_counts_from_strategys_call(monkeypatch):
    from bots.gnd import course
    from bots.gopher import rules as gopher_rules

    seen = Seen()
    start = gopher_rules.start(3)
    env = course.initialize("gopher", [], 1, 3, 30.0)
    env.player = SimpleNamespace(choose=lambda state, context, b: (seen.budget(b), SimpleNamespace(move=None))[1])
    monkeypatch.setattr(course, "rules", slow(course.rules))  # after strategy was called
    course.strategy(env, list(start.cells().items()), start.to_move, 30.0)
    seen.check()


def test_the_go_course_player_counts_from_get_player_move(monkeypatch):
    from bots.go import course
    from bots.go import players as go_players

    seen = Seen()

    @dataclass
    class Spy:
        def choose(self, state, context, b):
            seen.budget(b)
            return SearchResult(go_players.random_move(state, random.Random(1)))

    monkeypatch.setattr(course, "warm", lambda: None)
    monkeypatch.setitem(go_players.PLAYERS, "spy", Spy)
    monkeypatch.setenv("BOTS_PLAYER", "spy")
    monkeypatch.setenv("BOTS_TOTAL_SECONDS", "100")
    ours = course.myPlayer()
    ours.newGame(course.BLACK)
    ours.time_left = slow(ours.time_left)  # inside getPlayerMove, before the budget
    ours.getPlayerMove()
    seen.check()


@pytest.mark.parametrize("game", ["go", "hex"])
async def test_the_gtp_engines_count_from_genmove(game):
    from protocol.gtp import Command

    if game == "go":
        from bots.go.board import PASS
        from bots.go.gtp_engine import Engine
    else:
        from bots.hex.htp import Engine
    seen = Seen()
    engine = Engine(None, "random")

    async def think(state, b, context=None):
        seen.budget(b)
        return (PASS if game == "go" else state.legal_moves()[0]), report(b)

    engine.think = think
    engine._turn = slow(engine._turn)  # after genmove arrived
    assert (await engine.handle(Command(None, "genmove", ("b",))))[0]
    seen.check()


async def test_the_arena_counts_from_its_request(monkeypatch):
    from bots import engine_arena
    from bots.engine_arena import OurSide
    from bots.go.arena import GoRules
    from bots.go.board import PASS

    seen = Seen()
    monkeypatch.setattr(engine_arena, "decide", spying(seen, move=lambda state: PASS))
    go, log = GoRules(), structlog.get_logger()
    await engine_arena._ask(go, OurSide("a", "random"), go.start(), None, 2.0, 15.0, log, 60.0,
                            arrived=time.monotonic() - DELAY, overhead=Overhead())
    await engine_arena._ask(go, OurSide("a", "random"), go.start(), None, 2.0, 15.0, log,
                            arrived=time.monotonic() - DELAY, overhead=Overhead())
    seen.check()
