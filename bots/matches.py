"""What every arena shares: the two sides and the report, whatever the game.

A game record names the seat of each side (`players`: seat -> "A"/"B", a seat being a
Twilight species or a gnd colour), the winner's name, and per seat the time-outs, the
latencies and the violations (illegal moves), so one table serves every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .stats import percentile, wilson


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


def report(a: Side, b: Side, records: list[dict], maps: list[str]) -> str:
    """The arena's table: one row per map (or board) and a total row."""
    lines = [f"A = {spec(a)}   B = {spec(b)}",
             f"{'map':<18}{'games':>6}{'A':>5}{'draw':>6}{'B':>5}{'A score':>9}  {'95% interval':<14}"
             f"{'illegal A/B':>12}{'timeouts A/B':>14}{'p50 A/B (s)':>16}{'p99 A/B (s)':>16}"]
    for label, subset in [(m, [r for r in records if r["map"] == m]) for m in maps] + [("TOTAL", records)]:
        s = summarise(subset)
        sa, sb = s["A_stats"], s["B_stats"]
        lo, hi = s["interval"]
        lines.append(
            f"{label:<18}{s['games']:>6}{s['A']:>5}{s['draws']:>6}{s['B']:>5}{100 * s['score']:>8.1f}%"
            f"  [{100 * lo:4.1f}, {100 * hi:5.1f}]"
            f"{sa['illegal']:>7}/{sb['illegal']:<4}{sa['timeouts']:>9}/{sb['timeouts']:<4}"
            f"{sa['p50']:>10.3f}/{sb['p50']:.3f}{sa['p99']:>10.3f}/{sb['p99']:.3f}")
    return "\n".join(lines)
