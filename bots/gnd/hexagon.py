"""The gnd hexagon: cells, neighbours, bitboards and the 12 symmetries (shared by Gopher and Dodo).

Coordinates are the server's axial `(q, r)` with |q|, |r|, |q - r| <= N - 1 and the
neighbours (1,0), (0,1), (1,1) and their negatives (docs/protocols/gnd.md section 7).

A set of cells is a Python int used as a bitboard: cell (q, r) is bit
(q + N - 1) * W + (r + N - 1) with W = 2N, so every row has one padding bit and a
neighbour in direction (dq, dr) is a shift by dq * W + dr; bits that land on padding or
outside the hexagon are masked off with `valid`.  Ints pickle compactly, hash fast, and
popcount/shift in C, which is what a pure-Python search needs.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache, cached_property
from itertools import permutations
from typing import NamedTuple

from search.zobrist import Keys

Cell = tuple[int, int]

DIRECTIONS: tuple[Cell, ...] = ((1, 0), (0, 1), (1, 1), (-1, 0), (0, -1), (-1, -1))


def as_cell(value: object) -> Cell | None:
    """(q, r) from any pair of ints (a tuple, a list from JSON...), else None."""
    try:
        q, r = value  # type: ignore[misc]
    except (TypeError, ValueError):
        return None
    if type(q) is not int or type(r) is not int:
        return None
    return q, r


def bits(x: int) -> Iterator[int]:
    """The indices of the set bits of x, lowest first."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def _cube(c: Cell) -> tuple[int, int, int]:
    # (q, -r) is standard axial for this neighbour set, so the cube coordinates are:
    q, r = c
    return q, -r, r - q


def _symmetries() -> list:
    """The 12 maps of the hexagon onto itself: permutations of the cube axes, with or without negation."""
    out = []
    for perm in permutations(range(3)):
        for sign in (1, -1):
            def f(c: Cell, perm=perm, sign=sign) -> Cell:
                x = _cube(c)
                y = [sign * x[perm[i]] for i in range(3)]
                return y[0], -y[1]
            out.append(f)
    return out


class Grid:
    """Geometry of the hexagon of side `size`, with the tables searches need."""

    def __init__(self, size: int) -> None:
        if not 2 <= size <= 12:
            raise ValueError(f"hexagon size {size} is outside 2..12")
        n = self.size = size
        self.width = w = 2 * n
        self.cells: tuple[Cell, ...] = tuple(
            (q, r) for q in range(-n + 1, n) for r in range(-n + 1, n) if abs(q - r) <= n - 1)
        self.index: dict[Cell, int] = {c: (c[0] + n - 1) * w + (c[1] + n - 1) for c in self.cells}
        self.cell_at: dict[int, Cell] = {i: c for c, i in self.index.items()}
        self.valid = sum(1 << i for i in self.index.values())
        self.shifts: tuple[int, ...] = tuple(dq * w + dr for dq, dr in DIRECTIONS)
        self.neighbours: dict[int, tuple[int, ...]] = {
            self.index[c]: tuple(self.index[m] for m in ((c[0] + dq, c[1] + dr) for dq, dr in DIRECTIONS)
                                 if m in self.index)
            for c in self.cells}
        self.symmetries: tuple[dict[int, int], ...] = tuple(
            {self.index[c]: self.index[f(c)] for c in self.cells} for f in _symmetries())
        keys = Keys(0x60D0 + n)  # fixed: keys must agree between processes and runs
        self.zobrist: dict[int, tuple[int, ...]] = {i: keys.take(2) for i in self.index.values()}
        self.side_key = keys.next()
        self.base_key = keys.next()  # so that keys of different sizes differ

    @cached_property
    def symmetric_zobrist(self) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
        """Per cell and colour, the Zobrist key of its image under each of the 12 symmetries."""
        return {i: tuple(tuple(self.zobrist[t[i]][c] for t in self.symmetries) for c in (0, 1))
                for i in self.index.values()}

    def __reduce__(self):  # pickles as its size; rebuilt (cached) on the other side
        return grid, (self.size,)

    def __contains__(self, cell: object) -> bool:
        return cell in self.index

    def shift(self, x: int, s: int) -> int:
        """The cells one step from x in the direction whose shift is s."""
        return ((x << s) if s > 0 else (x >> -s)) & self.valid

    def mask(self, cells) -> int:
        return sum(1 << self.index[c] for c in cells)

    def to_cells(self, x: int) -> list[Cell]:
        return [self.cell_at[i] for i in bits(x)]

    def transform(self, x: int, symmetry: int) -> int:
        """The image of the cell set x under one of the 12 symmetries."""
        table = self.symmetries[symmetry]
        return sum(1 << table[i] for i in bits(x))

    def distance(self, a: Cell, b: Cell) -> int:
        dq, dr = a[0] - b[0], a[1] - b[1]
        return max(abs(dq), abs(dr), abs(dq - dr))


@cache
def grid(size: int) -> Grid:
    """The (shared, cached) grid of a size."""
    return Grid(size)


RED, BLUE = 1, 2  # the server's player numbers; 0 is an empty cell


class HexState(NamedTuple):
    """A position of a gnd game: the stones of each colour as bitboards and who moves.

    Immutable, compact and picklable; each game subclasses it with its rules.
    """

    size: int
    red: int
    blue: int
    to_move: int  # RED or BLUE

    @property
    def grid(self) -> Grid:
        return grid(self.size)

    def result(self, player: int) -> float:
        """1 for a win, 0 for a loss, 0.5 while the game runs (gnd games have no draws)."""
        w = self.winner()  # each game's rules define it
        return 0.5 if w is None else float(w == player)

    def stones(self, player: int) -> int:
        return self.red if player == RED else self.blue

    @property
    def empty(self) -> int:
        return self.grid.valid & ~(self.red | self.blue)

    def at(self, cell: Cell) -> int:
        """0, RED or BLUE."""
        bit = 1 << self.grid.index[cell]
        return RED if self.red & bit else BLUE if self.blue & bit else 0

    @classmethod
    def from_cells(cls, size: int, cells: dict[Cell, int], to_move: int):
        """From a {cell: 0|1|2} map such as the server's grid; every cell must be on the board."""
        g = grid(size)
        red = blue = 0
        for cell, value in cells.items():
            if cell not in g.index:
                raise ValueError(f"cell {cell} is not on a hexagon of size {size}")
            if value == RED:
                red |= 1 << g.index[cell]
            elif value == BLUE:
                blue |= 1 << g.index[cell]
            elif value != 0:
                raise ValueError(f"cell {cell} holds {value!r}, expected 0, 1 or 2")
        if to_move not in (RED, BLUE):
            raise ValueError(f"player {to_move!r} is neither 1 (red) nor 2 (blue)")
        return cls(size, red, blue, to_move)

    def cells(self) -> dict[Cell, int]:
        """Every cell of the board with 0, RED or BLUE, as the server sends it."""
        return {c: self.at(c) for c in self.grid.cells}


def expected_moves(pos, samples: int = 12) -> float:
    """Moves the side to move of a search position should still expect to make: half the
    mean length of `samples` random playouts (seeded, so the estimate is reproducible)."""
    rng = random.Random(samples)
    total = 0
    for _ in range(samples):
        pos.playout(rng)
        total += pos.playout_plies
    return max(1.0, (total / samples + 1) / 2)
