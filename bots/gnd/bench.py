"""`bots bench gopher|dodo`: search speed per player, board size and position.

Positions: an opening (after 2 plies) and a middle game (after 12 plies for Gopher,
20 for Dodo), both reached by seeded random play.  Players run without the exact
solver and without the book, so the figures are the search's own: nodes per second for
alphabeta (with the depth reached), iterations (each ending in one playout) per second
for mcts, and raw random playouts per second from the same position.
"""

from __future__ import annotations

import argparse
import random
import time

from search.budget import Budget
from search.contracts import Context

from ..cmdline import count, players_text, positive
from ..players import make_player
from .entry import rules as rules_of

PLIES = {"gopher": (2, 12), "dodo": (2, 20)}


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--sizes", nargs="+", type=count, default=[4, 6], help="board sizes (4 6)")
    p.add_argument("--players", nargs="+", default=["alphabeta", "mcts"],
                   help=f"players to measure ({players_text(game, persons=False)}; default alphabeta mcts)")
    p.add_argument("--time", type=positive, default=1.0, help="seconds per position (1)")


def run(args: argparse.Namespace) -> str:
    return bench(args.game, args.sizes, args.players, args.time)


def positions(game: str, size: int) -> list[tuple[str, object]]:
    rules = rules_of(game)
    rng = random.Random(size)
    out = []
    for plies in PLIES[game]:
        for _ in range(100):  # random games can end early on small boards: try other seeds
            state = rules.start(size)
            for _ in range(plies):
                if state.is_terminal():
                    break
                state = state.play(rng.choice(state.legal_moves()))
            if not state.is_terminal():
                out.append((f"ply {plies}", state))
                break
    return out


def playout_rate(game: str, state, seconds: float) -> float:
    pos = rules_of(game).Position(state)
    rng = random.Random(1)
    n, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        pos.playout(rng)
        n += 1
    return n / (time.monotonic() - t0)


def bench(game: str, sizes: list[int], players: list[str], seconds: float) -> str:
    lines = [f"{game}: {seconds:g} s per search, one core, no solver, no book",
             f"{'size':>4}  {'position':<9}{'player':<11}{'depth':>6}{'nodes':>10}{'per second':>12}"]
    for size in sizes:
        for label, state in positions(game, size):
            for name in players:
                player = make_player(game, name, {"solve_share": 0, "book": False} if name != "random" else {})
                r = player.choose(state, Context(), Budget(seconds))
                count = r.depth if name == "mcts" else r.nodes
                unit = "iterations" if name == "mcts" else "nodes"
                depth = "-" if name == "mcts" else str(r.depth)
                rate = count / max(r.elapsed, 1e-9)
                lines.append(f"{size:>4}  {label:<9}{name:<11}{depth:>6}{count:>10}{rate:>12,.0f}"
                             f"  {unit}")
            rate = playout_rate(game, state, seconds)
            lines.append(f"{size:>4}  {label:<9}{'playouts':<11}{'-':>6}{'':>10}{rate:>12,.0f}  random playouts")
    return "\n".join(lines)
