"""`bots arena GAME`: a match between two participants, --a and --b, over the game's match hooks
(bots.matches.MatchHooks), played the way `bots tournament` plays its games (bots.tournament.play):
on every setup the seats alternate game by game (A takes the first seat in even games), up to
--parallel games run at once on one pool of search workers, and the report gives A's score
with its 95% interval per setup, in total and in each seat.

A game that crashes (our bug or a broken setup, not a player's fault: those are in its record)
is logged and reported, and the command exits 1.  An external engine that fails its setup
(it exits, or refuses boardsize) in SETUP_FAILURES games in a row stops the match: no more
games are started, and the command exits 1 naming the engine and its last error.  --record
keeps each game's record (JSON, and SGF for the games recorded as SGF) for `bots replay`;
--json appends each record as a line.

--sprt "elo0=0 elo1=10 alpha=0.05 beta=0.05" makes the match a sequential test of A against
B (bots.sprt, docs/sprt.md): pairs of games, one setup and one seed each with the seats
swapped, until the log-likelihood ratio crosses a bound (exit 0) or --games, then the most
games in all, are played (exit UNDECIDED).  A pair with a crashed game is left out of the
statistics and reported.  With --against R the test is a gauntlet: each pair plays A against R
and B against R on one setup and seed, A and B in the same seat, and scores 1 + A's points - B's
points.  --cluster plays the games as Ray tasks (bots.tournament.cluster), --parallel of them at
a time.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from . import records as game_records
from . import registry
from . import sprt
from .cmdline import (UsageFailure, add_record, count, output_file, players_text, record_directory, search_workers,
                      shower, whole)
from .matches import MatchHooks, Side, Watch, report
from .tournament.schedule import Job

GAMES = 10  # games per setup, without --sprt
SPRT_CAP = 1000  # the most games of a sequential test, unless --games says otherwise
UNDECIDED = 3  # the exit status of a sequential test that reached its cap without a decision
SETUP_FAILURES = 3  # an engine's failed setups in a row that stop a match


def bounds(text: str) -> sprt.Bounds:
    """--sprt's argument, parsed (a one-line usage error naming what is wrong)."""
    try:
        return sprt.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (e.g. --sprt \"{sprt.EXAMPLE}\")") from None


