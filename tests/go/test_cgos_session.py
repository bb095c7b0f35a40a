"""The CGOS client session (bots/go/cgos_session.py) against scripted fake servers on 127.0.0.1.

Each test runs a script on the server side of a real socket: it sends CGOS lines and
asserts our exact replies, keeping its own position with our rules to judge our moves.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
from typing import Awaitable, Callable

import pytest
import pytest_asyncio
import structlog

from bots import __version__
from bots import log as logsetup
from bots.go.board import BLACK, PASS, WHITE, State, empty, parse_point, point_name, setup
from bots.go.cgos_session import CgosBot, Refused, SessionClosed, play
from bots.go.players import random_move
from bots.runner import SearchRunner

pytestmark = pytest.mark.asyncio(loop_scope="module")

NAME = "alpha-bot"
PASSWORD = "s3cret_Pw.9"
DATE = "2024-06-09"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runner():
    async with SearchRunner(1, grace=0.2) as r:
        yield r


@pytest.fixture
def json_logs():
    """Every log line (debug and up, JSON) into a buffer; the previous set-up restored after."""
    saved = structlog.get_config()
    processors = list(saved["processors"])
    buffer = io.StringIO()
    logsetup.setup("json", "debug", stream=buffer)
    yield buffer
    structlog.configure(processors=processors, wrapper_class=saved["wrapper_class"],
                        logger_factory=saved["logger_factory"], context_class=saved["context_class"],
                        cache_logger_on_first_use=saved["cache_logger_on_first_use"])


def events(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def bot(port: int, **kw) -> CgosBot:
    kw.setdefault("player", "random")
    return CgosBot(name=NAME, host="127.0.0.1", port=port, password=PASSWORD, **kw)


class Peer:
    """The server side of one connection, as a script sees it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send(self, *lines: str) -> None:
        for line in lines:
            self.writer.write((line + "\n").encode())
        await self.writer.drain()

    async def recv(self, timeout: float = 10.0) -> str:
        raw = await asyncio.wait_for(self.reader.readline(), timeout)
        assert raw.endswith(b"\n"), f"the client closed the connection (got {raw!r})"
        return raw.decode().removesuffix("\n")

    async def silent(self, seconds: float = 0.2) -> None:
        """Nothing arrives for `seconds` (the client sends nothing unprompted)."""
        try:
            raw = await asyncio.wait_for(self.reader.readline(), seconds)
        except asyncio.TimeoutError:
            return
        raise AssertionError(f"unprompted line from the client: {raw!r}")

    async def eof(self, timeout: float = 5.0) -> None:
        assert await asyncio.wait_for(self.reader.read(), timeout) == b""

    async def login(self, options: str = " genmove_analyze") -> None:
        await self.send("protocol" + options)
        assert await self.recv() == f"e1 bots {__version__}"
        await self.send("username")
        assert await self.recv() == NAME
        await self.send("password")
        assert await self.recv() == PASSWORD

    async def our_move(self, state: State, colour: str, ms: int = 60000) -> tuple[int, State]:
        """genmove; our reply must be a lowercase vertex or `pass`, legal in `state`."""
        await self.send(f"genmove {colour} {ms}")
        reply = await self.recv()
        assert reply == reply.lower(), reply
        point = parse_point(reply, state.size)
        assert state.is_legal(point), (reply, state)
        return point, state.play(point)


Script = Callable[[Peer], Awaitable[None]]


async def against(script: Script, runner: SearchRunner, timeout: float = 30.0, **bot_kw):
    """Run `script` as the server and our session as the client; (what play returned or raised).

    A failed assertion in the script is raised here, whatever the session did.
    """
    done: asyncio.Future = asyncio.get_running_loop().create_future()

    async def handler(reader, writer):
        try:
            await script(Peer(reader, writer))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            done.set_exception(exc)
        else:
            done.set_result(None)
        finally:
            writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        (outcome,) = await asyncio.wait_for(asyncio.gather(play(bot(port, **bot_kw), runner),
                                                           return_exceptions=True), timeout)
        await asyncio.wait_for(done, timeout)
    finally:
        server.close()
        await server.wait_closed()
    return outcome


def cgos_result(state: State) -> str:
    score = state.score()
    return "Draw" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):.1f}"


