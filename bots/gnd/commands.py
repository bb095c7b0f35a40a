"""The `bots` subcommands for Gopher and Dodo (bots.cli builds the command line from the registry).

    bots play gopher --server URL --group N --name NAME --password PW [--games N]
    bots serve gnd --game gopher --size 6 --time 180 [--random [--rcolor blue]]
    bots arena dodo --a mcts --b alphabeta --size 4 --time 36 --games 40
    bots bench gopher --sizes 4 6
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys

import structlog

from protocol.gnd import ProtocolError, decode_action, game_number

from .. import records
from ..cmdline import (UsageFailure, add_player, add_record, add_workers, checked_player, count, listening,
                       nonnegative, output_file, player_spec, players_text, port, positive, record_directory,
                       search_workers, shower, whole)
from ..loop import run as _run
from ..matches import Side, report
from ..players import PlayerError
from ..runner import SearchRunner
from .display import render

# The official server's clocks (docs/protocols/gnd.md section 5: server 1.0.2).
CLOCK = {"gopher": 180.0, "dodo": 360.0}
PASSWORD_ENV = "BOTS_GND_PASSWORD"


LAYOUTS = "gnd or steere"


def commands(game: str) -> dict:
    return {("play", game): lambda sub: add_play(sub, game), ("arena", game): lambda sub: add_arena(sub, game),
            ("bench", game): lambda sub: add_bench(sub, game), ("serve", "gnd"): add_serve}


def add_play(sub: argparse._SubParsersAction, game: str) -> None:
    p = sub.add_parser(game, help=f"{game.capitalize()} on a gnd server (HTTP JSON, the course tournament)",
                       epilog=f"example:\n  bots play {game} --server http://localhost:8080/ --group 12 --name toto"
                              " --password totovelo --games 4", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", default=None, help="the gnd server's URL, e.g. http://localhost:8080/")
    p.add_argument("--group", type=whole, default=0, help="the group number sent to /register (0)")
    p.add_argument("--name", default="bots", help="the Members sent to /register (bots)")
    p.add_argument("--password", default=None, help=f"the group's password (or ${PASSWORD_ENV})")
    p.add_argument("--games", type=whole, default=1, help="games to play, 0 = forever (1)")
    add_player(p, game, None, help=f"NAME or NAME:key=value,... ({players_text(game)}; "
                                   "default: the best for the board size)")
    p.add_argument("--overhead", type=nonnegative, default=0.1, help="seconds kept back per move (0.1)")
    add_workers(p)
    p.add_argument("--show", action="store_true", help="draw the board before each of our moves")
    add_record(p, "every game as we saw it (our actions, timed by us from the server's answer to our request)")
    p.set_defaults(func=play)


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gnd", help="our gnd server (Gopher and Dodo, the course's HTTP JSON protocol)")
    p.add_argument("--game", dest="gnd_game", choices=tuple(CLOCK), default=None, help="the game played (required)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=port, default=8080, help="the port (8080); 0 picks a free port")
    p.add_argument("--size", type=count, default=6, help="the hexagon's side (6)")
    p.add_argument("--time", type=positive, default=None, help="each player's clock (180 gopher, 360 dodo)")
    p.add_argument("--random", action="store_true", help="pair every client with a random player")
    p.add_argument("--rcolor", choices=("red", "blue"), default=None,
                   help="the random player's colour (default: alternate)")
    p.add_argument("--layout", default="gnd", help=f"Dodo starting layout, {LAYOUTS} (gnd)")
    p.add_argument("--penalty", type=nonnegative, default=0.0, help="seconds lost per illegal action (0)")
    p.add_argument("--seed", type=whole, default=None, help="seed of the random player")
    p.add_argument("--show", action="store_true", help="draw the board after every ply")
    add_record(p, "every game (every action with the time the server measured)")
    p.set_defaults(func=serve)


def add_arena(sub: argparse._SubParsersAction, game: str) -> None:
    p = sub.add_parser(game, help=f"a {game.capitalize()} match between two players on our gnd server")
    p.add_argument("--a", required=True, metavar="PLAYER", help=f"NAME[:k=v,...] ({players_text(game)})")
    p.add_argument("--b", required=True, metavar="PLAYER", help="the other side, as --a")
    p.add_argument("--games", type=count, default=10, help="games, colours alternating (10)")
    p.add_argument("--size", type=count, default=6, help="the hexagon's side (6)")
    p.add_argument("--time", type=positive, default=None,
                   help="each player's clock per game (the tournament's / 10: gopher 18, dodo 36; "
                        "give a human more, e.g. 600)")
    p.add_argument("--layout", default="gnd", help=f"Dodo starting layout, {LAYOUTS} (gnd)")
    p.add_argument("--overhead", type=nonnegative, default=0.1, help="seconds kept back per move (0.1)")
    p.add_argument("--parallel", type=count, default=1, help="games played at once (1)")
    add_workers(p)
    p.add_argument("--json", default=None, help="write every game's record to this file (JSON lines)")
    p.add_argument("--verbose", "-v", action="store_true", help="the final board and a line per game")
    p.add_argument("--show", action="store_true", help="draw the board after every ply")
    add_record(p, "every game (every action with the time the server measured)")
    p.set_defaults(func=arena)


def add_bench(sub: argparse._SubParsersAction, game: str) -> None:
    p = sub.add_parser(game, help=f"{game.capitalize()} search speed and depth per player and board size")
    p.add_argument("--sizes", nargs="+", type=count, default=[4, 6], help="board sizes (4 6)")
    p.add_argument("--players", nargs="+", default=["alphabeta", "mcts"],
                   help=f"players to measure ({players_text(game)}; default alphabeta mcts)")
    p.add_argument("--time", type=positive, default=1.0, help="seconds per position (1)")
    p.set_defaults(func=bench)


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
    name, params = checked_player(args.game, args.player, args.param) if args.player else (None, ())
    try:
        bot = GndBot(game=args.game, server=args.server, group=args.group, members=args.name, password=password,
                     player=name, params=params, games=args.games, overhead=args.overhead,
                     record=args.record and str(record_directory(args.record)))
    except (ValueError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        async with SearchRunner(search_workers(args.workers, args.game, [name]), games=[args.game],
                                background=True) as runner:
            try:
                summaries = await play_games(bot, runner, on_state=shower(render) if args.show else None)
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
    folder = record_directory(args.record)
    numbers = itertools.count()

    def record(game: dict) -> None:
        records.keep(folder, game, next(numbers))
        print(json.dumps({k: v for k, v in game.items() if k not in records.REPLAY_KEYS}), flush=True)

    async def main() -> int:
        server = GndServer(config, on_game=record,
                           on_ply=shower(render) if args.show else None)
        bound = await listening(server.start(args.host, args.port), args.host, args.port)
        structlog.get_logger("bots").info("gnd server listening", url=f"http://{args.host}:{bound}/", game=game,
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

    try:
        a = Side("A", *checked_player(args.game, player_spec(args.a)))
        b = Side("B", *checked_player(args.game, player_spec(args.b)))
    except argparse.ArgumentTypeError as exc:
        raise UsageFailure(str(exc)) from None
    clock = args.time or CLOCK[args.game] / 10
    try:
        ServerConfig(args.game, args.size, clock, layout=args.layout)  # checks size and layout
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    if args.json:
        output_file(args.json, "a").close()  # unwritable: say so now, not after the first game
    folder = record_directory(args.record)
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
        async with SearchRunner(search_workers(args.workers, args.game, [a.player, b.player]),
                                games=[args.game]) as runner:
            return await run_arena(a, b, args.game, args.size, args.games, clock, runner,
                                   parallel=args.parallel, layout=args.layout, overhead=args.overhead,
                                   on_game=note, on_state=shower(render) if args.show else None, record=folder)

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