def add_parser(sub: argparse._SubParsersAction, game: registry.Game) -> None:
    """`bots arena <game>` with the shared options and the game's own."""
    hooks = game.module("match")
    engines = f", or {hooks.ENGINES}" if hooks.ENGINES else ""
    text = f"a {game.name} match between two players, with a report"
    sequential = re.sub(r" --games \d+", "", hooks.ARENA_EXAMPLE) + f' --sprt "{sprt.EXAMPLE}" --games 2000'
    p = sub.add_parser(game.name, help=text, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description=f"{text[0].upper()}{text[1:]}: on every {hooks.SETUP} the players take turns in "
                                   f"the first seat, game by game; the report gives A's score with its 95% interval "
                                   f"per {hooks.SETUP}, in total and in each seat, with illegal moves, time-outs and "
                                   "move times.  With --sprt, a sequential test of A (the tested player) against B "
                                   "instead: pairs of games until the games decide (docs/sprt.md).",
                       epilog=f"example:\n  {hooks.ARENA_EXAMPLE}\n\nsequential test (A tested against B; exit "
                              f"status 0: decided, {UNDECIDED}: --games played without a decision, 1: a game "
                              f"crashed or an engine failed its setup {SETUP_FAILURES} times in a row, 2: bad "
                              f"input):\n  {sequential}")
    p.add_argument("--a", required=True, metavar="PLAYER",
                   help=f"NAME or NAME:key=value,... ({players_text(game.name)}){engines}; with --sprt the "
                        "tested player")
    p.add_argument("--b", required=True, metavar="PLAYER", help="the other side, as --a")
    p.add_argument("--games", type=count, default=None,
                   help=f"games per {hooks.SETUP}, seats alternating ({GAMES}); with --sprt the most games in all, "
                        f"an odd number rounded up to whole pairs ({SPRT_CAP})")
    p.add_argument("--sprt", type=bounds, default=None, metavar="BOUNDS",
                   help=f'a sequential probability ratio test of A against B, e.g. --sprt "{sprt.EXAMPLE}" '
                        "(one argument; alpha and beta 0.05 unless given): pairs of games (one "
                        f"{hooks.SETUP} and seed, the seats swapped; the {hooks.SETUP}s in turn) until the "
                        "log-likelihood ratio of H1 (A is elo1 Elo better than B) against H0 (A is elo0 better) "
                        "crosses ln((1-beta)/alpha): H1 accepted, or ln(beta/(1-alpha)): H0 accepted, or --games "
                        "are played; a line per pair, then the verdict, the pentanomial counts and A's Elo over B "
                        "with its 95%% interval")
    p.add_argument("--against", default=None, metavar="PLAYER",
                   help="with --sprt, test A against B by their games against this third player, as --a (a "
                        "gauntlet): each pair plays A against it, then B against it, on one "
                        f"{hooks.SETUP} and seed with A and B in the same seat (each {hooks.SETUP} in both seats in "
                        "turn), and counts 1 + A's points - B's points; the Elo is that of the pairs' "
                        "score, about half the Elo difference of A's and B's scores against the third player")
    p.add_argument("--sprt-file", default=None, metavar="FILE",
                   help="with --sprt, keep the test's counted pairs in FILE (JSON lines) and, when FILE already "
                        "holds the same test (players, bounds, settings, setups, seed), go on from where it "
                        "stopped: its pairs count and the new pairs take the next seeds")
    p.add_argument("--parallel", type=count, default=1,
                   help="games played at once (1); with --sprt the two games of a pair may be among them; "
                        "with --cluster, games on the cluster at once")
    p.add_argument("--seed", type=whole, default=1, help="base seed of the games' random events (1)")
    p.add_argument("--workers", type=count, default=None,
                   help="search processes: here shared by the parallel games (default: all cores; none when no "
                        "player searches); with --cluster, per game and the CPUs each Ray task asks for (1)")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="play the games as Ray tasks on the Ray cluster whose head is ADDRESS (HOST:6379), "
                        "--parallel at a time, as `bots tournament --cluster` does; needs "
                        "pip install 'tournament-bots[cluster]'")
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


@dataclass(frozen=True)
class GauntletJob(Job):
    """A game of a gauntlet pair (--against R): `pair` is (the tested player, R); game 2k is
    A's, 2k+1 B's, both with the seed of game 2k and the tested player in the same seat."""

    tested_first: bool = True

    @property
    def first(self) -> str:
        return self.pair[0 if self.tested_first else 1]

    @property
    def second(self) -> str:
        return self.pair[1 if self.tested_first else 0]

    @property
    def label(self) -> str:
        """The tested player's label: "A" in the pair's first game, "B" in its second."""
        return "AB"[self.index % 2]

    def seed(self, base: int) -> int:
        return Job((self.pair[1], self.pair[1]), self.setup, self.index - self.index % 2).seed(base)


@dataclass(frozen=True)
class PairJob(Job):
    """A game of a sequential test's pair: games 2k and 2k+1 are pair k, A in the first seat in
    the first, B in the second, and both take the seed of game 2k (one setup, one seed, the
    seats swapped)."""

    def seed(self, base: int) -> int:
        return Job(self.pair, self.setup, self.index - self.index % 2).seed(base)


