"""One bot keeps playing: its game's session, again and again, with retries and backoff.

Each game's session module (bots.registry: Game.session) has `play(bot, runner, log=...) ->
[summary per game]`; bots.session.fatal says which errors retrying cannot help.  A session may play one
connection's games (Twilight: the official server plays one game per connection) or
`bot.games` games itself (gnd, CGOS: the bot value then has a `games` field, set here to the
games still owed).  A dropped connection's error may carry the games finished before the
drop (`summaries`); they count.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import structlog

from . import registry
from .backoff import Backoff
from .runner import SearchRunner
from .session import fatal

log = structlog.get_logger("bots.daemon")


@dataclass(frozen=True)
class BotSettings:
    """One bot of the daemon: its game, its bot value (the game's session module makes it:
    bot_from_table), and how many games it plays (0: forever)."""

    game: str
    bot: Any
    games: int = 0


async def keep_playing(entry: BotSettings, runner: SearchRunner, backoff: Backoff | None = None,
                       pause: float = 1.0, on_game: Callable[[dict], None] | None = None) -> int:
    """Play games with one bot until it has played `entry.games` (forever if 0); `on_game`
    gets each finished game's summary.  Returns the games played."""
    game, bot, games = entry.game, entry.bot, entry.games
    session = registry.get(game).module("session")
    counts_games = "games" in {f.name for f in dataclasses.fields(bot)}
    blog = log.bind(bot=bot.name, game=game, server=bot.address)
    backoff = backoff or Backoff()
    played = 0
    while True:
        try:
            if counts_games and games:
                bot = dataclasses.replace(bot, games=games - played)  # only the games still owed
            summaries = await session.play(bot, runner, log=blog)
            for summary in summaries if on_game else ():
                on_game(summary)
            played += len(summaries)
            backoff.reset()
            if games and played >= games:
                blog.info("bot finished its games", games=played)
                return played
            delay = pause
        except Exception as exc:
            if fatal(exc):
                blog.error("server sent garbage or refused us; this bot stops", error=str(exc))
                return played
            if not isinstance(exc, (OSError, ConnectionError)):  # a bug: it must not take the other bots down
                delay = backoff.next()
                blog.exception("session failed; retrying", error=str(exc), retry_in=round(delay, 2))
                await asyncio.sleep(delay)
                continue
            done = getattr(exc, "summaries", ())  # games completed before the drop (SessionClosed)
            for summary in done if on_game else ():
                on_game(summary)
            played += len(done)
            if done:
                backoff.reset()
                if games and played >= games:
                    blog.info("bot finished its games", games=played)
                    return played
            delay = backoff.next()
            blog.warning("server unreachable or dropped; retrying", error=str(exc) or type(exc).__name__,
                         retry_in=round(delay, 2))
        await asyncio.sleep(delay)
