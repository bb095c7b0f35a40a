"""The HTP engine (bots/hex/htp.py): every command and its errors through Engine.handle, the
swap translation between our canonical game and Benzene's dialect, framing through serve(),
the real `python -m bots.hex.htp` process (stdout carries HTP only), and the runtime it
shares with Go's GTP engine (bots/gtp_runtime.py)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bots
from bots import gtp_clock, gtp_runtime
from bots.go import gtp_engine as go_gtp
from bots.hex import htp
from bots.hex.board import BLACK, EMPTY, SWAP, WHITE, empty, parse_cell, transpose
from bots.clock import DEFAULT_SECONDS, MIN_SECONDS, OVERHEAD, RESERVE, TimeSettings, budget
from bots.hex.htp import Engine, moves_left, serve
from bots.players import PlayerError
from search.contracts import Context
from protocol.gtp import Command, ResponseDecoder, encode_response, parse_command_line
from tests.helpers import ScriptedRunner

ROOT = Path(__file__).resolve().parents[2]


def cmd(line: str) -> Command:
    parsed = parse_command_line(line.encode())
    assert parsed is not None
    return parsed


async def ok(engine: Engine, line: str) -> str:
    good, text = await engine.handle(cmd(line))
    assert good, f"{line!r} failed: {text}"
    encode_response(1, True, text)  # always sendable
    return text


def snapshot(engine: Engine) -> tuple:
    return (engine.state, engine.resigned, list(engine.history), dict(engine.clocks), engine.allow_swap,
            engine.little_golem, engine.time)


async def fails(engine: Engine, line: str, text: str | None = None, prefix: str | None = None) -> str:
    """The command fails and leaves the engine exactly as it was."""
    before = snapshot(engine)
    good, answer = await engine.handle(cmd(line))
    assert not good, f"{line!r} should fail, got {answer!r}"
    if text is not None:
        assert answer == text
    if prefix is not None:
        assert answer.startswith(prefix), answer
    assert snapshot(engine) == before
    encode_response(None, False, answer)
    return answer


ROW = re.compile(r"( *)([0-9]+) ((?:[-BW] )*[-BW])")


def parse_board(text: str) -> tuple[list[str], dict[str, str], str]:
    """(column letters, {cell name: 'B' or 'W'}, the status lines) of a showboard answer; the
    board starts on the line after `= `, each row indented one step more than the last."""
    lines = text.split("\n")
    assert lines[0] == "", "the board starts on the line after '= '"
    letters = lines[1].split()
    stones, rows = {}, 0
    for line in lines[2:]:
        m = ROW.fullmatch(line)
        if m is None:
            break
        number = int(m.group(2))
        assert number == rows + 1
        assert len(m.group(1)) == rows + (number < 10), "each row shifts one step right"
        cells = m.group(3).split(" ")
        assert len(cells) == len(letters)
        for letter, ch in zip(letters, cells, strict=True):
            if ch != "-":
                stones[f"{letter}{number}"] = ch
        rows += 1
    assert rows >= 1
    return letters + [str(rows)], stones, "\n".join(lines[2 + rows:])


async def board(engine: Engine) -> tuple[list[str], dict[str, str], str]:
    return parse_board(await ok(engine, "showboard"))


@pytest.fixture
def fake():
    """The engine's runner: answers at once with the next move of its `script`, or with none
    (decide then sends the fallback, a random legal cell); each search is recorded."""
    return ScriptedRunner()


@pytest.fixture
def engine(fake):
    return Engine(fake)


# -- one runtime, two dialects ------------------------------------------------------------------

def test_go_and_hex_share_one_runtime():
    GoEngine = go_gtp.Engine
    assert go_gtp.serve is htp.serve is gtp_runtime.serve
    assert go_gtp.Failure is htp.Failure is gtp_runtime.Failure
    assert issubclass(GoEngine, gtp_runtime.Engine) and issubclass(Engine, gtp_runtime.Engine)
    assert GoEngine.handle is Engine.handle is gtp_runtime.GameEngine.handle  # (pondering stops first)
    # Both tables are built by the one registration function, each from its own class.
    assert GoEngine.table == gtp_runtime.command_table(GoEngine)
    assert Engine.table == gtp_runtime.command_table(Engine)
    shared = {"protocol_version", "name", "version", "known_command", "list_commands", "quit"}
    for name in shared:
        assert GoEngine.table[name] is Engine.table[name] is gtp_runtime.Engine.table[name]
    assert {"komi", "final_status_list", "kgs-genmove_cleanup"} <= set(GoEngine.table) - set(Engine.table)
    assert {"param_game", "all_legal_moves", "hexgui-analyze_commands"} <= set(Engine.table) - set(GoEngine.table)
    assert GoEngine.table["play"] is not Engine.table["play"]
    # One clock model and one pair of time-setting commands for both (bots/gtp_clock.py).
    for name in ("time_settings", "kgs-time_settings"):
        assert GoEngine.table[name] is Engine.table[name] is gtp_clock.ClockedEngine.table[name]
    assert GoEngine.table["time_left"] is not Engine.table["time_left"]  # the dialects differ there
    # No second copy of the transport, the process plumbing or the clock model in either engine module.
    for module in (go_gtp, htp):
        source = Path(module.__file__).read_text(encoding="utf-8")
        for definition in ("def serve", "class _FdWriter", "def _stdio", "asyncio.Runner", "_COMMANDS: dict",
                           "class TimeSettings", "def after_move", '@command("time_settings")',
                           '@command("kgs-time_settings")'):
            assert definition not in source, (module.__name__, definition)


def test_command_tables_are_per_class():
    class Base(gtp_runtime.Engine):
        game = "hex"

        @gtp_runtime.command("ping")
        async def _ping(self, cmd):
            return "pong"

    class Child(Base):
        @gtp_runtime.command("ping")
        async def _ping2(self, cmd):
            return "pong2"

        @gtp_runtime.command("only-child")
        async def _only(self, cmd):
            return ""

    assert "ping" in Base.table and "only-child" not in Base.table and "ping" not in Engine.table
    assert Child.table["ping"] is Child._ping2 and Base.table["ping"] is Base._ping
    assert Child.table["name"] is gtp_runtime.Engine.table["name"]
    with pytest.raises(TypeError):
        class Twice(gtp_runtime.Engine):
            @gtp_runtime.command("x")
            async def _a(self, cmd):
                return ""

            @gtp_runtime.command("x")
            async def _b(self, cmd):
                return ""
    with pytest.raises(ValueError):
        gtp_runtime.command("two words")


# -- administrative ------------------------------------------------------------------------------

HTP_COMMANDS = {"protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
                "clear_board", "play", "genmove", "reg_genmove", "undo", "showboard", "final_score",
                "all_legal_moves", "time_left", "time_settings", "kgs-time_settings", "param_game",
                "hexgui-analyze_commands"}


async def test_administrative_commands(engine):
    assert await ok(engine, "protocol_version") == "2"
    assert await ok(engine, "name") == "bots"
    assert await ok(engine, "version") == bots.__version__
    assert await ok(engine, "known_command swap-pieces") == "false"
    assert await ok(engine, "known_command komi") == "false"  # Go's, not ours
    await fails(engine, "known_command", prefix="syntax error")
    listed = (await ok(engine, "list_commands")).split("\n")
    assert listed == sorted(listed) == Engine.commands()
    assert set(listed) == HTP_COMMANDS
    for name in listed:
        assert await ok(engine, f"known_command {name}") == "true"
    await fails(engine, "foo", "unknown command")
    assert await engine.handle(Command(4, "", ())) == (False, "unknown command")
    assert not engine.quit_requested
    assert await ok(engine, "quit") == ""
    assert engine.quit_requested


def test_bad_player_is_refused_at_construction():
    with pytest.raises(PlayerError):
        Engine(ScriptedRunner(), "no-such-player")


async def test_hexgui_analyze_commands_name_known_commands(engine):
    lines = (await ok(engine, "hexgui-analyze_commands")).split("\n")
    assert "plist/All Legal Moves/all_legal_moves %c" in lines
    assert "string/ShowBoard/showboard" in lines
    for line in lines:
        kind, label, command = line.split("/")
        assert kind and label and command.split()[0] in Engine.commands()


# -- setup and showboard -------------------------------------------------------------------------

async def test_boardsize_11_11_then_showboard_parses(engine):
    assert await ok(engine, "boardsize 11 11") == ""
    letters, stones, status = await board(engine)
    assert letters == list("abcdefghijk") + ["11"] and stones == {}
    assert status.startswith("Black to move")
    await ok(engine, "play b a1")
    await ok(engine, "play w k11")
    await ok(engine, "play b F6")
    _, stones, status = await board(engine)
    assert stones == {"a1": "B", "k11": "W", "f6": "B"}
    assert status.startswith("White to move")
    text = await ok(engine, "showboard")
    dec = ResponseDecoder()
    dec.feed(encode_response(7, True, text))
    assert dec.next_event().text == text


async def test_boardsize_sizes(engine):
    await ok(engine, "play b a1")
    await ok(engine, "boardsize 5 3")  # HexGui sends width and height
    s = engine.state
    assert (s.width, s.height, any(s.board), engine.history) == (5, 3, False, [])
    letters, _, _ = await board(engine)
    assert letters == list("abcde") + ["3"]
    await ok(engine, "play w e3")
    await fails(engine, "play b a4", "illegal move: a4 (invalid)")
    await ok(engine, "boardsize 19")
    assert (engine.state.width, engine.state.height) == (19, 19)
    await ok(engine, "play b s19")
    for bad in ("0", "20", "-1", "5 0", "5 20"):
        await fails(engine, f"boardsize {bad}", "unacceptable size")
    for bad in ("", "x", "5 x", "5.0", "5 5 5"):
        await fails(engine, f"boardsize {bad}", prefix="syntax error")
    await ok(engine, "boardsize 1")
    await ok(engine, "play b a1")
    await ok(engine, "clear_board")
    assert engine.state == empty(1) and engine.history == []


# -- play, undo, the end ------------------------------------------------------------------------------

async def test_play_on_an_occupied_cell_fails(engine):
    await ok(engine, "play b e5")
    await fails(engine, "play w e5", "illegal move: e5 (occupied)")
    await fails(engine, "play b E5", "illegal move: E5 (occupied)")
    for move in ("z5", "e0", "e12", "l1", "5e", "e05", "pass"):
        await fails(engine, f"play w {move}", f"illegal move: {move} (invalid)")
    for line in ("play", "play b", "play x e6", "play b e6 e7", "play e6 b"):
        await fails(engine, line, prefix="syntax error")


async def test_colours_need_not_alternate(engine):
    await ok(engine, "play b a1")
    await ok(engine, "play BLACK b2")
    s = engine.state
    assert s.at(parse_cell("a1", 11, 11)) == s.at(parse_cell("b2", 11, 11)) == BLACK and s.to_move == WHITE
    await ok(engine, "play White c3")
    await ok(engine, "play w d4")
    _, stones, status = await board(engine)
    assert stones == {"a1": "B", "b2": "B", "c3": "W", "d4": "W"} and status.startswith("Black to move")
    answer = await ok(engine, "genmove w")  # White out of turn: generated for White
    assert stones.get(answer) is None and (await board(engine))[1][answer] == "W"


async def test_undo(engine):
    await fails(engine, "undo", "cannot undo")
    start = engine.state
    await ok(engine, "play b c3")
    after_one = engine.state
    await ok(engine, "play b d4")
    await ok(engine, "play w resign")
    assert await ok(engine, "final_score") == "B+"
    await ok(engine, "undo")  # the resignation
    assert engine.resigned is None and await ok(engine, "final_score") == "cannot score"
    await ok(engine, "undo")
    assert engine.state == after_one
    await ok(engine, "undo")
    assert engine.state == start
    await fails(engine, "undo", "cannot undo")
    await fails(engine, "undo now", prefix="syntax error")


async def test_genmove_on_a_finished_game_answers_resign(engine, fake):
    await ok(engine, "boardsize 3 3")
    for move in ("b b1", "b b2", "b b3"):
        await ok(engine, f"play {move}")
    before = snapshot(engine)
    assert await ok(engine, "genmove w") == "resign"
    assert await ok(engine, "genmove b") == "resign"
    assert await ok(engine, "reg_genmove w") == "resign"
    assert snapshot(engine) == before and fake.calls == []
    await fails(engine, "play w a1", "illegal move: a1 (game over)")
    await fails(engine, "play w resign", "illegal move: resign (game over)")
    assert await ok(engine, "final_score") == "B+"
    assert (await board(engine))[2].startswith("Black has won")
    assert await ok(engine, "all_legal_moves") == ""


async def test_resign_ends_the_game(engine, fake):
    await ok(engine, "play b e5")
    await ok(engine, "play b RESIGN")
    assert await ok(engine, "final_score") == "W+"
    assert await ok(engine, "genmove w") == "resign" and fake.calls == []
    assert "Black resigned" in (await board(engine))[2]
    await fails(engine, "play w f5", "illegal move: f5 (game over)")


async def test_final_score(engine):
    assert await ok(engine, "final_score") == "cannot score"
    await ok(engine, "boardsize 2")
    await ok(engine, "play w a1")
    await ok(engine, "play w b1")  # White joins left and right on row 1
    assert await ok(engine, "final_score") == "W+"
    await fails(engine, "final_score now", prefix="syntax error")


# -- genmove --------------------------------------------------------------------------------------

async def test_genmove_plays_a_legal_move(engine, fake):
    await ok(engine, "play b f6")
    before = engine.state
    answer = await ok(engine, "genmove w")
    cell = parse_cell(answer, 11, 11)
    assert answer == answer.lower() and before.is_legal(cell)
    assert engine.state == before.play(cell) and engine.history[-1] == (before, None)
    args, budget = fake.calls[-1]
    assert args[:4] == ("hex", "random", (), before)
    assert budget.seconds == pytest.approx(DEFAULT_SECONDS - OVERHEAD)  # no time command: the default
    assert fake.last_context == Context()
    await ok(engine, "undo")
    assert engine.state == before


async def test_reg_genmove_does_not_play(engine, fake):
    await ok(engine, "play b f6")
    before = snapshot(engine)
    answer = await ok(engine, "reg_genmove w")
    assert engine.state.is_legal(parse_cell(answer, 11, 11))
    assert snapshot(engine) == before
    for bad in ("genmove", "genmove x", "genmove b w", "reg_genmove"):
        await fails(engine, bad, prefix="syntax error")


async def test_a_refused_search_move_never_leaves(fake):
    fake.script = [parse_cell("e5", 11, 11), 999, SWAP]
    engine = Engine(fake)
    await ok(engine, "play b e5")
    for _ in range(3):  # occupied, off the board, a swap with the rule off
        answer = await ok(engine, "reg_genmove w")
        assert answer not in ("e5", "swap-pieces") and engine.state.is_legal(parse_cell(answer, 11, 11))


def move_time(time_left: float, empties: int, overhead: float = OVERHEAD) -> float:
    """What bots.clock.budget plans on a game clock of `time_left` with `empties` empty cells,
    over Hex's moves left (half the empty cells, at least 10)."""
    return budget(arrived=0.0, time_left=time_left, moves_left=max(10.0, empties / 2), overhead=overhead).seconds


