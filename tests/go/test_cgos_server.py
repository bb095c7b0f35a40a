"""Our CGOS server (bots/go/cgos_server.py): raw scripted clients check the wire against
docs/protocols/cgos.md sections 2-4 and 6; then our own client session plays real games
through it, and the daemon reconnects to it after a restart."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
import pytest_asyncio

from bots.backoff import Backoff
from bots.playing import keep_playing
from bots.go.board import empty
from bots.go.cgos_server import RANDOM_NAME, CgosServer
from bots.go.cgos_session import CgosBot, play
from bots.runner import SearchRunner
from bots.settings import BotSettings
from tests.helpers import reached, until

pytestmark = pytest.mark.asyncio(loop_scope="module")

DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runner():
    async with SearchRunner(1, grace=0.2) as r:
        yield r


@pytest_asyncio.fixture(loop_scope="module")
async def serve():
    """serve(**CgosServer options) -> a started server (quick pairing, no info lines by default);
    every server is closed after the test."""
    servers = []

    async def make(**kw) -> CgosServer:
        kw.setdefault("pair_delay", 0.05)
        kw.setdefault("main_time", 60.0)
        kw.setdefault("info_every", 0)
        server = CgosServer(**kw)
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.close()


class Client:
    """A raw scripted CGOS client."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, server: CgosServer) -> "Client":
        return cls(*await asyncio.open_connection("127.0.0.1", server.port))

    async def send(self, line: str) -> None:
        self.writer.write((line + "\n").encode())
        await self.writer.drain()

    async def recv(self, timeout: float = 5.0) -> str:
        raw = await asyncio.wait_for(self.reader.readline(), timeout)
        assert raw.endswith(b"\n"), f"the server closed the connection (got {raw!r})"
        return raw.decode().removesuffix("\n")

    async def eof(self, timeout: float = 5.0) -> None:
        assert await asyncio.wait_for(self.reader.read(), timeout) == b""

    async def silent(self, seconds: float = 0.2) -> None:
        try:
            raw = await asyncio.wait_for(self.reader.readline(), seconds)
        except asyncio.TimeoutError:
            return
        raise AssertionError(f"unexpected line from the server: {raw!r}")

    async def login(self, name: str, password: str) -> None:
        assert await self.recv() == "protocol genmove_analyze"
        await self.send("e1 scripted-test-client 0.1")
        assert await self.recv() == "username"
        await self.send(name)
        assert await self.recv() == "password"
        await self.send(password)

    def close(self) -> None:
        self.writer.close()


async def logged_in(server: CgosServer, name: str, password: str = "secret1") -> Client:
    client = await Client.connect(server)
    await client.login(name, password)
    return client


async def pair(server: CgosServer, black: str = "beta-bot", white: str = "alpha-bot") -> tuple[Client, Client]:
    """Two fresh clients, paired: whoever waits first gets Black in a new pair."""
    b = await logged_in(server, black, "secret2")
    await reached(server.wait_waiting([black]), f"{black} waiting to be paired")
    w = await logged_in(server, white, "secret1")
    return b, w


def gameover(line: str) -> tuple[str, str]:
    """(result, comment) of a gameover line, whose date must be YYYY-MM-DD."""
    head, date, result, comment = line.split(" ", 3)
    assert head == "gameover" and DATE.fullmatch(date), line
    return result, comment


async def moves(black: Client, white: Client, sequence: list[str], ms: int = 60000) -> None:
    """Play `sequence` (every move legal), checking genmove and play lines with frozen clocks."""
    for i, move in enumerate(sequence):
        mover, other, c = (black, white, "b") if i % 2 == 0 else (white, black, "w")
        assert await mover.recv() == f"genmove {c} {ms}"
        await mover.send(move)
        assert await other.recv() == f"play {c} {move} {ms}"


# -- login ----------------------------------------------------------------------------------


