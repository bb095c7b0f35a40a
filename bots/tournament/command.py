"""`bots tournament GAME`: the command line of a tournament, for every game (bots.cli adds one
parser per game).

The game's match hooks (bots.matches.MatchHooks) add its own options (maps or sizes, the
clock) and give the settings, the setups, the check of a participant and `play_one`.  This
module does the rest: participants, schedule, ledger, the games (here or on a Ray cluster),
the ratings, the report.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from .. import plotting
from ..cmdline import UsageFailure, count, players_text, whole
from ..human import is_person


def add_parser(sub: argparse._SubParsersAction, game: Any) -> None:
    """`bots tournament <game>` with the shared options and the game's own."""
    hooks = game.module("match")
    engines = f", or {hooks.ENGINES}" if hooks.ENGINES else ""
    text = f"a {game.name} round robin or gauntlet of many participants, with ratings and a report"
    p = sub.add_parser(game.name, help=text, description=text, formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=f"example:\n  {hooks.EXAMPLE}\n\nAn interrupted tournament resumes when the same command "
                              "is run again with the same --record (or --report) directory: only the missing "
                              "games are played.")
    p.add_argument("--players", nargs="+", required=True, metavar="PLAYER",
                   help=f"the participants: NAME or NAME:key=value,... "
                        f"({players_text(game.name, persons=False)}){engines}; "
                        "each name must be different")
    p.add_argument("--gauntlet", metavar="PLAYER", default=None,
                   help="play this participant against each of the others only (default: a round robin)")
    p.add_argument("--games", type=count, default=2,
                   help="games per pairing and setup, seats alternating; an odd number gives the pair's "
                        "first name (sorted) one more game in the first seat (2)")
    p.add_argument("--parallel", type=count, default=1, help="games played at once on this machine (1)")
    p.add_argument("--workers", type=count, default=None,
                   help="search processes: here shared by the parallel games (default: all cores); "
                        "with --cluster, per game and the CPUs each Ray task asks for (1)")
    p.add_argument("--seed", type=whole, default=1, help="base seed of the games' random events (1)")
    p.add_argument("--anchor", metavar="PLAYER", default=None,
                   help="the participant whose rating is 0 (default: the first of --players)")
    p.add_argument("--record", metavar="DIR", default=None,
                   help="keep every game's record and the ledger here, and resume from them "
                        "(default: DIR/records of --report, else nothing is kept)")
    p.add_argument("--report", metavar="DIR", default=None,
                   help="write DIR/index.html with PNG charts (works offline)")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="run the games as Ray tasks on the Ray cluster whose head is ADDRESS (HOST:6379); "
                        "needs pip install 'tournament-bots[cluster]'")
    hooks.add_arguments(p, game.name)
    p.set_defaults(func=run)


def participants(args: argparse.Namespace, hooks: Any) -> list[str]:
    """The participants, checked: at least two, all different, each a valid player or engine."""
    names = [p.strip() for p in args.players]
    if len(names) < 2:
        raise UsageFailure("a tournament needs at least two --players")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageFailure(f"--players names {twice[0]!r} twice: give each participant once "
                           "(two copies of a player differ by an option, e.g. random:seed=1 random:seed=2)")
    for name in names:
        if is_person(args.game, name.split(":", 1)[0]):
            raise UsageFailure(f"--players {name!r}: a tournament is played by programs; a person plays one at a "
                               f"time with `bots arena {args.game} --a human`")
        hooks.check(args.game, name)
    for option in ("gauntlet", "anchor"):
        chosen = getattr(args, option)
        if chosen is not None and chosen.strip() not in names:
            raise UsageFailure(f"--{option} {chosen!r} is not one of --players")
    return names


