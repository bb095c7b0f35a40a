"""Measure what each first stone is worth to Black in Hex, for the swap decisions
(bots/hex/data/swap.json, read by bots.hex.swap).

    python tools/hex_swap.py OUT.json [--sizes 11 13] [--iterations 800000] [--workers 2]

For every cell of each square board, Black's stone is played there and our `mcts` searches the
position for White (no swap) for a fixed number of iterations; Black's value for the cell is
one less White's win rate at its most visited reply.  A board and its half-turn are the same
game, so only one cell of each such pair is searched.  A fixed number of iterations, not
seconds, so that a loaded machine measures the same thing.  It prints each board's values as
a grid (percent) and the cells nearest to even.
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import Pool

from bots.hex.board import cell_name, empty
from bots.hex.mcts import MCTS
from search.budget import Budget


def black_value(job: tuple[int, int, int]) -> tuple[int, int, float]:
    """(size, cell, Black's win rate after its first stone at `cell`, White to move)."""
    size, cell, iterations = job
    state = empty(size, swap=False).play(cell)
    player = MCTS(reuse=False, early_stop=False, playouts=iterations, seed=size * 1000 + cell,
                  capacity=30 * iterations)  # room for the whole search: one tree
    result = player.choose(state, None, Budget(3600.0))
    return size, cell, 1.0 - result.value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the JSON file to write")
    ap.add_argument("--sizes", type=int, nargs="+", default=[11, 13])
    ap.add_argument("--iterations", type=int, default=800_000, help="search iterations per cell")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    jobs = [(n, c, args.iterations) for n in args.sizes for c in range(n * n) if c <= n * n - 1 - c]
    start = time.monotonic()
    values: dict[int, list[float]] = {n: [0.0] * (n * n) for n in args.sizes}
    with Pool(args.workers) as pool:
        for n, c, v in pool.imap_unordered(black_value, jobs):
            values[n][c] = values[n][n * n - 1 - c] = round(v, 4)
    for n in args.sizes:
        print(f"{n}x{n}: Black's win rate (%) after its first stone, rows 1-{n} (top to bottom)")
        for r in range(n):
            print(" " * r + " ".join(f"{100 * values[n][r * n + c]:3.0f}" for c in range(n)))
        near = sorted(range(n * n), key=lambda c: (abs(values[n][c] - 0.5), c))[:6]
        print("nearest to even:", ", ".join(f"{cell_name(c, n)} {values[n][c]:.3f}" for c in near))
    table = {"source": f"tools/hex_swap.py --iterations {args.iterations}: our mcts, White to move "
                       "after Black's first stone, no swap",
             "iterations": args.iterations,
             "values": {str(n): values[n] for n in args.sizes}}
    with open(args.out, "w") as f:
        json.dump(table, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(jobs)} positions searched in {time.monotonic() - start:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
