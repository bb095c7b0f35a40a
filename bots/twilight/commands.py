"""The `bots` subcommands only Twilight has (bots.cli builds the command line from the registry;
`play`, `arena`, `bench` and `tournament` come from the game's hooks).

    bots serve twilight --map FILE --port P     our referee with the official semantics
    bots demo                                   a local match drawn in the terminal
    bots maps generate W H HOMES [--seed N]     a fair random map (official XML)
"""

from __future__ import annotations

import argparse
import asyncio
import json

import structlog

from ..cmdline import UsageFailure, add_record, add_workers, count, listening, nonnegative, page, port, positive, \
    record_directory, shower, whole
from ..loop import run as _run
from . import mapgen
from .display import render
from .game import GAME
from .maps import MapError


def commands(game: str) -> dict:
    return {("serve", game): add_serve, ("demo", None): add_demo, ("maps", None): mapgen.add_parser}


# -- serve ---------------------------------------------------------------------------------------


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "twilight", "our Twilight referee (official semantics, binary protocol)",
             ["bots serve twilight --map map8 --port 5555", "bots serve twilight --map mymap.xml --games 2 --show"],
             "A Twilight server of ours on a local port, with the official server's rules and protocol: the "
             "first connection plays the vampires, each game's record is printed as a JSON line.")
    p.add_argument("--map", required=True, help="a map file (official XML) or a shipped map name")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=port, default=5555, help="the port (5555); 0 picks a free port")
    p.add_argument("--move-timeout", type=positive, default=2.0, help="seconds per move (2)")
    p.add_argument("--max-plies", type=count, default=200, help="plies per game (200)")
    p.add_argument("--game-time", type=nonnegative, default=300.0, metavar="SECONDS",
                   help="the game ends after this much play, the larger population winning, as on the "
                        "official server (300; 0: no time cap)")
    p.add_argument("--seed", type=whole, default=None, help="seed of the random battles")
    p.add_argument("--games", type=count, default=1, help="games per pair of connections, species swapped (1)")
    p.add_argument("--show", action="store_true", help="draw the board after every ply")
    add_record(p, "every game (moves, battles, each move's time as the referee measured it)")
    p.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    from .. import records
    from .maps import load_map
    from .referee import Referee, RefereeConfig

    try:
        state = load_map(args.map, args.max_plies)
    except MapError as exc:
        raise UsageFailure(str(exc)) from None
    config = RefereeConfig(state, args.map, args.move_timeout, args.max_plies, args.seed, args.games,
                           game_time=args.game_time or None)
    folder = record_directory(args.record)

    def record(game: dict) -> None:
        records.keep(folder, game, game["game"])
        print(json.dumps({k: v for k, v in game.items() if k not in records.REPLAY_KEYS}), flush=True)

    async def main() -> int:
        referee = Referee(config, on_game=record, on_ply=shower(render) if args.show else None)
        bound = await listening(referee.start(args.host, args.port), args.host, args.port)
        structlog.get_logger("bots").info("referee listening", host=args.host, port=bound, map=args.map,
                                          move_timeout=args.move_timeout, games=args.games)
        try:
            await asyncio.Event().wait()  # until Ctrl-C / SIGTERM
        finally:
            await referee.close()
        return 0

    try:
        return _run(main())
    except KeyboardInterrupt:
        return 0


# -- demo: one match on our referee, drawn -------------------------------------------------------


def add_demo(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "demo", "a local Twilight match on our referee, drawn in the terminal",
             ["bots demo", "bots demo --map thetrap --opponent expecti --move-time 1"],
             "A local Twilight match: our referee on a free port, our player (A, the vampires) against an "
             "opponent (B), the board drawn after every ply, then the result.  No network, no setup.")
    p.add_argument("--map", default="map8", help="a map file or a shipped map name (map8)")
    p.add_argument("--player", default=GAME.default_player, help=f"our player, NAME[:k=v,...] ({GAME.default_player})")
    p.add_argument("--opponent", default="greedy", help="the other side (greedy)")
    p.add_argument("--move-time", type=positive, default=0.5, help="seconds per move (0.5)")
    p.add_argument("--overhead", type=nonnegative, default=0.15, help="seconds kept back per move (0.15)")
    add_workers(p)
    p.set_defaults(func=demo)


def demo(args: argparse.Namespace) -> int:
    """One game of `bots arena twilight`, drawn after every ply."""
    from .. import arena

    intro = (f"Demo: {args.player} (A) against {args.opponent} (B) on {args.map}, our referee on a free local port, "
             f"{args.move_time} s per move. A plays vampires (V).")
    return arena.run(argparse.Namespace(game="twilight", a=args.player, b=args.opponent, maps=[args.map], games=1,
                                        parallel=1, seed=1, workers=args.workers, json=None, show=True, record=None,
                                        move_time=args.move_time, person_time=None, overhead=args.overhead,
                                        max_plies=200), intro)