def quiet_games(args: argparse.Namespace) -> None:
    """Keep the tournament's own lines and every warning, drop the games' info lines (a line per
    move would drown the progress); `--log-level debug` keeps everything."""
    if args.log_level == "debug":
        return
    import structlog

    from .. import log

    def keep(event: dict) -> None:
        if event.get("level") == "info" and "tournament" not in event:
            raise structlog.DropEvent

    log.setup(args.log_format or "auto", args.log_level, tap=keep)


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from .ledger import Ledger, results
    from .progress import Display
    from .ratings import fit
    from .report import Overhead
    from .schedule import schedule

    started = time.monotonic()
    hooks = registry.get(args.game).module("match")
    quiet_games(args)
    if args.cluster:
        try:
            import ray  # noqa: F401  (only to say at once that it is missing)
        except ImportError:
            from .cluster import INSTALL

            raise UsageFailure(INSTALL) from None
    names = participants(args, hooks)
    settings = hooks.settings(args)
    setups = hooks.setups(args)
    gauntlet = args.gauntlet.strip() if args.gauntlet else None
    anchor = args.anchor.strip() if args.anchor else names[0]
    jobs = schedule(names, setups, args.games, gauntlet)
    record_dir = args.record or (str(Path(args.report) / "records") if args.report else None)
    if args.report:
        try:
            plotting.require("--report")
        except ImportError as exc:
            raise UsageFailure(str(exc)) from None
        try:
            Path(args.report).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageFailure(f"cannot create the report directory {args.report}: {exc.strerror or exc}") from None
    ledger = Ledger(record_dir, args.game, settings).open()
    todo = [job for job in jobs if job.key not in ledger.done]
    title = f"{args.game.capitalize()} tournament"
    word = hooks.SETUP
    print(f"{title}: {len(names)} participants, {len(setups)} {word}s, {args.games} games per pairing and {word}:"
          f" {len(jobs)} games, {len(jobs) - len(todo)} already played, {len(todo)} to play"
          + (f" on the Ray cluster at {args.cluster}" if args.cluster else f", {args.parallel} at once"), flush=True)

    def scheduled() -> list[dict]:
        return [ledger.done[job.key] for job in jobs if job.key in ledger.done]

    overhead = Overhead()
    crashed_now: list[dict] = []
    display = Display(title, len(jobs), len(jobs) - len(todo), lambda: fit(names, results(scheduled()), anchor))

    def ready() -> None:
        overhead.startup += time.monotonic() - started
        display.start()

    def note(entry: dict) -> None:
        t0 = time.monotonic()
        ledger.add(entry)
        overhead.bookkeeping += time.monotonic() - t0
        if entry["status"] == "done":
            overhead.add(entry)
        else:
            crashed_now.append(entry)
        display.game(entry)

    try:
        with display:
            if todo and args.cluster:
                from .cluster import run_cluster

                run_cluster(args.cluster, args.game, todo, settings, args.seed, args.workers or 1, note, ready)
            elif todo:
                from ..loop import run as run_loop
                from .play import run_local

                run_loop(run_local(args.game, todo, settings, args.seed, args.parallel, args.workers, note, ready))
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(scheduled())} of {len(jobs)} games played"
              + ("; run the same command again to play the rest" if record_dir else ""), flush=True)
        raise
    overhead.wall = time.monotonic() - started
    done = scheduled()
    ratings = fit(names, results(done), anchor)
    print(ratings.table(), flush=True)
    if args.report:
        from .report import write

        t0 = time.monotonic()
        keys = {job.key for job in jobs}
        crashed = [e for e in ledger.crashed if tuple(e["key"]) in keys]
        page = write(args.report, title, ledger.about, names, done, crashed, ratings, overhead, record_dir, word)
        overhead.report = time.monotonic() - t0
        print(f"report: {page}", flush=True)
    print(overhead.line(), flush=True)
    if crashed_now:
        print(f"{len(crashed_now)} games crashed (see the log); run the same command again to replay them"
              if record_dir else f"{len(crashed_now)} games crashed (see the log)", flush=True)
        return 1
    return 0
