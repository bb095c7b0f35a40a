"""The `bots` subcommands for Twilight (bots.cli builds the command line from the registry).

    bots play twilight --host H --port P        play on a server (or: ... H P, last two)
    bots serve twilight --map FILE --port P     our referee with the official semantics
    bots arena twilight --a P --b P --maps ...  a match between two players, with a report
    bots bench twilight [--scaling]             search speed and depth per player and map
    bots demo                                   a local match drawn in the terminal
    bots maps generate W H HOMES [--seed N]     a fair random map (official XML)
"""

from __future__ import annotations

import argparse
import asyncio
import json

import structlog

from ..cmdline import (UsageFailure, add_player, add_record, add_workers, checked_player, count, listening,
                       nonnegative, output_file, players_text, port, positive, record_directory, search_workers,
                       shower, whole)
from ..loop import run as _run
from ..players import PlayerError
from . import mapgen
from .display import render
from .game import GAME
from .maps import MapError

PLAY_EPILOG = """examples:
  bots play twilight --host 127.0.0.1 --port 5555 --name towelie
  bots play twilight --player expecti:max_depth=5 127.0.0.1 5555
  bots --game twilight --host 127.0.0.1 --port 5555      (the form `docker run bots` passes on)
"""


def commands(game: str) -> dict:
    return {("play", game): add_play, ("serve", game): add_serve, ("arena", game): add_arena,
            ("bench", game): add_bench, ("demo", None): add_demo, ("maps", None): mapgen.add_parser}


def _bad_map(name: str) -> None:
    from .maps import load_map

    try:
        load_map(name)
    except MapError as exc:
        raise UsageFailure(str(exc)) from None


# -- play ----------------------------------------------------------------------------------------


