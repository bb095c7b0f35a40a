"""`bots bench twilight`: search speed and depth per player, map and position.

Positions: each map's start, and the position after 8 plies of greedy self-play (a
position with contact and more groups).  Each player searches with its defaults and
again with an unbounded depth, so the table shows both the depth reached under the
clock and the raw speed.

`--endgames`: each player plays duels (one group a side, no camp left) against the exact
player of bots.twilight.showdown, from named positions and from generated ones; the table
gives the exact value of each position and the value each player kept (the chance of
winning, a draw counting half: with an exact opponent it falls only by the player's mistakes).
"""

from __future__ import annotations

import argparse
import random
import time

from search.budget import Budget
from search.contracts import Context

from ..cmdline import UsageFailure, players_text, positive
from ..players import PlayerError, make_player, parse_spec
from .maps import MapError, load_map, shipped_maps
from .players import greedy_action
from .rules import Cell, Species, State, state_from_cells
from .showdown import solve, strike


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--maps", nargs="+", default=None, help="maps (default: the shipped maps)")
    p.add_argument("--players", nargs="+", default=None,
                   help=f"players to measure ({players_text(game, persons=False)}, NAME:key=value,... for "
                        "options; default alphabeta expecti planner, with --endgames planner planner:duel=0)")
    p.add_argument("--time", type=positive, default=2.0, help="seconds per position, with --endgames per move (2)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--scaling", action="store_true",
                      help="depth and latency on generated 10x10, 20x20, 30x30 maps with 10, 25, 40 camps")
    mode.add_argument("--endgames", type=int, nargs="?", const=20, default=None, metavar="N",
                      help="duels against the exact player: the named positions and N generated ones (20)")


