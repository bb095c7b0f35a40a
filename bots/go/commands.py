"""The `bots` subcommands for Go (bots/cli.py parses, these run).

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
import time

import structlog

from ..cli import UsageFailure, _checked_player, listening, output_file
from ..loop import run as _run
from ..matches import report
from ..players import PlayerError
from ..runner import SearchRunner

PASSWORD_ENV = "BOTS_CGOS_PASSWORD"
DEFAULT_PLAYER = ("mcts", ())
CGOS_PORT = 6809  # the 9x9 CGOS server (shared/specs/cgos.md section 1)


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageFailure(f"--cgos {text!r} is not HOST:PORT (e.g. yss-aya.com:{CGOS_PORT})")
    return host, int(port)


def gtp(args: argparse.Namespace) -> int:
    from .gtp_engine import main

    name, params = _checked_player("go", args.player or DEFAULT_PLAYER, args.param)
    return main(name, params, workers=args.workers or os.cpu_count() or 1)


def play(args: argparse.Namespace) -> int:
    from ..daemon import keep_playing
    from ..settings import BotSettings
    from .cgos_session import CgosBot

    if not args.cgos:
        raise UsageFailure("go is played on a CGOS server: give --cgos HOST:PORT (or use `bots gtp go`)")
    host, port = _address(args.cgos)
    password = args.password if args.password is not None else os.environ.get(PASSWORD_ENV)
    if password is None:
        raise UsageFailure(f"give --password PW (or set {PASSWORD_ENV}); the first login registers the name")
    name, params = _checked_player("go", args.player or DEFAULT_PLAYER, args.param)
    try:
        bot = CgosBot(name=args.name, host=host, port=port, password=password, player=name, params=params,
                      overhead=args.overhead if args.overhead is not None else 0.2, games=args.games)
    except (ValueError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        async with SearchRunner(args.workers, games=["go"]) as runner:
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
    from .cgos_server import CgosServer

    def record(game: dict) -> None:
        print(json.dumps(game), flush=True)

    _check_size(args.size)

    async def main() -> int:
        server = CgosServer(host=args.host, port=CGOS_PORT if args.port is None else args.port, size=args.size,
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
    from .arena import describe, match_side, parse_side, run_arena
    from .gtp_client import EngineError

    try:
        a = parse_side(args.a, "A")
        b = parse_side(args.b, "B")
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    size = _check_size(args.size)
    if args.sgf:
        try:
            os.makedirs(args.sgf, exist_ok=True)
        except OSError as exc:
            raise UsageFailure(f"cannot create the SGF directory {args.sgf}: {exc.strerror or exc}") from None
    out = output_file(args.json)
    started = time.monotonic()

    def note(record: dict) -> None:
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()
        done = record["game_number"] + 1
        print(f"game {done}/{args.games}: black {record['players']['black']} white {record['players']['white']}"
              f" {record['result']} ({record['end']}, {len(record['moves'])} moves)"
              f" {time.monotonic() - started:.0f} s", flush=True)

    async def main() -> list[dict]:
        async with SearchRunner(args.workers, games=["go"]) as runner:
            return await run_arena(a, b, args.games, runner, size=size, komi=args.komi, per_move=args.move_time,
                                   sgf_dir=args.sgf, on_record=note)

    print(f"A = {describe(a)}\nB = {describe(b)}\n{args.games} games, {size}x{size}, komi {args.komi},"
          f" {args.move_time} s per move", flush=True)
    try:
        records = _run(main())
    except EngineError as exc:
        raise UsageFailure(f"cannot run the engine: {exc}") from None
    finally:
        if out:
            out.close()
    print(report(match_side(a), match_side(b), records, [f"{size}x{size}"]))
    return 0


def bench(args: argparse.Namespace) -> int:
    from .bench import bench as run_bench

    print(run_bench(args.time))
    return 0

