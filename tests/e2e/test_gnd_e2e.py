"""The gnd client session (bots/gnd/session.py) against our local server and against fake ones,
over 127.0.0.1 on ephemeral ports."""

from __future__ import annotations

import asyncio
import io
import json
import random

import aiohttp
import pytest
import structlog
from aiohttp import web

from bots import log as logsetup
from bots.dodo import rules as dodo_rules
from bots.gnd import session as session_mod
from bots.gnd.session import GndBot, Refused, play
from bots.gopher import rules as gopher_rules
from protocol import gnd
from tests.helpers import reached

pytestmark = pytest.mark.e2e

PASSWORD = "hunter2-Zq9"


def rules_of(game: str):
    return gopher_rules if game == "gopher" else dodo_rules


def replay(record: dict):
    game = gnd.game_number(record["game"])
    state = rules_of(record["game"]).start(record["size"])
    for strings in record["moves"]:
        state = state.play(gnd.decode_action(game, strings))  # raises if any move was illegal
    return state


async def two_bots(server, a: GndBot, b: GndBot, runner, timeout: float = 90):
    """a queues first (Red), then b (Blue); both sessions to the end."""
    red = asyncio.ensure_future(play(a, runner))
    await reached(server.wait_queued(1), "a queued in /start", watching=red)
    blue = asyncio.ensure_future(play(b, runner))
    return await asyncio.wait_for(asyncio.gather(red, blue), timeout)


def check_against_record(record: dict, red: dict, blue: dict) -> None:
    assert record["winner"] in (1, 2)
    assert record["illegal"] == {"red": 0, "blue": 0}
    assert red["colour"] == "red" and blue["colour"] == "blue"
    assert red["match"] == blue["match"] == record["match"]
    assert red["winner"] == blue["winner"] == record["winner"]
    assert red["won"] == (record["winner"] == 1) and blue["won"] == (record["winner"] == 2)
    assert red["won"] != blue["won"]
    assert red["moves"] + blue["moves"] == record["plies"] == len(record["moves"])
    assert red["refused"] == blue["refused"] == 0 and "abandoned" not in red and "abandoned" not in blue
    final = replay(record)
    assert final.is_terminal() and final.winner() == record["winner"]


# --- whole games on our server ----------------------------------------------------------------

@pytest.mark.slow
async def test_gopher_game_alphabeta_vs_random(serve, runner):
    server, url = await serve(game="gopher", size=4, time=10.0, seed=1)
    a = GndBot(game="gopher", server=url, group=1, members="A", password="pa", player="alphabeta")
    b = GndBot(game="gopher", server=url, group=2, members="B", password="pb", player="random")
    (sa,), (sb,) = await two_bots(server, a, b, runner)
    (record,) = server.records
    assert record["red"] == "A" and record["blue"] == "B" and record["reason"] == "no move"
    check_against_record(record, sa, sb)
    assert record["moves"][0] == ["(-3, -3)"]  # the solved opening from the book
    assert sa["game"] == "gopher" and sa["size"] == 4 and sa["clock_left"] > 0


@pytest.mark.slow
async def test_dodo_game_mcts_vs_random(serve, runner):
    server, url = await serve(game="dodo", size=4, time=8.0, seed=2)
    a = GndBot(game="dodo", server=url, group=1, members="A", password="pa", player="mcts")
    b = GndBot(game="dodo", server=url, group=2, members="B", password="pb", player="random")
    (sa,), (sb,) = await two_bots(server, a, b, runner)
    (record,) = server.records
    assert record["reason"] == "no move"  # nobody flagged on an 8 s clock
    check_against_record(record, sa, sb)
    assert record["clock"]["red"] > 0 and record["clock"]["blue"] > 0


@pytest.mark.parametrize("size", [4, 5])  # 4: the solved opening; 5: Edwards' strategy
async def test_red_beats_the_builtin_random_player(serve, runner, size):
    server, url = await serve(game="gopher", size=size, time=20.0, random=True, rcolor="blue", seed=size)
    bot = GndBot(game="gopher", server=url, group=7, members="us", password="pw", games=2)
    summaries = await asyncio.wait_for(play(bot, runner), 60)
    assert len(summaries) == 2 and len(server.records) == 2
    for summary, record in zip(summaries, server.records, strict=True):
        assert summary["colour"] == "red" and record["red"] == "us" and record["blue"] == "Virtual"
        assert summary["won"] and summary["winner"] == 1 == record["winner"]
        assert record["illegal"] == {"red": 0, "blue": 0}
        assert replay(record).winner() == 1
    assert summaries[0]["match"] != summaries[1]["match"]  # a token plays game after game


@pytest.mark.slow
async def test_dodo_against_the_builtin_random_player_as_blue(serve, runner):
    server, url = await serve(game="dodo", size=4, time=6.0, random=True, rcolor="red", seed=4)
    bot = GndBot(game="dodo", server=url, group=7, members="us", password="pw", player="alphabeta")
    (summary,) = await asyncio.wait_for(play(bot, runner), 60)
    (record,) = server.records
    assert summary["colour"] == "blue" and record["blue"] == "us"
    assert summary["winner"] == record["winner"] and record["illegal"]["blue"] == 0


