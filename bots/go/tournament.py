"""Go in `bots tournament go` (bots.tournament.play): board sizes are the setups; a participant
is one of our players or `gtp:COMMAND`; each game runs through the engine arena under our rules."""

from __future__ import annotations

import argparse
from typing import Any

from .. import engine_arena
from ..cmdline import count, number, positive
from .commands import _check_size

ENGINES = "gtp:COMMAND (an external GTP engine)"
SETUP = "board"  # what a setup is called in the report
EXAMPLE = ("bots tournament go --players mcts 'gtp:gnugo --mode gtp --level 0 --chinese-rules --capture-all-dead' "
           "'gtp:gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead' --gauntlet mcts --games 10 "
           "--move-time 2 --report out/")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", nargs="+", type=count, default=[9], help="board sizes, each a setup (9)")
    p.add_argument("--komi", type=number, default=7.5, help="komi (7.5)")
    p.add_argument("--move-time", type=positive, default=2.0, help="seconds per move (2)")
    p.add_argument("--game-time", type=positive, default=None, metavar="SECONDS",
                   help="a clock per side for the whole game (sudden death) instead of --move-time")


def settings(args: argparse.Namespace) -> dict:
    return {"komi": args.komi, "move_time": args.move_time, "game_time": args.game_time}


def setups(args: argparse.Namespace) -> list[str]:
    return [str(_check_size(size)) for size in args.sizes]


def check(game: str, text: str) -> None:
    engine_arena.checked_side(game, "gtp", text)


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any) -> dict:
    """One game, `first` Black; our players choose their own seeds."""
    from .arena import GoRules

    return await engine_arena.play_sides(GoRules(int(setup), settings["komi"]), first, second, runner,
                                         settings["move_time"], settings["game_time"])
