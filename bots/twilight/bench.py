"""`bots bench twilight`: search speed and depth per player, map and position.

Positions: each map's start, and the position after 8 plies of greedy self-play (a
position with contact and more groups).  Each player searches with its defaults and
again with an unbounded depth, so the table shows both the depth reached under the
clock and the raw speed.
"""

from __future__ import annotations

import argparse
import random
import time

from search.budget import Budget
from search.contracts import Context

from ..cmdline import UsageFailure, players_text, positive
from ..players import make_player
from .maps import MapError, load_map, shipped_maps
from .players import greedy_action


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--maps", nargs="+", default=None, help="maps (default: the shipped maps)")
    p.add_argument("--players", nargs="+", default=["alphabeta", "expecti", "planner"],
                   help=f"players to measure ({players_text(game, persons=False)}; default alphabeta expecti planner)")
    p.add_argument("--time", type=positive, default=2.0, help="seconds per position (2)")
    p.add_argument("--scaling", action="store_true",
                   help="depth and latency on generated 10x10, 20x20, 30x30 maps with 10, 25, 40 camps")


def run(args: argparse.Namespace) -> str:
    try:
        return scaling(args.players, args.time) if args.scaling else bench(args.maps, args.players, args.time)
    except MapError as exc:
        raise UsageFailure(str(exc)) from None


def positions(map_name: str) -> list[tuple[str, object]]:
    start = load_map(map_name)
    state, rng = start, random.Random(7)
    for _ in range(8):
        if state.is_terminal():
            break
        state = state.play(greedy_action(state), rng)
    out = [("start", start)]
    if not state.is_terminal():
        out.append((f"ply {state.ply}", state))
    return out


def bench(maps: list[str] | None, players: list[str], seconds: float) -> str:
    maps = maps or sorted(shipped_maps())
    rows = [f"{'map':<18}{'position':<10}{'player':<22}{'depth':>6}{'nodes':>9}{'time (s)':>10}{'nodes/s':>10}"]
    totals: dict[str, list[float]] = {}
    for m in maps:
        for label, state in positions(m):
            for name in players:
                for params, tag in (({}, name), ({"max_depth": 30}, f"{name} (unbounded)")):
                    player = make_player("twilight", name, params)
                    t0 = time.monotonic()
                    result = player.choose(state, Context(), Budget(seconds))
                    used = time.monotonic() - t0
                    nps = result.nodes / used if used > 0 else 0.0
                    totals.setdefault(tag, []).append(nps)
                    rows.append(f"{m:<18}{label:<10}{tag:<22}{result.depth:>6}{result.nodes:>9}"
                                f"{used:>10.2f}{nps:>10.0f}")
    rows.append("")
    rows.append(f"{'mean nodes/s':<50}" + "".join(f"  {t}: {sum(v) / len(v):.0f}" for t, v in totals.items()
                                                   if "unbounded" in t))
    return "\n".join(rows)


def scaling(players: list[str], seconds: float, sizes=(10, 20, 30), camps=(10, 25, 40), seed: int = 1) -> str:
    """Depth and latency per player on generated square maps (bots maps generate), from the
    start and after 8 plies of greedy self-play: how the search scales with the board."""
    from .mapgen import generate

    rows = [f"{'map':<16}{'position':<10}{'player':<12}{'groups':>7}{'depth':>6}{'nodes':>9}{'latency (s)':>13}"]
    for size in sizes:
        for homes in camps:
            start = generate(size, size, homes, seed)
            state, rng = start, random.Random(seed)
            for _ in range(8):
                if not state.is_terminal():
                    state = state.play(greedy_action(state), rng)
            for label, position in (("start", start), (f"ply {state.ply}", state)):
                if position.is_terminal():
                    continue
                for name in players:
                    player = make_player("twilight", name, {})
                    t0 = time.monotonic()
                    result = player.choose(position, Context(), Budget(seconds))
                    used = time.monotonic() - t0
                    groups = len(position.groups(position.to_move))
                    rows.append(f"{f'{size}x{size}, {homes} camps':<16}{label:<10}{name:<12}{groups:>7}"
                                f"{result.depth:>6}{result.nodes:>9}{used:>13.3f}")
    return "\n".join(rows)

