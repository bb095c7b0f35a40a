"""The daemon: every configured bot on one uvloop event loop, sharing one SearchRunner.

Each bot is one task and an error boundary: garbage from its server stops that bot
only; a server that is down or drops mid-game is retried with exponential backoff; a
finished game is followed by a new connection (the official server plays one game
per connection).  SIGTERM or SIGINT stops every bot (sockets closed, workers stopped,
exit 0); a second signal exits at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
from typing import Callable

import structlog

from protocol import cgos, gnd, twilight

from .backoff import Backoff
from .runner import SearchRunner
from .settings import BotSettings, Settings
from .gnd import session as gnd_session
from .go import cgos_session
from .twilight import session as twilight_session

log = structlog.get_logger("bots.daemon")

# Each game's session module: `play(bot, runner, log=...) -> [summary per game]`.  The Twilight
# session plays one connection's games; the gnd session plays `bot.games` games itself
# (retrying the network on its own) and returns only when they are done; the CGOS session
# plays `bot.games` games on one connection (forever if 0), and when the connection drops
# its error carries the games finished on it (`summaries`), which count.
SESSIONS = {"twilight": twilight_session, "gopher": gnd_session, "dodo": gnd_session, "go": cgos_session}
FATAL = (twilight.ProtocolError, gnd.ProtocolError, gnd_session.Refused,  # retrying cannot help
         cgos.ProtocolError, cgos_session.Refused)


async def keep_playing(entry: BotSettings, runner: SearchRunner, backoff: Backoff | None = None,
                       pause: float = 1.0, on_game: Callable[[dict], None] | None = None) -> int:
    """Play games with one bot until it has played `entry.games` (forever if 0); `on_game`
    gets each finished game's summary."""
    bot = entry.bot
    server = bot.server if entry.game in ("gopher", "dodo") else f"{bot.host}:{bot.port}"
    blog = log.bind(bot=bot.name, game=entry.game, server=server)
    backoff = backoff or Backoff()
    played = 0
    while True:
        try:
            if entry.game != "twilight" and entry.games:
                bot = dataclasses.replace(bot, games=entry.games - played)  # only the games still owed
            summaries = await SESSIONS[entry.game].play(bot, runner, log=blog)
            for summary in summaries if on_game else ():
                on_game(summary)
            played += len(summaries)
            backoff.reset()
            if entry.games and played >= entry.games:
                blog.info("bot finished its games", games=played)
                return played
            delay = pause
        except FATAL as exc:
            blog.error("server sent garbage or refused us; this bot stops", error=str(exc))
            return played
        except (OSError, ConnectionError) as exc:  # includes SessionClosed
            done = getattr(exc, "summaries", ())  # games completed before the drop
            for summary in done if on_game else ():
                on_game(summary)
            finished = len(done)
            if finished:
                played += finished
                backoff.reset()
                if entry.games and played >= entry.games:
                    blog.info("bot finished its games", games=played)
                    return played
            delay = backoff.next()
            blog.warning("server unreachable or dropped; retrying", error=str(exc) or type(exc).__name__,
                         retry_in=round(delay, 2))
        except Exception as exc:  # a bug must not take the other bots down
            delay = backoff.next()
            blog.exception("session failed; retrying", error=str(exc), retry_in=round(delay, 2))
        await asyncio.sleep(delay)


async def run(settings: Settings) -> int:
    """Run every bot until they finish or a signal arrives; the exit code."""
    loop = asyncio.get_running_loop()
    runner = SearchRunner(settings.workers, settings.grace, games={b.game for b in settings.bots})
    tasks: list[asyncio.Task] = []
    signals = 0

    def on_signal(signum: int) -> None:
        nonlocal signals
        signals += 1
        if signals > 1:
            log.warning("second signal: exiting now", signal=signal.Signals(signum).name)
            runner.kill()  # no orphaned workers
            os._exit(1)
        log.info("signal received: stopping every bot", signal=signal.Signals(signum).name)
        for task in tasks:
            task.cancel()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        await runner.start()
        if signals:  # stopped while the pool was warming up
            return 0
        log.info("daemon started", bots=[b.bot.name for b in settings.bots], workers=runner.workers)
        async with asyncio.TaskGroup() as group:
            tasks += [group.create_task(keep_playing(b, runner), name=b.bot.name) for b in settings.bots]
    finally:
        runner.close()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        log.info("daemon stopped")
    return 0
