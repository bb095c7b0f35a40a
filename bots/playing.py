"""One bot keeps playing: its game's session, again and again, with retries and backoff; and
`bots play GAME`, which is exactly that with one bot (the daemon's path, bots.daemon).

Each game's session module (bots.registry: Game.session) has `play(bot, runner, log=...) ->
[summary per game]`; bots.session.fatal says which errors retrying cannot help.  A session may play one
connection's games (Twilight: the official server plays one game per connection) or
`bot.games` games itself (gnd, CGOS: the bot value then has a `games` field, set here to the
games still owed).  A dropped connection's error may carry the games finished before the
drop (`summaries`); they count.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Callable

import structlog

from . import registry
from .backoff import Backoff
from .cmdline import (UsageFailure, add_player, add_record, add_workers, checked_player, search_workers,
                      shower, whole)
from .fields import SettingsError
from .human import is_person
from .monitor import BotWatch, Monitor
from .players import PlayerError
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
                       pause: float = 1.0, on_game: Callable[[dict], None] | None = None,
                       retries: int | None = None, on_state: Callable[[Any], None] | None = None,
                       watch: BotWatch | None = None, stop: asyncio.Event | None = None) -> int:
    """Play games with one bot until it has played `entry.games` (forever if 0); `on_game`
    gets each finished game's summary, `on_state` each position the session sees.  After
    `retries` failures in a row (None: never) the bot gives up.  `watch` (bots.monitor) is told
    the bot's state and sees its log; once `stop` is set the bot plays no new game (the one in
    progress is finished).  Returns the games played."""
    game, bot, games = entry.game, entry.bot, entry.games
    session = registry.get(game).module("session")
    counts_games = "games" in {f.name for f in dataclasses.fields(bot)}
    watch = watch or Monitor().watch(bot.name, game, bot.address, bot.player)
    blog = watch.logger(log.bind(bot=bot.name, game=game, server=bot.address))

    def seen(state: Any) -> None:
        watch.position(state)
        if on_state is not None:
            on_state(state)

    backoff = backoff or Backoff()
    played = failures = 0
    while True:
        if stop is not None and stop.is_set():
            watch.stopped("stopped by a reload")
            return played
        watch.connecting()
        try:
            if counts_games and games:
                bot = dataclasses.replace(bot, games=games - played)  # only the games still owed
            summaries = await session.play(bot, runner, on_state=seen, log=blog, stop=stop)
            for summary in summaries if on_game else ():
                on_game(summary)
            played += len(summaries)
            backoff.reset()
            watch.succeeded()
            failures = 0
            if games and played >= games:
                blog.info("bot finished its games", games=played)
                watch.finished(f"played its {played} games")
                return played
            delay = pause
        except Exception as exc:
            if fatal(exc):
                blog.error("server sent garbage or refused us; this bot stops", error=str(exc))
                watch.stopped("the server sent garbage or refused us", str(exc))
                return played
            failures += 1
            if not isinstance(exc, (OSError, ConnectionError)):  # a bug: it must not take the other bots down
                if retries is not None and failures > retries:
                    blog.exception("session failed; this bot stops", error=str(exc), retries=retries)
                    watch.stopped(f"failed {failures} times in a row", str(exc))
                    return played
                delay = backoff.next()
                blog.exception("session failed; retrying", error=str(exc), retry_in=round(delay, 2))
                watch.backing_off(str(exc), delay)
                await _pause(delay, stop)
                continue
            done = getattr(exc, "summaries", ())  # games completed before the drop (SessionClosed)
            interrupted = getattr(exc, "interrupted", None)  # the game the drop itself ended
            for summary in [*done, *filter(None, [interrupted])] if on_game else ():
                on_game(summary)
            played += len(done)
            if done:
                backoff.reset()
                watch.succeeded()
                failures = 0
                if games and played >= games:
                    blog.info("bot finished its games", games=played)
                    watch.finished(f"played its {played} games")
                    return played
            error = str(exc) or type(exc).__name__
            if retries is not None and failures > retries:
                blog.error("cannot play on the server", error=error, retries=retries)
                watch.stopped(f"cannot play on the server after {failures} tries", error)
                return played
            delay = backoff.next()
            blog.warning("server unreachable or dropped; retrying", error=error, retry_in=round(delay, 2))
            watch.backing_off(error, delay)
        await _pause(delay, stop)


async def _pause(delay: float, stop: asyncio.Event | None) -> None:
    """Sleep `delay` seconds, or less if `stop` is set meanwhile."""
    if stop is None:
        await asyncio.sleep(delay)
        return
    try:
        await asyncio.wait_for(stop.wait(), delay)
    except asyncio.TimeoutError:
        return


# -- bots play GAME -----------------------------------------------------------------------------------


def add_parser(sub: argparse._SubParsersAction, game: registry.Game) -> None:
    """`bots play <game>`: the shared options and the game's own (its match hooks'
    add_play_arguments)."""
    hooks = game.play_hooks()
    text = f"{game.summary}: one bot on a server"
    p = sub.add_parser(game.name, help=text, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description=f"{text}, as the daemon plays it: a server that is down or drops is retried with "
                                   "backoff (--retries), each finished game is printed as a JSON line, and the "
                                   "exit status is 0 once --games are played, 1 if the bot gave up.",
                       epilog=hooks.PLAY_EXAMPLES)
    p.add_argument("--name", default="bots", help="our name on the server (bots)")
    add_player(p, game.name, game.default_player)
    p.add_argument("--games", type=whole, default=1, help="games to play, 0 = forever (1)")
    p.add_argument("--retries", type=whole, default=3,
                   help="failures in a row (unreachable, dropped) before giving up, each after a longer pause (3)")
    add_workers(p)
    p.add_argument("--show", action="store_true", help="draw the board before each of our moves")
    add_record(p, "every game as we saw it (our moves timed by us, from the server's message to our answer)")
    hooks.add_play_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .loop import run as run_loop

    game = registry.get(args.game)
    session = game.module("session")
    name, params = checked_player(args.game, args.player, args.param)
    table = {"name": args.name, "game": args.game, "games": args.games, "player": name, "params": dict(params),
             **game.play_hooks().play_table(args)}
    if args.record is not None:
        table["record"] = args.record
    try:
        bot = session.bot_from_table(table, f"bots play {args.game}")
    except (SettingsError, PlayerError, ValueError) as exc:
        raise UsageFailure(str(exc)) from None
    show = shower(game.module("render").render) if args.show else None

    async def main() -> int:
        workers = search_workers(args.workers, [not is_person(args.game, bot.player)])
        async with SearchRunner(workers, games=[args.game], background=True) as runner:
            played = await keep_playing(BotSettings(args.game, bot, args.games), runner, retries=args.retries,
                                        on_game=lambda summary: print(json.dumps(summary), flush=True),
                                        on_state=show)
        return 0 if args.games and played >= args.games else 1

    return run_loop(main())
