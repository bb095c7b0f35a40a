"""Twilight maps shaped like `thetrap` (issue 30, item 2), for `bots arena twilight --maps ...`.

Both sides start the same number of moves from everything: the map is mirrored about its middle
row, and the two start cells mirror each other.  Near the starts, on the middle row, is a small
camp; farther away, on the other side, are camps that hold more humans in all.  The side that
moves first wins every tie, so it can take the near camp first; if it does, the other side takes
the far camps and ends the race bigger.  Every camp is small enough for either army to convert.

    python tools/trap_maps.py OUT_DIR [--count 30] [--seed 1]
    bots arena twilight --a planner:gamma=1,claim=1 --b planner --maps OUT_DIR/*.xml \\
        --max-plies 60 --move-time 0.5 --sprt "elo0=0 elo1=20"
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from bots.twilight.maps import to_xml
from bots.twilight.rules import Cell, State, Species, distance, state_from_cells


def trap(rng: random.Random) -> State:
    """One map of the shape above (retries until the random choices fit it)."""
    while True:
        rows, cols = rng.choice((5, 7, 9)), rng.randint(8, 14)
        mid = rows // 2
        army = rng.randint(3, 8)
        k = rng.randint(1, mid)  # each start is k rows off the middle row
        sx = rng.randint(2, cols - 5)
        starts = ((sx, mid - k), (sx, mid + k))
        near = (rng.randint(max(0, sx - 3), sx - 1), mid)
        near_count = rng.randint(max(1, army // 2), army)
        fx = rng.randint(sx + 3, cols - 1)
        pairs = rng.randint(0, min(2, mid))
        axis = rng.random() < 0.5 or pairs == 0
        offsets = rng.sample(range(1, mid + 1), pairs)
        far = []
        for j in offsets:  # mirrored pairs, equal counts
            n = rng.randint(1, army)
            far += [((fx, mid - j), n), ((fx, mid + j), n)]
        if axis:
            far.append(((fx, mid), rng.randint(1, army)))
        total = sum(n for _, n in far)
        near_moves = distance(*near, *starts[0])
        far_moves = min(distance(*c, *starts[0]) for c, _ in far)
        if total <= near_count or far_moves < near_moves + 2:
            continue  # not the shape: the far side must hold more and lie farther
        first, second = rng.sample(starts, 2)
        cells = [Cell(x, y, n, 0, 0) for (x, y), n in [(near, near_count), *far]]
        cells += [Cell(*first, 0, army, 0), Cell(*second, 0, 0, army)]
        return state_from_cells(rows, cols, cells, Species.VAMPIRES)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    for k in range(args.count):
        (args.out / f"trap{k:02d}.xml").write_text(to_xml(trap(rng)))
    print(f"{args.count} maps in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