# --- the clock --------------------------------------------------------------------------------

async def test_opponent_that_never_plays_loses_on_time_as_red(serve, runner):
    server, url = await serve(game="gopher", size=4, time=0.3)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
        body = gnd.register(99, "sleeper", "zz", ["gopher"]).to_json()
        async with http.post(url + "/register", json=body) as resp:
            token = gnd.parse_token(await resp.json())

        async def sleeper_start() -> dict:
            async with http.post(url + "/start", json=gnd.start(token).to_json()) as resp:
                return await resp.json()

        start = asyncio.ensure_future(sleeper_start())  # queued first: Red
        await reached(server.wait_queued(1), "the sleeper queued in /start", watching=start)
        bot = GndBot(game="gopher", server=url, group=1, members="us", password="pw")
        ours = asyncio.ensure_future(play(bot, runner))
        first = await asyncio.wait_for(start, 10)
        assert first["Player"] == 1  # ... and the sleeper never sends /play
        (summary,) = await asyncio.wait_for(ours, 10)
    (record,) = server.records
    assert record["reason"] == "time" and record["winner"] == 2 and record["clock"]["red"] == 0
    assert summary["colour"] == "blue" and summary["won"] and summary["moves"] == 0


@pytest.mark.slow
async def test_opponent_that_never_plays_loses_on_time_as_blue(serve, runner):
    server, url = await serve(game="gopher", size=4, time=1.0)
    bot = GndBot(game="gopher", server=url, group=1, members="us", password="pw")
    ours = asyncio.ensure_future(play(bot, runner))
    await reached(server.wait_queued(1), "our bot queued in /start", watching=ours)  # queued first: Red
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
        body = gnd.register(99, "sleeper", "zz", ["gopher"]).to_json()
        async with http.post(url + "/register", json=body) as resp:
            token = gnd.parse_token(await resp.json())
        async with http.post(url + "/start", json=gnd.start(token).to_json()) as resp:  # after our first move
            first = await resp.json()
        assert first["Player"] == 2 and not first.get("Finished")
        (summary,) = await asyncio.wait_for(ours, 10)
    (record,) = server.records
    assert record["reason"] == "time" and record["winner"] == 1 and record["clock"]["blue"] == 0
    assert summary["colour"] == "red" and summary["won"] and summary["moves"] == 1


# --- the password stays out of the logs -------------------------------------------------------

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


async def test_password_never_logged(serve, runner, json_logs):
    server, url = await serve(game="gopher", size=3, time=10.0, random=True, rcolor="blue", seed=1)
    bot = GndBot(game="gopher", server=url, group=5, members="loggers", password=PASSWORD)
    (summary,) = await asyncio.wait_for(play(bot, runner), 30)
    assert summary["won"]
    assert PASSWORD not in repr(bot)
    text = json_logs.getvalue()
    events = [json.loads(line)["event"] for line in text.splitlines()]
    assert "registered" in events and "move" in events and "game over" in events  # logs were captured
    assert PASSWORD not in text


# --- fake servers -----------------------------------------------------------------------------

class Fake:
    """A scripted gnd server: each endpoint answers from a list of (status, body) or a callable."""

    def __init__(self, register=None, start=None, play=None) -> None:
        self.scripts = {"/register": register or [(200, {"Token": "tok"})], "/start": start or [], "/play": play or []}
        self.calls: dict[str, list[dict]] = {"/register": [], "/start": [], "/play": []}

    async def handle(self, request: web.Request) -> web.Response:
        path = request.path
        body = await request.json()
        self.calls[path].append(body)
        script = self.scripts[path]
        answer = script(body) if callable(script) else script[min(len(self.calls[path]), len(script)) - 1]
        status, payload = answer
        if isinstance(payload, (dict, list)):
            return web.json_response(payload, status=status)
        return web.Response(status=status, text=payload)

    async def __aenter__(self) -> str:
        app = web.Application()
        app.add_routes([web.post(p, self.handle) for p in ("/register", "/start", "/play")])
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        return f"http://127.0.0.1:{self.runner.addresses[0][1]}/"

    async def __aexit__(self, *exc) -> None:
        await self.runner.cleanup()


def turn(state, us: int, finished: bool = False, winner: int = 0, clock: float = 2.0, game: int = gnd.GOPHER) -> dict:
    return gnd.turn_json(gnd.Turn(game=game, player=us, clocktime=clock, size=state.size,
                                  grid=gnd.grid_pairs(state.cells()), match_token="FAKEMATCH1",
                                  finished=finished, winner=winner), include_result=True)


def few_moves_position(count: int):
    """A Gopher size-3 position, Red to move, with exactly `count` legal moves."""
    for seed in range(1000):
        rng = random.Random(seed)
        s = gopher_rules.start(3)
        while not s.is_terminal():
            if s.to_move == 1 and len(s.legal_moves()) == count and s.red:
                return s
            s = s.play(rng.choice(s.legal_moves()))
    raise AssertionError("no such position")