def plan(engine: Engine, colour: int) -> tuple[float, float | None]:
    """(seconds to think, seconds on the clock or None) for `colour`'s next move."""
    b, left = engine.move_budget(colour, 0.0)
    return b.seconds, left


def test_moves_left_and_the_share_of_a_game_clock():
    assert moves_left(empty(11, 11)) == 60.5 and moves_left(empty(3, 3)) == 10  # never fewer than 10
    assert move_time(1800, 121) == pytest.approx(1800 * (1 - RESERVE) / 60.5 - 0.1)
    assert move_time(100, 121) < move_time(100, 60) < move_time(100, 19) == move_time(100, 1)
    assert move_time(100, 1) == pytest.approx(100 * (1 - RESERVE) / 10 - 0.1)  # never more than a tenth
    assert move_time(0, 50) == move_time(-5, 50) == 0.0  # a clock already gone: the move at once


# -- the swap: canonical inside, Benzene's dialect outside ---------------------------------------------

async def test_swap_pieces_in_benzenes_dialect(fake):
    engine = Engine(fake)
    await ok(engine, "boardsize 5 5")
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "play b b4")
    assert "swap-pieces" in (await ok(engine, "all_legal_moves w")).split()
    assert "swap-pieces" not in (await ok(engine, "all_legal_moves b")).split()
    unswapped = engine.state
    await ok(engine, "play w swap-pieces")
    # Benzene's board: unchanged, and White moves again.
    _, stones, status = await board(engine)
    assert stones == {"b4": "B"} and status.startswith("White to move")
    # Ours: the stone transposed and recoloured, Black to move.
    s, b4 = engine.state, parse_cell("b4", 5, 5)
    assert s.swapped and s.at(transpose(b4, 5, 5)) == WHITE and s.at(b4) == EMPTY and s.to_move == BLACK
    legal = (await ok(engine, "all_legal_moves")).split()
    assert len(legal) == 24 and "b4" not in legal and "swap-pieces" not in legal
    # genmove w: the search sees our Black; the answer is a free cell of Benzene's board.
    answer = await ok(engine, "genmove w")
    assert fake.last_state.to_move == BLACK and fake.last_state.swapped
    assert answer in legal
    _, stones, status = await board(engine)
    assert stones == {"b4": "B", answer: "W"} and status.startswith("Black to move")
    assert engine.state.at(transpose(parse_cell(answer, 5, 5), 5, 5)) == BLACK
    free = (await ok(engine, "all_legal_moves b")).split()
    assert len(free) == 23 and answer not in free and "b4" not in free
    await ok(engine, f"play b {free[0]}")
    assert (await board(engine))[1] == {"b4": "B", answer: "W", free[0]: "B"}
    # undo goes back through the swap: our state and Benzene's agree again.
    for _ in range(3):
        await ok(engine, "undo")
    assert engine.state == unswapped and not engine.state.swapped
    _, stones, status = await board(engine)
    assert stones == {"b4": "B"} and status.startswith("White to move")
    assert "swap-pieces" in (await ok(engine, "all_legal_moves")).split()


