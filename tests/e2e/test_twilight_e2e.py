"""Client and referee over 127.0.0.1 on ephemeral ports: real games, bad peers."""

import asyncio

import pytest

from bots.twilight.maps import load_map
from bots.twilight.referee import Referee, RefereeConfig
from bots.twilight.rules import Species, apply_update, state_from_cells, validate
from bots.twilight.session import SessionClosed, TwilightBot, play
from protocol.twilight import (
    CLIENT_FRAMES, Bye, Cell, Decoder, End, Hme, Hum, Map, Mov, Move, Nme, ProtocolError, Set, Upd, encode,
)
from tests.helpers import reached, until

pytestmark = pytest.mark.e2e


async def referee_for(map_name, **kw):
    config = RefereeConfig(load_map(map_name), map_name, **kw)
    referee = Referee(config)
    port = await referee.start()
    return referee, port


async def test_two_games_on_one_connection_end_set_then_bye(runner):
    referee, port = await referee_for("thetrap", move_timeout=0.5, games=2, seed=3)
    a = TwilightBot(name="A", port=port, player="expecti", move_time=0.5, overhead=0.15)
    b = TwilightBot(name="B", port=port, player="greedy", move_time=0.5, overhead=0.15)
    first = asyncio.ensure_future(play(a, runner))
    await reached(referee.connected(1), "the referee accepted A's connection", watching=first)  # A: vampires
    ga, gb = await asyncio.wait_for(asyncio.gather(first, play(b, runner)), 120)
    await referee.close()
    assert len(ga) == len(gb) == 2  # END, SET (second game), END, BYE
    assert [g["species"] for g in ga] == ["vampires", "werewolves"]  # first connection: vampires
    assert [g["species"] for g in gb] == ["werewolves", "vampires"]
    assert [r["players"]["vampires"] for r in referee.records] == ["A", "B"]
    for record in referee.records:
        assert record["violations"] == []
        assert record["timeouts"] == {"vampires": 0, "werewolves": 0}
        assert record["reason"] in ("elimination", "max plies")
        assert max(record["latencies"]["vampires"] + record["latencies"]["werewolves"]) < 0.5


class ScriptedServer:
    """A fake server driven by the test: it sees our client's frames as events."""

    def __init__(self):
        self.conn = asyncio.get_running_loop().create_future()

    async def start(self):
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _accept(self, reader, writer):
        self.conn.set_result((reader, writer))

    async def next_event(self, decoder, reader):
        while (event := decoder.next_event()) is None:
            data = await asyncio.wait_for(reader.read(4096), 5)
            assert data, "client closed"
            decoder.feed(data)
        return event

    async def close(self):
        self.server.close()


SETUP_CELLS = (Cell(2, 0, 3, 0, 0), Cell(0, 1, 0, 4, 0), Cell(3, 2, 0, 0, 4))


async def test_session_against_scripted_server_byte_by_byte(runner):
    server = ScriptedServer()
    port = await server.start()
    bot = TwilightBot(name="scripted", port=port, player="expecti", move_time=1.0, overhead=0.3)
    task = asyncio.ensure_future(play(bot, runner))
    reader, writer = await server.conn
    dec = Decoder(CLIENT_FRAMES)
    assert await server.next_event(dec, reader) == Nme("scripted")
    state = state_from_cells(3, 4, SETUP_CELLS)
    stream = (encode(Set(3, 4)) + encode(Hum(((2, 0),))) + encode(Hme(0, 1)) + encode(Map(SETUP_CELLS))
              + encode(Upd(())))
    for i in range(len(stream)):  # the worst split: one byte per write
        writer.write(stream[i:i + 1])
        await writer.drain()
    mov = await server.next_event(dec, reader)
    assert isinstance(mov, Mov)
    validate(state, Species.VAMPIRES, mov.moves)  # we are vampires: the HME cell holds vampires
    # A second turn after an update, then END + SET: a new game on the same socket.
    after = state.play(mov.moves)
    touched = {(m.x_from, m.y_from) for m in mov.moves} | {(m.x_to, m.y_to) for m in mov.moves}
    writer.write(encode(Upd(tuple(after.cell(x, y) for x, y in sorted(touched)))))
    await writer.drain()
    mov2 = await server.next_event(dec, reader)
    validate(apply_update(state, [after.cell(x, y) for x, y in touched], Species.VAMPIRES, 2),
             Species.VAMPIRES, mov2.moves)
    writer.write(encode(End()) + encode(Set(3, 4)) + encode(Hum(((2, 0),))) + encode(Hme(3, 2))
                 + encode(Map(SETUP_CELLS)))
    await writer.drain()
    writer.write(encode(Upd(())))
    await writer.drain()
    mov3 = await server.next_event(dec, reader)
    validate(state._replace(to_move=Species.WEREWOLVES), Species.WEREWOLVES, mov3.moves)
    writer.write(encode(End()) + encode(Bye()))
    await writer.drain()
    summaries = await asyncio.wait_for(task, 5)
    assert [s["species"] for s in summaries] == ["vampires", "werewolves"]
    await server.close()


