"""The `bots` subcommand of the gnd server (bots.cli builds the command line from the registry;
`play`, `arena`, `bench` and `tournament` come from each game's hooks).

    bots serve gnd --game gopher --size 6 --time 180 [--random [--rcolor blue]]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json

import structlog

from .. import records
from ..cmdline import UsageFailure, add_record, count, listening, nonnegative, page, port, positive, \
    record_directory, shower, whole
from ..loop import run as _run
from .display import render

# The official server's clocks (docs/protocols/gnd.md section 5: server 1.0.2).
CLOCK = {"gopher": 180.0, "dodo": 360.0}
LAYOUTS = "gnd or steere"


def commands(game: str) -> dict:
    return {("serve", "gnd"): add_serve}


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "gnd", "our gnd server (Gopher and Dodo, the course's HTTP JSON protocol)",
             ["bots serve gnd --game gopher --size 6 --time 180 --random", "bots serve gnd --game dodo --port 8081"],
             "A gnd server of ours on a local port: it pairs the clients that register (first come plays Red), "
             "or pairs each with a random player (--random), keeps each player's clock, and prints each game's "
             "record as a JSON line.")
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