async def test_first_login_registers_then_the_password_is_checked(serve):
    server = await serve()
    first = await logged_in(server, "alpha-bot", "secret1")
    await first.silent(0.15)  # no welcome line: waiting
    assert server.waiting() == ["alpha-bot"]
    first.close()
    await reached(server.wait_waiting([]), "the server saw alpha-bot disconnect")

    wrong = await logged_in(server, "alpha-bot", "wrongpw")
    assert await wrong.recv() == "Error: Sorry, password doesn't match"
    await wrong.eof()

    change = await logged_in(server, "alpha-bot", "secret1 newpass1")  # <old> <new>
    await change.silent(0.1)
    change.close()
    old = await logged_in(server, "alpha-bot", "secret1")
    assert await old.recv() == "Error: Sorry, password doesn't match"
    again = await logged_in(server, "alpha-bot", "newpass1")
    await again.silent(0.1)
    assert server.waiting() == ["alpha-bot"]


@pytest.mark.parametrize("replies, error", [
    (["hello there"], "Error: invalid response"),
    (["e1 x", "ab"], "Error: User name must be 3 characters or more."),
    (["e1 x", "a" * 19], "Error: User name must be 18 characters or less."),
    (["e1 x", "bad!name"], "Error: User name may contain only letters, digits, '_', '.' and '-'."),
    (["e1 x", RANDOM_NAME], "Error: User name is reserved."),
    (["e1 x", "alpha-bot", "a b c"], "Error: send <password> or <old_password new_password>"),
    (["e1 x", "alpha-bot", "pw"], "Error: Password must be 3 characters or more."),
    (["e1 x", "alpha-bot", "p@ssword"], "Error: Password may contain only letters, digits, '_', '.' and '-'."),
], ids=["not-e1", "short-name", "long-name", "bad-name", "reserved-name", "three-words", "short-password",
        "bad-password"])
async def test_bad_logins_get_an_error_line_and_a_close(serve, replies, error):
    server = await serve()
    client = await Client.connect(server)
    prompts = ["protocol genmove_analyze", "username", "password"]
    for prompt, reply in zip(prompts, replies, strict=False):  # a login may fail before the last prompt
        assert await client.recv() == prompt
        await client.send(reply)
    assert await client.recv() == error
    await client.eof()
    assert server.waiting() == []


async def test_a_second_login_kicks_the_first_connection(serve):
    server = await serve()
    first = await logged_in(server, "alpha-bot", "secret1")
    second = await logged_in(server, "alpha-bot", "secret1")
    assert await first.recv() == "info another login is being attempted using this user name"
    await first.eof()
    await reached(server.wait_waiting(["alpha-bot"]), "the second connection waiting to be paired")
    await second.silent(0.1)


# -- games ----------------------------------------------------------------------------------


async def test_a_game_to_two_passes_is_scored_by_area_minus_komi(serve):
    """The transcript of docs/protocols/cgos.md section 6.1, line for line; then `ready` pairs
    them again, colours swapped."""
    records = []
    server = await serve(on_game=records.append)
    black, white = await pair(server)
    setup = "setup 1 9 7.0 60000 alpha-bot(1500?) beta-bot(1500?)"
    assert await black.recv() == setup and await white.recv() == setup
    await moves(black, white, ["e5", "c3", "g7", "pass", "pass"])
    for client in (black, white):
        line = await client.recv()
        assert gameover(line) == ("W+6.0", "") and line.endswith("W+6.0 ")  # 2 - 1 - 7.0; trailing space
    (record,) = records
    assert record["players"] == {"black": "beta-bot", "white": "alpha-bot"}
    assert (record["result"], record["winner"], record["moves"]) == ("W+6.0", "alpha-bot",
                                                                      ["e5", "c3", "g7", "pass", "pass"])
    assert server.records == records
    await black.send("ready")
    await white.send("ready")
    # Game 2: colours swapped; the Elo update (K=32, equal ratings) shows in the names.
    setup2 = "setup 2 9 7.0 60000 beta-bot(1484?) alpha-bot(1516?)"
    assert await black.recv() == setup2 and await white.recv() == setup2
    assert await white.recv() == "genmove b 60000"


