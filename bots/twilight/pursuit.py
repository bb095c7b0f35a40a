"""Pursuit played exactly: how many moves a hunter needs to catch a runner on a Twilight board.

A group at least 1.5 times the size of an enemy group kills it for certain, with no loss, by
moving onto it; it catches it when the two are next to each other (Chebyshev distance 1) at the
hunter's turn.  The runner moves away in between (a king's move, or staying).  On a bounded grid
with king's moves one hunter always catches one runner: the king's graph is cop-win (Nowakowski
and Winkler, "Vertex-to-vertex pursuit in a graph", Discrete Mathematics 43, 1983; a strong
product of paths is dismantlable), and a runner only delays the end by heading for open space.

`tables(rows, cols)` computes the exact number of hunter moves for every pair of cells, by
retrograde analysis (value iteration on the two-player game, a few ms for the official maps'
sizes, cached per board size): `hunter[h, r]` with the hunter to move, `runner[h, r]` with the
runner to move.  Moving onto the runner counts as the last move.  The tables assume nothing else
on the board: a runner that reaches a friend and merges is no longer prey, which the search sees
within its horizon.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

UNREACHED = np.iinfo(np.int16).max


def _shifted(grid: np.ndarray, dy: int, dx: int, fill: int) -> np.ndarray:
    """grid[..., y + dy, x + dx] (fill where that is off the board)."""
    out = np.full_like(grid, fill)
    rows, cols = grid.shape[-2:]
    ys, yd = slice(max(dy, 0), rows + min(dy, 0)), slice(max(-dy, 0), rows + min(-dy, 0))
    xs, xd = slice(max(dx, 0), cols + min(dx, 0)), slice(max(-dx, 0), cols + min(-dx, 0))
    out[..., yd, xd] = grid[..., ys, xs]
    return out


STEPS = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]  # a king's moves, and staying


@lru_cache(maxsize=8)
def tables(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(hunter, runner): int16 arrays of shape (rows*cols, rows*cols), indexed by the cells
    y * cols + x of the hunter and the runner: the hunter's moves until it takes the runner,
    with the hunter to move, and with the runner to move."""
    n = rows * cols
    ys, xs = np.divmod(np.arange(n), cols)
    near = np.maximum(np.abs(ys[:, None] - ys[None, :]), np.abs(xs[:, None] - xs[None, :])) <= 1
    hunter = np.where(near, 1, UNREACHED).astype(np.int32)
    while True:
        # runner to move: it picks the step whose value is largest (the grid of r, per hunter cell)
        by_runner = hunter.reshape(n, rows, cols)
        runner = np.max([_shifted(by_runner, dy, dx, -1) for dy, dx in STEPS], axis=0).reshape(n, n)
        # hunter to move: the step to the smallest of those (the grid of h, per runner cell)
        by_hunter = runner.T.reshape(n, rows, cols)
        best = np.min([_shifted(by_hunter, dy, dx, UNREACHED) for dy, dx in STEPS], axis=0).reshape(n, n).T
        new = np.where(near, 1, np.minimum(UNREACHED, best + 1))
        if np.array_equal(new, hunter):
            break
        hunter = new
    return hunter.astype(np.int16), runner.astype(np.int16)


def moves_to_catch(rows: int, cols: int, hunter: tuple[int, int], runner: tuple[int, int],
                   hunter_to_move: bool) -> int:
    """The hunter's moves until it takes the runner, both playing their best; (x, y) cells."""
    h_table, r_table = tables(rows, cols)
    h, r = hunter[1] * cols + hunter[0], runner[1] * cols + runner[0]
    return int((h_table if hunter_to_move else r_table)[h, r])


@lru_cache(maxsize=4)
def lists(rows: int, cols: int) -> tuple[list[list[int]], list[list[int]]]:
    """`tables` as lists of lists: the search's evaluation reads one entry at a time, which a
    list does several times faster than a numpy array."""
    hunter, runner = tables(rows, cols)
    return hunter.tolist(), runner.tolist()
