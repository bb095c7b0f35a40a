"""What every client session shares, whatever its transport (a binary socket for Twilight,
HTTP long polls for gnd, text lines for CGOS): how a connection ends, which errors are fatal,
one garbage policy, and the runner session each bot plays in.

- `SessionClosed` (a ConnectionError): the connection ended or broke; the daemon retries with
  backoff.  `summaries` are the games the connection finished first, which count.
  `interrupted` is the summary of a game the drop itself ended, where the protocol cannot
  resume one (Twilight: a connection is a game): its result is "unknown", its reason
  "disconnect"; it is logged, but not counted as a game played.
- `Refused`: the server refused us for good (a bad password, an unknown game).
- `fatal(exc)`: what retrying cannot help: a refusal, or a server that keeps sending garbage
  (protocol.errors.ProtocolError, the base of every codec's).  The daemon stops that bot.
- `GarbageGuard`: one garbage policy.  A malformed message is logged and skipped where the
  protocol can find the next one (a line, an HTTP answer); `limit` in a row mean the peer is
  broken (ProtocolError).  A binary stream cannot find the next frame: its limit is 1.
- `Client`: the base of the three kinds: `play()` opens the bot's runner session (its share
  of the workers and its own worker caches, see bots.runner), runs `games()` and returns the
  summaries, attaching them to a SessionClosed raised after some games were finished.  Once
  `stop` is set (the daemon's reload removed or changed the bot) a client plays no new game:
  it returns after the game in progress (`stopping`).
- The events every session logs by these names (bots.monitor reads them): `CONNECTED`,
  `GAME_STARTS`, `MOVE` (bots.decide), `GAME_OVER` (with the summary's fields) and
  `INTERRUPTED` (a drop ended the game in progress).

A summary (one per game, logged as "game over" and printed by `bots play`) says from our side
how the game ended: the result, one of `RESULTS` ("unknown" only when nobody can tell, e.g.
the connection dropped mid-game), under "result" (CGOS keeps the server's result string
there and puts ours under "outcome"); why ("reason"); and the score with where it comes
from ("score_from": "server" when the server announced it, else how we estimated it).
docs/protocols/game-ends.md has each server's ends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
import asyncio
from typing import Any, Callable

from protocol.errors import ProtocolError

from .runner import SearchRunner

CONNECTED, GAME_STARTS, MOVE, GAME_OVER = "connected", "game starts", "move", "game over"
INTERRUPTED = "the connection ended mid-game; its result is unknown"
GARBAGE_LIMIT = 5  # malformed messages in a row before a peer is judged broken
RESULTS = ("won", "lost", "draw", "unknown")  # a game's result, from our side


class SessionClosed(ConnectionError):
    """The connection ended (EOF or broken); `summaries` are the games it finished first."""

    def __init__(self, message: str, summaries: list[dict] | None = None,
                 interrupted: dict | None = None) -> None:
        super().__init__(message)
        self.summaries = list(summaries or [])
        self.interrupted = interrupted


class Refused(Exception):
    """The server refused us for good (e.g. a bad password); retrying cannot help."""


def fatal(exc: BaseException) -> bool:
    """Whether retrying cannot help (the daemon then stops the bot instead of backing off)."""
    return isinstance(exc, (ProtocolError, Refused))


class GarbageGuard:
    """Counts malformed messages in a row; `limit` of them raise `error` (a ProtocolError:
    the codec's own class, so its callers may tell which peer it was).  Each one before is
    logged and skipped (`log` None: the caller logs it)."""

    def __init__(self, log: Any, limit: int = GARBAGE_LIMIT, what: str = "messages",
                 error: type[ProtocolError] = ProtocolError) -> None:
        self.log, self.limit, self.what, self.error = log, limit, what, error
        self.count = 0

    def bad(self, error: Exception | str, **fields: Any) -> None:
        """One malformed message: logged and skipped, or the last straw."""
        self.count += 1
        if self.count >= self.limit:
            raise self.error(f"{self.count} malformed {self.what} in a row: {error}" if self.limit > 1
                             else f"server sent garbage: {error}")
        if self.log is not None:
            self.log.warning(f"malformed {self.what[:-1] if self.what.endswith('s') else self.what} from the "
                             "server; skipped", error=str(error), in_a_row=self.count, **fields)

    def good(self) -> None:
        self.count = 0


class Client(ABC):
    """One bot on one server connection (or HTTP client); subclasses play its games."""

    label = "client"

    def __init__(self, bot: Any, runner: SearchRunner, log: Any,
                 on_state: Callable[[Any], None] | None = None, stop: asyncio.Event | None = None) -> None:
        self.bot, self.runner, self.log, self.on_state, self.stop = bot, runner, log, on_state, stop
        self.summaries: list[dict] = []

    @property
    def stopping(self) -> bool:
        """Asked to play no new game (the game in progress is finished first)."""
        return self.stop is not None and self.stop.is_set()

    async def play(self) -> list[dict]:
        """Play `games()` in the bot's runner session; the summary of every finished game."""
        with self.runner.open_session(f"{self.label} {self.bot.name}"):
            try:
                await self.games()
            except SessionClosed as exc:
                if not exc.summaries and self.summaries:
                    exc.summaries = list(self.summaries)
                raise
        return self.summaries

    @abstractmethod
    async def games(self) -> None:
        """Play until the server is done with us, appending to `self.summaries`."""
