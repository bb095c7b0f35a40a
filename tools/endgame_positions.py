"""Twilight endgame positions for `bots arena twilight --maps ...`: no camp either side can take,
each side in one to three groups, the armies within 25% of each other, and at least one group
that an enemy group 1.5x its size can hunt down, so that finishing (or escaping) decides the game.

    python tools/endgame_positions.py OUT_DIR [--count 24] [--seed 1] [--duels]
    bots arena twilight --a planner:hunt=1 --b planner --maps OUT_DIR/*.xml --max-plies 40 \\
        --move-time 0.5 --sprt "elo0=0 elo1=40"

With --duels, one group a side instead, within 1.25x of each other (bots.twilight.showdown
solves these exactly: who steps next to the enemy hands it the first strike); the test that
made the exact duels the default was
    bots arena twilight --a planner --b planner:duel=0 --maps OUT_DIR/*.xml --max-plies 40 \\
        --move-time 0.5 --workers 1 --sprt "elo0=0 elo1=20"

Each position is a map of ours (`Groups="several"`, bots.twilight.maps), vampires to move; the
arena's pairs play it from both seats.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from bots.twilight.maps import to_xml
from bots.twilight.rules import MONSTER_RATIO, Cell, Species, state_from_cells


def split(total: int, parts: int, rng: random.Random) -> list[int]:
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    return [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]


def position(rng: random.Random, duel: bool = False):
    while True:
        rows, cols = rng.randint(6, 12), rng.randint(6, 12)
        a = rng.randint(12, 60)
        b = max(3, round(a * rng.uniform(0.8, 1.25)))
        if duel:  # the sizes are within 1.25x of each other
            ours, theirs = [a], [b]
        else:
            ours, theirs = split(a, rng.randint(1, 3), rng), split(b, rng.randint(1, 3), rng)
        if not duel and not any(x >= MONSTER_RATIO * y for x in ours for y in theirs) and \
                not any(y >= MONSTER_RATIO * x for x in ours for y in theirs):
            continue  # nobody can hunt anybody: not the endgame this is about
        cells = rng.sample([(x, y) for y in range(rows) for x in range(cols)], len(ours) + len(theirs))
        groups = [Cell(x, y, 0, n, 0) for (x, y), n in zip(cells, ours, strict=False)]
        groups += [Cell(x, y, 0, 0, n) for (x, y), n in zip(cells[len(ours):], theirs, strict=True)]
        if any(max(abs(p.x - q.x), abs(p.y - q.y)) <= 1 for p in groups for q in groups
               if p is not q and (p.vampires and q.werewolves)):
            continue  # a kill on the first move is not an endgame to play
        return state_from_cells(rows, cols, groups, Species.VAMPIRES)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duels", action="store_true", help="one group a side, neither 1.5x the other")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    for k in range(args.count):
        (args.out / f"endgame{k:02d}.xml").write_text(to_xml(position(rng, args.duels)))
    print(f"{args.count} positions in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
