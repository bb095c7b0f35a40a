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

from collections.abc import Collection
from functools import cache
from pathlib import Path

from .. import gammas as tables
from .board import SWAP, State

FILE = "swap.json"
Values = dict[int, tuple[float, ...]]  # board size -> Black's win rate for each first cell


def check(table: dict) -> Values:
    """The values of a table as tools/hex_swap.py writes it; ValueError if it is malformed."""
    out: Values = {}
    for key, values in dict(table["values"]).items():
        size = int(key)
        if not 1 <= size <= 26 or len(values) != size * size:
            raise ValueError(f"board {key}: {len(values)} values, not one for each of its cells")
        if not all(isinstance(v, (int, float)) and 0.0 <= v <= 1.0 for v in values):
            raise ValueError(f"board {key}: the values must be win rates between 0 and 1")
        out[size] = tuple(float(v) for v in values)
    return out


def load(path: str | Path) -> Values:
    """A table from a file; ValueError naming the file if it is not one."""
    return tables.load(path, check, "tools/hex_swap.py", "swap")


@cache
def shipped() -> Values:
    """The table shipped with the package."""
    return tables.shipped("bots.hex", check, FILE)


def opening(values: tuple[float, ...], allowed: Collection[int]) -> int | None:
    """Black's first cell under the swap rule: the allowed one nearest to even (the lowest
    cell of a tie), or None if none is allowed."""
    cells = [c for c in allowed if 0 <= c < len(values)]
    return min(cells, key=lambda c: (abs(values[c] - 0.5), c)) if cells else None


def worth_swapping(values: tuple[float, ...], first: int) -> bool:
    """Whether White swaps Black's first stone on cell `first`."""
    return values[first] > 0.5


def values_for(state: State) -> tuple[float, ...] | None:
    """The shipped values for `state`'s board while the swap rule is still in play (the first
    two plies of a square board with the rule on), else None."""
    if not state.swap or state.plies > 1 or state.width != state.height:
        return None
    return shipped().get(state.width)


def table_move(state: State, allowed: Collection[int]) -> tuple[int, float] | None:
    """(move, its value to the mover) when the table decides `state`'s move: Black's opening, or
    White's swap; None otherwise (a stone not worth swapping is answered by the search, which
    then leaves the swap out: `values_for` tells it that the table has refused it)."""
    values = values_for(state)
    if values is None:
        return None
    if state.plies == 0:
        cell = opening(values, allowed)
        return None if cell is None else (cell, values[cell])
    first = state.last
    if state.swap_allowed() and first is not None and worth_swapping(values, first) and SWAP in allowed:
        return SWAP, values[first]
    return None
