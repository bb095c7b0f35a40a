"""The `bots` subcommands for Go (bots.cli builds the command line from the registry).

    bots gtp go [--player mcts]                      a GTP engine on stdin/stdout
    bots play go --cgos HOST:PORT --name N --password PW [--games N]
    bots serve cgos [--port 6809] [--komi 7] [--time 300] [--random]
    bots arena go --a mcts --b "gtp:gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead"
    bots bench go
"""

from __future__ import annotations

import argparse
import json
import os

import structlog

from ..cmdline import (UsageFailure, add_player, add_record, add_workers, checked_player, count, listening,
                       nonnegative, not_a_person, number, players_text, port, positive, record_directory,
                       search_workers, whole)
from ..loop import run as _run
from ..players import PlayerError
from ..runner import SearchRunner
from .game import GAME

PASSWORD_ENV = "BOTS_CGOS_PASSWORD"
CGOS_PORT = 6809  # the 9x9 CGOS server (docs/protocols/cgos.md section 1)


def commands(game: str) -> dict:
    return {("play", game): add_play, ("serve", "cgos"): add_serve, ("arena", game): add_arena,
            ("bench", game): add_bench, ("gtp", game): add_gtp}


def add_gtp(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("go", help="a Go engine speaking GTP on stdin/stdout (gogui, twogtp, GNU Go matches)")
    add_player(p, "go", GAME.default_player)
    add_workers(p)
    p.set_defaults(func=gtp)


def add_play(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("go", help="9x9 Go on a CGOS server",
                       epilog="example:\n  bots play go --cgos yss-aya.com:6809 --name bots-mcts --password secret"
                              " --games 0", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cgos", default=None, metavar="HOST:PORT", help=f"the CGOS server (9x9: yss-aya.com:{CGOS_PORT})")
    p.add_argument("--name", default="bots", help="the CGOS account: 3-18 characters from [A-Za-z0-9_.-] (bots)")
    p.add_argument("--password", default=None, help=f"the CGOS password (or ${PASSWORD_ENV})")
    p.add_argument("--games", type=whole, default=1, help="games to play, 0 = forever (1)")
    add_player(p, "go", GAME.default_player)
    p.add_argument("--overhead", type=nonnegative, default=0.2, help="seconds kept back per move (0.2)")
    add_workers(p)
    add_record(p, "every game (all moves; our think times as we measured them)", "SGF")
    p.set_defaults(func=play)


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cgos", help="our CGOS server (Go), for practice and tests")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=port, default=CGOS_PORT, help=f"the port ({CGOS_PORT}); 0 picks a free port")
    p.add_argument("--size", type=count, default=9, help="the board (9)")
    p.add_argument("--komi", type=number, default=7.0, help="komi (7.0, as CGOS 9x9)")
    p.add_argument("--time", type=positive, default=300.0, help="seconds per side (300)")
    p.add_argument("--random", action="store_true", help="play random moves against a lone client")
    add_record(p, "every game (moves with each one's time as the server measured it, the result)", "SGF")
    p.set_defaults(func=serve)


def add_arena(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("go", help="a Go match between two players (ours or external GTP engines)")
    p.add_argument("--a", required=True, metavar="PLAYER",
                   help=f"NAME[:k=v,...] ({players_text('go')}) or gtp:COMMAND, an external GTP engine")
    p.add_argument("--b", required=True, metavar="PLAYER", help="the other side, as --a")
    p.add_argument("--games", type=count, default=10, help="games, colours alternating (10)")
    p.add_argument("--move-time", type=positive, default=2.0, help="seconds per move (2)")
    p.add_argument("--game-time", type=positive, default=None, metavar="SECONDS",
                   help="a clock per side for the whole game (sudden death) instead of --move-time")
    p.add_argument("--size", type=count, default=9, help="the board (9)")
    p.add_argument("--komi", type=number, default=7.5, help="komi (7.5)")
    add_record(p, "every game (moves, each move's think time as a comment, the result)", "SGF", "--sgf")
    add_workers(p)
    p.add_argument("--json", default=None, help="write every game's record to this file (JSON lines)")
    p.set_defaults(func=arena)


def add_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("go", help="Go search speed (playouts per second) per player")
    p.add_argument("--time", type=positive, default=2.0, help="seconds per position (2)")
    p.set_defaults(func=bench)


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageFailure(f"--cgos {text!r} is not HOST:PORT (e.g. yss-aya.com:{CGOS_PORT})")
    return host, int(port)


def gtp(args: argparse.Namespace) -> int:
    from .gtp_engine import main

    name, params = checked_player("go", args.player, args.param)
    not_a_person("go", name, "a GTP engine reads its commands on stdin")
    return main(name, params, workers=args.workers or os.cpu_count() or 1)


def play(args: argparse.Namespace) -> int:
    from ..playing import BotSettings, keep_playing
    from .cgos_session import CgosBot

    if not args.cgos:
        raise UsageFailure("go is played on a CGOS server: give --cgos HOST:PORT (or use `bots gtp go`)")
    host, port = _address(args.cgos)
    password = args.password if args.password is not None else os.environ.get(PASSWORD_ENV)
    if password is None:
        raise UsageFailure(f"give --password PW (or set {PASSWORD_ENV}); the first login registers the name")
    name, params = checked_player("go", args.player, args.param)
    try:
        bot = CgosBot(name=args.name, host=host, port=port, password=password, player=name, params=params,
                      overhead=args.overhead, games=args.games,
                      record=args.record and str(record_directory(args.record)))
    except (ValueError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        async with SearchRunner(search_workers(args.workers, "go", [name]), games=["go"], background=True) as runner:
            played = await keep_playing(BotSettings("go", bot, args.games), runner,
                                        on_game=lambda summary: print(json.dumps(summary), flush=True))
        return 0 if played or not args.games else 1

    return _run(main())


def _check_size(size: int) -> int:
    from .board import empty

    try:
        empty(size)
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    return size


def serve(args: argparse.Namespace) -> int:
    from .. import records
    from .cgos_server import CgosServer
    from .sgf import game_sgf

    _check_size(args.size)
    folder = record_directory(args.record)

    def record(game: dict) -> None:
        if folder is not None:
            black, white = game["players"]["black"], game["players"]["white"]
            text = game_sgf(game["size"], game["komi"], black, white, game["moves"], game["result"],
                            comment=game["comment"] or None, thinks=game["thinks"])
            path = records.keep_text(folder, records.file_name("go", f"{game['size']}x{game['size']}", black, white,
                                                               game["gid"], "sgf"), text)
            game = {**game, "record_file": str(path)} if path else game
        print(json.dumps(game), flush=True)


    async def main() -> int:
        server = CgosServer(host=args.host, port=args.port, size=args.size,
                            komi=args.komi, main_time=args.time, random_opponent=args.random,
                            on_game=record)
        await listening(server.start(), args.host, args.port)
        structlog.get_logger("bots").info("CGOS server listening", host=args.host, port=server.port,
                                          size=args.size, komi=args.komi, main_time=args.time,
                                          random_opponent=args.random)
        try:
            await server.serve_forever()
        finally:
            await server.close()
        return 0

    try:
        return _run(main())
    except KeyboardInterrupt:
        return 0


def arena(args: argparse.Namespace) -> int:
    from .. import engine_arena
    from .arena import GoRules, parse_side

    try:
        a = parse_side(args.a, "A")
        b = parse_side(args.b, "B")
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    size = _check_size(args.size)
    return engine_arena.command(GoRules(size, args.komi), a, b, args.games, args.move_time, args.game_time,
                                args.workers, args.record, args.json, f"{size}x{size}, komi {args.komi}")


def bench(args: argparse.Namespace) -> int:
    from .bench import bench as run_bench

    print(run_bench(args.time))
    return 0

