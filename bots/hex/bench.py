"""`bots bench hex`: playout and search speed on one core, side by side in one run.

Rows: fill-the-board playouts from the empty 11x11 and 13x13 boards, first by plain Python
(shuffle the empty cells, colour them alternately, one search for the winner: the baseline
of docs/protocols/hex.md section 6.2), then by the numba kernel without and with bridge-save
replies; then the mcts player's iterations (one worker, no early stop) from the empty 11x11
board and from a middle-game position: the player as it plays, with the hand-set priors instead
of the learned ones, leaving the inferior cells out, and with H-search in the tree's nodes of
1,000 visits (the price of each knowledge), and the resistance player's nodes; then whole
H-searches (bots.hex.vc, both colours, up to 1,000,000 AND steps) with the AND rule joining
through the edges, as the solver's does, and never through them, as the must-play's does.
Ratios are against plain Python on the same board.
"""

from __future__ import annotations

import argparse
import random
import time

from search.budget import Budget

from ..cmdline import positive
from .board import BLACK, WHITE, connected, empty, from_moves

PLAYOUTS = "playouts/s"
MIDDLE = ["f6", "e7", "g4", "d5", "h3", "c8", "e4", "f5", "g5", "d8", "c6", "i2"]  # 11x11


def python_playouts(size: int, seconds: float) -> float:
    """Plain-Python fill playouts per second from the empty size x size board."""
    rng = random.Random(1)
    cells = list(range(size * size))
    uncached = connected.__wrapped__
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        rng.shuffle(cells)
        board = bytearray(size * size)
        for i, c in enumerate(cells):
            board[c] = BLACK if i % 2 == 0 else WHITE
        uncached(size, size, bytes(board), BLACK)
        n += 1
    return n / (time.perf_counter() - start)


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--time", type=positive, default=2.0, help="seconds per row (2)")


def run(args: argparse.Namespace) -> str:
    return bench(args.time)


def hsearch_rate(state, seconds: float, edges: bool) -> float:
    """Whole H-searches a second (one for each colour, up to 1,000,000 steps) of `state`."""
    from . import kernel as K
    from . import vc as V

    pos = K.to_kernel(state)
    V.hsearch(pos, BLACK, 1000, edges)  # compiled (or loaded) before the clock starts
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        for colour in (BLACK, WHITE):
            V.hsearch(pos, colour, 1_000_000, edges)
            n += 1
    return n / (time.perf_counter() - start)


def bench(seconds: float = 2.0) -> str:
    from . import kernel as K
    from .mcts import MCTS
    from .players import warm
    from .resistance import Resistance

    warm()
    K.seed(1)
    lines = [f"Hex speed on one core, {seconds:g} s per row",
             f"{'what':<40}{'position':<14}{'per second':>14}  {'unit':<13}{'vs Python':>10}"]

    def row(what: str, where: str, rate: float, unit: str, base: float | None = None) -> None:
        ratio = f"{rate / base:9.1f}x" if base else ""
        lines.append(f"{what:<40}{where:<14}{rate:>14,.0f}  {unit:<13}{ratio:>10}")

    for size in (11, 13):
        where = f"empty {size}x{size}"
        base = python_playouts(size, seconds)
        row("fill playouts, plain Python", where, base, PLAYOUTS, base)
        row("fill playouts, kernel", where, K.playout_rate(size, seconds, bridges=False), PLAYOUTS, base)
        row("fill playouts, kernel + bridge saves", where, K.playout_rate(size, seconds, bridges=True), PLAYOUTS,
            base)
    for label, state in (("empty 11x11", empty(11)), ("middle 11x11", from_moves(11, MIDDLE))):
        for what, player in (("mcts iterations (1 worker)", MCTS(early_stop=False, seed=1)),
                             ("  hand-set priors, not learned", MCTS(early_stop=False, seed=1, learned=False)),
                             ("  inferior cells left out", MCTS(early_stop=False, seed=1, inferior=True)),
                             ("  H-search at 1,000 visits (know)", MCTS(early_stop=False, seed=1, know=1000,
                                                                         know_work=100_000))):
            r = player.choose(state, None, Budget(seconds))
            row(what, label, r.nodes / max(r.elapsed, 1e-9), "iterations/s")
        r = Resistance(seed=1).choose(state, None, Budget(seconds))
        row(f"resistance nodes (depth {r.depth} done)", label, r.nodes / max(r.elapsed, 1e-9), "nodes/s")
        row("H-search, AND through the edges", label, hsearch_rate(state, seconds, True), "searches/s")
        row("  never through an edge", label, hsearch_rate(state, seconds, False), "searches/s")
    return "\n".join(lines)