async def test_garbage_from_server_raises_protocol_error(runner):
    server = ScriptedServer()
    port = await server.start()
    task = asyncio.ensure_future(play(TwilightBot(port=port, player="greedy"), runner))
    reader, writer = await server.conn
    writer.write(b"XYZ\x01\x02")
    await writer.drain()
    with pytest.raises(ProtocolError):
        await asyncio.wait_for(task, 5)
    await server.close()


async def test_server_closing_mid_game_raises_session_closed(runner):
    server = ScriptedServer()
    port = await server.start()
    task = asyncio.ensure_future(play(TwilightBot(port=port, player="greedy"), runner))
    reader, writer = await server.conn
    writer.write(encode(Set(3, 4)) + encode(Hum(())) + encode(Hme(0, 1)) + encode(Map(SETUP_CELLS)))
    await writer.drain()
    writer.close()
    with pytest.raises(SessionClosed):
        await asyncio.wait_for(task, 5)
    await server.close()


@pytest.mark.parametrize("script, message", [
    (lambda: encode(Set(3, 4)), "before the game started"),  # SET, then closed before MAP
    (lambda: encode(Set(3, 4)) + encode(Bye()), "before the game started"),
    (lambda: b"", "before any game started"),  # accepted, then closed
    (lambda: encode(Bye()), "before any game started"),
])
async def test_a_game_that_never_started_is_a_failure(runner, script, message):
    server = ScriptedServer()
    port = await server.start()
    task = asyncio.ensure_future(play(TwilightBot(port=port, player="greedy"), runner))
    reader, writer = await server.conn
    writer.write(script())
    await writer.drain()
    writer.close()
    with pytest.raises(SessionClosed, match=message):
        await asyncio.wait_for(task, 5)
    await server.close()


async def test_bye_without_end_ends_the_game_as_go_servers_do(runner):
    server = ScriptedServer()
    port = await server.start()
    task = asyncio.ensure_future(play(TwilightBot(port=port, player="greedy"), runner))
    reader, writer = await server.conn
    writer.write(encode(Set(3, 4)) + encode(Hum(())) + encode(Hme(0, 1)) + encode(Map(SETUP_CELLS)) + encode(Bye()))
    await writer.drain()
    summaries = await asyncio.wait_for(task, 5)
    assert [s["species"] for s in summaries] == ["vampires"]
    await server.close()


class RawClient:
    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port, name):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(encode(Nme(name)))
        await writer.drain()
        return cls(reader, writer)

    async def until_upd(self):
        from protocol.twilight import SERVER_FRAMES
        dec = Decoder(SERVER_FRAMES)
        while True:
            for event in dec.events():
                if isinstance(event, Upd):
                    return event
            data = await asyncio.wait_for(self.reader.read(4096), 5)
            assert data
            dec.feed(data)


async def play_one_bad_game(send):
    """First connection (vampires) misbehaves with `send`; returns the referee's record."""
    referee, port = await referee_for("thetrap", move_timeout=0.3, games=1, max_plies=4)
    bad = await RawClient.connect(port, "bad")
    await reached(referee.connected(1), "the referee accepted the first connection (vampires)")
    _good = await RawClient.connect(port, "good")  # the other side, connected for the whole game
    await bad.until_upd()
    await send(bad.writer)
    await until(lambda: referee.records, what="the referee's record of the game")
    await referee.close()
    return referee.records[0]


@pytest.mark.parametrize("payload, reason", [
    (encode(Mov((Move(4, 3, 4, 4, 1),))), "illegal move"),  # two cells away
    (encode(Mov(())), "illegal move"),  # zero moves
    (encode(Mov((Move(4, 3, 2, 4, 2), Move(4, 2, 1, 3, 2)))), "illegal move"),  # source and target
    (b"ATK\x00", "protocol error"),
    (encode(Nme("again")), "protocol error"),
])
async def test_rule_breakers_lose(payload, reason):
    async def send(writer):
        writer.write(payload)
        await writer.drain()
    record = await play_one_bad_game(send)
    assert record["reason"] == reason
    assert record["winner_name"] == "good"
    assert record["violations"][0]["species"] == "vampires"


async def test_timeout_skips_the_ply_without_losing():
    referee, port = await referee_for("thetrap", move_timeout=0.2, games=1, max_plies=2)
    slow = await RawClient.connect(port, "slow")
    await reached(referee.connected(1), "the referee accepted the first connection (vampires)")
    fast = await RawClient.connect(port, "fast")
    await slow.until_upd()
    upd = await fast.until_upd()  # arrives after the time-out: the ply passed to werewolves
    fast.writer.write(encode(Mov((Move(4, 1, 4, 5, 1),))))
    await fast.writer.drain()
    await until(lambda: referee.records, what="the referee's record of the game")
    await referee.close()
    record = referee.records[0]
    assert upd.cells == ()  # nobody has touched a cell yet
    assert record["timeouts"] == {"vampires": 1, "werewolves": 0}
    assert record["violations"] == [] and record["reason"] == "max plies"
    assert record["winner"] is None  # 4 against 4 at the ply limit: a draw


async def test_disconnect_loses():
    async def send(writer):
        writer.close()
    record = await play_one_bad_game(send)
    assert record["reason"] == "disconnect" and record["winner_name"] == "good"
