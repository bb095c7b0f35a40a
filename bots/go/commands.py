"""The `bots` subcommands only Go has (bots.cli builds the command line from the registry;
`play`, `arena`, `bench` and `tournament` come from the game's hooks).

    bots gtp go [--player mcts]                      a GTP engine on stdin/stdout
    bots serve cgos [--port 6809] [--komi 7] [--time 300] [--random]
"""

from __future__ import annotations

import argparse
import json
import os

import structlog

from ..cmdline import (UsageFailure, add_player, add_ponder, add_record, add_workers, checked_player, checked_ponder,
                       count, listening, not_a_person, number, page, port, positive, record_directory)
from ..loop import run as _run
from .game import GAME
from .match import DEFAULT_PORT as CGOS_PORT


def commands(game: str) -> dict:
    return {("serve", "cgos"): add_serve, ("gtp", game): add_gtp}


def add_gtp(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "go", "a Go engine speaking GTP on stdin/stdout (gogui, twogtp, GNU Go matches)",
             ["bots gtp go --player mcts", "gogui-twogtp -black 'bots gtp go' -white 'gnugo --mode gtp' -games 10"],
             "A Go engine speaking GTP v2 on stdin/stdout, for a controller (GoGui, gogui-twogtp, a referee): it "
             "answers at once, plays any board size to 19 with komi and positional superko, and keeps the "
             "controller's clock (time_settings, kgs-time_settings, time_left; 2 s a move when none is set).")
    add_player(p, "go", GAME.default_player, persons=False)
    add_workers(p)
    add_ponder(p)
    p.set_defaults(func=gtp)


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "cgos", "our CGOS server (Go), for practice and tests", ["bots serve cgos --port 6809 --random"],
             "A CGOS server of ours on a local port (the line protocol of the Computer Go Server): it pairs the "
             "clients that log in, or plays random moves against a lone client with --random, and prints each "
             "game's result as a JSON line.")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=port, default=CGOS_PORT, help=f"the port ({CGOS_PORT}); 0 picks a free port")
    p.add_argument("--size", type=count, default=9, help="the board (9)")
    p.add_argument("--komi", type=number, default=7.0, help="komi (7.0, as CGOS 9x9)")
    p.add_argument("--time", type=positive, default=300.0, help="seconds per side (300)")
    p.add_argument("--random", action="store_true", help="play random moves against a lone client")
    add_record(p, "every game (moves with each one's time as the server measured it, the result)", "SGF")
    p.set_defaults(func=serve)


def gtp(args: argparse.Namespace) -> int:
    from .gtp_engine import main

    name, params = checked_player("go", args.player, args.param)
    not_a_person("go", name, "a GTP engine reads its commands on stdin")
    ponder = checked_ponder("go", name, params, args.ponder)
    return main(name, params, workers=args.workers or os.cpu_count() or 1, ponder=ponder)


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


