"""Go in `bots arena go` and `bots tournament go` (bots.matches.MatchHooks): board sizes are the
setups; a participant is one of our players or `gtp:COMMAND`; each game runs through the engine
arena under our rules (bots.engine_arena, bots.go.arena), the first participant Black."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .. import cmdline, engine_arena
from ..cmdline import UsageFailure, count, number, positive, whole
from ..matches import Watch

ENGINES = "gtp:COMMAND (an external GTP engine)"
SETUP = "board"  # what a setup is called in the report
EXAMPLE = ("bots tournament go --players mcts 'gtp:gnugo --mode gtp --level 0 --chinese-rules --capture-all-dead' "
           "'gtp:gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead' --gauntlet mcts --games 10 "
           "--move-time 2 --report out/")
ARENA_EXAMPLE = "bots arena go --a mcts --b 'gtp:gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead'"


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--sizes", "--size", nargs="+", type=count, default=[9], help="board sizes, each a setup (9)")
    p.add_argument("--komi", type=number, default=7.5, help="komi (7.5)")
    p.add_argument("--move-time", type=positive, default=2.0,
                   help="seconds per move (2); a gtp: engine is told whole seconds (GTP's time_settings), "
                        "so give it a whole number or use --game-time")
    p.add_argument("--game-time", type=positive, default=None, metavar="SECONDS",
                   help="a clock per side for the whole game (sudden death) instead of --move-time")
    p.add_argument("--handicap", type=whole, default=0, metavar="N",
                   help="Black starts with N stones at GTP's fixed points and White moves first (2 to 9 on odd "
                        "boards from 9x9, at most 4 on even ones; set --komi too, 0.5 is usual); 0: none")
    p.add_argument("--opening-moves", type=whole, default=0, metavar="K",
                   help="start each game from K random moves (from the third line in), drawn from the game's "
                        "seed: both games of a --sprt pair start from the same ones (0: the empty board)")


def settings(args: argparse.Namespace) -> dict:
    extra = {"opening_moves": args.opening_moves} if args.opening_moves else {}  # old ledgers stay the same
    if args.handicap:
        extra["handicap"] = args.handicap
    return {"komi": args.komi, "move_time": args.move_time, "game_time": args.game_time, **extra}


def setups(args: argparse.Namespace) -> list[str]:
    from .board import empty
    from .handicap import fixed_points

    for size in args.sizes:
        try:
            empty(size)
        except ValueError as exc:
            raise UsageFailure(str(exc)) from None
        try:
            if args.handicap:
                fixed_points(size, args.handicap)
        except ValueError as exc:
            raise UsageFailure(f"--handicap {args.handicap}: {exc}") from None
    return [str(size) for size in args.sizes]


check, searches = engine_arena.participant_hooks("gtp")


async def play_one(first: str, second: str, setup: str, settings: dict, seed: int, runner: Any,
                   watch: Watch = Watch()) -> dict:
    """One game, `first` Black, from its handicap stones and the opening of `seed` (if asked
    for); our players choose their own seeds."""
    from .arena import GoRules, opening

    rules = GoRules(int(setup), settings["komi"], settings.get("handicap", 0))
    moves = opening(int(setup), settings.get("opening_moves", 0), seed, rules.start())
    return await engine_arena.play_sides(rules, first, second, runner,
                                         settings["move_time"], settings["game_time"], watch, moves)


# -- bots play go: one bot on a server (bots.playing) --------------------

PASSWORD_ENV = "BOTS_CGOS_PASSWORD"
DEFAULT_PORT = 6809  # the 9x9 CGOS server (docs/protocols/cgos.md section 1)
PLAY_EXAMPLES = "example:\n  bots play go --cgos yss-aya.com:6809 --name bots-mcts --password secret --games 0"


def add_play_arguments(p: argparse.ArgumentParser) -> None:
    """`bots play go`'s own options (bots.playing adds the shared ones); --name is the CGOS
    account: 3-18 characters from [A-Za-z0-9_.-]."""
    p.add_argument("--cgos", default=None, metavar="HOST:PORT",
                   help=f"the CGOS server (9x9: yss-aya.com:{DEFAULT_PORT})")
    p.add_argument("--password", default=None, help=f"the CGOS password (or ${PASSWORD_ENV}); the first login "
                                                    "registers the name")
    p.add_argument("--overhead", type=cmdline.nonnegative, default=0.2, help="seconds kept back per move (0.2)")


def play_table(args: argparse.Namespace) -> dict:
    """The options as a [[bot]] table (the session's bot_from_table)."""
    if not args.cgos:
        raise cmdline.UsageFailure("go is played on a CGOS server: give --cgos HOST:PORT (or use `bots gtp go`)")
    host, sep, port = args.cgos.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise cmdline.UsageFailure(f"--cgos {args.cgos!r} is not HOST:PORT (e.g. yss-aya.com:{DEFAULT_PORT})")
    if args.password is None and PASSWORD_ENV not in os.environ:
        raise cmdline.UsageFailure(f"give --password PW (or set {PASSWORD_ENV}); the first login registers the name")
    secret = {"password": args.password} if args.password is not None else {"password_env": PASSWORD_ENV}
    return {"host": host, "port": int(port), "overhead": args.overhead, **secret}
