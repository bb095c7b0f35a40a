"""The `bots` subcommands only Hex has (bots.cli builds the command line from the registry;
`arena`, `bench` and `tournament` come from the game's hooks).  Hex has no server to join, so
its `play` is a game in the terminal.

    bots play hex [--a human] [--b mcts] [--size 11] [--swap]    a game in the terminal
    bots htp hex [--player mcts]                                 an HTP engine on stdin/stdout
"""

from __future__ import annotations

import argparse
import os
import sys

from ..cmdline import (UsageFailure, add_player, add_ponder, add_record, add_workers, checked_player, checked_ponder,
                       count, not_a_person, page, players_text, positive, record_directory, search_workers)
from ..human import is_person
from ..loop import run as _run
from ..runner import SearchRunner
from .game import GAME

HUMAN = "human"


def commands(game: str) -> dict:
    return {("play", game): add_play, ("htp", game): add_htp}


def _board_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--size", type=count, default=11, help="the board's width (11); square unless --height")
    p.add_argument("--height", type=count, default=None, help="the board's height (the same as --size)")
    p.add_argument("--swap", action="store_true", help="the swap (pie) rule: White may take Black's first stone")


def _side_help(default: str) -> str:
    return f"NAME[:k=v,...] ({players_text('hex')}) or htp:COMMAND (default {default})"


def add_play(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "hex", "a game of Hex in the terminal: you against a player, or two players",
             ["bots play hex --a human --b mcts --size 9 --swap", "bots play hex --a mcts --b resistance --size 7"],
             "A game of Hex in the terminal, Black (--a) joining top and bottom, White (--b) left and right: "
             "a person types a cell (f6), the seed's row then column from 0 (5 5), or swap; the board is drawn "
             "after every move.  Hex has no server to join: engines play under a controller (`bots htp hex`).")
    p.add_argument("--a", default=HUMAN, metavar="PLAYER", help="Black (moves first): " + _side_help(HUMAN))
    p.add_argument("--b", default=GAME.default_player, metavar="PLAYER",
                   help="White: " + _side_help(GAME.default_player))
    _board_options(p)
    p.add_argument("--move-time", type=positive, default=2.0, help="seconds per move of our players (2)")
    add_record(p, "the game (moves, each move's think time as a comment, the result)", "SGF", "--sgf")
    add_workers(p)
    p.set_defaults(func=play)


def add_htp(sub: argparse._SubParsersAction) -> None:
    p = page(sub, "hex", "a Hex engine speaking HTP on stdin/stdout (HexGui, MoHex tournament scripts)",
             ["bots htp hex --player mcts"],
             "A Hex engine speaking HTP (Hex's dialect of GTP) on stdin/stdout, for HexGui or a tournament "
             "script: any board to 19x19, the swap rule, and the controller's clock (time_settings, time_left, "
             "param_game game_time; 2 s a move when none is set).")
    add_player(p, "hex", GAME.default_player, persons=False)
    add_workers(p)
    add_ponder(p)
    p.set_defaults(func=htp)


def _rules(args: argparse.Namespace):
    from .arena import HexRules
    from .board import check_size

    try:
        width, height = check_size(args.size, args.height)
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    if args.swap and width != height:
        raise UsageFailure(f"the swap rule needs a square board, not {width}x{height}")
    return HexRules(width, height, args.swap)


def _side(text: str, label: str):
    from .. import engine_arena

    try:
        return engine_arena.parse_side("hex", "htp", text, label)
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None


def play(args: argparse.Namespace) -> int:
    from .. import engine_arena
    from .board import COLOUR_NAMES, render

    rules = _rules(args)
    black, white = _side(args.a, "A"), _side(args.b, "B")
    if black.label == white.label:
        raise UsageFailure("the two sides must differ")
    sides = {1: black, 2: white}
    directory = record_directory(args.record)
    colour = sys.stdout.isatty()

    def shown(state, name) -> None:
        mover = 3 - state.to_move  # the state after the move
        print(f"{COLOUR_NAMES[mover]} ({engine_arena.describe(sides[mover])}) plays {name}", flush=True)
        if state.is_terminal() or not is_person("hex", sides[state.to_move].player):
            print(render(state, colour=colour), flush=True)

    async def main() -> dict:
        workers = search_workers(args.workers, [engine_arena.searches("hex", "htp", t) for t in (args.a, args.b)])
        async with SearchRunner(workers, games=["hex"]) as runner:
            try:
                record = await engine_arena.play_game(rules, black, white, runner, per_move=args.move_time,
                                                      on_move=shown)
            finally:
                for side in (black, white):
                    if isinstance(side, engine_arena.EngineSide):
                        await side.close()
        if directory:
            record["sgf"] = str(engine_arena.write_sgf(rules, record, black, white, directory, 0))
        return record

    print(f"Black (top to bottom) = {engine_arena.describe(black)}\nWhite (left to right) = "
          f"{engine_arena.describe(white)}\n{rules.width}x{rules.height}{', swap rule' if rules.swap else ''}",
          flush=True)
    if not is_person("hex", black.player):
        print(render(rules.start(), colour=colour), flush=True)
    try:
        record = _run(main())
    except engine_arena.EngineError as exc:
        raise UsageFailure(f"cannot run the engine: {exc}") from None
    winner = record["winner_name"]
    who = {"A": "Black", "B": "White"}.get(winner, "nobody")
    print(f"{record['result']} ({record['end']}): {who} ({args.a if winner == 'A' else args.b}) has won."
          + (f"\nSGF: {record['sgf']}" if record.get("sgf") else ""), flush=True)
    return 0


def htp(args: argparse.Namespace) -> int:
    from .htp import main

    name, params = checked_player("hex", args.player, args.param)
    not_a_person("hex", name, "an HTP engine reads its commands on stdin")
    ponder = checked_ponder("hex", name, params, args.ponder)
    return main(name, params, workers=args.workers or os.cpu_count() or 1, ponder=ponder)