async def test_genmove_translates_cells_and_colours_after_a_swap(fake):
    engine = Engine(fake)
    await ok(engine, "boardsize 5")
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "play b a2")
    await ok(engine, "play w swap")  # HexGui's and LittleGolem's name
    assert engine.state.swapped
    c1 = parse_cell("c1", 5, 5)
    fake.script = [c1]  # our Black plays c1 of our board: Benzene's White on its transpose, a3
    assert await ok(engine, "genmove w") == "a3"
    assert engine.state.at(c1) == BLACK
    assert (await board(engine))[1] == {"a2": "B", "a3": "W"}
    await ok(engine, "play b e1")  # Benzene's Black: our White on a5
    assert engine.state.at(parse_cell("a5", 5, 5)) == WHITE
    await fails(engine, "play w a2", "illegal move: a2 (occupied)")  # Benzene's cell, not ours
    await fails(engine, "play w e1", "illegal move: e1 (occupied)")
    await ok(engine, "play w b2")  # our b2 is its own transpose: Black there
    assert engine.state.at(parse_cell("b2", 5, 5)) == BLACK


async def test_genmove_may_swap(fake):
    engine = Engine(fake)
    await ok(engine, "boardsize 7 7")
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "play b d4")
    fake.script = [SWAP]
    assert await ok(engine, "reg_genmove w") == "swap-pieces"
    assert fake.last_state.swap_allowed() and not engine.state.swapped
    fake.script = [SWAP]
    await ok(engine, "param_game on_little_golem 1")
    assert await ok(engine, "genmove w") == "swap"
    assert engine.state.swapped and engine.to_move() == WHITE
    assert (await board(engine))[1] == {"d4": "B"}