async def black_game(peer: Peer, state: State, opponent_moves: int = 8, seed: int = 5) -> tuple[State, int]:
    """We are Black: genmove, then the opponent's random moves (either case) and then passes,
    until two passes end the game; (the final position, the number of moves played)."""
    rng = random.Random(seed)
    moves = 0
    for turn in range(300):
        _, state = await peer.our_move(state, "b", 60000 - turn)
        moves += 1
        if state.is_terminal():
            return state, moves
        move = random_move(state, rng) if turn < opponent_moves else PASS
        name = point_name(move, state.size)
        await peer.send(f"play w {name if turn % 2 else name.lower()} {59000 - turn}")
        state = state.play(move)
        moves += 1
        if state.is_terminal():
            return state, moves
    raise AssertionError("the game did not end")


# -- handshake -------------------------------------------------------------------------------


async def test_handshake_answers_each_prompt_with_one_line(runner):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.silent(0.3)  # no welcome, nothing unprompted

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed) and isinstance(outcome, ConnectionError)
    assert "between games" in str(outcome) and outcome.summaries == []


async def test_the_tcl_server_greeting_without_options_works_too(runner):
    async def script(peer: Peer) -> None:
        await peer.login(options="")

    assert isinstance(await against(script, runner), SessionClosed)


# -- whole games -----------------------------------------------------------------------------


async def test_a_full_game_to_two_passes_then_ready(runner, json_logs):
    final: list[tuple[State, int]] = []

    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 7 9 7.0 60000 opp(1800?) {NAME}(1850)")
        state, moves = await black_game(peer, empty(9, 7.0))
        final.append((state, moves))
        await peer.send(f"gameover {DATE} {cgos_result(state)} ")  # empty comment: trailing space
        assert await peer.recv() == "ready"
        await peer.silent(0.2)

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed), outcome
    ((state, moves),) = final
    result = cgos_result(state)
    winner = {"B": NAME, "W": "opp"}.get(result[0])
    margin = abs(state.score())
    assert outcome.summaries == [{"gid": 7, "colour": "b", "opponent": "opp", "result": result, "winner": winner,
                                  "moves": moves, "outcome": {NAME: "won", "opp": "lost", None: "draw"}[winner],
                                  "reason": "score", "score": margin, "score_from": "server"}]
    move_lines = [e for e in events(json_logs) if e["event"] == "move"]
    assert len(move_lines) == (moves + 1) // 2 >= 30  # every genmove went through decide, which logs it
    assert all(e["gid"] == 7 and e["colour"] == "b" for e in move_lines)
    assert all({"budget", "used", "late_by", "nodes"} <= set(e) for e in move_lines)
    assert not [e for e in events(json_logs) if e["level"] == "error"]
    over = [e for e in events(json_logs) if e["event"] == "game over"]
    assert over[0]["result"] == result and over[0]["won"] == (winner == NAME)


async def test_games_one_quits_after_the_gameover(runner):
    played: list[int] = []

    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 8 9 7.0 60000 opp(1800?) {NAME}(1850)")
        state = empty(9, 7.0)
        rng = random.Random(11)
        count = 0
        while not state.is_terminal():
            _, state = await peer.our_move(state, "b")
            count += 1
            if state.is_terminal():
                break
            move = random_move(state, rng) if count < 5 else PASS
            await peer.send(f"play w {point_name(move).lower()} 60000")
            state = state.play(move)
            count += 1
        played.append(count)
        await peer.send(f"gameover {DATE} W+Resign Resignation")
        assert await peer.recv() == "quit"
        await peer.eof()

    outcome = await against(script, runner, games=1)
    assert outcome == [{"gid": 8, "colour": "b", "opponent": "opp", "result": "W+Resign", "winner": "opp",
                        "moves": played[0], "outcome": "lost", "reason": "resign", "score": None,
                        "score_from": None}]


