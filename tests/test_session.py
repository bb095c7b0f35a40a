"""bots.session: one garbage policy, one fatal-or-retry predicate, one client base."""

from __future__ import annotations

import asyncio

import pytest

from bots.runner import SearchRunner
from bots.session import GARBAGE_LIMIT, Client, GarbageGuard, Refused, SessionClosed, fatal
from protocol import cgos, gnd, gtp, twilight
from protocol.errors import ProtocolError


class Log:
    def __init__(self):
        self.warnings = []

    def warning(self, event, **kw):
        self.warnings.append((event, kw))


@pytest.mark.parametrize("error", [twilight.ProtocolError, gnd.ProtocolError, cgos.ProtocolError, gtp.ProtocolError,
                                   ProtocolError])
def test_every_codecs_garbage_and_a_refusal_are_fatal(error):
    assert fatal(error("garbage")) and fatal(Refused("bad password"))


@pytest.mark.parametrize("exc", [SessionClosed("eof"), ConnectionResetError(), TimeoutError(), OSError("down"),
                                 ValueError("a bug"), twilight.UsageError("ours")])
def test_drops_and_bugs_are_retried(exc):
    assert not fatal(exc)


def test_garbage_is_skipped_until_the_limit_in_a_row():
    log = Log()
    guard = GarbageGuard(log, what="lines", error=cgos.ProtocolError)
    for _ in range(GARBAGE_LIMIT - 1):
        guard.bad("junk")
    guard.good()  # a good message resets the count
    for _ in range(GARBAGE_LIMIT - 1):
        guard.bad("junk")
    assert len(log.warnings) == 2 * (GARBAGE_LIMIT - 1)
    assert log.warnings[0][0] == "malformed line from the server; skipped"
    with pytest.raises(cgos.ProtocolError, match=f"{GARBAGE_LIMIT} malformed lines in a row: junk"):
        guard.bad("junk")


def test_a_binary_stream_stops_at_its_first_garbage():
    with pytest.raises(twilight.ProtocolError, match="server sent garbage: bad frame"):
        GarbageGuard(Log(), limit=1, error=twilight.ProtocolError).bad("bad frame")


class Dropping(Client):
    """Finishes two games, then loses the connection."""

    label = "test"

    async def games(self) -> None:
        self.sessions = (self.runner.session(), self.runner.share())
        self.summaries += [{"game": 1}, {"game": 2}]
        raise SessionClosed("server closed the connection mid-game")


async def test_a_client_plays_in_its_own_runner_session_and_a_drop_keeps_its_games():
    runner = SearchRunner(2)  # never started: sessions need no workers
    bot = type("Bot", (), {"name": "b"})()
    client = Dropping(bot, runner, Log())
    with pytest.raises(SessionClosed) as info:
        await client.play()
    assert info.value.summaries == [{"game": 1}, {"game": 2}]
    session, share = client.sessions
    assert session.label == "test b" and share == 2 and not session.open  # closed on the way out
    other = asyncio.current_task()
    assert runner.session() is not session and other is not None