async def test_blacks_first_move_knows_the_swap_rule(fake):
    # the player opens differently under the swap rule (bots.hex.swap), so its first search
    # must see the rule on; the swap itself is legal only in White's reply
    engine = Engine(fake)
    await ok(engine, "boardsize 11")
    await ok(engine, "reg_genmove b")
    assert not fake.last_state.swap
    await ok(engine, "param_game allow_swap 1")
    fake.script = [parse_cell("e3", 11, 11)]
    assert await ok(engine, "genmove b") == "e3"
    assert fake.last_state.swap and fake.last_state.plies == 0 and not fake.last_state.swap_allowed()
    await ok(engine, "play w f6")
    await ok(engine, "reg_genmove b")
    assert not fake.last_state.swap


async def test_final_score_after_a_swap_names_benzenes_colours(engine):
    await ok(engine, "boardsize 3")
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "play b a1")
    await ok(engine, "play w swap-pieces")
    for move in ("a2", "b2", "c2"):  # Benzene's White joins left and right
        await ok(engine, f"play w {move}")
    assert engine.state.winner() == BLACK  # ours: Black on b1, b2, b3, top to bottom
    assert await ok(engine, "final_score") == "W+"
    assert (await board(engine))[2].startswith("White has won")
    assert await ok(engine, "genmove b") == "resign"


