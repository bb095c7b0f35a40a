"""The `bots` subcommands for Gopher and Dodo (bots/cli.py parses, these run).

    bots play gopher --server URL --group N --name NAME --password PW [--games N]
    bots serve gnd --game gopher --size 6 --time 180 [--random [--rcolor blue]]
    bots arena dodo --a mcts --b alphabeta --size 4 --time 36 --games 40
    bots bench gopher --sizes 4 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

import structlog

from protocol.gnd import ProtocolError, decode_action, game_number

from ..cli import UsageFailure, _checked_player, _shower, listening, output_file
from ..loop import run as _run
from ..matches import Side, report
from ..players import PlayerError
from ..runner import SearchRunner
from .display import render

# The official server's clocks (spec section 5: server 1.0.2).
CLOCK = {"gopher": 180.0, "dodo": 360.0}
PASSWORD_ENV = "BOTS_GND_PASSWORD"


def shower():
    return _shower(render)


def play(args: argparse.Namespace) -> int:
    from .session import GndBot, Refused
    from .session import play as play_games

    if not args.server:
        raise UsageFailure(f"{args.game} is played on a gnd server: give --server URL (e.g. http://localhost:8080/)")
    password = args.password if args.password is not None else os.environ.get(PASSWORD_ENV)
    if password is None:
        raise UsageFailure(f"give --password PW (or set {PASSWORD_ENV})")
    if args.param and not args.player:
        raise UsageFailure("--param needs --player (the default player depends on the board size)")
    name, params = _checked_player(args.game, args.player, args.param) if args.player else (None, ())
    try:
        bot = GndBot(game=args.game, server=args.server, group=args.group, members=args.name, password=password,
                     player=name, params=params, games=args.games,
                     overhead=args.overhead)
    except (ValueError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        async with SearchRunner(args.workers, games=[args.game]) as runner:
            try:
                summaries = await play_games(bot, runner, on_state=shower() if args.show else None)
            except (Refused, ProtocolError) as exc:
                structlog.get_logger("bots").error("the server refused us or keeps sending garbage; leaving",
                                                   error=str(exc))
                return 1
        for s in summaries:
            print(json.dumps(s), flush=True)
        return 0

    return _run(main())


def serve(args: argparse.Namespace) -> int:
    from .server import GndServer, ServerConfig

    game = args.gnd_game
    if game is None:
        raise UsageFailure("bots serve gnd needs --game gopher or --game dodo")
    try:
        config = ServerConfig(game, args.size, args.time or CLOCK[game], random=args.random,
                              rcolor=args.rcolor, layout=args.layout, seed=args.seed, penalty=args.penalty)
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        server = GndServer(config, on_game=lambda r: print(json.dumps(r), flush=True),
                           on_ply=shower() if args.show else None)
        port = await listening(server.start(args.host, 8080 if args.port is None else args.port), args.host,
                               args.port)
        structlog.get_logger("bots").info("gnd server listening", url=f"http://{args.host}:{port}/", game=game,
                                          size=args.size, clock=config.time, random=args.random)
        try:
            await asyncio.Event().wait()  # until Ctrl-C
        finally:
            await server.close()
        return 0

    try:
        return _run(main())
    except KeyboardInterrupt:
        return 0


def arena(args: argparse.Namespace) -> int:
    from .arena import run_arena
    from .server import ServerConfig

    a = Side("A", *_checked_player(args.game, args.a))
    b = Side("B", *_checked_player(args.game, args.b))
    clock = args.time or CLOCK[args.game] / 10
    try:
        ServerConfig(args.game, args.size, clock, layout=args.layout)  # checks size and layout
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    if args.json:
        output_file(args.json, "a").close()  # unwritable: say so now, not after the first game
    label = f"{args.game} {args.size}"

    def note(record: dict) -> None:
        if args.json:
            with open(args.json, "a") as out:
                out.write(json.dumps(record) + "\n")
        if args.verbose:
            print(render(final_position(args.game, args.size, args.layout, record["moves"]),
                         colour=sys.stdout.isatty()))
            print(f"{label} game {record['game_number']}: red {record['players']['red']} blue "
                  f"{record['players']['blue']} winner {record['winner_name']} ({record['reason']}, "
                  f"{record['plies']} plies, clocks {record['clock']})", flush=True)

    async def main() -> list[dict]:
        async with SearchRunner(args.workers, games=[args.game]) as runner:
            return await run_arena(a, b, args.game, args.size, args.games, clock, runner,
                                   parallel=args.parallel, layout=args.layout, overhead=args.overhead,
                                   on_game=note, on_state=shower() if args.show else None)

    records = _run(main())
    print(f"{label}: clock {clock:g} s per player and game")
    print(report(a, b, records, [label]))
    for seat in ("red", "blue"):
        mine = [r for r in records if r["players"][seat] == "A"]
        print(f"A as {seat}: won {sum(r['winner_name'] == 'A' for r in mine)} of {len(mine)}")
    return 0


def final_position(game: str, size: int, layout: str, moves: list) -> object:
    """The last position of a game, replayed from a server record's action strings."""
    from .server import ServerConfig

    state = ServerConfig(game, size, 1.0, layout=layout).initial()
    for action in moves:
        state = state.play(decode_action(game_number(game), action))
    return state


def bench(args: argparse.Namespace) -> int:
    from .bench import bench as run_bench

    print(run_bench(args.game, args.sizes, args.players, args.time))
    return 0