async def test_a_draw_is_possible_with_an_integer_komi(serve):
    server = await serve(size=3, komi=0.0)
    black, white = await pair(server)
    assert (await black.recv()).startswith("setup 1 3 0.0 60000 ")
    await white.recv()
    await moves(black, white, ["b2", "pass", "pass"])
    assert gameover(await black.recv()) == ("B+9.0", "")  # the whole 3x3 board is Black's
    assert gameover(await white.recv()) == ("B+9.0", "")
    await black.send("ready")
    await white.send("ready")
    await black.recv()
    await white.recv()
    # Game 2, colours swapped: Black's top row against White's bottom row, the middle row neutral.
    await moves(white, black, ["a3", "a1", "b3", "b1", "c3", "c1", "pass", "pass"])
    assert gameover(await black.recv()) == ("Draw", "")


@pytest.mark.parametrize("sequence, result, comment", [
    (["e5", "E5"], "B+Illegal", "Illegal move error:move to occupied point move:E5"),
    (["z99"], "W+Illegal", "Illegal move error:do not understand syntax move:z99"),
    (["i5"], "W+Illegal", "Illegal move error:do not understand syntax move:i5"),
    (["a2", "e5", "b1", "a1"], "B+Illegal", "Illegal move error:suicide attempted move:a1"),
    (["d6", "e6", "c5", "d5", "d4", "f5", "a1", "e4", "e5", "d5"], "B+Illegal",
     "Illegal move error:KO attempted move:d5"),
], ids=["occupied", "garbage", "letter-i", "suicide", "ko"])
async def test_an_illegal_move_loses_at_once(serve, sequence, result, comment):
    records = []
    server = await serve(on_game=records.append)
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    await moves(black, white, sequence[:-1])
    mover = black if len(sequence) % 2 else white
    colour = "b" if len(sequence) % 2 else "w"
    assert await mover.recv() == f"genmove {colour} 60000"
    await mover.send(sequence[-1])
    for client in (black, white):
        assert gameover(await client.recv()) == (result, comment)
    assert records[0]["moves"] == sequence[:-1]  # the illegal move is not part of the game


async def test_resign_and_an_improper_answer_to_gameover(serve):
    server = await serve()
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    assert await black.recv() == "genmove b 60000"
    await black.send("Resign")
    for client in (black, white):
        assert gameover(await client.recv()) == ("W+Resign", "Resignation")
    await black.send("thanks")  # not `ready`: never paired again on this connection
    await white.send("ready")
    # A pairing that must not happen has no event: give both lines time to arrive and the
    # pairing timer (pair_delay 0.05 s) time to run, then look.
    await asyncio.sleep(0.15)
    assert server.waiting() == ["alpha-bot"] and server.running() == []


async def test_a_game_reaching_max_moves_is_scored_as_it_stands(serve):
    server = await serve(max_moves=4)
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    await moves(black, white, ["e5", "c3", "g7"])
    assert await white.recv() == "genmove w 60000"
    await white.send("d4")
    assert await black.recv() == "play w d4 60000"  # the last move is played, then scored
    for client in (black, white):
        assert gameover(await client.recv()) == ("W+7.0", "move limit 4")  # 2 - 2 - 7


# -- clocks -----------------------------------------------------------------------------------


async def test_a_silent_player_loses_on_time_by_the_tick(serve):
    records = []
    server = await serve(main_time=0.3, time_gift=0.05, tick=0.05, on_game=records.append)
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    assert await black.recv() == "genmove b 300"
    for client in (black, white):
        assert gameover(await client.recv(timeout=2.0)) == ("W+Time", "")
    assert records[0]["winner"] == "alpha-bot"


