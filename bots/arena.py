"""`bots arena GAME`: a match between two participants, --a and --b, over the game's match hooks
(bots.matches.MatchHooks), played the way `bots tournament` plays its games (bots.tournament.play):
on every setup the seats alternate game by game (A takes the first seat in even games), up to
--parallel games run at once on one pool of search workers, and the report gives A's score
with its 95% interval per setup, in total and in each seat.

A game that crashes (our bug or a broken setup, not a player's fault: those are in its record)
is logged and reported, and the command exits 1.  --record keeps each game's record (JSON, and
SGF for the games recorded as SGF) for `bots replay`; --json appends each record as a line.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from . import records as game_records
from . import registry
from .cmdline import (add_record, add_workers, count, output_file, players_text, record_directory, search_workers,
                      shower, whole)
from .matches import Side, Watch, report
from .tournament.schedule import Job


def add_parser(sub: argparse._SubParsersAction, game: registry.Game) -> None:
    """`bots arena <game>` with the shared options and the game's own."""
    hooks = game.module("match")
    engines = f", or {hooks.ENGINES}" if hooks.ENGINES else ""
    text = f"a {game.name} match between two players, with a report"
    p = sub.add_parser(game.name, help=text, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description=f"{text[0].upper()}{text[1:]}: on every {hooks.SETUP} the players take turns in "
                                   f"the first seat, game by game; the report gives A's score with its 95% interval "
                                   f"per {hooks.SETUP}, in total and in each seat, with illegal moves, time-outs and "
                                   "move times.",
                       epilog=f"example:\n  {hooks.ARENA_EXAMPLE}")
    p.add_argument("--a", required=True, metavar="PLAYER",
                   help=f"NAME or NAME:key=value,... ({players_text(game.name)}){engines}")
    p.add_argument("--b", required=True, metavar="PLAYER", help="the other side, as --a")
    p.add_argument("--games", type=count, default=10, help=f"games per {hooks.SETUP}, seats alternating (10)")
    p.add_argument("--parallel", type=count, default=1, help="games played at once (1)")
    p.add_argument("--seed", type=whole, default=1, help="base seed of the games' random events (1)")
    add_workers(p)
    p.add_argument("--json", default=None, metavar="FILE", help="append every game's record to FILE (JSON lines)")
    p.add_argument("--show", action="store_true", help="draw the board after every move")
    add_record(p, "every game", "JSON (and SGF for Go and Hex)", "--sgf")
    hooks.add_arguments(p, game.name)
    p.set_defaults(func=run)


def _line(entry: dict, done: int, total: int, started: float) -> str:
    """One line per game: who sat where, who won, how (the result, why, its length), the
    clocks left."""
    record = entry["record"]
    head = f"game {done}/{total} {entry['setup']}:"
    if record is None:
        return f"{head} crashed: {entry['error']}"
    seats = ", ".join(f"{seat} {label}" for seat, label in record["players"].items())
    winner = record["winner_name"]
    result = record.get("result") if isinstance(record.get("result"), str) else None
    length = (f"{len(record['moves'])} moves" if isinstance(record.get("moves"), list)
              else f"{record['plies']} plies" if "plies" in record else None)
    how = ", ".join(filter(None, [result, record.get("reason") or record.get("end"), length]))
    clock = record.get("clock_left")
    clocks = "; clocks left " + ", ".join(f"{seat} {left:.1f} s" for seat, left in clock.items()) if clock else ""
    return (f"{head} {seats}: {f'{winner} won' if winner else 'draw'}{f' ({how})' if how else ''}{clocks};"
            f" {time.monotonic() - started:.0f} s")


def _keep(folder: Any, game: str, setup: str, record: dict, number: int) -> None:
    """Save one game in the --record folder: its SGF when the game gives one, else its JSON."""
    if isinstance(record.get("sgf_text"), str):
        name = game_records.file_name(game, setup, record["names"]["A"],
                                      record["names"]["B"], number, "sgf")
        record["sgf"] = str(game_records.write(folder, name, record.pop("sgf_text")))
    else:
        game_records.keep(folder, record, number)


def run(args: argparse.Namespace, intro: str = "") -> int:
    """The match; `intro` is printed once the options are checked (`bots demo`'s words)."""
    from .loop import run as run_loop
    from .tournament.play import run_local

    game = registry.get(args.game)
    hooks = game.module("match")
    for label, text in (("A", args.a), ("B", args.b)):
        hooks.check(args.game, text, label)
    settings = hooks.settings(args)
    setups = hooks.setups(args)
    out = output_file(args.json, "a")
    folder = record_directory(args.record)
    a, b = Side("A", args.a.strip()), Side("B", args.b.strip())
    jobs = [Job((a.player, b.player), setup, index) for index in range(args.games) for setup in setups]
    show = shower(game.module("render").render) if args.show else None
    records: list[dict] = []
    by_setup: dict[str, list[dict]] = {setup: [] for setup in setups}
    crashed: list[dict] = []
    started = time.monotonic()

    def watch(job: Job) -> Watch:
        return Watch(("A", "B") if job.index % 2 == 0 else ("B", "A"), show)

    def note(entry: dict) -> None:
        record = entry["record"]
        if record is None:
            crashed.append(entry)
        else:
            record["game_number"] = len(records)
            record["names"] = {"A": a.player, "B": b.player}
            if folder is not None:
                _keep(folder, args.game, entry["setup"], record, len(records))
            record.pop("sgf_text", None)
            records.append(record)
            by_setup[entry["setup"]].append(record)
            if out:
                out.write(json.dumps(record) + "\n")
                out.flush()
        print(_line(entry, len(records) + len(crashed), len(jobs), started), flush=True)

    workers = search_workers(args.workers, [hooks.searches(args.game, t) for t in (args.a, args.b)])
    if intro:
        print(intro, flush=True)
    print(f"A = {a.player}   B = {b.player}\n{len(jobs)} games: {args.games} per {hooks.SETUP} on "
          f"{', '.join(setups)}; {', '.join(f'{k} {v}' for k, v in settings.items())}", flush=True)
    try:
        run_loop(run_local(args.game, jobs, settings, args.seed, args.parallel, workers, note, watch=watch))
    finally:
        if out:
            out.close()
    print(report(a, b, list(by_setup.items()), hooks.SETUP), flush=True)
    if crashed:
        print(f"{len(crashed)} games crashed (see the log)", flush=True)
        return 1
    return 0