@dataclass
class Match:
    """What a match needs, whichever way it is played: the sides, the settings and setups, the
    outputs, and the games kept so far."""

    args: argparse.Namespace
    hooks: MatchHooks
    a: Side
    b: Side
    settings: dict
    setups: list[str]
    out: Any
    folder: Any
    show: Callable[[Any], None] | None
    workers: int | None
    r: Side | None = None  # --against: the third player of a gauntlet test
    records: list[dict] = field(default_factory=list)
    failed_setups: dict[str, int] = field(default_factory=dict)  # label -> its failed setups in a row
    broken: str | None = None  # why the match stopped early (SETUP_FAILURES), if it did

    @property
    def cluster(self) -> str | None:
        return getattr(self.args, "cluster", None)

    @staticmethod
    def labels(job: Job) -> tuple[str, str]:
        """A in the first seat in even games, B in odd ones; in a gauntlet's game, the tested
        player's label and R's, in the job's seats."""
        if isinstance(job, GauntletJob):
            return (job.label, "R") if job.tested_first else ("R", job.label)
        return ("A", "B") if job.index % 2 == 0 else ("B", "A")

    def keep(self, entry: dict) -> None:
        """A finished game's record numbered, named and kept (--record, --json); a crashed
        game has none.  Counts the failed setups of each side (`broken`)."""
        record = entry["record"]
        if record is None:
            return
        self._count_setups(record)
        record["game_number"] = len(self.records)
        record["names"] = {"A": self.a.player, "B": self.b.player, **({"R": self.r.player} if self.r else {})}
        if self.folder is not None:
            _keep(self.folder, self.args.game, entry["setup"], record, len(self.records))
        record.pop("sgf_text", None)
        self.records.append(record)
        if self.out:
            self.out.write(json.dumps(record) + "\n")
            self.out.flush()

    def _count_setups(self, record: dict) -> None:
        from .engine_arena import SETUP_FAILED

        failed = {record["players"].get(v.get("species")): v["reason"] for v in record.get("violations", ())
                  if str(v.get("reason", "")).startswith(SETUP_FAILED)}
        playing = set(record["players"].values())  # (a gauntlet's game has A or B, and R)
        for label, side in (("A", self.a), ("B", self.b), ("R", self.r)):
            if side is None or label not in playing:
                continue
            row = self.failed_setups[label] = self.failed_setups.get(label, 0) + 1 if label in failed else 0
            if row >= SETUP_FAILURES and self.broken is None:
                self.broken = (f"side {label} ({side.player}) failed its setup in {row} games in a row, "
                               f"so the match stops (the last: {failed[label]})")

    def unless_broken(self, jobs: Iterable[Job]) -> Iterator[Job]:
        """`jobs` until the match is `broken` (the games already started end as they will)."""
        for job in jobs:
            if self.broken:
                return
            yield job

    def play(self, jobs: Iterable[Job], note: Callable[[dict], None]) -> None:
        """Play `jobs`, here or on the Ray cluster, --parallel at once; each entry to `note`;
        no job is started once the match is `broken`."""
        jobs = self.unless_broken(jobs)
        if self.cluster:
            from .tournament.cluster import run_cluster

            run_cluster(self.cluster, self.args.game, jobs, self.settings, self.args.seed,
                        1 if self.workers is None else self.workers, note, labels=self.labels,
                        window=self.args.parallel)
        else:
            from .loop import run as run_loop
            from .tournament.play import run_local

            run_loop(run_local(self.args.game, jobs, self.settings, self.args.seed, self.args.parallel, self.workers,
                               note, watch=lambda job: Watch(self.labels(job), self.show)))

    def close(self) -> None:
        if self.out:
            self.out.close()


