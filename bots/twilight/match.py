"""Twilight in `bots arena twilight` and `bots tournament twilight` (bots.matches.MatchHooks):
maps are the setups; each game runs on our referee over real sockets (bots.twilight.arena),
the first participant playing the vampires, the referee's random battles seeded per game."""

from __future__ import annotations

import argparse
from typing import Any

from .. import cmdline
from ..cmdline import UsageFailure, count, nonnegative, positive
from ..matches import Watch
from ..participants import check_ours, our_side, searches_ours

PERSON_TIME = 300.0  # seconds a person at the terminal has per move, unless --person-time says otherwise
ENGINES = ""  # only our players: the official protocol has no engine side to start
SETUP = "map"  # what a setup is called in the report
EXAMPLE = ("bots tournament twilight --players random greedy expecti --maps testmap2 map8 --games 4 "
           "--move-time 0.5 --report out/ --record out/games")
ARENA_EXAMPLE = "bots arena twilight --a planner --b greedy --maps map8 thetrap --games 4 --move-time 0.5"


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--maps", nargs="+", default=None, help="maps, each a setup: shipped names or map files "
                                                            "(official XML) (default: every shipped map)")
    p.add_argument("--move-time", type=positive, default=0.5, help="seconds per move of our players (0.5)")
    p.add_argument("--person-time", type=positive, default=None,
                   help=f"seconds per move of a person at the terminal ({PERSON_TIME:g}); the other side keeps "
                        "--move-time")
    p.add_argument("--overhead", type=nonnegative, default=0.15, help="seconds kept back per move (0.15)")
    p.add_argument("--max-plies", type=count, default=200, help="plies per game (200)")


def settings(args: argparse.Namespace) -> dict:
    """--move-time must leave time to think after --overhead (the bots check it too; this says
    so in one line before any worker starts)."""
    if args.move_time <= args.overhead:
        raise UsageFailure(f"--move-time {args.move_time:g} leaves nothing to think after --overhead "
                           f"{args.overhead:g}: give a longer --move-time or a smaller --overhead")
    given = {"person_time": args.person_time} if args.person_time else {}  # a tournament's ledger: as before
    return {"move_time": args.move_time, "overhead": args.overhead, "max_plies": args.max_plies, **given}


def setups(args: argparse.Namespace) -> list[str]:
    from .maps import MapError, load_map, shipped_maps

    maps = args.maps or sorted(shipped_maps())
    for name in maps:
        try:
            load_map(name)
        except MapError as exc:
            raise UsageFailure(str(exc)) from None
    return maps


check, searches = check_ours, searches_ours


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any,
                   watch: Watch = Watch()) -> dict:
    """One game on map `setup`, `first` playing the vampires."""
    from .arena import play_game

    a, b = our_side("twilight", watch.labels[0], first), our_side("twilight", watch.labels[1], second)
    return await play_game(a, b, setup, settings["move_time"], settings["overhead"], runner,
                           max_plies=settings["max_plies"], seed=seed, on_state=watch.on_state,
                           person_time=settings.get("person_time", PERSON_TIME))


# -- bots play twilight: one bot on a server (bots.playing) --------------------

PLAY_EXAMPLES = """examples:
  bots play twilight --host 127.0.0.1 --port 5555 --name towelie
  bots play twilight --player expecti:max_depth=5 127.0.0.1 5555
  bots --game twilight --host 127.0.0.1 --port 5555      (the form `docker run bots` passes on)"""


def add_play_arguments(p: argparse.ArgumentParser) -> None:
    """`bots play twilight`'s own options (bots.playing adds the shared ones)."""
    p.add_argument("--host", default="127.0.0.1", help="the server's host (127.0.0.1)")
    p.add_argument("--port", type=cmdline.port, default=None, help="the server's port")
    p.add_argument("--move-time", type=cmdline.positive, default=2.0, help="the server's seconds per move (2)")
    p.add_argument("--overhead", type=cmdline.nonnegative, default=0.3,
                   help="seconds kept back per move for the network (0.3)")
    p.add_argument("address", nargs="*", metavar="HOST PORT", help="the course convention: the server last")


def play_table(args: argparse.Namespace) -> dict:
    """The options as a [[bot]] table (the session's bot_from_table): the server from --host/--port, or from
    the last two arguments."""
    host, port = args.host, args.port
    if args.address:
        if len(args.address) != 2:
            raise cmdline.UsageFailure("the server address is the last two arguments: HOST PORT")
        try:
            host, port = args.address[0], cmdline.port(args.address[1])
        except argparse.ArgumentTypeError as exc:
            raise cmdline.UsageFailure(f"the server's port: {exc}") from None
    if port is None:
        raise cmdline.UsageFailure("no server port: give --port P or HOST PORT as the last two arguments")
    return {"host": host, "port": port, "move_time": args.move_time, "overhead": args.overhead}