def add_play(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("twilight", help="Twilight on a server of the official binary protocol", epilog=PLAY_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="the server's host (127.0.0.1)")
    p.add_argument("--port", type=port, default=None, help="the server's port")
    p.add_argument("--name", default="bots", help="the name sent to the server (bots)")
    add_player(p, "twilight", GAME.default_player)
    p.add_argument("--move-time", type=positive, default=2.0, help="the server's seconds per move (2)")
    p.add_argument("--overhead", type=nonnegative, default=0.3, help="seconds kept back per move for the network (0.3)")
    add_workers(p)
    p.add_argument("--show", action="store_true", help="draw the board before each of our moves")
    add_record(p, "every game as we saw it (our moves, timed by us from the server's update to our move)")
    p.add_argument("address", nargs="*", metavar="HOST PORT", help="the course convention: the server last")
    p.set_defaults(func=play)


def play(args: argparse.Namespace) -> int:
    from protocol.twilight import ProtocolError

    from .. import runner
    from . import session

    host, server_port = args.host, args.port
    if args.address:
        if len(args.address) != 2:
            raise UsageFailure("the server address is the last two arguments: HOST PORT")
        try:
            host, server_port = args.address[0], port(args.address[1])
        except argparse.ArgumentTypeError as exc:
            raise UsageFailure(f"the server's port: {exc}") from None
    if server_port is None:
        raise UsageFailure("no server port: give --port P or HOST PORT as the last two arguments")
    name, params = checked_player("twilight", args.player, args.param)
    try:
        bot = session.TwilightBot(name=args.name, host=host, port=server_port, player=name, params=params,
                                  move_time=args.move_time, overhead=args.overhead,
                                  record=args.record and str(record_directory(args.record)))
    except (ValueError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        async with runner.SearchRunner(search_workers(args.workers, "twilight", [name]), games=["twilight"],
                                       background=True) as pool:
            try:
                games = await session.play(bot, pool, on_state=shower(render) if args.show else None)
            except ProtocolError as exc:
                structlog.get_logger("bots").error("server sent garbage; leaving", error=str(exc))
                return 1
            except OSError as exc:
                for g in [*getattr(exc, "summaries", ()), *filter(None, [getattr(exc, "interrupted", None)])]:
                    print(json.dumps(g), flush=True)  # the games played, and the one the drop ended
                structlog.get_logger("bots").error("cannot play on the server", server=f"{host}:{server_port}",
                                                   error=str(exc) or type(exc).__name__)
                return 1
        for g in games:
            print(json.dumps(g), flush=True)
        return 0

    return _run(main())


# -- serve ---------------------------------------------------------------------------------------


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("twilight", help="our Twilight referee (official semantics, binary protocol)")
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


# -- arena and demo: matches on our referee ----------------------------------------------------------


def add_arena(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("twilight", help="a Twilight match between two players on our referee, with a report")
    p.add_argument("--a", required=True, metavar="PLAYER", help=f"NAME[:k=v,...] ({players_text('twilight')})")
    p.add_argument("--b", required=True, metavar="PLAYER", help="the other side, as --a")
    p.add_argument("--maps", nargs="+", default=None, help="maps (default: every shipped map)")
    p.add_argument("--games", type=count, default=10, help="games per map, species alternating (10)")
    p.add_argument("--move-time", type=positive, default=0.5,
                   help="seconds per move (0.5; give a human time to type, e.g. 60)")
    p.add_argument("--overhead", type=nonnegative, default=0.15, help="seconds kept back per move (0.15)")
    p.add_argument("--max-plies", type=count, default=200, help="plies per game (200)")
    p.add_argument("--parallel", type=count, default=1, help="maps played at once (1)")
    p.add_argument("--seed", type=whole, default=1, help="seed of the random battles (1)")
    add_workers(p)
    p.add_argument("--json", default=None, help="write every game's record to this file (JSON lines)")
    p.add_argument("--verbose", "-v", action="store_true", help="a line per game")
    p.add_argument("--show", action="store_true", help="draw the board after every ply")
    add_record(p, "every game (moves, battles, each move's time as the referee measured it)")
    p.set_defaults(func=arena)


def _spec(text: str) -> tuple[str, tuple]:
    from ..cmdline import player_spec

    try:
        return checked_player("twilight", player_spec(text))
    except argparse.ArgumentTypeError as exc:
        raise UsageFailure(str(exc)) from None


def _time_to_think(args: argparse.Namespace) -> None:
    """--move-time must leave time to think after --overhead (the bots check it too; this says
    so in one line before any worker starts)."""
    if args.move_time <= args.overhead:
        raise UsageFailure(f"--move-time {args.move_time:g} leaves nothing to think after --overhead "
                           f"{args.overhead:g}: give a longer --move-time or a smaller --overhead")


def arena(args: argparse.Namespace) -> int:
    from ..matches import Side, report
    from ..runner import SearchRunner
    from .arena import run_arena
    from .maps import shipped_maps

    _time_to_think(args)
    a, b = Side("A", *_spec(args.a)), Side("B", *_spec(args.b))
    maps = args.maps or sorted(shipped_maps())
    for m in maps:
        _bad_map(m)
    out = output_file(args.json)
    folder = record_directory(args.record)

    def note(record: dict) -> None:
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()
        if args.verbose:
            print(f"{record['map']} game {record['game']}: {record['players']} winner {record['winner_name']}"
                  f" ({record['reason']}, {record['plies']} plies)", flush=True)

    async def main() -> list[dict]:
        async with SearchRunner(search_workers(args.workers, "twilight", [a.player, b.player]),
                                games=["twilight"]) as runner:
            return await run_arena(a, b, maps, args.games, args.move_time, args.overhead, runner,
                                   parallel=args.parallel, max_plies=args.max_plies, seed=args.seed,
                                   on_game=note, on_state=shower(render) if args.show else None, record=folder)

    records = _run(main())
    if out:
        out.close()
    print(report(a, b, records, maps))
    return 0


def add_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a local Twilight match on our referee, drawn in the terminal")
    p.add_argument("--map", default="map8", help="a map file or a shipped map name (map8)")
    p.add_argument("--player", default=GAME.default_player, help=f"our player, NAME[:k=v,...] ({GAME.default_player})")
    p.add_argument("--opponent", default="greedy", help="the other side (greedy)")
    p.add_argument("--move-time", type=positive, default=0.5, help="seconds per move (0.5)")
    p.add_argument("--overhead", type=nonnegative, default=0.15, help="seconds kept back per move (0.15)")
    add_workers(p)
    p.set_defaults(func=demo)


def demo(args: argparse.Namespace) -> int:
    from ..matches import Side, report
    from ..runner import SearchRunner
    from .arena import run_arena

    _bad_map(args.map)  # a bad map is one line, before any worker starts
    _time_to_think(args)
    us, them = Side("A", *_spec(args.player)), Side("B", *_spec(args.opponent))
    print(f"Demo: {us.player} (A) against {them.player} (B) on {args.map}, our referee on a free local port,"
          f" {args.move_time} s per move. A plays vampires (V).", flush=True)

    async def main() -> list[dict]:
        async with SearchRunner(args.workers, games=["twilight"]) as runner:
            return await run_arena(us, them, [args.map], 1, args.move_time, args.overhead, runner,
                                   on_state=shower(render))

    records = _run(main())
    r = records[0]
    print(f"\nResult: {r['winner_name'] or 'nobody'} wins ({r['reason']}, {r['plies']} plies,"
          f" final population {r.get('population')})")
    print(report(us, them, records, [args.map]))
    return 0


# -- bench ---------------------------------------------------------------------------------------


def add_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("twilight", help="Twilight search speed and depth per player and map")
    p.add_argument("--maps", nargs="+", default=None, help="maps (default: the shipped maps)")
    p.add_argument("--players", nargs="+", default=["alphabeta", "expecti", "planner"],
                   help=f"players to measure ({players_text('twilight')}; default alphabeta expecti planner)")
    p.add_argument("--time", type=positive, default=2.0, help="seconds per position (2)")
    p.add_argument("--scaling", action="store_true",
                   help="depth and latency on generated 10x10, 20x20, 30x30 maps with 10, 25, 40 camps")
    p.set_defaults(func=bench)


def bench(args: argparse.Namespace) -> int:
    from .bench import bench as run_bench, scaling

    try:
        print(scaling(args.players, args.time) if args.scaling else run_bench(args.maps, args.players, args.time))
    except MapError as exc:
        raise UsageFailure(str(exc)) from None
    return 0