def prepare(args: argparse.Namespace) -> Match:
    """The options checked, the outputs opened: a Match ready to play (UsageFailure naming a
    bad option)."""
    from .human import is_person

    game = registry.get(args.game)
    hooks = game.module("match")
    against = getattr(args, "against", None)
    sides = [("a", args.a), ("b", args.b)] + ([("against", against)] if against is not None else [])
    for label, text in sides:
        hooks.check(args.game, text, "R" if label == "against" else label.upper())
    cluster = getattr(args, "cluster", None)
    if cluster:
        if args.show:
            raise UsageFailure("--show draws the board here; the games of --cluster are played elsewhere")
        for label, text in sides:
            if is_person(args.game, text.strip().split(":", 1)[0]):
                raise UsageFailure(f"--{label} {text!r} is a person at this terminal and cannot play on a cluster")
        try:
            import ray  # noqa: F401  (only to say at once that it is missing)
        except ImportError:
            from .tournament.cluster import INSTALL

            raise UsageFailure(INSTALL) from None
    settings = hooks.settings(args)
    setups = hooks.setups(args)
    out = output_file(args.json, "a")
    folder = record_directory(args.record)
    show = shower(game.module("render").render) if args.show else None
    workers = search_workers(args.workers, [hooks.searches(args.game, t) for _, t in sides])
    return Match(args, hooks, Side("A", args.a.strip()), Side("B", args.b.strip()), settings, setups, out, folder,
                 show, workers, Side("R", against.strip()) if against is not None else None)


def run(args: argparse.Namespace, intro: str = "") -> int:
    """The match; `intro` is printed once the options are checked (`bots demo`'s words)."""
    if getattr(args, "sprt_file", None) and getattr(args, "sprt", None) is None:
        raise UsageFailure("--sprt-file keeps a sequential test's pairs: give --sprt too")
    if getattr(args, "against", None) is not None and getattr(args, "sprt", None) is None:
        raise UsageFailure("--against makes a sequential test a gauntlet: give --sprt too")
    match = prepare(args)
    if getattr(args, "sprt", None) is not None:
        return run_sprt(match, args.sprt, intro)
    a, b, setups, hooks = match.a, match.b, match.setups, match.hooks
    games = args.games or GAMES
    jobs = [Job((a.player, b.player), setup, index) for index in range(games) for setup in setups]
    by_setup: dict[str, list[dict]] = {setup: [] for setup in setups}
    crashed: list[dict] = []
    started = time.monotonic()

    def note(entry: dict) -> None:
        match.keep(entry)
        if entry["record"] is None:
            crashed.append(entry)
        else:
            by_setup[entry["setup"]].append(entry["record"])
        print(_line(entry, len(match.records) + len(crashed), len(jobs), started), flush=True)

    if intro:
        print(intro, flush=True)
    print(f"A = {a.player}   B = {b.player}\n{len(jobs)} games: {games} per {hooks.SETUP} on "
          f"{', '.join(setups)}; {', '.join(f'{k} {v}' for k, v in match.settings.items())}"
          + (f"; on the Ray cluster at {match.cluster}, {args.parallel} at once" if match.cluster else ""),
          flush=True)
    try:
        match.play(jobs, note)
    finally:
        match.close()
    print(report(a, b, list(by_setup.items()), hooks.SETUP), flush=True)
    if crashed:
        print(f"{len(crashed)} games crashed (see the log)", flush=True)
    if match.broken:
        print(f"stopped after {len(match.records) + len(crashed)} of {len(jobs)} games: {match.broken}", flush=True)
    return 1 if crashed or match.broken else 0


# -- --sprt: a sequential test of A against B ----------------------------------------------------------

WORD = {1.0: "won", 0.5: "drew", 0.0: "lost"}  # a player's points in a game -> its result


def _points(record: dict, label: str = "A") -> float:
    """The points of the player labelled `label` in one game."""
    winner = record["winner_name"]
    return 0.5 if winner is None else float(winner == label)


def _elo(value: float) -> str:
    """An Elo difference, signed and rounded: +73, -12, +0 (never -0), +inf."""
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    text = f"{value:+.0f}"
    return "+0" if text == "-0" else text