def run(args: argparse.Namespace) -> str:
    try:
        if args.endgames is not None:
            return endgames(args.players or ["planner", "planner:duel=0"], args.time, args.endgames)
        players = args.players or ["alphabeta", "expecti", "planner"]
        return scaling(players, args.time) if args.scaling else bench(args.maps, players, args.time)
    except (MapError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None


def player(spec: str):
    name, params = parse_spec(spec)
    return make_player("twilight", name, params)


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
                    searcher = make_player("twilight", name, params)
                    t0 = time.monotonic()
                    result = searcher.choose(state, Context(), Budget(seconds))
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
                    t0 = time.monotonic()
                    result = player(name).choose(position, Context(), Budget(seconds))
                    used = time.monotonic() - t0
                    groups = len(position.groups(position.to_move))
                    rows.append(f"{f'{size}x{size}, {homes} camps':<16}{label:<10}{name:<12}{groups:>7}"
                                f"{result.depth:>6}{result.nodes:>9}{used:>13.3f}")
    return "\n".join(rows)


# -- endgames: duels against the exact player ----------------------------------------------------


def duel_position(rows: int, cols: int, mine: tuple[int, int, int], theirs: tuple[int, int, int], left: int,
         to_move: Species = Species.VAMPIRES) -> State:
    """A duel position: `mine` (x, y, units) to move against `theirs`, `left` plies before the cap."""
    groups = {to_move: mine, to_move.other: theirs}
    cells = [Cell(x, y, 0, n, 0) if s == Species.VAMPIRES else Cell(x, y, 0, 0, n)
             for s, (x, y, n) in groups.items()]
    return state_from_cells(rows, cols, cells, to_move, 200 - left, 200)


# Each found by the exact tables (bots.twilight.showdown), its value for the side to move there.
DUELS = {
    "hunter waits": duel_position(5, 7, (5, 3, 27), (3, 1, 17), 10),  # 1.0: a step next to the 17 gives it a 31% strike
    "leader runs to the cap": duel_position(8, 9, (3, 4, 53), (0, 5, 51), 15),  # 1.0: never caught
    "leader strikes first": duel_position(5, 10, (2, 2, 37), (3, 3, 36), 14),  # 0.528: the 37 strikes at the end
    "trailer strikes early": duel_position(7, 6, (4, 3, 60), (5, 2, 69), 26),  # 0.435: no later strike is better
    "trailer forces a battle": duel_position(6, 6, (1, 2, 20), (5, 1, 24), 28),  # 0.300
    "hunted, no way out": duel_position(5, 6, (5, 2, 25), (2, 0, 40), 15),  # 0.0: the 40 never lets it strike
    "even armies": duel_position(8, 6, (2, 7, 55), (5, 7, 55), 26),  # 0.5 whatever anyone does
    "a long narrow board": duel_position(5, 26, (3, 2, 88), (20, 2, 73), 60),
}


def against_exact(searcher, state: State, seconds: float) -> tuple[float, str]:
    """`searcher` plays the side to move against the exact player, until a strike or the cap:
    the chance of winning it kept (a draw counts half), and how the game ended."""
    me = state.to_move
    while not state.is_terminal():
        if state.to_move == me:
            order = tuple(searcher.choose(state, Context(), Budget(seconds)).move)
        else:
            order = (solve(state).move,)
        (_, _, n), (ex, ey, en) = state.groups(state.to_move)[0], state.groups(state.to_move.other)[0]
        if len(order) != 1 or order[0][2] != n:
            return float("nan"), f"left the duel at ply {state.ply} (split)"
        if order[0][3:] == (ex, ey):
            value = strike(n, en)
            who = "ours" if state.to_move == me else "theirs"
            return (value if state.to_move == me else 1 - value), f"{who}: {n} on {en} at ply {state.ply}"
        state = state.play(order)
    return state.result(me), "cap"


def generated_duels(count: int, seed: int = 1) -> list[State]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        rows, cols = rng.randint(4, 10), rng.randint(4, 12)
        a = rng.randint(6, 80)
        b = max(2, round(a * rng.uniform(0.6, 1.7)))
        (x1, y1), (x2, y2) = rng.sample([(x, y) for y in range(rows) for x in range(cols)], 2)
        out.append(duel_position(rows, cols, (x1, y1, a), (x2, y2, b), rng.randint(6, 40)))
    return out


def endgames(players: list[str], seconds: float, count: int) -> str:
    searchers = {spec: player(spec) for spec in players}
    lines = []
    for name, state in DUELS.items():
        (_, _, a), (_, _, b) = state.groups(state.to_move)[0], state.groups(state.to_move.other)[0]
        played = [against_exact(searcher, state, seconds) for searcher in searchers.values()]
        lines.append([name, f"{state.rows}x{state.cols}", f"{a} v {b}", str(state.max_plies - state.ply),
                      f"{solve(state).value:.3f}", *(f"{v:.3f} ({how})" for v, how in played)])
    header = ["position", "board", "armies", "plies", "exact", *players]
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    rows = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
            for line in [header, *lines]]
    width = max(len(s) for s in players)
    if count:
        losses: dict[str, list[float]] = {spec: [] for spec in players}
        for state in generated_duels(count):
            exact = solve(state).value
            for spec, searcher in searchers.items():
                gap = exact - against_exact(searcher, state, seconds)[0]
                losses[spec].append(max(0.0, round(gap, 6)) if gap == gap else gap)  # float32 noise, nan: a split
        rows.append("")
        rows.append(f"{count} generated duels (seed 1): the value lost against the exact player")
        for spec, lost in losses.items():
            kept = [x for x in lost if x == x]  # nan: the player split and left the duel
            worse = sum(1 for x in kept if x > 1e-9)
            rows.append(f"  {spec:<{width}} mean {sum(kept) / max(1, len(kept)):.4f}, max {max(kept, default=0):.3f}, "
                        f"worse than exact in {worse} of {len(kept)}"
                        + (f" ({len(lost) - len(kept)} left the duel)" if len(kept) < len(lost) else ""))
    return "\n".join(rows)