def sent(body: dict):
    return gnd.decode_action(gnd.GOPHER, body["Action"])


@pytest.fixture
def fast_backoff(monkeypatch):
    original = session_mod.Backoff
    monkeypatch.setattr(session_mod, "Backoff", lambda first=0.5, cap=30.0: original(0.01, 0.05))


async def test_310_retry_excludes_the_refused_action(runner):
    state = few_moves_position(3)
    legal = state.legal_moves()

    def on_play(body):
        if len(fake.calls["/play"]) == 1:
            return 310, "illegal action"
        return 200, turn(state.play(sent(body)), 1, finished=True, winner=1)

    fake = Fake(start=[(200, turn(state, 1))], play=on_play)
    async with fake as url:
        bot = GndBot(game="gopher", server=url, group=1, members="x", password="pw", player="alphabeta")
        (summary,) = await asyncio.wait_for(play(bot, runner), 20)
    first, second = (sent(b) for b in fake.calls["/play"])
    assert first in legal and second in legal and first != second
    assert all(b["Token"] == "tok" and b["Password"] == "" for b in fake.calls["/play"])
    assert summary["refused"] == 1 and summary["moves"] == 1 and summary["won"] and summary["winner"] == 1
    assert "abandoned" not in summary and summary["match"] == "FAKEMATCH1"


async def test_every_action_refused_abandons_the_game(runner):
    state = few_moves_position(3)
    fake = Fake(start=[(200, turn(state, 1))], play=[(310, "illegal action")])
    async with fake as url:
        bot = GndBot(game="gopher", server=url, group=1, members="x", password="pw", player="random")
        (summary,) = await asyncio.wait_for(play(bot, runner), 20)
    actions = [sent(b) for b in fake.calls["/play"]]
    assert sorted(actions) == sorted(state.legal_moves())  # each legal action tried exactly once
    assert "abandoned" in summary and not summary["won"]
    assert summary["refused"] == 3 and summary["moves"] == 0


async def test_a_5xx_on_play_resends_the_same_action(runner, fast_backoff):
    state = few_moves_position(3)

    def on_play(body):
        if len(fake.calls["/play"]) == 1:
            return 502, "bad gateway"
        return 200, turn(state.play(sent(body)), 1, finished=True, winner=1)

    fake = Fake(start=[(200, turn(state, 1))], play=on_play)
    async with fake as url:
        bot = GndBot(game="gopher", server=url, group=1, members="x", password="pw")
        (summary,) = await asyncio.wait_for(play(bot, runner), 20)
    first, second = fake.calls["/play"]
    assert first["Action"] == second["Action"] and summary["won"] and summary["refused"] == 0


async def test_garbage_on_start_is_retried(runner, fast_backoff):
    state = gopher_rules.start(3)
    after = state.play((0, 0))
    fake = Fake(start=[(500, "internal error"), (200, "<html>not json</html>"), (200, {"Game": 7}),
                       (200, turn(state, 1))],
                play=[(200, turn(after, 1, finished=True, winner=1))])
    async with fake as url:
        bot = GndBot(game="gopher", server=url, group=1, members="x", password="pw")
        (summary,) = await asyncio.wait_for(play(bot, runner), 20)
    assert len(fake.calls["/start"]) == 4 and len(fake.calls["/play"]) == 1
    assert sent(fake.calls["/play"][0]) == (0, 0)  # the book move for size 3
    assert summary["won"] and summary["moves"] == 1


async def test_unknown_token_registers_again(runner, fast_backoff):
    state = gopher_rules.start(3)
    fake = Fake(register=[(200, {"Token": "tok"})],
                start=[(401, "unknown token"), (200, turn(state, 1))],
                play=[(200, turn(state.play((0, 0)), 1, finished=True, winner=2))])
    async with fake as url:
        bot = GndBot(game="gopher", server=url, group=4, members="x", password="pw")
        (summary,) = await asyncio.wait_for(play(bot, runner), 20)
    assert len(fake.calls["/register"]) == 2 and len(fake.calls["/start"]) == 2
    assert summary["winner"] == 2 and not summary["won"]


async def test_register_403_is_refused(runner):
    fake = Fake(register=[(403, "bad password")])
    async with fake as url:
        bot = GndBot(game="gopher", server=url, group=1, members="x", password="wrong")
        with pytest.raises(Refused, match="403"):
            await asyncio.wait_for(play(bot, runner), 10)
    (body,) = fake.calls["/register"]  # not retried
    assert body["Id"] == 1 and body["Members"] == "x" and body["Password"] == "wrong"
    assert body["PossibleGames"] == [gnd.GOPHER]


async def test_start_refused_twice_is_refused(runner):
    fake = Fake(start=[(400, "no")])
    async with fake as url:
        bot = GndBot(game="dodo", server=url, group=1, members="x", password="pw")
        with pytest.raises(Refused):
            await asyncio.wait_for(play(bot, runner), 10)
    assert len(fake.calls["/register"]) == 2 and len(fake.calls["/start"]) == 2
    assert fake.calls["/register"][0]["PossibleGames"] == [gnd.DODO]