def _standing(status: sprt.Status, bounds: sprt.Bounds) -> str:
    """Pairs, their pentanomial counts, the LLR and its bounds, A's Elo with its interval."""
    guess = status.estimate
    elo = f"Elo {_elo(guess.elo)} [{_elo(guess.low)}, {_elo(guess.high)}]" if guess else "Elo -"
    return (f"{sum(status.counts)} pairs [{' '.join(map(str, status.counts))}], LLR {status.llr:.2f} "
            f"[{bounds.lower:.2f}, {bounds.upper:.2f}], {elo}")


def verdict_text(status: sprt.Status, bounds: sprt.Bounds, cap: int) -> str:
    """The verdict in words: what was accepted, and what it means for A."""
    if status.verdict == "H1":
        return (f"H1 accepted: A is better than B (the games favour Elo {_elo(bounds.elo1)} over {_elo(bounds.elo0)}; "
                f"an A only elo0 better passes with probability alpha={bounds.alpha:g} at most)")
    if status.verdict == "H0":
        return (f"H0 accepted: A is not elo1={bounds.elo1:g} better than B (the games favour Elo {_elo(bounds.elo0)} "
                f"over {_elo(bounds.elo1)}; an A elo1 better fails with probability beta={bounds.beta:g} at most)")
    return f"no decision: {cap} games played with the LLR between the bounds (exit status {UNDECIDED})"


def sprt_identity(match: Match, bounds: sprt.Bounds) -> dict:
    """What makes two runs one sequential test: the players, the bounds, the settings, the
    setups and the base seed (a --sprt-file's first line)."""
    against = {"against": match.r.player} if match.r else {}  # (absent from the files of tests before --against)
    return json.loads(json.dumps({"game": match.args.game, "a": match.a.player, "b": match.b.player, **against,
                                  "bounds": str(bounds), "settings": match.settings, "setups": match.setups,
                                  "seed": match.args.seed}, default=str))


