"""What every match shares, whatever the game: the hooks a game gives `bots arena` and `bots
tournament`, the two sides, and the report.

A game takes part in matches through the module its registry entry names in `match`
(`MatchHooks`): its options, its setups (maps, boards), the check of a participant, and
`play_one`, one game between two participants.  A game record names the seat of each side
(`players`: seat -> label, a seat being a Twilight species, a gnd colour, Black or White), the
winner's label, and per seat the time-outs, the latencies and the violations (illegal moves),
so one table serves every game.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from .stats import percentile, wilson


@dataclass(frozen=True)
class Watch:
    """Who plays one game and who looks on: `labels` name the first seat's participant and the
    second's in the record ("A" and "B": a tournament's first and second; an arena's --a and
    --b, whichever seat each takes); `on_state(state)` sees every position (--show)."""

    labels: tuple[str, str] = ("A", "B")
    on_state: Callable[[Any], None] | None = None


class MatchHooks(Protocol):
    """A game's `match` module (bots.registry.Game.match)."""

    ENGINES: str  # how an external engine is named as a participant ("gtp:COMMAND ..."), or ""
    SETUP: str  # what a setup is called in reports ("map", "board")
    EXAMPLE: str  # a `bots tournament` command line for --help
    ARENA_EXAMPLE: str  # a `bots arena` command line for --help

    def add_arguments(self, parser: argparse.ArgumentParser, game: str) -> None:
        """The game's options: its setups (--maps, --sizes) and its clock."""

    def settings(self, args: argparse.Namespace) -> dict:
        """The options every game of the match is played with (JSON-ready)."""

    def setups(self, args: argparse.Namespace) -> list[str]:
        """The setups, checked (UsageFailure naming a bad one)."""

    def check(self, game: str, text: str, label: str = "") -> None:
        """A participant as the command line names it, checked (UsageFailure; `label`, e.g. "A",
        names it in the message)."""

    def searches(self, game: str, text: str) -> bool:
        """Whether a participant is one of our players that searches (not a person, not an
        external engine): the match starts search workers only for those."""

    async def play_one(self, first: str, second: str, setup: str, settings: dict, seed: int, runner: Any,
                       watch: Watch = Watch()) -> dict:
        """One game, `first` in the first seat (Twilight's vampires, Black, Red), labelled
        `watch.labels[0]`: its record (the form above)."""


@dataclass(frozen=True)
class Side:
    label: str  # "A" or "B"
    player: str
    params: tuple = ()


def spec(side: Side) -> str:
    """The player as it was named on the command line: `name` or `name:key=value,...`."""
    return side.player + (":" + ",".join(f"{k}={v}" for k, v in side.params) if side.params else "")


def names(*sides: Side) -> dict[str, str]:
    """label -> player, the `names` key of an arena's records (their `players` give labels)."""
    return {side.label: spec(side) for side in sides}


def summarise(records: list[dict]) -> dict[str, Any]:
    """Wins/draws/losses from A's side, violations, time-outs and latency per side."""
    out: dict[str, Any] = {"games": len(records), "A": 0, "draws": 0, "B": 0}
    per_side = {s: {"illegal": 0, "timeouts": 0, "latencies": []} for s in ("A", "B")}
    for r in records:
        by_species = r["players"]  # species -> name ("A"/"B")
        winner = r["winner_name"]
        if winner is None:
            out["draws"] += 1
        else:
            out[winner] += 1
        for species, name in by_species.items():
            per_side[name]["timeouts"] += r["timeouts"][species]
            per_side[name]["latencies"] += r["latencies"][species]
        for v in r["violations"]:
            per_side[by_species[v["species"]]]["illegal"] += 1
    n = out["games"]
    score = out["A"] + 0.5 * out["draws"]
    out["score"] = score / n if n else 0.0
    out["interval"] = wilson(score, n)
    for side, data in per_side.items():
        lat = data.pop("latencies")
        data.update(p50=percentile(lat, 50), p99=percentile(lat, 99), max=max(lat, default=0.0), moves=len(lat))
        out[side + "_stats"] = data
    return out


def report(a: Side, b: Side, groups: list[tuple[str, list[dict]]], word: str = "map") -> str:
    """The arena's table: one row per setup (`groups`: each setup's name and its records), a
    total row, and A's score in each seat."""
    records = [r for _, rows in groups for r in rows]
    lines = [f"A = {spec(a)}   B = {spec(b)}",
             f"{word:<18}{'games':>6}{'A':>5}{'draw':>6}{'B':>5}{'A score':>9}  {'95% interval':<14}"
             f"{'illegal A/B':>12}{'timeouts A/B':>14}{'p50 A/B (s)':>16}{'p99 A/B (s)':>16}"]
    for label, subset in [*groups, ("TOTAL", records)]:
        s = summarise(subset)
        sa, sb = s["A_stats"], s["B_stats"]
        lo, hi = s["interval"]
        lines.append(
            f"{label:<18}{s['games']:>6}{s['A']:>5}{s['draws']:>6}{s['B']:>5}{100 * s['score']:>8.1f}%"
            f"  [{100 * lo:4.1f}, {100 * hi:5.1f}]"
            f"{sa['illegal']:>7}/{sb['illegal']:<4}{sa['timeouts']:>9}/{sb['timeouts']:<4}"
            f"{sa['p50']:>10.3f}/{sb['p50']:.3f}{sa['p99']:>10.3f}/{sb['p99']:.3f}")
    seats = sorted({seat for r in records for seat, label in r["players"].items() if label == "A"})
    for seat in seats:
        mine = [r for r in records if r["players"].get(seat) == "A"]
        lines.append(f"A as {seat}: won {sum(r['winner_name'] == 'A' for r in mine)} of {len(mine)}")
    return "\n".join(lines)