# Every end a gameover announces (docs/protocols/cgos.md section 4: "B+<score>", "Draw", the Tcl
# server's "B+0.0" draw, "X+Resign", "X+Time", "X+Illegal", an admin's "Abort"), from our side
# as Black.
@pytest.mark.parametrize("result, comment, outcome, reason, score, winner", [
    ("B+12.5", "", "won", "score", 12.5, NAME),
    ("W+6.0", "", "lost", "score", 6.0, "opp"),
    ("Draw", "", "draw", "score", 0.0, None),
    ("B+0.0", "", "draw", "score", 0.0, None),
    ("B+Resign", "Resignation", "won", "resign", None, NAME),
    ("W+Resign", "Resignation", "lost", "resign", None, "opp"),
    ("B+Time", "", "won", "time", None, NAME),  # the opponent's flag fell
    ("W+Time", "", "lost", "time", None, "opp"),  # ours did
    ("B+Illegal", "Illegal move error:move to occupied point move:e5", "won", "illegal move", None, NAME),
    ("W+Illegal", "Illegal move error:KO attempted move:c3", "lost", "illegal move", None, "opp"),
    ("Abort", "", "unknown", "abort", None, None),
])
async def test_every_gameover_result_gives_winner_reason_and_score(runner, json_logs, result, comment, outcome,
                                                                   reason, score, winner):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 21 9 7.0 60000 opp(1800?) {NAME}(1850)")
        await peer.our_move(empty(9, 7.0), "b")
        await peer.send("play w pass 59000", f"gameover {DATE} {result} {comment}")
        assert await peer.recv() == "ready"

    summaries = (await against(script, runner)).summaries
    assert summaries == [{"gid": 21, "colour": "b", "opponent": "opp", "result": result, "winner": winner,
                          "moves": 2, "outcome": outcome, "reason": reason, "score": score,
                          "score_from": "server" if score is not None else None}]
    (logged,) = [e for e in events(json_logs) if e["event"] == "game over"]
    assert (logged["outcome"], logged["reason"], logged["score"], logged["won"]) == (outcome, reason, score,
                                                                                    winner == NAME)


async def test_resume_rebuilds_the_position_from_the_setup_tail(runner, json_logs):
    rng = random.Random(3)
    state = empty(9, 7.0)
    tail = []
    while len(tail) < 41:  # Black made the last move: White (us) to move
        move = random_move(state, rng)
        state = state.play(move)
        tail.append(f"{point_name(move).lower()} {60000 - 100 * len(tail)}")
    assert state.to_move == WHITE and len(tail) == 41

    async def script(peer: Peer) -> None:
        nonlocal state
        await peer.login()
        await peer.send(f"setup 12 9 7.0 60000 {NAME}(1800?) opp(1700)  " + " ".join(tail))  # two spaces, as admins
        opp_rng = random.Random(4)
        for turn in range(12):  # a wrong own-move or tail tracking would soon give an illegal move
            _, state = await peer.our_move(state, "w", 55000 - turn)
            move = random_move(state, opp_rng)
            await peer.send(f"play b {point_name(move)} {54000 - turn}")
            state = state.play(move)

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed) and "mid-game" in str(outcome)
    started = [e for e in events(json_logs) if e["event"] == "game starts"]
    assert started[0]["resumed_moves"] == 41 and started[0]["colour"] == "w" and started[0]["to_move"] == "w"
    assert not [e for e in events(json_logs) if e["level"] == "error"]


# -- odd lines -------------------------------------------------------------------------------


async def test_username_polls_info_and_unknown_lines_mid_game(runner, json_logs):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send("username")  # cgos-lite polls waiting clients
        assert await peer.recv() == NAME
        await peer.send(f"setup 3 9 7.0 60000 opp(1800?) {NAME}(1800?)")
        state = empty(9, 7.0)
        await peer.send("info Maximum time until next round: 28:41", "frobnicate the server now",
                        "info Games in progress: 3 Players:8", "username")
        assert await peer.recv() == NAME  # nothing was sent for the info and unknown lines
        _, state = await peer.our_move(state, "b")
        await peer.send("username")
        assert await peer.recv() == NAME
        await peer.send(f"play w {point_name(random_move(state, random.Random(1)))} 60000")
        state = state.play(random_move(state, random.Random(1)))
        await peer.send("info hello", "", "   ", "username")
        assert await peer.recv() == NAME
        _, state = await peer.our_move(state, "b")
        await peer.silent(0.2)

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed)
    logged = events(json_logs)
    unknown = [e for e in logged if e["event"] == "unknown line from the server; ignored"]
    assert [e["line"] for e in unknown] == ["frobnicate the server now"] and unknown[0]["level"] == "warning"
    infos = [e for e in logged if e["event"] == "info"]
    assert [e["text"] for e in infos] == ["Maximum time until next round: 28:41", "Games in progress: 3 Players:8",
                                          "hello"]
    assert all(e["level"] == "debug" for e in infos)


async def test_malformed_lines_are_skipped_until_too_many_in_a_row(runner):
    from protocol import cgos

    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send("genmove x 100", "username")
        assert await peer.recv() == NAME  # one bad line is skipped
        await peer.send(*["play b e5 soon"] * 5)
        await peer.eof()

    outcome = await against(script, runner)
    assert isinstance(outcome, cgos.ProtocolError) and "5 malformed lines in a row" in str(outcome)