async def test_a_late_move_loses_on_time_when_it_arrives(serve):
    server = await serve(main_time=0.3, time_gift=0.05, tick=30.0)
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    await moves(black, white, ["e5"], ms=300)  # instant: within the gift, nothing is charged
    assert await white.recv() == "genmove w 300"
    await asyncio.sleep(0.4)
    await white.send("c3")
    for client in (black, white):
        assert gameover(await client.recv()) == ("B+Time", "")  # no `play` for the late move


async def test_the_clock_charges_time_beyond_the_gift(serve):
    server = await serve(main_time=10.0, time_gift=0.1)
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    assert await black.recv() == "genmove b 10000"
    await asyncio.sleep(0.4)
    await black.send("e5")
    line = await white.recv()
    ms = int(line.split()[3])
    assert line.startswith("play b e5 ") and 9600 <= ms <= 9750, line  # 10000 - (0.4 + a little - 0.1)


# -- disconnects -------------------------------------------------------------------------------


async def test_a_disconnected_player_resumes_with_setup_and_genmove(serve):
    server = await serve()
    black, white = await pair(server)
    await black.recv()
    await white.recv()
    await moves(black, white, ["e5"])
    assert await white.recv() == "genmove w 60000"
    white.close()  # White drops while its clock runs
    await asyncio.sleep(0.4)  # the time under test: the game and White's clock go on without it
    assert server.running() == [1]  # the game goes on
    white = await logged_in(server, "alpha-bot", "secret1")
    assert await white.recv() == "setup 1 9 7.0 60000 alpha-bot(1500?) beta-bot(1500?) e5 60000"
    line = await white.recv()
    assert line.startswith("genmove w ") and 58000 < int(line.split()[2]) <= 59600, line
    await white.send("c3")
    assert (await black.recv()).startswith("play w c3 ")
    # Black drops on its turn: no genmove goes to an absent player, and its moves resume too.
    assert await black.recv() == "genmove b 60000"
    black.close()
    await reached(server.wait_offline("beta-bot"), "the server saw beta-bot disconnect")
    black = await logged_in(server, "beta-bot", "secret2")
    setup = await black.recv()
    assert setup.startswith("setup 1 9 7.0 60000 alpha-bot(1500?) beta-bot(1500?) e5 60000 c3 ")
    assert (await black.recv()).startswith("genmove b ")
    await black.send("resign")
    for client in (black, white):
        assert gameover(await client.recv()) == ("W+Resign", "Resignation")


async def test_the_random_opponent_plays_a_lone_client(serve):
    records = []
    server = await serve(random_opponent=True, seed=3, on_game=records.append)
    client = await logged_in(server, "alpha-bot", "secret1")
    setup = await client.recv()
    player = rf"({RANDOM_NAME}|alpha-bot)\(1500\?\)"
    assert re.fullmatch(rf"setup 1 9 7\.0 60000 {player} {player}", setup), setup
    ours = "b" if setup.endswith("alpha-bot(1500?)") else "w"
    state = empty(9, 7.0)
    for _ in range(3):
        line = await client.recv()
        if line.startswith("play "):
            _, c, move, _ = line.split()
            assert c != ours
            state = state.play(move)
            line = await client.recv()
        assert line.startswith(f"genmove {ours} ")
        move = next(m for m in ("e5", "c3", "g7", "c7", "g3", "pass") if state.is_legal(m))
        await client.send(move)
        state = state.play(move)
    await client.recv()  # the random player's move
    assert (await client.recv()).startswith("genmove")
    await client.send("resign")
    result, comment = gameover(await client.recv())
    assert (result, comment) == (("W" if ours == "b" else "B") + "+Resign", "Resignation")
    assert records[0]["winner"] == RANDOM_NAME and len(records[0]["moves"]) in (6, 7)


async def test_info_lines_are_broadcast(serve):
    server = await serve(info_every=0.05)
    client = await logged_in(server, "alpha-bot", "secret1")
    assert await client.recv() == "info Games in progress: 0 Players:1"


# -- our client against our server --------------------------------------------------------------