def load_sprt_file(path: str, identity: dict) -> dict[int, float]:
    """The pairs (index -> A's points) an earlier run of the same test kept in `path` ({} when
    it does not exist or is empty); UsageFailure naming what differs or what is unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line for line in f if line.strip()]
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageFailure(f"cannot read --sprt-file {path}: {exc.strerror or exc}") from None
    if not lines:
        return {}
    pairs: dict[int, float] = {}
    try:
        head = json.loads(lines[0])["test"]
        for number, line in enumerate(lines[1:], 2):
            row = json.loads(line)
            points = float(row["points"])
            if points not in sprt.PAIR_SCORES or int(row["pair"]) < 0:
                raise ValueError(f"line {number}: pair {row['pair']} with {points} points")
            pairs[int(row["pair"])] = points
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageFailure(f"--sprt-file {path} is not a sequential test's file: {exc}") from None
    differ = [key for key in sorted(identity.keys() | head.keys()) if head.get(key) != identity.get(key)]
    if differ:
        raise UsageFailure(f"--sprt-file {path} holds another test: its " + "; ".join(
            f"{key} {head.get(key)!r}, not {identity.get(key)!r}" for key in differ))
    return pairs


def run_sprt(match: Match, bounds: sprt.Bounds, intro: str = "") -> int:
    """Pairs of games until the LLR crosses a bound or the cap of games is played; a line per
    finished pair, then the verdict.  Exit 0 on a decision, UNDECIDED at the cap, 1 when a
    game crashed (its pair is left out of the statistics).  With --sprt-file the counted pairs
    are kept there, and the pairs an earlier run of the same test kept there count first."""
    args, a, b, setups = match.args, match.a, match.b, match.setups
    cap_pairs = math.ceil((args.games or SPRT_CAP) / 2)
    path = getattr(args, "sprt_file", None)
    identity = sprt_identity(match, bounds)
    before = load_sprt_file(path, identity) if path else {}
    kept = output_file(path, "a" if before else "w") if path else None  # a new test: a new file, its name first
    if kept is not None and not before:
        kept.write(json.dumps({"test": identity}) + "\n")
        kept.flush()
    halves: dict[int, dict[int, dict]] = {}  # pair -> game (0: A first, 1: B first) -> entry
    counted: list[tuple[str, dict, dict]] = []  # the pairs in the statistics (setup, records), as they ended
    dropped: list[int] = []  # pairs with a crashed game
    late: list[int] = []  # pairs that ended after the decision
    crashed: list[dict] = []
    scores = list(before.values())  # A's points in each counted pair, the earlier runs' first
    earlier = sprt.status(sprt.pentanomial(scores), bounds)
    state = {"status": earlier, "decided": earlier.verdict is not None}
    started = time.monotonic()

    def jobs() -> Iterable[Job]:
        for k in range(max(before, default=-1) + 1, cap_pairs):
            if state["decided"]:
                return
            setup = setups[k % len(setups)]
            if match.r:  # the seats in turn, and each setup in both (an even number of setups: a round each)
                first = (k // len(setups) if len(setups) % 2 == 0 else k) % 2 == 0
                yield GauntletJob((a.player, match.r.player), setup, 2 * k, first)
                yield GauntletJob((b.player, match.r.player), setup, 2 * k + 1, first)
                continue
            yield PairJob((a.player, b.player), setup, 2 * k)  # both games of a pair, whatever is decided
            yield PairJob((a.player, b.player), setup, 2 * k + 1)  # in between

    def note(entry: dict) -> None:
        match.keep(entry)
        k, half = divmod(entry["index"], 2)
        if entry["record"] is None:
            crashed.append(entry)
            print(f"pair {k + 1} {entry['setup']}: game {half + 1} crashed: {entry['error']}", flush=True)
        games = halves.setdefault(k, {})
        games[half] = entry
        if len(games) < 2:
            return
        first, second = halves.pop(k)[0]["record"], games[1]["record"]
        head = f"pair {k + 1} {entry['setup']}:"
        if first is None or second is None:
            dropped.append(k)
            print(f"{head} left out of the statistics (a game crashed)", flush=True)
            return
        if match.r:
            points = 1 + _points(first, "A") - _points(second, "B")
            seat = next(seat for seat, label in first["players"].items() if label == "A")
            result = (f"A {points:g} (as {seat} against R, A {WORD[_points(first, 'A')]}, "
                      f"B {WORD[_points(second, 'B')]})")
        else:
            points = _points(first) + _points(second)
            result = f"A {points:g} (A first: {WORD[_points(first)]}, B first: {WORD[_points(second)]})"
        if state["decided"]:
            late.append(k)
            print(f"{head} {result}; after the decision, not counted", flush=True)
            return
        counted.append((entry["setup"], first, second))
        scores.append(points)
        if kept is not None:
            kept.write(json.dumps({"pair": k, "setup": entry["setup"], "points": points}) + "\n")
            kept.flush()
        status = sprt.status(sprt.pentanomial(scores), bounds)
        state.update(status=status, decided=status.verdict is not None)
        print(f"{head} {result}; {_standing(status, bounds)}"
              + (f"; {status.verdict} accepted" if status.verdict else "")
              + f"; {time.monotonic() - started:.0f} s", flush=True)

    if intro:
        print(intro, flush=True)
    if before:
        print(f"--sprt-file {path}: {len(before)} pairs of this test played before: "
              f"{_standing(earlier, bounds)}", flush=True)
    r = match.r
    pairing = (f"one {match.hooks.SETUP}, seed and seat, A against R then B against R" if r
               else f"one {match.hooks.SETUP} and seed, seats swapped")
    print(f"A = {a.player} (tested)   B = {b.player}" + (f"   R = {r.player} (the opponent of both)" if r else "")
          + f"\nSPRT {bounds}: H1 A is {bounds.elo1:g} Elo better than B"
          + (" (the Elo of the pairs' score against R)" if r else "")
          + f", H0 A is {bounds.elo0:g} better; LLR bounds [{bounds.lower:.2f}, {bounds.upper:.2f}]; at most "
          f"{2 * cap_pairs} games in pairs ({pairing}) on {', '.join(setups)}; "
          f"{', '.join(f'{k} {v}' for k, v in match.settings.items())}"
          + (f"; on the Ray cluster at {match.cluster}" if match.cluster else "")
          + f"; games at once: {args.parallel}", flush=True)
    try:
        match.play(jobs(), note)
    finally:
        match.close()
        if kept is not None:
            kept.close()
    status: sprt.Status = state["status"]  # type: ignore[assignment]
    # the counted games: illegal moves, time-outs
    if r:
        for half, side in enumerate((a, b)):
            games = [(setup, [_against(pair[half], side.label) for where, *pair in counted if where == setup])
                     for setup in setups]
            print(f"the games of {side.label} against R (as A and B in this table):", flush=True)
            print(report(Side("A", side.player), Side("B", r.player), games, match.hooks.SETUP), flush=True)
    else:
        groups = [(setup, [g for where, *pair in counted if where == setup for g in pair]) for setup in setups]
        print(report(a, b, groups, match.hooks.SETUP), flush=True)
    print(summary(status, bounds, a, b, 2 * cap_pairs, len(before) + len(counted), dropped, late, r), flush=True)
    if r and counted:
        share = [100 * sum(_points(pair[half], label) for _, *pair in counted) / len(counted)
                 for half, label in enumerate("AB")]
        print(f"{'against':<9}R in this run's {len(counted)} pairs: A scored {share[0]:.1f}%, B {share[1]:.1f}%",
              flush=True)
    if crashed:
        print(f"{len(crashed)} games crashed (see the log); their pairs are left out", flush=True)
    if match.broken:
        print(f"stopped before a decision: {match.broken}", flush=True)
    if crashed or match.broken:
        return 1
    return 0 if status.verdict else UNDECIDED


def _against(record: dict, label: str) -> dict:
    """A gauntlet game's record labelled as a match of its tested player (A) against R (B)."""
    relabel = {label: "A", "R": "B"}
    winner = record["winner_name"]
    return {**record, "players": {seat: relabel[name] for seat, name in record["players"].items()},
            "winner_name": relabel[winner] if winner else None}


