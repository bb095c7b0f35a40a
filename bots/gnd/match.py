"""Gopher and Dodo in `bots arena` and `bots tournament` (bots.matches.MatchHooks): board sizes
are the setups; each game runs on our gnd server over real HTTP (bots.gnd.arena), the first
participant playing Red."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .. import cmdline
from ..cmdline import UsageFailure, count, nonnegative, positive
from ..matches import Watch
from ..participants import check_ours, our_side, searches_ours
from .commands import CLOCK
from .entry import rules

PERSON_CLOCK = 600.0  # a person's clock per game, unless --person-time says otherwise
ENGINES = ""  # only our players
SETUP = "board"  # what a setup is called in the report
EXAMPLE = "bots tournament gopher --players alphabeta mcts random --sizes 4 6 --games 4 --report out/"
ARENA_EXAMPLE = "bots arena dodo --a mcts --b alphabeta --sizes 4 --time 36 --games 40"


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--sizes", "--size", nargs="+", type=count, default=[6],
                   help="the hexagon's sides, each a setup (6)")
    p.add_argument("--time", type=positive, default=None,
                   help=f"each player's clock per game (the tournament's / 10: {CLOCK[game] / 10:g})")
    layouts = rules(game).LAYOUTS
    if layouts:
        p.add_argument("--layout", choices=layouts, default=layouts[0], help=f"the starting layout ({layouts[0]})")
    p.add_argument("--person-time", type=positive, default=None,
                   help=f"the clock per game of a person at the terminal ({PERSON_CLOCK:g}); the other side keeps "
                        "--time")
    p.add_argument("--overhead", type=nonnegative, default=0.1, help="seconds kept back per move (0.1)")


def settings(args: argparse.Namespace) -> dict:
    given = {"person_clock": args.person_time} if args.person_time else {}  # a tournament's ledger: as before
    return {"game": args.game, "clock": args.time or CLOCK[args.game] / 10,
            "layout": getattr(args, "layout", "gnd"), "overhead": args.overhead, **given}


def setups(args: argparse.Namespace) -> list[str]:
    from .server import ServerConfig

    for size in args.sizes:
        try:
            ServerConfig(args.game, size, 1.0, layout=getattr(args, "layout", "gnd"))  # checks size and layout
        except ValueError as exc:
            raise UsageFailure(str(exc)) from None
    return [str(size) for size in args.sizes]


check, searches = check_ours, searches_ours


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any,
                   watch: Watch = Watch()) -> dict:
    """One game on a hexagon of side `setup`, `first` playing Red."""
    from .arena import play_game

    game = settings["game"]
    return await play_game(our_side(game, watch.labels[0], first), our_side(game, watch.labels[1], second), game,
                           int(setup), settings["clock"], runner, layout=settings["layout"],
                           overhead=settings["overhead"], on_state=watch.on_state,
                           person_clock=settings.get("person_clock", PERSON_CLOCK))


# -- bots play gopher|dodo: one bot on a server (bots.playing) --------------------

PASSWORD_ENV = "BOTS_GND_PASSWORD"
PLAY_EXAMPLES = ("example:\n  bots play gopher --server http://localhost:8080/ --group 12 --name toto"
                 " --password totovelo --games 4")


def add_play_arguments(p: argparse.ArgumentParser) -> None:
    """`bots play gopher|dodo`'s own options (bots.playing adds the shared ones)."""
    p.add_argument("--server", default=None, help="the gnd server's URL, e.g. http://localhost:8080/")
    p.add_argument("--group", type=cmdline.whole, default=0, help="the group number sent to /register (0)")
    p.add_argument("--password", default=None, help=f"the group's password (or ${PASSWORD_ENV})")
    p.add_argument("--overhead", type=cmdline.nonnegative, default=0.1, help="seconds kept back per move (0.1)")


def play_table(args: argparse.Namespace) -> dict:
    """The options as a [[bot]] table (the session's bot_from_table); --name is also the Members sent to /register."""
    if not args.server:
        raise cmdline.UsageFailure(f"{args.game} is played on a gnd server: give --server URL "
                                   "(e.g. http://localhost:8080/)")
    if args.password is None and PASSWORD_ENV not in os.environ:
        raise cmdline.UsageFailure(f"give --password PW (or set {PASSWORD_ENV})")
    secret = {"password": args.password} if args.password is not None else {"password_env": PASSWORD_ENV}
    return {"game": args.game, "server": args.server, "group": args.group, "members": args.name,
            "overhead": args.overhead, **secret}