async def test_swap_is_refused_at_any_other_time(fake):
    engine = Engine(fake)
    await ok(engine, "boardsize 5")
    await ok(engine, "play b c3")
    await fails(engine, "play w swap-pieces", "illegal move: swap-pieces (swap off)")
    fake.script = [SWAP]
    assert await ok(engine, "reg_genmove w") != "swap-pieces"  # the search's swap is refused
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "undo")
    await fails(engine, "play w swap-pieces", prefix="illegal move: swap-pieces (")  # move 1
    await fails(engine, "play b swap-pieces", prefix="illegal move: swap-pieces (")
    await ok(engine, "play b c3")
    await fails(engine, "play b swap-pieces", prefix="illegal move: swap-pieces (")  # Black's reply
    await ok(engine, "play w d4")
    await fails(engine, "play w swap-pieces", prefix="illegal move: swap-pieces (")  # move 3
    await fails(engine, "play b swap", prefix="illegal move: swap (")
    await ok(engine, "clear_board")
    await ok(engine, "play w c3")  # a white stone first: nothing to swap
    await fails(engine, "play w swap-pieces", prefix="illegal move: swap-pieces (")
    await fails(engine, "play b swap-pieces", prefix="illegal move: swap-pieces (")
    assert "swap-pieces" not in await ok(engine, "all_legal_moves")
    fake.script = [SWAP, SWAP]
    assert await ok(engine, "reg_genmove b") != "swap-pieces"
    assert not fake.last_state.swap_allowed()
    await ok(engine, "boardsize 5 4")  # not square
    await ok(engine, "play b c3")
    await fails(engine, "play w swap-pieces", prefix="illegal move: swap-pieces (")
    assert engine.state.plies == 1


# -- time and parameters ---------------------------------------------------------------------------

async def play_out(engine: Engine, fake: ScriptedRunner, moves: int) -> list[float]:
    """`moves` genmoves, Black and White in turn from the side to move: each move's budget."""
    budgets = []
    for _ in range(moves):
        colour = "b" if engine.to_move() == BLACK else "w"
        await ok(engine, f"genmove {colour}")
        budgets.append(fake.calls[-1][1].seconds)
    return budgets


async def test_no_time_command_means_two_seconds_a_move(engine, fake):
    assert engine.time is None and engine.clocks == {BLACK: None, WHITE: None}
    assert await ok(engine, "time_left") == "black none white none"
    assert await ok(engine, "time_left w") == "none"
    assert "[string] game_time 0" in (await ok(engine, "param_game")).split("\n")
    assert DEFAULT_SECONDS == 2.0
    budgets = await play_out(engine, fake, 4)
    assert budgets == [pytest.approx(DEFAULT_SECONDS - OVERHEAD)] * 4
    assert fake.last_context == Context() and engine.clocks == {BLACK: None, WHITE: None}


async def test_time_settings_per_move_never_plans_longer_than_the_period(engine, fake):
    await ok(engine, "time_settings 0 2 1")  # the GTP way of saying 2 s a move
    assert engine.time == TimeSettings(0.0, 2.0, 1) and engine.clocks == {BLACK: (2.0, 1), WHITE: (2.0, 1)}
    assert await ok(engine, "time_left b") == "2 1"
    budgets = await play_out(engine, fake, 6)
    assert budgets == [pytest.approx(2.0 - OVERHEAD)] * 6
    assert fake.last_context == Context(time_left=2.0)
    assert engine.clocks[BLACK] == engine.clocks[WHITE] == (2.0, 1)  # a played stone starts a new period
    # Whatever the controller says of our clock, no move plans more than the period.
    for reading in ("b 30", "w 30 1", "b 30 0", "w 0 0", "b 1.5", "w 9 4", "b 0.5 1"):
        await ok(engine, f"time_left {reading}")
        budgets += await play_out(engine, fake, 1)
    assert max(budgets) <= 2.0 - OVERHEAD + 1e-9
    assert min(budgets) >= MIN_SECONDS
    await ok(engine, "time_left b 1.5 1")
    assert plan(engine, BLACK) == (pytest.approx(1.5 - OVERHEAD), 1.5)  # the time really left counts


async def test_absolute_time_spreads_over_the_game(engine, fake):
    await ok(engine, "time_settings 20 0 0")  # sudden death: 20 s for the whole game
    assert engine.time == TimeSettings(20.0, 0.0, 0) and engine.clocks[BLACK] == (20.0, 0)
    budgets = await play_out(engine, fake, 20)  # 10 stones a side: nobody has won on 11x11
    # Each move gets the clock's share over the moves still to come, never the whole clock.
    assert budgets[0] == move_time(20.0, 121) == pytest.approx(20.0 * (1 - RESERVE) / 60.5 - OVERHEAD)
    assert all(b < 20.0 / 10 for b in budgets)
    # The clock charged for moves that used almost nothing: later moves get more.
    assert budgets[-1] > budgets[0]
    # The moves cost nothing besides their search: only the pipe is kept back from then on.
    assert engine.cost.value == pytest.approx(engine.pipe)
    left = engine.clocks[WHITE][0]
    assert 15.0 < left < 20.0
    assert plan(engine, WHITE) == (move_time(left, engine.state.board.count(EMPTY), engine.pipe), left)


