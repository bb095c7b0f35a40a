"""Hex in `bots arena hex` and `bots tournament hex` (bots.matches.MatchHooks): boards (`11`,
`9x7`) are the setups; a participant is one of our players or `htp:COMMAND`; each game runs
through the engine arena under our rules (bots.engine_arena, bots.hex.arena), the first
participant Black."""

from __future__ import annotations

import argparse
from typing import Any

from .. import engine_arena
from ..cmdline import UsageFailure, positive, whole
from ..matches import Watch

ENGINES = "htp:COMMAND (an external HTP engine)"
SETUP = "board"  # what a setup is called in the report
ARENA_EXAMPLE = 'bots arena hex --a mcts --b "htp:mohex --use-logfile=0" --sizes 11 --move-time 1 --games 20'
EXAMPLE = "bots tournament hex --players mcts resistance path --sizes 7 9 --games 4 --move-time 1 --report out/"


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--sizes", "--size", nargs="+", default=["11"], metavar="BOARD",
                   help="boards, each a setup: 11 (square) or 9x7 (width x height) (11)")
    p.add_argument("--swap", action="store_true", help="the swap (pie) rule in every game")
    p.add_argument("--move-time", type=positive, default=1.0, help="seconds per move (1)")
    p.add_argument("--game-time", type=positive, default=None, metavar="SECONDS",
                   help="a clock per side for the whole game (sudden death) instead of --move-time")
    p.add_argument("--opening-moves", type=whole, default=0, metavar="K",
                   help="start each game from K random stones, drawn from the game's seed: both games of a "
                        "--sprt pair start from the same ones (0: the empty board)")


def settings(args: argparse.Namespace) -> dict:
    extra = {"opening_moves": args.opening_moves} if args.opening_moves else {}  # old ledgers stay the same
    return {"swap": args.swap, "move_time": args.move_time, "game_time": args.game_time, **extra}


def rules(setup: str, swap: bool) -> Any:
    """The HexRules of a board `11` or `9x7`; ValueError saying what is wrong with it."""
    from .arena import HexRules
    from .board import check_size

    width, _, height = setup.partition("x")
    try:
        w, h = check_size(int(width), int(height) if height else None)
    except ValueError as exc:
        raise ValueError(f"board {setup!r}: {exc}") from None
    if swap and w != h:
        raise ValueError(f"board {setup!r}: the swap rule needs a square board")
    return HexRules(w, h, swap)


def setups(args: argparse.Namespace) -> list[str]:
    for setup in args.sizes:
        try:
            rules(setup, args.swap)
        except ValueError as exc:
            raise UsageFailure(str(exc)) from None
    return list(args.sizes)


check, searches = engine_arena.participant_hooks("htp")


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any,
                   watch: Watch = Watch()) -> dict:
    """One game, `first` Black, from the opening of `seed` (if asked for); our players choose
    their own seeds."""
    from .arena import opening

    game = rules(setup, settings["swap"])
    moves = opening(game.width, game.height, settings.get("opening_moves", 0), seed)
    return await engine_arena.play_sides(game, first, second, runner, settings["move_time"], settings["game_time"],
                                         watch, moves)