def summary(status: sprt.Status, bounds: sprt.Bounds, a: Side, b: Side, cap: int, pairs: int,
            dropped: list[int], late: list[int], r: Side | None = None) -> str:
    """The table at the end of a sequential test."""
    guess = status.estimate
    how = (f"pairs with 1 + A's points - B's points against R = {r.player}" if r else "pairs in which A scored")
    rows = [("test", f"A = {a.player} tested against B = {b.player}"
             + (f" through their games against R = {r.player}" if r else "") + f": SPRT {bounds}"),
            ("verdict", verdict_text(status, bounds, cap)),
            ("games", f"{2 * pairs} counted, in {pairs} pair{'s' * (pairs != 1)}"
             + (f"; left out, a game crashed: pair {', '.join(str(k + 1) for k in sorted(dropped))}" if dropped else "")
             + (f"; ended after the decision, not counted: {len(late)} pair{'s' * (len(late) > 1)}" if late else "")),
            ("pairs", f"{' '.join(map(str, status.counts))} ({how} 0, 0.5, 1, 1.5, 2)"),
            ("score", f"{100 * guess.score:.1f}% for A" if guess else "-"),
            ("Elo", f"{_elo(guess.elo)} for A, 95% interval [{_elo(guess.low)}, {_elo(guess.high)}]" if guess else "-"),
            ("LLR", f"{status.llr:.2f}, bounds [{bounds.lower:.2f}, {bounds.upper:.2f}]")]
    return "\n".join(f"{name:<9}{text}" for name, text in rows)