@pytest.mark.parametrize("line", ["Error: Sorry, password doesn't match", "Sorry, password doesn't match"],
                         ids=["python-server", "tcl-server"])
async def test_an_error_line_is_a_refusal(runner, line):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(line)
        await peer.eof()  # the client closes

    outcome = await against(script, runner)
    assert isinstance(outcome, Refused) and "password doesn't match" in str(outcome)


async def test_a_dropped_connection_mid_game_is_a_connection_error(runner):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 5 9 7.0 60000 opp(1800?) {NAME}(1800?)")
        await peer.our_move(empty(9, 7.0), "b")
        peer.writer.transport.abort()  # no goodbye

    outcome = await against(script, runner)
    assert isinstance(outcome, ConnectionError) and isinstance(outcome, SessionClosed)
    assert "mid-game" in str(outcome) and outcome.summaries == []


async def test_an_unreachable_server_is_an_os_error(runner):
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(OSError):
        await play(bot(port), runner)


# -- moves our rules reject --------------------------------------------------------------------


async def test_an_occupied_point_from_the_opponent_is_logged_and_skipped(runner, json_logs):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 9 9 7.0 60000 opp(1800?) {NAME}(1800?)")
        point, state = await peer.our_move(empty(9, 7.0), "b")
        await peer.send(f"play w {point_name(point)} 60000")  # our own stone's point
        skipped = state._replace(to_move=BLACK)  # the board as it stands, Black to move again
        point2, state = await peer.our_move(skipped, "b")
        assert point2 != point
        move = random_move(state, random.Random(2))
        await peer.send(f"play w {point_name(move)} 60000")  # the session keeps following the game
        await peer.our_move(state.play(move), "b")

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed)
    errors = [e for e in events(json_logs) if e["level"] == "error"]
    assert [(e["event"], e["reason"]) for e in errors] == [("impossible move from the server; skipping it",
                                                             "occupied")]


async def test_a_ko_recapture_from_the_opponent_is_followed_anyway(runner, json_logs):
    #   6 . X O .      Black D6 C5 D4, White E6 D5 F5 E4; Black E5 takes D5 (a ko),
    #   5 X O . O      then White retakes at D5 at once: illegal by our rules (cgos-lite
    #   4 . X O .      checks simple ko only), but it happened on that server's board.
    #     C D E F
    tail = ["d6", "e6", "c5", "d5", "d4", "f5", "a1", "e4", "e5"]
    state = empty(9, 7.0)
    for move in tail:
        state = state.play(move)
    assert state.board[parse_point("d5")] == 0 and not state.is_legal("d5")

    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 4 9 7.0 60000 opp(1800?) {NAME}(1800?) "
                        + " ".join(f"{m} 60000" for m in tail))
        await peer.send("play w D5 59000")
        after = setup(9, black=["d6", "c5", "d4", "a1"], white=["e6", "d5", "f5", "e4"], to_move=BLACK, komi=7.0)
        for turn in range(3):
            point, after = await peer.our_move(after, "b")
            if turn == 0:  # retaking at once would repeat the position (later, other stones differ)
                assert point != parse_point("e5")
            move = random_move(after, random.Random(point))
            await peer.send(f"play w {point_name(move)} 59000")
            after = after.play(move)

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed)
    errors = [e for e in events(json_logs) if e["level"] == "error"]
    assert [(e["event"], e["reason"]) for e in errors] == [
        ("illegal move from the server by our rules; played it anyway", "superko")]


# -- cgos-lite -------------------------------------------------------------------------------


async def test_cgos_lite_a_new_setup_ends_the_game_without_gameover(runner):
    async def script(peer: Peer) -> None:
        await peer.login()
        for _ in range(3):
            await peer.send("username")
            assert await peer.recv() == NAME
        await peer.send(f"setup 0 2 7 900000 opp {NAME}")  # bare names, gid 0, a 2x2 board
        state = empty(2, 7.0)
        while not state.is_terminal():
            _, state = await peer.our_move(state, "b", 900000)
            if not state.is_terminal():
                await peer.send("play w pass 899000")  # the receiver's clock, as cgos-lite does
                state = state.play(PASS)
        assert state.score() == 4 - 7  # Black owns the whole board, komi 7
        await peer.send("username")  # the end-of-game poll
        assert await peer.recv() == NAME
        await peer.send(f"setup 0 9 7 900000 {NAME} opp")
        assert await peer.recv() == "quit"  # one game asked: it was counted at the new setup
        await peer.eof()

    outcome = await against(script, runner, games=1)
    assert len(outcome) == 1
    summary = outcome[0]
    assert {k: summary[k] for k in ("gid", "colour", "opponent", "result", "winner")} == {
        "gid": 0, "colour": "b", "opponent": "opp", "result": "W+3.0", "winner": "opp"}
    # cgos-lite sends no gameover: the score is ours, from the two-pass board, and says so
    assert (summary["outcome"], summary["reason"], summary["score"], summary["score_from"]) == (
        "lost", "score", 3.0, "our board")
    assert summary["moves"] >= 4


