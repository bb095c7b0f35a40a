"""Twilight arena: two players meet through our referee over real sockets.

Each map gets `games` games on one pair of connections; the referee swaps species
every game, so both players play both sides.  Up to `parallel` maps run at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Callable

from ..runner import SearchRunner
from ..stats import percentile, wilson
from .maps import load_map
from .referee import Referee, RefereeConfig
from .session import TwilightBot, play


@dataclass(frozen=True)
class Side:
    label: str  # "A" or "B"
    player: str
    params: tuple = ()


async def run_arena(a: Side, b: Side, maps: list[str], games: int, move_time: float, overhead: float,
                    runner: SearchRunner, parallel: int = 1, max_plies: int = 200, seed: int = 1,
                    on_game: Callable[[dict], None] | None = None, on_state: Callable | None = None) -> list[dict]:
    """Play every map; returns the referee's records (players are named "A" and "B")."""
    gate = asyncio.Semaphore(parallel)
    records: list[dict] = []

    async def one_map(index: int, map_name: str) -> None:
        async with gate:
            state = load_map(map_name, max_plies)
            config = RefereeConfig(state, map_name, move_time, max_plies, seed + index, games)

            def note(record: dict) -> None:
                records.append(record)
                if on_game:
                    on_game(record)

            referee = Referee(config, on_game=note, on_ply=on_state)
            port = await referee.start()
            try:
                bots = [TwilightBot(name=s.label, port=port, player=s.player, params=s.params,
                                    move_time=move_time, overhead=overhead, max_plies=max_plies) for s in (a, b)]
                first = asyncio.ensure_future(play(bots[0], runner))
                await asyncio.sleep(0.05)  # A connects first: A plays vampires in game 0
                second = asyncio.ensure_future(play(bots[1], runner))
                await asyncio.gather(first, second)
            finally:
                await referee.close()

    await asyncio.gather(*(one_map(i, m) for i, m in enumerate(maps)))
    return records


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
    """The arena's table: one row per map and a total row."""
    name = lambda s: s.player + (":" + ",".join(f"{k}={v}" for k, v in s.params) if s.params else "")  # noqa: E731
    lines = [f"A = {name(a)}   B = {name(b)}",
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
