"""Gopher and Dodo in `bots tournament gopher|dodo` (bots.tournament.play): board sizes are the
setups; each game runs on our gnd server over real HTTP (bots.gnd.arena), the first
participant playing Red."""

from __future__ import annotations

import argparse
from typing import Any

from ..cmdline import UsageFailure, checked_player, count, nonnegative, player_spec, positive
from ..matches import Side
from .commands import CLOCK, LAYOUTS

ENGINES = ""  # only our players
SETUP = "board"  # what a setup is called in the report
EXAMPLE = "bots tournament gopher --players alphabeta mcts random --sizes 4 6 --games 4 --report out/"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", nargs="+", type=count, default=[6], help="the hexagon's sides, each a setup (6)")
    p.add_argument("--time", type=positive, default=None,
                   help="each player's clock per game (the tournament's / 10: gopher 18, dodo 36)")
    p.add_argument("--layout", default="gnd", help=f"Dodo starting layout, {LAYOUTS} (gnd)")
    p.add_argument("--overhead", type=nonnegative, default=0.1, help="seconds kept back per move (0.1)")


def settings(args: argparse.Namespace) -> dict:
    return {"game": args.game, "clock": args.time or CLOCK[args.game] / 10, "layout": args.layout,
            "overhead": args.overhead}


def setups(args: argparse.Namespace) -> list[str]:
    from .server import ServerConfig

    for size in args.sizes:
        try:
            ServerConfig(args.game, size, 1.0, layout=args.layout)  # checks size and layout
        except ValueError as exc:
            raise UsageFailure(str(exc)) from None
    return [str(size) for size in args.sizes]


def _side(label: str, game: str, text: str) -> Side:
    try:
        return Side(label, *checked_player(game, player_spec(text)))
    except argparse.ArgumentTypeError as exc:
        raise UsageFailure(str(exc)) from None


def check(game: str, text: str) -> None:
    _side("A", game, text)


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any) -> dict:
    """One game on a hexagon of side `setup`, `first` playing Red."""
    from .arena import run_arena

    game = settings["game"]
    records = await run_arena(_side("A", game, first), _side("B", game, second), game, int(setup), 1,
                              settings["clock"], runner, layout=settings["layout"], overhead=settings["overhead"])
    return records[0]
