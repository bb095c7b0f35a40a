"""Twilight in `bots tournament twilight` (bots.tournament.play): maps are the setups; each game
runs on our referee over real sockets (bots.twilight.arena), the first participant playing
the vampires, with the referee's random battles seeded per game."""

from __future__ import annotations

import argparse
from typing import Any

from ..cmdline import count, nonnegative, positive
from ..matches import Side
from .commands import _bad_map, _spec, _time_to_think

ENGINES = ""  # only our players: the official protocol has no engine side to start
SETUP = "map"  # what a setup is called in the report
EXAMPLE = ("bots tournament twilight --players random greedy expecti --maps testmap2 map8 --games 4 "
           "--move-time 0.5 --report out/ --record out/games")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--maps", nargs="+", default=None, help="maps, each a setup (default: every shipped map)")
    p.add_argument("--move-time", type=positive, default=0.5, help="seconds per move (0.5)")
    p.add_argument("--overhead", type=nonnegative, default=0.15, help="seconds kept back per move (0.15)")
    p.add_argument("--max-plies", type=count, default=200, help="plies per game (200)")


def settings(args: argparse.Namespace) -> dict:
    _time_to_think(args)
    return {"move_time": args.move_time, "overhead": args.overhead, "max_plies": args.max_plies}


def setups(args: argparse.Namespace) -> list[str]:
    from .maps import shipped_maps

    maps = args.maps or sorted(shipped_maps())
    for name in maps:
        _bad_map(name)
    return maps


def check(game: str, text: str) -> None:
    _spec(text)


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any) -> dict:
    """One game on map `setup`, `first` playing the vampires."""
    from .arena import run_arena

    a, b = Side("A", *_spec(first)), Side("B", *_spec(second))
    records = await run_arena(a, b, [setup], 1, settings["move_time"], settings["overhead"], runner,
                              max_plies=settings["max_plies"], seed=seed)
    return records[0]