async def test_main_time_then_byo_yomi(engine, fake):
    await ok(engine, "time_settings 2 30 3")  # 2 s of main time, then 3 moves per 30 s
    assert plan(engine, BLACK) == (pytest.approx(10.0 - OVERHEAD), 2.0)  # never slower than the byo-yomi rate
    engine.charge(BLACK, 5.0, 5.0)  # a move that ran out of main time starts a period and counts as its first
    assert engine.clocks[BLACK] == (27.0, 2)
    assert await ok(engine, "time_left b") == "27 2"
    assert plan(engine, BLACK) == (pytest.approx(13.5 - OVERHEAD), 27.0)


async def test_time_left_sets_the_clock_in_both_forms(engine, fake):
    await ok(engine, "time_settings 300 0 0")
    assert await ok(engine, "time_left white 60.5") == ""  # Benzene's form: seconds
    assert engine.clocks[WHITE] == (60.5, 0) and await ok(engine, "time_left w") == "60.5"
    await ok(engine, "play b f6")
    await ok(engine, "genmove w")
    assert fake.calls[-1][1].seconds == move_time(60.5, 120)
    assert fake.last_context == Context(time_left=60.5)
    assert 59.5 < engine.clocks[WHITE][0] < 60.5 and engine.clocks[BLACK] == (300.0, 0)  # our use is charged
    await ok(engine, "reg_genmove b")
    assert engine.clocks[BLACK] == (300.0, 0)  # not played, not charged
    assert await ok(engine, "time_left B 42 0") == ""  # GTP's form: seconds and stones
    assert engine.clocks[BLACK] == (42.0, 0)
    assert await ok(engine, "time_left b 10 5") == ""  # 10 s for 5 stones
    assert await ok(engine, "time_left") == "black 10 5 white " + htp._seconds_text(engine.clocks[WHITE][0])
    assert plan(engine, BLACK) == (pytest.approx(2.0 - OVERHEAD), 10.0)
    await ok(engine, "clear_board")
    assert engine.clocks == {BLACK: (300.0, 0), WHITE: (300.0, 0)}


async def test_time_left_in_benzenes_form_keeps_a_byo_yomi_period(engine):
    await ok(engine, "time_settings 0 30 3")
    await ok(engine, "time_left b 12")  # no stones said: the period we are in
    assert engine.clocks[BLACK] == (12.0, 3) and await ok(engine, "time_left b") == "12 3"
    await ok(engine, "time_left b 45 2")  # more than a period holds: bounded by the settings
    assert engine.clocks[BLACK] == (30.0, 2)
    await ok(engine, "time_left w 50")  # no main time in these settings
    assert engine.clocks[WHITE] == (30.0, 3)
    await ok(engine, "time_settings 60 30 3")
    await ok(engine, "time_left w 50")  # in main time
    assert engine.clocks[WHITE] == (50.0, 0)


async def test_time_left_without_any_settings(engine, fake):
    await ok(engine, "time_left w 100")  # Benzene's clock for the whole game
    assert engine.clocks == {BLACK: None, WHITE: (100.0, 0)}
    assert plan(engine, WHITE) == (move_time(100.0, 121), 100.0)
    await ok(engine, "time_left b 4 2")  # a byo-yomi period of unknown length
    budgets = await play_out(engine, fake, 1)
    assert budgets == [pytest.approx(2.0 - OVERHEAD)] and engine.clocks[BLACK][1] == 1
    await ok(engine, "genmove b")
    assert engine.clocks[BLACK] is None  # the period is over and its length unknown: the default
    assert plan(engine, BLACK) == (pytest.approx(DEFAULT_SECONDS - OVERHEAD), None)


async def test_time_commands_reject_bad_arguments(engine):
    for line in ("time_settings", "time_settings 1 2", "time_settings 1 2 3 4", "time_settings -1 0 0",
                 "time_settings 1 2 3.5", "time_settings a b c", "time_settings 1 2 -3", "time_settings nan 0 0",
                 "time_settings 1 inf 1", "time_left x", "time_left x 10", "time_left b -1", "time_left b nan",
                 "time_left b ten", "time_left b 10 1.5", "time_left b 10 -1", "time_left b 1 2 3",
                 "time_left purple 3 0"):
        answer = await fails(engine, line, prefix="syntax error")
        assert len(answer) > len("syntax error: ")  # says what was wrong
    assert "main time" in await fails(engine, "time_settings x 0 0")
    assert "stones" in await fails(engine, "time_left b 10 x")


async def test_kgs_time_settings(engine):
    await ok(engine, "kgs-time_settings absolute 300")
    assert engine.time == TimeSettings(300.0, 0.0, 0) and engine.clocks[BLACK] == (300.0, 0)
    await ok(engine, "kgs-time_settings byoyomi 60 10 5")  # Japanese: every move within one period
    assert engine.time == TimeSettings(60.0, 10.0, 1) and engine.clocks[WHITE] == (60.0, 0)
    await ok(engine, "time_left w 7 5")  # periods left sent as stones: still one period of one move
    assert engine.clocks[WHITE] == (7.0, 1) and plan(engine, WHITE) == (pytest.approx(7.0 - OVERHEAD), 7.0)
    await ok(engine, "kgs-time_settings byoyomi 60 10 0")  # no period: absolute
    assert engine.time == TimeSettings(60.0, 0.0, 0)
    await ok(engine, "kgs-time_settings canadian 60 120 25")
    assert engine.time == TimeSettings(60.0, 120.0, 25)
    await ok(engine, "kgs-time_settings CANADIAN 0 20 10")
    assert engine.clocks[BLACK] == (20.0, 10) and plan(engine, BLACK)[0] == pytest.approx(2.0 - OVERHEAD)
    await ok(engine, "kgs-time_settings none")
    assert engine.time is None and engine.clocks == {BLACK: None, WHITE: None}
    for line in ("kgs-time_settings", "kgs-time_settings fischer 60 5", "kgs-time_settings none 5",
                 "kgs-time_settings absolute", "kgs-time_settings absolute -5", "kgs-time_settings canadian 60 120",
                 "kgs-time_settings byoyomi 60 x 5", "kgs-time_settings byoyomi 60 10 1.5"):
        await fails(engine, line, prefix="syntax error")


