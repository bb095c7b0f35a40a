"""`bots bench go`: playout and search speed on one core, side by side in one run.

Rows: random playouts from the empty 9x9 board (komi 7.5) with the numba kernel's light
playouts (uniform, no own-eye filling), its heavy playouts (answers to the last move,
self-atari avoided), the heavy ones that read ladders, and those that also play throw-ins; then
the mcts player's iterations (without and with ladder reading, with the learned priors of
bots.go.gammas, and with throw-ins in the playouts: the default) and
alphabeta's nodes for `seconds` each from the empty board and from a middle-game position:
each piece of knowledge with its price.  Ratios are against the light playouts.  (The kernel
against its pure-Python reference: `python -m tests.go.speed` from a checkout.)
"""

from __future__ import annotations

import argparse
import time

from search.budget import Budget

from ..cmdline import positive
from .board import empty, from_moves

MIDDLE = ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6", "C4", "D3", "C3", "F7", "G3", "E7"]
PLAYOUTS = "playouts/s"


def add_arguments(p: argparse.ArgumentParser, game: str) -> None:
    p.add_argument("--time", type=positive, default=2.0, help="seconds per row (2)")


def run(args: argparse.Namespace) -> str:
    return bench(args.time)


def kernel_playouts(seconds: float, heavy: bool, ladders: bool = False, throwins: bool = False) -> float:
    """Kernel playouts per second from the empty 9x9 board, for about `seconds`."""
    from . import kernel as K

    B, S = K.to_kernel(empty(9))
    K.playouts(B, S, 7.5, 1, heavy, ladders, throwins)  # compiled (or loaded) before the clock starts
    K.seed(1)
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        K.playouts(B, S, 7.5, 200, heavy, ladders, throwins)
        n += 200
    return n / (time.perf_counter() - start)


def table(seconds: float, rows: list[tuple[str, str, float, str]], base: float, against: str) -> str:
    """The speed table: one line per (what, position, rate, unit) row; playout rows also get
    their ratio to `base` playouts/s, in the column headed "vs `against`"."""
    lines = [f"Go speed on one core, {seconds:g} s per row (9x9, komi 7.5)",
             f"{'what':<36}{'position':<10}{'per second':>14}  {'unit':<13}{'vs ' + against:>10}"]
    for what, where, rate, unit in rows:
        ratio = f"{rate / base:9.1f}x" if unit == PLAYOUTS else ""
        lines.append(f"{what:<36}{where:<10}{rate:>14,.0f}  {unit:<13}{ratio:>10}")
    return "\n".join(lines)


def bench(seconds: float = 2.0) -> str:
    from .alphabeta import AlphaBeta
    from .mcts import MCTS
    from .players import warm

    warm()
    rows = []
    base = kernel_playouts(seconds, False)
    rows.append(("playouts, kernel light", "empty", base, PLAYOUTS))
    rows.append(("playouts, kernel heavy", "empty", kernel_playouts(seconds, True), PLAYOUTS))
    rows.append(("playouts, kernel heavy + ladders", "empty", kernel_playouts(seconds, True, True), PLAYOUTS))
    rows.append(("playouts, heavy, ladders, throw-ins", "empty", kernel_playouts(seconds, True, True, True),
                 PLAYOUTS))
    for label, state in (("empty", empty(9)), ("middle", from_moves(9, MIDDLE))):
        for what, options in (("mcts iterations (1 worker)", {"ladders": False, "learned": False,
                                                              "throwins": False}),
                              ("mcts iterations, ladders (1 worker)", {"learned": False, "throwins": False}),
                              ("mcts iterations, ladders, learned", {"throwins": False}),
                              ("mcts iterations, + throw-ins", {})):
            r = MCTS(use_book=False, early_stop=False, seed=1, **options).choose(state, None, Budget(seconds))
            rows.append((what, label, r.nodes / r.elapsed, "iterations/s"))
        ab = AlphaBeta(seed=1)
        ab._depth = ab.max_depth  # measure the search, not the opening book
        r = ab._search(state, ab.max_depth, time.monotonic() + seconds)
        rows.append((f"alphabeta nodes (depth {r[2]} done)", label, r[3] / seconds, "nodes/s"))
    return table(seconds, rows, base, "light")