def replay(record: dict):
    state = empty(record["size"], record["komi"])
    for move in record["moves"]:
        state = state.play(move)  # raises if any move was illegal
    return state


async def test_two_session_bots_play_two_games(serve, runner):
    records = []
    server = await serve(main_time=5.0, on_game=records.append)
    bots = [CgosBot(name=name, host="127.0.0.1", port=server.port, password="pw-" + name, player="random", games=2)
            for name in ("bot-one", "bot-two")]
    first = asyncio.ensure_future(play(bots[0], runner))
    await reached(server.wait_waiting(["bot-one"]), "bot-one waiting to be paired", watching=first)  # Black
    one, two = await asyncio.wait_for(asyncio.gather(first, play(bots[1], runner)), 30)
    assert len(records) == 2
    assert [r["players"] for r in records] == [{"black": "bot-one", "white": "bot-two"},
                                               {"black": "bot-two", "white": "bot-one"}]
    for record, a, b in zip(records, one, two, strict=True):
        assert a["gid"] == b["gid"] == record["gid"]
        assert a["result"] == b["result"] == record["result"]
        assert a["winner"] == b["winner"] == record["winner"]
        assert a["moves"] == b["moves"] == len(record["moves"])
        assert a["opponent"] == "bot-two" and b["opponent"] == "bot-one"
        final = replay(record)
        if record["comment"] == "":  # two passes (the move limit would say so)
            assert final.is_terminal()
            score = final.score()
            assert record["result"] == ("Draw" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):.1f}")
        assert not record["result"].endswith(("Illegal", "Time"))
    assert [s["colour"] for s in one] == ["b", "w"] and [s["colour"] for s in two] == ["w", "b"]


@pytest.mark.slow
async def test_the_mcts_bot_plays_a_13x13_game_and_beats_the_random_opponent(serve, runner):
    """13x13 as well as 9x9 (issue 31): the board size comes from the server's setup."""
    records = []
    server = await serve(size=13, komi=7.5, main_time=30.0, max_moves=500, random_opponent=True, seed=5,
                         on_game=records.append)
    bot = CgosBot(name="mcts-13", host="127.0.0.1", port=server.port, password="pw13", player="mcts", games=1)
    [summary] = await asyncio.wait_for(play(bot, runner), 120)
    [record] = records
    assert summary["outcome"] == "won" and record["winner"] == "mcts-13", (summary, record["result"])
    assert not record["result"].endswith(("Illegal", "Time"))
    assert record["size"] == 13 and replay(record).size == 13 and summary["moves"] == len(record["moves"])


async def test_the_daemon_reconnects_after_a_server_restart(serve, runner):
    first_games = []
    server = await serve(main_time=5.0, random_opponent=True, seed=1, on_game=first_games.append)
    port = server.port
    bot = CgosBot(name="daemon-bot", host="127.0.0.1", port=port, password="hunter2", player="random", games=2)
    backoff = Backoff(first=0.05, cap=0.2, rng=random.Random(0))
    task = asyncio.ensure_future(keep_playing(BotSettings("go", bot, games=2), runner, backoff=backoff, pause=0.05))
    await until(lambda: first_games or task.done(), timeout=30, what="the first game played")
    assert not task.done(), task.result()
    await server.close()  # the bot is between games (or just in the next): the connection drops
    # refused, refused, ...: each retry after a delay
    await until(lambda: backoff.failures >= 2 or task.done(), what="two failed reconnections")
    assert not task.done(), task.result()
    second_games = []
    await serve(port=port, main_time=5.0, random_opponent=True, seed=2, on_game=second_games.append)
    played = await asyncio.wait_for(task, 30)
    assert played == 2  # the first game counted although its connection ended with an error
    assert backoff.failures == 0
    assert [r["players"]["black"] in ("daemon-bot", RANDOM_NAME) for r in first_games + second_games] == [True, True]
    assert all("daemon-bot" in r["players"].values() for r in first_games + second_games)
    assert len(second_games) == 1