async def test_cgos_lite_an_unfinished_game_has_no_result(runner):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"setup 0 9 7 900000 opp {NAME}")
        _, state = await peer.our_move(empty(9, 7.0), "b", 900000)
        await peer.send(f"play w {point_name(random_move(state, random.Random(9)))} 899000")
        await peer.send(f"setup 0 9 7 900000 {NAME} opp")  # the opponent resigned, say: not visible here
        await peer.send("play b E5 899999")
        _, state = await peer.our_move(empty(9, 7.0).play("e5"), "w", 900000)

    outcome = await against(script, runner)
    assert isinstance(outcome, SessionClosed)
    assert outcome.summaries == [{"gid": 0, "colour": "b", "opponent": "opp", "result": None, "winner": None,
                                  "moves": 2, "outcome": "unknown", "reason": "unknown", "score": None,
                                  "score_from": None}]


# -- secrets and settings --------------------------------------------------------------------


async def test_the_password_never_reaches_the_logs(runner, json_logs):
    async def script(peer: Peer) -> None:
        await peer.login()
        await peer.send(f"info welcome {PASSWORD}", f"echo {PASSWORD}")
        await peer.send(f"setup 2 9 7.0 60000 opp(1800?) {NAME}(1800?)")
        await peer.our_move(empty(9, 7.0), "b")
        await peer.send(f"gameover {DATE} B+Resign {PASSWORD} said goodbye")
        assert await peer.recv() == "ready"
        await peer.send(f"Error: no more games for {PASSWORD}")
        await peer.eof()

    outcome = await against(script, runner)
    assert isinstance(outcome, Refused)
    assert PASSWORD not in str(outcome) and "***" in str(outcome)
    text = json_logs.getvalue()
    logged = [e["event"] for e in events(json_logs)]
    assert {"connected", "game starts", "move", "game over", "info"} <= set(logged)  # logs were captured
    assert "unknown line from the server; ignored" in logged
    assert PASSWORD not in text
    assert PASSWORD not in repr(bot(6809))


@pytest.mark.parametrize("fields, words", [
    ({"name": "ab"}, ["name must be 3-18 characters", "'ab'"]),
    ({"name": "a" * 19}, ["name must be 3-18 characters"]),
    ({"name": "bad name"}, ["name must be", "[A-Za-z0-9_.-]"]),
    ({"password": "pw"}, ["password must be 3-16 characters"]),
    ({"password": "with space"}, ["password must be 3-16 characters"]),
    ({"password": "x" * 17}, ["password must be 3-16 characters"]),
    ({"port": 0}, ["port 0 is not a TCP port"]),
    ({"port": 70000}, ["is not a TCP port"]),
    ({"host": ""}, ["host must be a non-empty string"]),
    ({"player": "nosuch"}, ["unknown go player 'nosuch'"]),
    ({"params": (("depth", 3),)}, ["has no option 'depth'"]),
    ({"overhead": -0.1}, ["overhead -0.1 is negative"]),
    ({"games": -1}, ["games -1 must be an int >= 0"]),
], ids=["short-name", "long-name", "name-with-space", "short-password", "password-with-space", "long-password",
        "port-zero", "port-too-big", "empty-host", "unknown-player", "unknown-option", "negative-overhead",
        "negative-games"])
async def test_bot_values_are_checked(fields, words):
    values = {"name": NAME, "host": "127.0.0.1", "port": 6809, "password": PASSWORD, "player": "random"}
    values.update(fields)
    with pytest.raises(ValueError) as info:
        CgosBot(**values)
    for word in words:
        assert word in str(info.value), str(info.value)
    if "password" in fields:
        assert fields["password"] not in str(info.value)


async def test_bot_defaults():
    b = CgosBot(name=NAME, host="yss-aya.com", port=6809, password=PASSWORD, player="random")
    assert (b.params, b.overhead, b.games) == ((), 0.2, 0)
    assert CgosBot.__dataclass_fields__["player"].default == "mcts"
    assert "password" not in repr(b) and PASSWORD not in repr(b)