async def test_clocks_follow_benzenes_colours_through_a_swap(fake):
    engine = Engine(fake)
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "param_game game_time 300")
    await ok(engine, "time_left w 100")
    await ok(engine, "play b f6")
    await ok(engine, "play w swap-pieces")
    await ok(engine, "genmove w")  # Benzene's White moves again: its clock pays
    assert 99 < engine.clocks[WHITE][0] < 100 and engine.clocks[BLACK] == (300.0, 0)
    assert fake.last_context == Context(time_left=100.0)


async def test_param_game(engine):
    assert await ok(engine, "param_game") == "[bool] allow_swap 0\n[bool] on_little_golem 0\n[string] game_time 0"
    await ok(engine, "param_game allow_swap 1")
    await ok(engine, "param_game game_time 90.5")  # a game clock: absolute time
    assert engine.allow_swap and engine.time == TimeSettings(90.5, 0.0, 0)
    assert engine.clocks == {BLACK: (90.5, 0), WHITE: (90.5, 0)}
    assert "[bool] allow_swap 1" in (await ok(engine, "param_game")).split("\n")
    assert "[string] game_time 90.5" in (await ok(engine, "param_game")).split("\n")
    assert await ok(engine, "time_left") == "black 90.5 white 90.5"
    assert plan(engine, BLACK) == (move_time(90.5, 121), 90.5)
    await ok(engine, "play b a1")
    await fails(engine, "param_game game_time 60", "game_time can only be set before the first move")
    await ok(engine, "param_game allow_swap 0")
    assert not engine.allow_swap
    await ok(engine, "clear_board")
    assert engine.clocks == {BLACK: (90.5, 0), WHITE: (90.5, 0)}  # a new game: the game's time again
    await ok(engine, "param_game game_time 60")
    for bad in ("param_game allow_swap", "param_game allow_swap 2", "param_game game_time -1",
                "param_game game_time x", "param_game a b c"):
        await fails(engine, bad, prefix="syntax error")
    await fails(engine, "param_game komi 7", prefix="unknown parameter")
    # The listing says what is set, whichever command set it.
    for line, listed in (("time_settings 0 2 1", "0"), ("time_settings 600 30 5", "600"),
                         ("time_settings 10 60 0", "0"), ("kgs-time_settings absolute 45", "45"),
                         ("kgs-time_settings none", "0")):
        await ok(engine, line)
        assert f"[string] game_time {listed}" in (await ok(engine, "param_game")).split("\n"), line


# -- robustness: any command sequence ---------------------------------------------------------------

NAMES = st.sampled_from(sorted(set(Engine.commands()) - {"quit"}) + ["foo", "undo", "play", "play"])
TOKENS = st.sampled_from(["b", "w", "black", "WHITE", "x", "a1", "b2", "c1", "c3", "E5", "swap-pieces", "swap",
                          "resign", "pass", "0", "1", "2", "3", "5", "-1", "nan", "allow_swap", "game_time",
                          "on_little_golem", "\ufffd"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(NAMES, st.lists(TOKENS, max_size=3)), max_size=30))
def test_any_command_sequence_keeps_the_engine_consistent(commands):
    async def run() -> None:
        engine = Engine(ScriptedRunner())
        for name, args in commands:
            good, text = await engine.handle(Command(None, name, tuple(args)))
            assert not text.startswith("internal error"), (name, args, text)
            encode_response(1, good, text)
            s, view = engine.state, engine.view()
            assert len(s.board) == s.width * s.height and 1 <= min(s.width, s.height) <= 19
            assert s.plies == s.cells - s.board.count(EMPTY) + s.swapped  # the swap moves no stone in
            assert all(h[0].swapped <= s.swapped for h in engine.history)
            ours = (WHITE, BLACK) if s.swapped else (BLACK, WHITE)
            assert (view.board.count(BLACK), view.board.count(WHITE)) == tuple(s.board.count(c) for c in ours)
            score = await engine.handle(Command(None, "final_score", ()))
            assert (engine.winner() is None) == (score == (True, "cannot score"))
    asyncio.run(run())


# -- serve: framing over in-memory streams ----------------------------------------------------------

class Sink:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        return None


def responses(data: bytes) -> list:
    dec = ResponseDecoder()
    dec.feed(data)
    out = list(dec.events())
    assert dec.buffered == 0 and not dec.in_response
    return out


async def test_serve_answers_a_hexgui_session(engine):
    reader = asyncio.StreamReader()
    reader.feed_data(b"1 name\n2 hexgui-analyze_commands\n3 boardsize 5 5\n4 play black c3\n5 play white c3\n"
                     b"6 genmove white\n7 showboard\n8 undo\n9 quit\n10 name\n")
    reader.feed_eof()
    sink = Sink()
    await asyncio.wait_for(serve(reader, sink, engine), 10)
    got = responses(bytes(sink.data))
    assert [(r.id, r.ok) for r in got] == [(1, True), (2, True), (3, True), (4, True), (5, False), (6, True),
                                           (7, True), (8, True), (9, True)]
    assert got[4].text == "illegal move: c3 (occupied)"
    _, stones, _ = parse_board(got[6].text)
    assert stones == {"c3": "B", got[5].text: "W"}


