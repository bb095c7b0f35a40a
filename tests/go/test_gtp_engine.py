"""The GTP engine (bots/go/gtp_engine.py): every command and its errors through Engine.handle,
framing through serve() over in-memory streams, the real `python -m bots.go.gtp_engine`
process (stdout carries GTP only), and a whole game against GNU Go refereed here."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bots
from bots.go.board import BLACK, PASS, WHITE, from_diagram, parse_point, render
from bots.clock import DEFAULT_SECONDS, OVERHEAD, budget
from bots.go.clock import moves_left
from bots.go.board import owners
from bots.go.gtp_engine import Engine, TimeSettings, dead_stones, serve
from tests.go import oracle
from tests.helpers import ScriptedRunner, info_logs
from bots.players import PlayerError
from search.contracts import Context
from protocol.gtp import (
    MAX_LINE,
    REQUIRED_COMMANDS,
    Command,
    ResponseDecoder,
    encode_command,
    encode_response,
    parse_command_line,
)

ROOT = Path(__file__).resolve().parents[2]
GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)
SCORE = re.compile(r"[BW]\+[0-9]+(\.[0-9]+)?|0")


def P(name: str, size: int = 9) -> int:
    return parse_point(name, size)


def cmd(line: str) -> Command:
    parsed = parse_command_line(line.encode())
    assert parsed is not None
    return parsed


async def ask(engine: Engine, line: str) -> tuple[bool, str]:
    return await engine.handle(cmd(line))


async def ok(engine: Engine, line: str) -> str:
    good, text = await ask(engine, line)
    assert good, f"{line!r} failed: {text}"
    return text


async def fails(engine: Engine, line: str, text: str | None = None, prefix: str | None = None) -> str:
    """The command fails and leaves state, history and clocks exactly as they were."""
    before = (engine.state, list(engine.history), dict(engine.clocks), engine.time)
    good, answer = await ask(engine, line)
    assert not good, f"{line!r} should fail, got {answer!r}"
    if text is not None:
        assert answer == text
    if prefix is not None:
        assert answer.startswith(prefix), answer
    assert (engine.state, engine.history, engine.clocks, engine.time) == before
    encode_response(None, False, answer)  # always sendable
    return answer


@pytest.fixture
def fake():
    """The engine's runner: every search fails at once, so decide() sends the game's fallback
    (the book's move or a random legal one); each search is recorded."""
    return ScriptedRunner()


@pytest.fixture
def engine(fake):
    return Engine(fake)


async def place(engine: Engine, diagram: str) -> None:
    """Build a diagram's position through GTP: every black stone, then every white one
    (out-of-turn plays; adding stones never takes the last liberty of a string the final
    position keeps)."""
    state = from_diagram(diagram)
    await ok(engine, f"boardsize {state.size}")
    for colour, name in ((BLACK, "b"), (WHITE, "w")):
        for p in state.stones(colour):
            r, c = divmod(p, state.size)
            await ok(engine, f"play {name} {'ABCDEFGHJKLMNOPQRST'[c]}{r + 1}")
    assert engine.state.board == state.board


# -- administrative ----------------------------------------------------------------------------

async def test_administrative_commands(engine):
    assert await ok(engine, "protocol_version") == "2"
    assert await ok(engine, "name") == "bots"
    assert await ok(engine, "version") == bots.__version__
    assert await ok(engine, "known_command play") == "true"
    assert await ok(engine, "known_command kgs-genmove_cleanup") == "true"
    assert await ok(engine, "known_command loadsgf") == "false"
    await fails(engine, "known_command", prefix="syntax error")
    await fails(engine, "name extra", prefix="syntax error")
    listed = (await ok(engine, "list_commands")).split("\n")
    assert listed == sorted(set(listed)) == Engine.commands()
    assert set(REQUIRED_COMMANDS) | {"reg_genmove", "kgs-time_settings"} <= set(listed)
    for name in listed:
        assert await ok(engine, f"known_command {name}") == "true"
    assert not engine.quit_requested
    assert await ok(engine, "quit") == ""
    assert engine.quit_requested


async def test_unknown_commands_and_id_only_lines(engine):
    await fails(engine, "foo", "unknown command")
    await fails(engine, "PLAY b e5", "unknown command")  # names are case-sensitive
    assert await engine.handle(Command(7, "", ())) == (False, "unknown command")


def test_bad_player_is_refused_at_construction():
    with pytest.raises(PlayerError):
        Engine(ScriptedRunner(), "no-such-player")
    with pytest.raises(ValueError):
        Engine(ScriptedRunner(), superko="situational")


# -- setup -------------------------------------------------------------------------------------

async def test_boardsize_accepts_2_to_19_and_clears(engine):
    await ok(engine, "play b e5")
    for size in (9, 13, 19, 2):
        await ok(engine, "play b a1")
        assert await ok(engine, f"boardsize {size}") == ""
        assert engine.state.size == size and not any(engine.state.board) and engine.history == []
        assert engine.state.to_move == BLACK
    await ok(engine, "boardsize 19")
    await ok(engine, "play w t19")
    assert engine.state.board[P("T19", 19)] == WHITE
    for bad in ("1", "0", "20", "25", "-9"):
        await fails(engine, f"boardsize {bad}", "unacceptable size")
    for bad in ("nine", "9.0", "9x9"):
        await fails(engine, f"boardsize {bad}", prefix="syntax error")
    await fails(engine, "boardsize", prefix="syntax error")
    await fails(engine, "boardsize 9 9", prefix="syntax error")


async def test_clear_board_keeps_size_and_komi(engine):
    await ok(engine, "boardsize 13")
    await ok(engine, "komi 6.5")
    await ok(engine, "play b c3")
    await ok(engine, "clear_board")
    s = engine.state
    assert (s.size, s.komi, s.to_move, any(s.board), engine.history) == (13, 6.5, BLACK, False, [])


async def test_komi(engine):
    await ok(engine, "play b e5")
    await ok(engine, "komi 0.5")
    assert engine.state.komi == 0.5 and all(s.komi == 0.5 for s in engine.history)
    await ok(engine, "komi -3")
    assert engine.state.komi == -3.0
    for bad in ("nan", "inf", "seven", "1e999", "7,5"):
        await fails(engine, f"komi {bad}", prefix="syntax error")
    await fails(engine, "komi", prefix="syntax error")


# -- play, illegal moves, undo ---------------------------------------------------------------------

async def test_play_places_stones_and_passes(engine):
    await ok(engine, "play b E5")
    await ok(engine, "play white d4")
    await ok(engine, "play BLACK pass")
    s = engine.state
    assert s.board[P("E5")] == BLACK and s.board[P("D4")] == WHITE
    assert (s.to_move, s.passes, len(engine.history)) == (WHITE, 1, 3)


async def test_either_colour_may_play_out_of_turn(engine):
    await ok(engine, "play b c3")
    await ok(engine, "play b d4")  # Black again: no pass recorded
    s = engine.state
    assert s.stones(BLACK) == [P("C3"), P("D4")] and s.to_move == WHITE and s.passes == 0
    await ok(engine, "play w e5")
    await ok(engine, "play w f6")
    assert engine.state.stones(WHITE) == [P("E5"), P("F6")] and engine.state.to_move == BLACK


async def test_malformed_play_arguments(engine):
    for line in ("play", "play b", "play b e5 e6", "play x e5", "play b i5", "play b e0", "play b 55",
                 "play b e05", "play e5 b", "play b Z99"):
        await fails(engine, line, prefix="syntax error")
    await fails(engine, "play b k10", "illegal move")  # a well-formed vertex off this board
    assert not any(engine.state.board)


async def test_occupied_and_suicide_are_refused(engine):
    await ok(engine, "play b e5")
    await fails(engine, "play w e5", "illegal move")
    await fails(engine, "play b e5", "illegal move")
    await ok(engine, "play w a2")
    await ok(engine, "play w b1")
    await fails(engine, "play b a1", "illegal move")  # suicide
    assert engine.state.board[P("A1")] == 0


KO_SETUP = ["b c5", "w d5", "b d6", "w f5", "b d4", "w e6", "b a1", "w e4"]


async def test_ko_recapture_and_superko_cycle_are_refused(engine):
    for move in KO_SETUP:
        await ok(engine, f"play {move}")
    await ok(engine, "play b e5")  # takes the white stone on D5: a ko
    assert engine.state.board[P("D5")] == 0 and engine.state.captures == (1, 0)
    await fails(engine, "play w d5", "illegal move")  # immediate recapture
    # A pass clears the simple ko, and White plays out of turn: simple ko alone would
    # allow the retake, but the board would repeat the one before Black's capture.
    await ok(engine, "play w pass")
    assert engine.state.ko == PASS
    await fails(engine, "play w d5", "illegal move")
    # After a real exchange elsewhere the retake is new, hence legal.
    await ok(engine, "play b j9")
    await ok(engine, "play w d5")
    assert engine.state.board[P("E5")] == 0 and engine.state.captures == (1, 1)


async def test_undo(engine):
    await fails(engine, "undo", "cannot undo")
    empty_state = engine.state
    await ok(engine, "play b e5")
    after_one = engine.state
    await ok(engine, "play b d4")  # out of turn
    await ok(engine, "undo")
    assert engine.state == after_one and engine.state.to_move == WHITE
    await ok(engine, "undo")
    assert engine.state == empty_state
    await fails(engine, "undo", "cannot undo")
    await fails(engine, "undo now", prefix="syntax error")
    for move in KO_SETUP + ["b e5"]:
        await ok(engine, f"play {move}")
    await ok(engine, "undo")  # the capture is taken back: the white stone returns
    assert engine.state.board[P("D5")] == WHITE and engine.state.captures == (0, 0)


async def test_play_after_two_passes_resumes_the_game(engine):
    await ok(engine, "play b pass")
    await ok(engine, "play w pass")
    assert engine.state.is_terminal()
    await ok(engine, "play b e5")
    assert engine.state.board[P("E5")] == BLACK and not engine.state.is_terminal()
    await ok(engine, "play w pass")
    await ok(engine, "play b pass")
    await ok(engine, "play w pass")  # after a finished game a pass is still accepted
    assert engine.state.passes == 1


# -- genmove --------------------------------------------------------------------------------------

async def test_genmove_plays_a_legal_move(engine, fake):
    await ok(engine, "play b e5")
    before = engine.state
    answer = await ok(engine, "genmove w")
    assert answer == answer.upper() and answer != "PASS"
    move = P(answer)
    assert before.is_legal(move)
    assert engine.state == before.play(move) and engine.history[-1] == before
    args, _ = fake.calls[-1]
    assert args[:4] == ("go", "random", (), before)  # think's arguments: game, player, params, state
    await ok(engine, "undo")
    assert engine.state == before


async def test_genmove_out_of_turn_and_variants(engine, fake):
    answer = await ok(engine, "genmove w")  # White first: generated for White
    assert engine.state.board[P(answer)] == WHITE and engine.state.to_move == BLACK
    searched = fake.calls[-1][0][3]
    assert searched.to_move == WHITE
    before = engine.state
    answer = await ok(engine, "reg_genmove b")
    assert before.is_legal(P(answer)) and engine.state == before and len(engine.history) == 1
    answer = await ok(engine, "kgs-genmove_cleanup b")
    assert engine.state.board[P(answer)] == BLACK and len(engine.history) == 2
    for bad in ("genmove", "genmove x", "genmove b w", "reg_genmove", "kgs-genmove_cleanup red"):
        await fails(engine, bad, prefix="syntax error")
    assert len(fake.calls) == 3


async def test_genmove_passes_when_only_eyes_are_left(engine):
    await place(engine, """
        . X X
        X X X
        X X .
    """)
    assert await ok(engine, "genmove b") == "pass"
    assert engine.state.passes == 1


async def test_genmove_with_the_real_runner_plays_legal_moves(runner):
    engine = Engine(runner, "random")
    for colour in "bwbw":
        before = engine.state
        answer = await ok(engine, f"genmove {colour}")
        assert before.is_legal(parse_point(answer)) and engine.state == before.play(answer)


async def test_pondering_searches_between_our_moves_until_the_next_command(runner):
    """With ponder, the workers search the opponent's turn after each genmove, until any
    command arrives; the next genmove answers in time from the kept tree."""
    with info_logs() as logs:
        engine = Engine(runner, "mcts", (("use_book", "false"),), ponder=True)
        await ok(engine, "time_settings 0 0.3 1")
        first = await ok(engine, "genmove b")
        await asyncio.sleep(0.6)
        task = engine._ponder_task
        assert task is not None and not task.done()  # still pondering: the controller is silent
        reply = next(p for p in ("C3", "G7") if p != first)
        await ok(engine, f"play w {reply}")
        await asyncio.wait_for(task, 1.0)  # stopped within a slice
        before, asked = engine.state, time.monotonic()
        second = await ok(engine, "genmove b")
        assert time.monotonic() - asked < 0.3  # inside the byo-yomi period, the slice's wait included
        assert before.is_legal(parse_point(second))
        engine.close()
    pondered = [entry for entry in logs if entry["event"] == "pondered"]
    assert pondered[0]["nodes"] > 0 and pondered[0]["stopped_by"] is None
    assert 0.55 <= pondered[0]["seconds"] < 1.0
    moves = [entry for entry in logs if entry["event"] == "move"]
    assert [m["fallback"] for m in moves] == [None, None]


async def test_no_pondering_unless_asked_or_after_reg_genmove(runner):
    plain = Engine(runner, "mcts", (("use_book", "false"),))
    await ok(plain, "time_settings 0 0.1 1")
    await ok(plain, "genmove b")
    assert plain._ponder_task is None
    pondering = Engine(runner, "mcts", (("use_book", "false"),), ponder=True)
    await ok(pondering, "time_settings 0 0.1 1")
    await ok(pondering, "reg_genmove b")  # nothing was played: nothing to ponder
    assert pondering._ponder_task is None


async def test_pondering_stops_when_the_player_keeps_no_tree(runner):
    """A slice that searches nothing ends the pondering: mcts:reuse=false, which the engine
    refuses to ponder with at start, given here past that check."""
    with info_logs() as logs:
        engine = Engine(runner, "mcts", (("use_book", "false"),), ponder=True)
        engine.params = (("reuse", "false"), ("use_book", "false"))
        await ok(engine, "time_settings 0 0.1 1")
        await ok(engine, "genmove b")
        await asyncio.wait_for(engine._ponder_task, 1.0)
    pondered = [entry for entry in logs if entry["event"] == "pondered"]
    assert pondered == [pondered[0]] and pondered[0]["nodes"] == 0
    assert pondered[0]["stopped_by"] == "nothing to search"


def test_a_player_without_a_tree_cannot_ponder():
    with pytest.raises(PlayerError, match="cannot ponder"):
        Engine(None, "random", ponder=True)
    with pytest.raises(PlayerError, match="cannot ponder with reuse=false"):
        Engine(None, "mcts", (("reuse", "false"),), ponder=True)


async def test_showboard_is_a_multiline_render(engine):
    await ok(engine, "play b e5")
    text = await ok(engine, "showboard")
    assert text == "\n" + render(engine.state)
    assert text.count("\n") >= 10
    data = encode_response(3, True, text)
    dec = ResponseDecoder()
    dec.feed(data)
    assert dec.next_event().text == text


# -- time ------------------------------------------------------------------------------------------

def plan(engine: Engine, colour: int) -> tuple[float, float | None]:
    """(seconds to think, seconds on the clock or None) for `colour`'s next move."""
    b, left = engine.move_budget(colour, 0.0)
    return b.seconds, left


def move_seconds(state, time_left: float) -> float:
    """What bots.clock.budget plans with `time_left` on a game clock in `state`."""
    return budget(arrived=0.0, time_left=time_left, moves_left=moves_left(state)).seconds


async def test_budget_without_time_information_is_the_default(engine, fake):
    assert plan(engine, BLACK) == (DEFAULT_SECONDS - OVERHEAD, None)
    await ok(engine, "genmove b")
    assert fake.last_context == Context()
    assert fake.last_budget.seconds == pytest.approx(DEFAULT_SECONDS - OVERHEAD)


async def test_budget_from_time_left_in_main_time_and_byo_yomi(engine, fake):
    await ok(engine, "time_settings 300 0 0")
    s = engine.state
    assert plan(engine, BLACK) == (move_seconds(s, time_left=300.0), 300.0)
    await ok(engine, "time_left b 60 0")
    assert plan(engine, BLACK) == (move_seconds(s, time_left=60.0), 60.0)
    assert plan(engine, WHITE) == (move_seconds(s, time_left=300.0), 300.0)
    await ok(engine, "genmove b")
    assert fake.last_context == Context(time_left=60.0)
    assert fake.last_budget.seconds == move_seconds(s, time_left=60.0)
    left, stones = engine.clocks[BLACK]
    assert 59.0 < left < 60.0 and stones == 0  # our own use is charged until the next time_left
    await ok(engine, "time_left white 10 5")  # byo-yomi: 10 s for 5 stones
    s = engine.state
    assert plan(engine, WHITE) == (2.0 - OVERHEAD, 10.0)
    await ok(engine, "genmove w")
    assert fake.last_context == Context(time_left=10.0)
    assert fake.last_budget.seconds == pytest.approx(2.0 - OVERHEAD)
    assert engine.clocks[WHITE][1] == 4


async def test_main_time_is_spent_at_least_at_the_byo_yomi_rate(engine):
    await ok(engine, "time_settings 2 30 3")
    assert plan(engine, BLACK) == (10.0 - OVERHEAD, 2.0)
    await ok(engine, "time_settings 0 30 3")  # byo-yomi only
    assert engine.clocks[BLACK] == (30.0, 3)
    assert plan(engine, BLACK) == (10.0 - OVERHEAD, 30.0)
    await ok(engine, "time_settings 0 30 0")  # no limit
    assert engine.clocks[BLACK] is None
    assert plan(engine, BLACK) == (DEFAULT_SECONDS - OVERHEAD, None)


def test_clock_after_our_moves():
    canadian = TimeSettings(10.0, 30.0, 2)
    assert canadian.start() == (10.0, 0)
    assert canadian.after_move((10.0, 0), 4.0) == (6.0, 0)
    assert canadian.after_move((1.0, 0), 4.0) == (27.0, 1)  # main time ran out mid-move
    assert canadian.after_move((27.0, 1), 5.0) == (30.0, 2)  # period done: a fresh one
    absolute = TimeSettings(5.0, 0.0, 0)
    assert absolute.after_move((5.0, 0), 7.0) == (0.0, 0)
    assert TimeSettings(0.0, 60.0, 0).start() is None


async def test_time_left_without_time_settings(engine, fake):
    await ok(engine, "time_left b 30 0")
    await ok(engine, "genmove b")
    assert fake.last_context == Context(time_left=30.0)
    left, stones = engine.clocks[BLACK]
    assert 29.0 < left < 30.0 and stones == 0
    await ok(engine, "time_left w 8 2")
    await ok(engine, "genmove w")
    assert fake.last_budget.seconds == pytest.approx(4.0 - OVERHEAD)
    assert engine.clocks[WHITE][1] == 1
    await ok(engine, "genmove w")
    assert engine.clocks[WHITE] is None  # the period is over and its length unknown: default budget
    assert plan(engine, WHITE) == (DEFAULT_SECONDS - OVERHEAD, None)


async def test_time_commands_reject_bad_arguments(engine):
    for line in ("time_settings", "time_settings 1 2", "time_settings -1 0 0", "time_settings 1 2 3.5",
                 "time_settings a b c", "time_settings 1 2 -3", "time_left b 10", "time_left x 10 0",
                 "time_left b -1 0", "time_left b 10 1.5", "time_left b nan 0"):
        await fails(engine, line, prefix="syntax error")


async def test_kgs_time_settings(engine):
    await ok(engine, "kgs-time_settings absolute 300")
    assert engine.time == TimeSettings(300.0, 0.0, 0) and engine.clocks[BLACK] == (300.0, 0)
    await ok(engine, "kgs-time_settings byoyomi 60 10 5")
    assert engine.time == TimeSettings(60.0, 10.0, 1)
    await ok(engine, "kgs-time_settings canadian 60 120 25")
    assert engine.time == TimeSettings(60.0, 120.0, 25)
    await ok(engine, "kgs-time_settings none")
    assert engine.time is None and engine.clocks == {BLACK: None, WHITE: None}
    for line in ("kgs-time_settings", "kgs-time_settings fischer 60 5", "kgs-time_settings none 5",
                 "kgs-time_settings absolute", "kgs-time_settings canadian 60 120",
                 "kgs-time_settings byoyomi 60 x 5"):
        await fails(engine, line, prefix="syntax error")


async def test_time_settings_per_move_never_plans_longer_than_the_period(engine, fake):
    await ok(engine, "time_settings 0 2 1")  # 2 s a move, as our arena and gogui-twogtp say it
    assert engine.clocks == {BLACK: (2.0, 1), WHITE: (2.0, 1)}
    budgets = []
    for i, reading in enumerate(("", "w 30 1", "b 30 0", "w 0 0", "b 9 4", "w 1.5 1", "")):
        if reading:
            await ok(engine, f"time_left {reading}")
        await ok(engine, f"genmove {'bw'[i % 2]}")
        budgets.append(fake.last_budget.seconds)
    assert max(budgets) <= 2.0 - OVERHEAD + 1e-9
    assert budgets[0] == pytest.approx(2.0 - OVERHEAD) and budgets[5] == pytest.approx(1.5 - OVERHEAD)
    assert engine.clocks[BLACK] == engine.clocks[WHITE] == (2.0, 1)  # each stone starts a new period


async def test_time_left_is_bounded_by_the_time_settings(engine):
    await ok(engine, "time_settings 60 30 3")
    await ok(engine, "time_left b 45 2")  # more than a period holds
    assert engine.clocks[BLACK] == (30.0, 2)
    await ok(engine, "time_left w 90 0")  # more main time than there ever was
    assert engine.clocks[WHITE] == (60.0, 0)
    await ok(engine, "kgs-time_settings byoyomi 60 10 5")
    await ok(engine, "time_left w 8 5")  # Japanese periods left in the stones field: one move per period
    assert engine.clocks[WHITE] == (8.0, 1)
    await ok(engine, "kgs-time_settings byoyomi 60 10 0")  # no period at all: absolute
    assert engine.time == TimeSettings(60.0, 0.0, 0)
    await ok(engine, "time_settings 300 0 0")
    await ok(engine, "time_left b 400 0")  # a game clock may be given time: taken as it is
    assert engine.clocks[BLACK] == (400.0, 0)


async def test_time_commands_are_listed(engine):
    listed = set((await ok(engine, "list_commands")).split("\n"))
    assert {"time_settings", "kgs-time_settings", "time_left"} <= listed


async def test_clear_board_restarts_the_clocks(engine):
    await ok(engine, "time_settings 300 0 0")
    await ok(engine, "time_left b 12 0")
    await ok(engine, "clear_board")
    assert engine.clocks == {BLACK: (300.0, 0), WHITE: (300.0, 0)}


# -- scoring -------------------------------------------------------------------------------------

DEAD_DIAGRAM = """
    . X . X X X X X .
    X X X X . O . X X
    X . X X X X X X X
    X X X X X X X X X
    O O O O O O O O O
    O . O O O O O X O
    O O O . O O O . O
    O O O O O O . O O
    . O O O . O O O .
"""


async def test_final_score(engine):
    assert await ok(engine, "final_score") == "W+7.5"
    await ok(engine, "komi 0")
    assert await ok(engine, "final_score") == "0"
    await ok(engine, "play b e5")
    assert await ok(engine, "final_score") == "B+81"
    await fails(engine, "final_score now", prefix="syntax error")


async def test_final_status_list(engine):
    await place(engine, DEAD_DIAGRAM)
    dead = (await ok(engine, "final_status_list dead")).split()
    assert sorted(dead) == ["F8", "H4"]
    alive = set((await ok(engine, "final_status_list ALIVE")).split())
    stones = {p for p, k in enumerate(engine.state.board) if k}
    assert {P(v) for v in alive} | {P(v) for v in dead} == stones and not alive & set(dead)
    assert all(v == v.upper() for v in alive)
    assert await ok(engine, "final_status_list seki") == ""
    for bad in ("final_status_list", "final_status_list dying", "final_status_list dead alive"):
        await fails(engine, bad, prefix="syntax error")


def test_dead_stones_function():
    state = from_diagram(DEAD_DIAGRAM)
    assert dead_stones(state, 150, 1) == sorted([P("F8"), P("H4")])
    assert dead_stones(state, 150, 1) == dead_stones(state, 150, 1)  # seeded
    finished = state.play(PASS).play(PASS)
    assert dead_stones(finished, 150, 2) == sorted([P("F8"), P("H4")])  # played on after the end
    assert dead_stones(from_diagram(". . .\n. X .\n. . ."), 50, 0) == []  # a lone stone owns the board
    assert dead_stones(from_diagram(". . .\n. . .\n. . ."), 50, 0) == []
    with pytest.raises(ValueError):
        dead_stones(state, 0)


# Clear-cut positions: walls with two eyes or more on both sides.  DEAD_DIAGRAM: F8 (White)
# and H4 (Black) are dead.  WALLS: B8 and C8 (White) inside Black's upper left, H4 (Black)
# inside White's right side; B3 is Black's own stone.  ALIVE: two living groups, nothing dead.
WALLS = """
    . . . . X O . . .
    . O O . X O . . .
    . . . . X O . . .
    X X X X X O . . .
    . . . . X O . . .
    . . . . X O . X .
    . X . . X O . . .
    . . . . X O . . .
    . . . . X O . . .
"""
ALIVE = """
    . O X . .
    O O X X X
    . O X . .
    O O X X X
    . O X . .
"""


@pytest.mark.parametrize("diagram, dead", [(DEAD_DIAGRAM, ["F8", "H4"]), (WALLS, ["B8", "C8", "H4"]),
                                           (ALIVE, [])])
@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_dead_stones_on_the_kernel_agree_with_the_oracle_board(diagram, dead, to_move):
    """The kernel's playouts flag the same stones as the pure-Python Board's (the estimate
    before it moved to the kernel), whatever the seeds: these positions are clear-cut."""
    state = from_diagram(diagram, to_move=to_move)
    expected = sorted(parse_point(name, state.size) for name in dead)
    for seed in range(3):
        assert dead_stones(state, 100, seed) == oracle.dead_stones(state, 100, seed) == expected
    finished = state.play(PASS).play(PASS)
    assert dead_stones(finished, 100, 7) == oracle.dead_stones(finished, 100, 7) == expected


def test_owners_of_regions():
    state = from_diagram("""
        . X . O .
        X X . O O
        . . . . .
        O O O O O
        . O . O .
    """)
    from bots.go.board import geometry
    own = owners(state.board, geometry(5).neighbours)
    assert own[P("A5", 5)] == BLACK  # a black eye
    assert own[P("E5", 5)] == WHITE
    assert own[P("C5", 5)] == 0  # the middle region touches both
    assert own[P("A1", 5)] == WHITE and own[P("C1", 5)] == WHITE
    assert own[P("B4", 5)] == BLACK and own[P("D4", 5)] == WHITE


# -- robustness: any command sequence ------------------------------------------------------------

NAMES = st.sampled_from(sorted(set(Engine.commands()) - {"quit"}) + ["foo", "", "undo"])
TOKENS = st.sampled_from(["b", "w", "black", "WHITE", "x", "pass", "A1", "e5", "J9", "j1", "T19", "I3", "K1",
                          "0", "2", "3", "5", "9", "7.5", "-1", "nan", "1e400", "none", "absolute",
                          "canadian", "byoyomi", "dead", "alive", "seki", "play", "\ufffd"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(NAMES, st.lists(TOKENS, max_size=4)), max_size=25))
def test_any_command_sequence_keeps_the_engine_consistent(commands):
    async def run() -> None:
        engine = Engine(ScriptedRunner())
        for name, args in commands:
            ok_, text = await engine.handle(Command(None, name, tuple(args)))
            assert isinstance(ok_, bool) and isinstance(text, str)
            assert not text.startswith("internal error"), (name, args, text)
            encode_response(1, ok_, text)
            s = engine.state
            assert len(s.board) == s.size * s.size and 2 <= s.size <= 19
            assert all(h.size == s.size for h in engine.history)
            assert all(s.liberties(p) for p in range(len(s.board)) if s.board[p])
    asyncio.run(run())


# -- serve: framing over in-memory streams -------------------------------------------------------

class Sink:
    """A writer collecting bytes."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        return None


async def served(engine: Engine, data: bytes, eof: bool = True) -> bytes:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    sink = Sink()
    await asyncio.wait_for(serve(reader, sink, engine), 10)
    return bytes(sink.data)


class ClosedSink(Sink):
    """A writer whose pipe is gone, as uvloop reports it: RuntimeError on write."""

    def write(self, data: bytes) -> None:
        raise RuntimeError("unable to perform operation on <WriteUnixTransport closed=True>; the handler is closed")


async def test_serve_returns_quietly_when_the_controller_closed_its_end(engine):
    """The controller closed our stdout (issue 11): no traceback, serve just ends."""
    reader = asyncio.StreamReader()
    reader.feed_data(b"1 name\n2 version\n")
    reader.feed_eof()
    await asyncio.wait_for(serve(reader, ClosedSink(), engine), 10)


def responses(data: bytes) -> list:
    dec = ResponseDecoder()
    dec.feed(data)
    out = list(dec.events())
    assert dec.buffered == 0 and not dec.in_response
    return out


async def test_serve_echoes_ids_and_terminates_with_a_blank_line(engine):
    out = await served(engine, b"1 protocol_version\n22 name\nversion\n3 foo\n4 boardsize 99\n")
    assert out == (b"=1 2\n\n=22 bots\n\n= " + bots.__version__.encode() + b"\n\n"
                   b"?3 unknown command\n\n?4 unacceptable size\n\n")


async def test_serve_preprocessing_comments_cr_tabs_blank_lines(engine):
    data = (b"# a whole-line comment\n\n   \n5 play\tb\te5 # trailing comment\r\n"
            b"\x016 play w d4\x7f\n7\n  8   showboard  \n9 list_commands\n")
    got = responses(await served(engine, data))
    assert [(r.id, r.ok) for r in got] == [(5, True), (6, True), (7, False), (8, True), (9, True)]
    assert got[2].text == "unknown command"
    board = got[3].text.split("\n")
    assert board[0] == "" and len(board) == 13 and " 5 . . . . X . . . . 5" in board
    assert got[4].text.split("\n") == Engine.commands()
    assert engine.state.board[P("D4")] == WHITE


async def test_serve_answers_garbage_and_stays_consistent(engine):
    data = (b"1 play b e5\n\xff\xfe\x00garbage \x80\x81\n" + b"x" * (MAX_LINE + 10) + b"\n"
            + b"123456789012345678901234 name\n2 play b e5\n3 play w e5 e6\n4 genmove w\n5 showboard\n")
    got = responses(await served(engine, data))
    assert [(r.id, r.ok) for r in got] == [(1, True), (None, False), (None, False), (None, False),
                                           (2, False), (3, False), (4, True), (5, True)]
    assert got[1].text == "unknown command"
    assert got[2].text.startswith("syntax error") and got[3].text.startswith("syntax error")
    assert got[4].text == "illegal move"
    assert engine.state.board[P(got[6].text)] == WHITE and engine.state.board[P("E5")] == BLACK
    assert got[7].text == "\n" + render(engine.state)


async def test_serve_stops_after_quit_and_answers_a_last_unterminated_line(engine):
    out = await served(engine, b"1 name\n2 quit\n3 name\n", eof=False)  # returns without EOF
    assert responses(out) == responses(b"=1 bots\n\n=2 \n\n")
    engine2 = Engine(ScriptedRunner())
    out = await served(engine2, b"1 play b e5\n2 name")
    assert [r.id for r in responses(out)] == [1, 2]
    assert await served(Engine(ScriptedRunner()), b"") == b""


async def test_serve_byte_by_byte(engine):
    reader = asyncio.StreamReader()
    sink = Sink()
    task = asyncio.create_task(serve(reader, sink, engine))
    for b in b"1 play b c3\r\n2 genmove w\n3 final_score\n":
        reader.feed_data(bytes([b]))
        await asyncio.sleep(0)
    reader.feed_eof()
    await asyncio.wait_for(task, 10)
    got = responses(bytes(sink.data))
    assert [(r.id, r.ok) for r in got] == [(1, True), (2, True), (3, True)]
    assert SCORE.fullmatch(got[2].text)


# -- the real process ----------------------------------------------------------------------------

class Gtp:
    """A tiny controller for one engine subprocess."""

    def __init__(self, proc: asyncio.subprocess.Process, name: str) -> None:
        self.proc, self.name = proc, name
        self.dec = ResponseDecoder()
        self.next_id = 1

    async def send(self, command: str, *args):
        ident = self.next_id
        self.next_id += 1
        self.proc.stdin.write(encode_command(command, *args, id=ident))
        await self.proc.stdin.drain()
        while (resp := self.dec.next_event()) is None:
            data = await asyncio.wait_for(self.proc.stdout.read(65536), 20)
            assert data, f"{self.name} closed its output during {command}"
            self.dec.feed(data)
        assert resp.id == ident, f"{self.name}: id {resp.id} for {ident}"
        return resp


async def start_ours(stderr_path: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.go.gtp_engine", "--player", "random", "--workers", "1",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr_path.open("wb"), cwd=ROOT)


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


@pytest.mark.slow
@pytest.mark.e2e
async def test_subprocess_speaks_only_gtp_on_stdout(tmp_path):
    err = tmp_path / "stderr.log"
    proc = await start_ours(err)
    try:
        script = b"1 name\n2 genmove b\n3 play w pass\nnonsense\n4 showboard\n5 list_commands\n6 quit\n"
        out, _ = await asyncio.wait_for(proc.communicate(script), 20)
    finally:
        await stop(proc)
    assert proc.returncode == 0
    got = responses(out)  # raises on any byte that is not part of a response
    assert [(r.id, r.ok) for r in got] == [(1, True), (2, True), (3, True), (None, False), (4, True),
                                           (5, True), (6, True)]
    assert len(got[4].text.split("\n")) == 13
    logs = err.read_text()
    assert '"event": "move"' in logs and '"gtp engine ready"' in logs


@pytest.mark.e2e
async def test_subprocess_stops_cleanly_on_sigterm(tmp_path):
    err = tmp_path / "stderr.log"
    proc = await start_ours(err)
    try:
        assert (await Gtp(proc, "ours").send("name")).text == "bots"
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    finally:
        await stop(proc)
    assert "stopped by SIGTERM" in err.read_text()


@pytest.mark.e2e
async def test_subprocess_refuses_an_unknown_player(tmp_path):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.go.gtp_engine", "--player", "nobody", stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    out, err = await asyncio.wait_for(proc.communicate(), 20)
    assert proc.returncode == 2 and out == b"" and b"nobody" in err


BOARD_ROW = re.compile(r"\s*([0-9]+) ((?:[.XO] )*[.XO]) \1")


def our_stones(showboard: str) -> dict[str, set[str]]:
    stones: dict[str, set[str]] = {"X": set(), "O": set()}
    for line in showboard.split("\n"):
        m = BOARD_ROW.fullmatch(line)
        if m:
            for col, ch in enumerate(m.group(2).split(" ")):
                if ch in stones:
                    stones[ch].add(f"{'ABCDEFGHJ'[col]}{m.group(1)}")
    return stones


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.external
@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed")
async def test_full_game_against_gnugo(tmp_path):
    gnugo_proc = await asyncio.create_subprocess_exec(
        GNUGO, "--mode", "gtp", "--level", "0", "--chinese-rules", "--capture-all-dead",
        "--positional-superko", "--komi", "7.5", "--boardsize", "9",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    ours_proc = await start_ours(tmp_path / "ours.log")
    try:
        ours, gnugo = Gtp(ours_proc, "ours"), Gtp(gnugo_proc, "gnugo")
        for engine in (ours, gnugo):
            for command, *args in (("boardsize", 9), ("clear_board",), ("komi", 7.5)):
                assert (await engine.send(command, *args)).ok
        assert (await ours.send("time_settings", 20, 0, 0)).ok
        players = {"b": ours, "w": gnugo}
        colour, passes, moves = "b", 0, 0
        while passes < 2 and moves < 300:
            mover, other = players[colour], players["w" if colour == "b" else "b"]
            generated = await mover.send("genmove", colour)
            assert generated.ok, f"{mover.name} genmove failed: {generated.text}"
            vertex = generated.text.strip()
            if vertex.lower() == "resign":
                break
            played = await other.send("play", colour, vertex)
            assert played.ok, f"{other.name} refused {colour} {vertex} (move {moves + 1}): {played.text}"
            passes = passes + 1 if vertex.lower() == "pass" else 0
            moves += 1
            colour = "w" if colour == "b" else "b"
        assert moves >= 20
        score = await ours.send("final_score")
        assert score.ok and SCORE.fullmatch(score.text), score.text
        # Both engines agree on every stone left on the board (captures included).
        board = our_stones((await ours.send("showboard")).text)
        for colour, ch in (("black", "X"), ("white", "O")):
            listed = await gnugo.send("list_stones", colour)
            assert set(listed.text.upper().split()) == board[ch]
        for engine in (ours, gnugo):
            assert (await engine.send("quit")).ok
        assert await asyncio.wait_for(ours_proc.wait(), 10) == 0
    finally:
        await stop(ours_proc)
        await stop(gnugo_proc)


# -- handicap ---------------------------------------------------------------------------------

async def test_fixed_handicap_follows_gtp_placement_and_white_moves_next(engine):
    await ok(engine, "boardsize 19")
    assert await ok(engine, "fixed_handicap 2") == "D4 Q16"
    assert engine.state.to_move == WHITE and engine.history == []
    await fails(engine, "fixed_handicap 2", "board not empty")
    await ok(engine, "clear_board")
    assert await ok(engine, "fixed_handicap 9") == "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"
    await ok(engine, "play w c3")
    await ok(engine, "undo")  # the stones are not moves: undo stops at them
    assert len(engine.state.stones(BLACK)) == 9
    await fails(engine, "undo", "cannot undo")
    await ok(engine, "boardsize 9")
    assert await ok(engine, "fixed_handicap 5") == "C3 G7 C7 G3 E5"
    await ok(engine, "boardsize 13")
    assert await ok(engine, "fixed_handicap 7") == "D4 K10 D10 K4 D7 K7 G7"
    await ok(engine, "boardsize 8")
    await fails(engine, "fixed_handicap 5", "invalid number of stones")
    await fails(engine, "fixed_handicap 1", "invalid number of stones")
    await fails(engine, "fixed_handicap two", prefix="syntax error")
    await ok(engine, "boardsize 6")
    await fails(engine, "fixed_handicap 2", "invalid number of stones")


async def test_free_handicap_placed_by_us_or_by_the_controller(engine, fake):
    placed = (await ok(engine, "place_free_handicap 11")).split()
    assert placed[:9] == "C3 G7 C7 G3 C5 G5 E3 E7 E5".split() and len(set(placed)) == 11
    assert all(engine.state.board[P(v)] == BLACK for v in placed) and engine.state.to_move == WHITE
    answer = await ok(engine, "genmove w")
    assert engine.state.board[P(answer)] == WHITE
    await ok(engine, "clear_board")
    await fails(engine, "place_free_handicap 81", "invalid number of stones")
    assert await ok(engine, "set_free_handicap A1 J9 e5") == "A1 J9 E5"
    assert engine.state.to_move == WHITE and len(engine.state.stones(BLACK)) == 3
    await fails(engine, "set_free_handicap B2 C3", "board not empty")
    await ok(engine, "clear_board")
    for bad in ("set_free_handicap A1", "set_free_handicap A1 A1", "set_free_handicap A1 pass",
                "set_free_handicap A1 K10"):
        await fails(engine, bad, "bad vertex list")
    await fails(engine, "set_free_handicap A1 Z", prefix="syntax error")
