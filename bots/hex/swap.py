"""The swap (pie) rule decided from data: what each first stone is worth to Black.

`data/swap.json`, written offline by tools/hex_swap.py, holds for some square boards Black's
win rate after its first stone on each cell (White to move, no swap), as our search measured
it with many more iterations than a move gets.  After a swap White owns that stone's mirror
image with Black to move: the same game with the colours exchanged, so swapping is worth to
White what the stone is worth to Black.  Hence:

- White swaps a first stone worth more than half to Black, and otherwise plays on;
- Black, under the swap rule, opens on the cell nearest to even, so that either answer
  leaves it about half.

Boards the table does not hold are left to the search (and the swap's prior).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from functools import cache
from importlib import resources
from pathlib import Path

FILE = "swap.json"
Values = dict[int, tuple[float, ...]]  # board size -> Black's win rate for each first cell


def check(table: dict) -> Values:
    """The values of a table as tools/hex_swap.py writes it; ValueError if it is malformed."""
    out: Values = {}
    for key, values in table["values"].items():
        size = int(key)
        if not 1 <= size <= 26 or len(values) != size * size:
            raise ValueError(f"board {key}: {len(values)} values, not one for each of its cells")
        if not all(isinstance(v, (int, float)) and 0.0 <= v <= 1.0 for v in values):
            raise ValueError(f"board {key}: the values must be win rates between 0 and 1")
        out[size] = tuple(float(v) for v in values)
    return out


def load(path: str | Path) -> Values:
    """A table from a file; ValueError naming the file if it is not one."""
    try:
        return check(json.loads(Path(path).read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{path}: not a swap table of tools/hex_swap.py: {e}") from None


@cache
def shipped() -> Values:
    """The table shipped with the package."""
    return check(json.loads(resources.files("bots.hex").joinpath("data", FILE).read_text()))


def opening(values: tuple[float, ...], allowed: Collection[int]) -> int | None:
    """Black's first cell under the swap rule: the allowed one nearest to even (the lowest
    cell of a tie), or None if none is allowed."""
    cells = [c for c in allowed if 0 <= c < len(values)]
    return min(cells, key=lambda c: (abs(values[c] - 0.5), c)) if cells else None


def worth_swapping(values: tuple[float, ...], first: int) -> bool:
    """Whether White swaps Black's first stone on cell `first`."""
    return values[first] > 0.5
