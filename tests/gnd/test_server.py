"""The local gnd server (bots/gnd/server.py) driven over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import random
import string
import time
import urllib.error
import urllib.request

import aiohttp
import pytest
from structlog.testing import capture_logs

from bots.dodo import rules as dodo_rules
from bots.gopher import rules as gopher_rules
from protocol import gnd
from protocol.gnd import decode_action, encode_action, parse_turn
from tests.helpers import reached, until


@pytest.fixture
async def session():
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as s:
        yield s


def rules_for(game: int):
    return gopher_rules if game == gnd.GOPHER else dodo_rules


def state_of(body: dict):
    turn = parse_turn(body)
    return rules_for(turn.game).State.from_cells(turn.size, turn.cells(), turn.player)


def random_action(body: dict, rng: random.Random) -> list[str]:
    """A uniformly random legal move computed from the received grid with our rules."""
    turn = parse_turn(body)
    return list(encode_action(turn.game, rng.choice(state_of(body).legal_moves())))


class Client:
    def __init__(self, session: aiohttp.ClientSession, base: str, ident: int, members: str,
                 password: str = "pw") -> None:
        self.session, self.base = session, base
        self.ident, self.members, self.password = ident, members, password
        self.token = ""

    async def post(self, path: str, body) -> tuple[int, object]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        async with self.session.post(self.base + path, data=data,
                                     headers={"Content-Type": "application/json"}) as resp:
            text = await resp.text()
            if resp.status == 200:
                return 200, json.loads(text)
            return resp.status, text

    async def register(self) -> str:
        status, body = await self.post("/register", gnd.register(self.ident, self.members, self.password,
                                                                  [1, 0]).to_json())
        assert status == 200, body
        self.token = gnd.parse_token(body)
        return self.token

    async def start(self) -> tuple[int, object]:
        return await self.post("/start", gnd.start(self.token).to_json())

    async def play(self, action) -> tuple[int, object]:
        return await self.post("/play", gnd.play(self.token, action).to_json())

    async def play_game(self, rng: random.Random, first: dict | None = None) -> tuple[dict, list[dict]]:
        """From /start (or the given /start answer) to Finished with random legal moves."""
        if first is None:
            status, first = await self.start()
            assert status == 200, first
        seen = [first]
        body = first
        while not body.get("Finished"):
            assert body["Player"] == first["Player"]
            status, body = await self.play(random_action(body, rng))
            assert status == 200, body
            seen.append(body)
        return body, seen


async def pair(session, base, server) -> tuple[Client, Client, asyncio.Task]:
    """Register red and blue; red's /start is queued first.  Returns the task of red's /start."""
    red, blue = Client(session, base, 1, "red team"), Client(session, base, 2, "blue team")
    await red.register()
    await blue.register()
    red_start = asyncio.create_task(red.start())
    await reached(server.wait_queued(1), "red queued in /start", watching=red_start)
    return red, blue, red_start


def replay(record: dict, initial):
    state = initial
    for strings in record["moves"]:
        state = state.play(decode_action(gnd.game_number(record["game"]), strings))
    return state


# --- registration ---------------------------------------------------------------------------

async def test_register_tokens_and_passwords(serve, session):
    server, base = await serve(game="gopher", size=3, time=10)
    a = Client(session, base, 12, "toto", "totovelo")
    with capture_logs() as logs:
        token = await a.register()
    assert len(token) == 50 and all(c in string.ascii_letters + string.digits for c in token)
    assert await a.register() == token  # same Id, members and password: same token
    assert "totovelo" not in repr(logs) and "totovelo" not in repr(server._by_id)
    status, text = await Client(session, base, 12, "toto", "wrong").post(
        "/register", gnd.register(12, "toto", "wrong", [0]).to_json())
    assert status == 403 and "bad password" in text
    other = await Client(session, base, 13, "titi").register()
    assert other != token


async def test_unknown_token_is_401(serve, session):
    _, base = await serve(game="gopher", size=3, time=10)
    c = Client(session, base, 1, "x")
    c.token = "nope"
    for path in ("/start", "/play"):
        status, text = await c.post(path, gnd.play("nope", ["(0, 0)"]).to_json())
        assert status == 401 and "token" in text


async def test_garbage_bodies_are_400_and_the_server_keeps_serving(serve, session):
    server, base = await serve(game="gopher", size=3, time=10, random=True, rcolor="blue", seed=1)
    c = Client(session, base, 5, "after garbage")
    for path in ("/register", "/start", "/play"):
        for body in (b"not json", b"\xff\xfe\x00", b"[1, 2]", b'"x"', b"", b'{"Id": "12"}',
                     b'{"Action": "(0, 0)"}', b'{"PossibleGames": [true]}', b"[" * 100000):
            status, text = await c.post(path, body)
            assert status == 400, (path, body[:20], status)
            assert isinstance(text, str) and text.strip()
    async with session.get(base + "/start") as resp:
        assert resp.status == 405
    await c.register()
    final, _ = await c.play_game(random.Random(2))
    assert final["Finished"] and len(server.records) == 1


# --- two clients ----------------------------------------------------------------------------

@pytest.mark.parametrize(("game", "size"), [("gopher", 3), ("gopher", 4), ("dodo", 4)])
async def test_two_clients_play_a_whole_game(serve, session, game, size):
    plies = []
    server, base = await serve(game=game, size=size, time=30, seed=3, on_ply=plies.append)
    red, blue, red_start = await pair(session, base, server)
    blue_start = asyncio.create_task(blue.start())
    status, red_first = await red_start
    assert status == 200 and red_first["Player"] == 1 and red_first["Game"] == gnd.game_number(game)
    assert "Finished" not in red_first and len(red_first["MatchToken"]) == 10
    assert 29 < red_first["Clocktime"] <= 30
    initial = server.config.initial()
    assert state_of(red_first) == initial  # Gopher: an empty board for Red's first move
    assert not blue_start.done()  # blue waits for red's first move
    async def blue_game():
        status, first = await blue_start
        assert status == 200, first
        return await blue.play_game(random.Random(5), first)

    (red_final, red_seen), (blue_final, blue_seen) = await asyncio.gather(
        red.play_game(random.Random(4), red_first), blue_game())
    assert blue_seen[0]["Player"] == 2 and blue_seen[0]["MatchToken"] == red_first["MatchToken"]
    assert sum(v != 0 for v in parse_turn(blue_seen[0]).cells().values()) == sum(
        v != 0 for v in parse_turn(red_first).cells().values()) + (1 if game == "gopher" else 0)
    assert red_final["Winner"] == blue_final["Winner"] in (1, 2)
    assert red_final["FinalScore"] == blue_final["FinalScore"] == (1 if red_final["Winner"] == 1 else -1)
    assert red_final["Grid"] == blue_final["Grid"]
    (record,) = server.records
    assert record["game"] == game and record["size"] == size and record["match"] == red_first["MatchToken"]
    assert (record["red"], record["blue"]) == ("red team", "blue team")
    assert record["reason"] == "no move" and record["winner"] == red_final["Winner"]
    assert record["winner_name"] == ("red team" if record["winner"] == 1 else "blue team")
    assert record["plies"] == len(record["moves"]) == len(plies) - 1
    assert record["illegal"] == {"red": 0, "blue": 0}
    assert len(record["latencies"]["red"]) + len(record["latencies"]["blue"]) == record["plies"]
    assert 0 < record["clock"]["red"] <= 30 and 0 < record["clock"]["blue"] <= 30
    final = replay(record, initial)
    assert final == plies[-1] and final.is_terminal() and final.winner() == record["winner"]
    assert parse_turn(red_final).cells() == final.cells()
    json.dumps(record)


async def test_illegal_actions_get_310_and_change_nothing(serve, session):
    server, base = await serve(game="gopher", size=3, time=60, penalty=5)
    red, blue, red_start = await pair(session, base, server)
    blue_start = asyncio.create_task(blue.start())
    await red_start
    red_play = asyncio.create_task(red.play(["(0, 0)"]))
    status, blue_first = await blue_start
    assert status == 200 and parse_turn(blue_first).cells()[(0, 0)] == 1
    for bad in (["(0, 0)"], ["(2, 2)"], ["(5, 5)"], ["0,0"], [], ["(1, 1)", "(1, 0)"]):
        status, text = await blue.play(bad)  # occupied, not touching red, off board, garbage, shapes
        assert status == gnd.ILLEGAL_ACTION and "illegal" in text, (bad, status, text)
    status, text = await red.play(["(1, 0)"])  # red's /play is pending: not its turn
    assert status == gnd.ILLEGAL_ACTION and "not your turn" in text
    assert not red_play.done()
    blue_play = asyncio.create_task(blue.play(["(1, 1)"]))  # legal: answered after red's reply
    status, red_view = await red_play
    assert status == 200
    cells = parse_turn(red_view).cells()
    assert cells[(0, 0)] == 1 and cells[(1, 1)] == 2 and sum(v != 0 for v in cells.values()) == 2
    assert 50 < red_view["Clocktime"] <= 55  # one out-of-turn penalty, charged on red's next turn
    async def blue_game():
        status, after = await blue_play
        assert status == 200, after
        return await blue.play_game(random.Random(2), after)

    await asyncio.gather(red.play_game(random.Random(1), red_view), blue_game())
    (record,) = server.records
    assert record["illegal"] == {"red": 1, "blue": 6}
    assert record["clock"]["blue"] <= 60 - 6 * 5


async def test_penalty_can_flag_the_offender(serve, session):
    server, base = await serve(game="gopher", size=3, time=5, penalty=10)
    red, blue, red_start = await pair(session, base, server)
    blue_start = asyncio.create_task(blue.start())
    await red_start
    status, _ = await red.play(["(9, 9)"])
    assert status == 310
    status, body = await blue_start  # red flagged before blue ever had the turn
    assert status == 200 and body["Finished"] and body["Winner"] == 2
    status, body = await red.play(["(0, 0)"])
    assert status == 200 and body["Finished"] and body["Winner"] == 2 and body["FinalScore"] == -1
    assert server.records[0]["reason"] == "time" and server.records[0]["illegal"]["red"] == 1


async def test_flag_fall_ends_the_game_at_once(serve, session):
    server, base = await serve(game="gopher", size=3, time=0.5)
    red, blue, red_start = await pair(session, base, server)
    blue_start = asyncio.create_task(blue.start())
    await red_start
    t0 = time.monotonic()
    red_play = asyncio.create_task(red.play(["(0, 0)"]))
    status, blue_first = await blue_start
    assert status == 200 and not blue_first.get("Finished")
    status, body = await red_play  # blue never plays: red's long poll returns when blue's flag falls
    elapsed = time.monotonic() - t0
    assert status == 200 and body["Finished"] and body["Winner"] == 1 and body["FinalScore"] == 1
    assert 0.4 < elapsed < 1.5
    status, late = await blue.play(["(1, 1)"])  # the flagged player's next /play: the final state
    assert status == 200 and late["Finished"] and late["Winner"] == 1 and late["Clocktime"] == 0.0
    assert parse_turn(late).cells()[(1, 1)] == 0
    (record,) = server.records
    assert record["reason"] == "time" and record["winner"] == 1 and record["winner_name"] == "red team"
    assert record["clock"]["blue"] == 0.0 and record["clock"]["red"] > 0.3 and record["plies"] == 1


async def test_red_flags_before_blue_ever_moves(serve, session):
    server, base = await serve(game="dodo", size=4, time=0.3)
    red, blue, red_start = await pair(session, base, server)
    blue_start = asyncio.create_task(blue.start())
    await red_start
    status, body = await blue_start
    assert status == 200 and body["Player"] == 2 and body["Finished"] and body["Winner"] == 2
    assert server.records[0]["reason"] == "time" and server.records[0]["plies"] == 0


async def test_start_rules_and_token_reuse(serve, session):
    server, base = await serve(game="gopher", size=3, time=10, random=True, seed=7)
    c = Client(session, base, 9, "solo")
    await c.register()
    status, first = await c.start()
    assert status == 200 and first["Player"] == 1  # rcolor None: the virtual player is blue first
    status, text = await c.start()
    assert status == 400 and "already in a match" in text
    await c.play_game(random.Random(1), first)
    final, seen = await c.play_game(random.Random(2))  # the same token, the next game
    assert seen[0]["Player"] == 2  # ... then red
    assert final["Finished"]
    assert [r["red"] for r in server.records] == ["solo", "Virtual"]
    other = Client(session, base, 10, "nowhere")
    await other.register()
    status, text = await other.play(["(0, 0)"])
    assert status == 400 and "/start" in text


@pytest.mark.parametrize(("game", "rcolor"), [("gopher", "red"), ("gopher", "blue"),
                                              ("dodo", "red"), ("dodo", "blue")])
async def test_random_opponent(serve, session, game, rcolor):
    server, base = await serve(game=game, size=4, time=10, random=True, rcolor=rcolor, seed=11)
    c = Client(session, base, 3, "us")
    await c.register()
    final, seen = await c.play_game(random.Random(3))
    ours = 2 if rcolor == "red" else 1
    assert all(b["Player"] == ours for b in seen)
    if rcolor == "red":  # the virtual player has moved before our /start returned
        assert replay({"game": game, "moves": server.records[0]["moves"][:1]}, server.config.initial()) \
            == state_of(seen[0])
    (record,) = server.records
    assert record[rcolor] == "Virtual" and record["blue" if rcolor == "red" else "red"] == "us"
    assert record["winner"] == final["Winner"]
    assert replay(record, server.config.initial()).cells() == parse_turn(final).cells()


async def test_game_limit_and_close(serve, session):
    server, base = await serve(game="gopher", size=3, time=10, random=True, games=1, seed=1)
    c = Client(session, base, 1, "one")
    await c.register()
    await c.play_game(random.Random(1))
    status, text = await c.start()
    assert status == 503 and "limit" in text
    assert await server.wait_games(1) == server.records

    server2, base2 = await serve(game="dodo", size=4, time=10)
    lonely = Client(session, base2, 1, "lonely")
    await lonely.register()
    pending = asyncio.create_task(lonely.start())
    await reached(server2.wait_queued(1), "the lonely client queued in /start", watching=pending)
    t0 = time.monotonic()
    await server2.close()
    status, _ = await pending
    assert status == 503 and time.monotonic() - t0 < 1.5


async def test_queued_client_that_leaves_is_not_paired(serve, session):
    server, base = await serve(game="gopher", size=3, time=10)
    ghost = Client(session, base, 1, "ghost")
    await ghost.register()
    task = asyncio.create_task(ghost.start())
    await reached(server.wait_queued(1), "the ghost queued in /start", watching=task)
    task.cancel()  # the client closes its connection
    await until(lambda: server.waiting() == 0, what="the server noticed that the ghost left its queue")
    red, blue, red_start = await pair(session, base, server)
    blue_start = asyncio.create_task(blue.start())
    status, first = await red_start
    assert status == 200 and first["Player"] == 1
    async def blue_game():
        return await blue.play_game(random.Random(2), (await blue_start)[1])

    await asyncio.gather(red.play_game(random.Random(1), first), blue_game())
    assert server.records[0]["red"] == "red team"


# --- the official client's call sequence ----------------------------------------------------

def official_like_client(base: str, rng: random.Random) -> tuple[dict, int]:
    """The gndclient.py sequence with urllib: register, start, then play with 310 retries.

    The first action it sends is deliberately off the board, to go through the retry path.
    """
    empty = {"Token": "", "PossibleGames": [], "Id": 0, "Members": "", "Password": "", "Action": []}

    def post(command: str, data: dict) -> dict:
        req = urllib.request.Request(f"{base.strip('/')}/{command}", data=json.dumps(data).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    data = dict(empty, Id=int("12"), Members="toto", Password="totovelo", PossibleGames=[1, 0])
    token = post("register", data)["Token"]
    info = post("start", dict(empty, Token=token))
    grid = {tuple(int(x) for x in k.strip("()").split(",")): v for k, v in info["Grid"]["Grid"].items()}
    player, game, size = info["Player"], info["Game"], info["Grid"]["Size"]
    illegal = 0
    finished = False
    resp = info
    first = True
    while not finished:
        state = rules_for(game).State.from_cells(size, grid, player)
        action = (size + 5, size + 5) if first else rng.choice(state.legal_moves())
        if game == gnd.DODO and first:
            action = (action, action)
        first = False
        strings = [str(action)] if isinstance(action[0], int) else [str(c) for c in action]
        try:
            resp = post("play", dict(empty, Token=token, Action=strings))
        except urllib.error.HTTPError as exc:
            assert exc.code == 310, exc.code
            illegal += 1
            continue
        grid = {tuple(int(x) for x in k.strip("()").split(",")): v for k, v in resp["Grid"]["Grid"].items()}
        player, finished = resp["Player"], resp["Finished"]
        assert isinstance(resp["Clocktime"], float) and resp["Winner"] in (0, 1, 2)
        assert isinstance(resp["FinalScore"], int)
    return resp, illegal


@pytest.mark.parametrize("game", ["gopher", "dodo"])
async def test_official_client_sequence_against_the_random_player(serve, game):
    server, base = await serve(game=game, size=4, time=10, random=True, rcolor="blue", seed=5)
    final, illegal = await asyncio.to_thread(official_like_client, base + "/", random.Random(6))
    assert final["Finished"] and final["Winner"] in (1, 2) and illegal == 1
    (record,) = server.records
    assert record["red"] == "toto" and record["blue"] == "Virtual" and record["illegal"]["red"] == 1