# -- the real process ----------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.e2e
async def test_subprocess_speaks_only_htp_on_stdout(tmp_path):
    err = tmp_path / "stderr.log"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.hex.htp", "--player", "random", "--workers", "1",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err.open("wb"), cwd=ROOT)
    try:
        script = (b"1 name\n2 boardsize 5 5\n3 param_game allow_swap 1\n4 play b c2\n5 play w swap-pieces\n"
                  b"6 genmove w\nnonsense\n7 showboard\n8 play b c2\n9 final_score\n10 quit\n")
        out, _ = await asyncio.wait_for(proc.communicate(script), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.read_text()[-2000:]
    got = responses(out)  # raises on any byte that is not part of a response
    assert [(r.id, r.ok) for r in got] == [(1, True), (2, True), (3, True), (4, True), (5, True), (6, True),
                                           (None, False), (7, True), (8, False), (9, True), (10, True)]
    move = got[5].text
    assert move != "c2" and parse_cell(move, 5, 5) >= 0
    _, stones, status = parse_board(got[7].text)
    assert stones == {"c2": "B", move: "W"} and status.startswith("Black to move")
    assert got[8].text == "illegal move: c2 (occupied)" and got[9].text == "cannot score"
    logs = err.read_text()
    assert '"htp engine ready"' in logs and '"event": "move"' in logs


def asker(proc: asyncio.subprocess.Process):
    """ask(line, timeout=60) -> (ok, text, seconds to the answer), for an engine subprocess."""

    async def ask(line: str, timeout: float = 60) -> tuple[bool, str, float]:
        started = time.monotonic()
        proc.stdin.write(line.encode() + b"\n")
        await proc.stdin.drain()
        data = await asyncio.wait_for(proc.stdout.readuntil(b"\n\n"), timeout)
        (response,) = responses(data)
        return response.ok, response.text, time.monotonic() - started

    return ask


async def quit_for_logs(proc: asyncio.subprocess.Process, ask, err: Path, event: str) -> list[dict]:
    """`quit`, a clean exit, and the engine's log entries of `event` (its stderr in `err`)."""
    assert (await ask("quit"))[0]
    await asyncio.wait_for(proc.wait(), 30)
    assert proc.returncode == 0, err.read_text()[-2000:]
    return [json.loads(line) for line in err.read_text().splitlines() if f'"event": "{event}"' in line]


async def killed(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


@pytest.mark.slow
@pytest.mark.e2e
async def test_subprocess_keeps_to_one_second_a_move(tmp_path):
    """`time_settings 0 1 1` over a pipe: every genmove answers within the second (plus a
    margin for this shared machine), and the move log shows each search was given at most the
    second less the overhead."""
    err = tmp_path / "stderr.log"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.hex.htp", "--player", "random", "--workers", "1",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err.open("wb"), cwd=ROOT)

    ask = asker(proc)

    try:
        assert (await ask("name"))[:2] == (True, "bots")  # the engine is up (the pool warm)
        assert (await ask("boardsize 7"))[0]
        assert (await ask("time_settings 0 1 1"))[0]
        assert (await ask("time_left b"))[1] == "1 1"
        for i in range(6):
            good, move, took = await ask(f"genmove {'bw'[i % 2]}", timeout=10)
            assert good and parse_cell(move, 7, 7) >= 0
            assert took < 1.2, f"genmove {i + 1} took {took:.2f} s"
        moves = await quit_for_logs(proc, ask, err, "move")
    finally:
        await killed(proc)
    assert len(moves) == 6
    assert all(0 < m["budget"] <= 1.0 - OVERHEAD + 1e-9 for m in moves), [m["budget"] for m in moves]


@pytest.mark.slow
@pytest.mark.e2e
async def test_subprocess_ponders_between_its_moves(tmp_path):
    """`bots htp hex --ponder`: after each genmove the worker searches until the controller's
    next command (the log's `pondered` line), and every move still keeps to its second."""
    err = tmp_path / "stderr.log"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.cli", "htp", "hex", "--player", "mcts", "--workers", "1", "--ponder",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err.open("wb"), cwd=ROOT)

    ask = asker(proc)

    try:
        assert (await ask("boardsize 9"))[0] and (await ask("time_settings 0 1 1"))[0]
        taken: set[str] = set()
        for _ in range(3):
            good, move, took = await ask("genmove b")
            assert good and took < 1.2, (move, took)
            taken.add(move)
            await asyncio.sleep(0.5)  # the opponent thinks
            reply = next(cell for cell in ("c3", "g7", "c7", "e5", "d4", "f6") if cell not in taken)
            taken.add(reply)
            assert (await ask(f"play w {reply}"))[0], (reply, taken)
        pondered = await quit_for_logs(proc, ask, err, "pondered")
    finally:
        await killed(proc)
    assert len(pondered) == 3 and pondered[-1]["nodes"] > 0 and pondered[-1]["stopped_by"] is None, pondered


@pytest.mark.e2e
async def test_subprocess_refuses_an_unknown_player(tmp_path):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots.hex.htp", "--player", "nobody", stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2 and out == b"" and b"nobody" in err
