"""One group against one with no camp left to take: the Twilight endgame, solved exactly.

When each side is down to one group and no camp can be converted, what is left is a duel of
position.  A side whose group moves onto the enemy's cell starts a battle: a certain kill at
1.5x the enemy's size, otherwise a random battle that the attacker wins with probability
P = win_probability(mine, theirs) (rules.py).  Either way the game is over: the loser's group
is gone (or both are, when no unit of the winner survives: a draw).  A side that never
attacks, and is never attacked, wins at the ply cap if it has more units.

So pursuit is not cops and robbers (bots.twilight.pursuit): a runner caught next to a bigger
group at its own turn attacks it, at P = runner / (2 * hunter), rather than wait to be taken.
Whoever steps next to the enemy hands it the first strike; a group must move every ply (a MOV
moves something, and here there is nothing else to move), so a side can be forced to.  The
value of every position is computed by retrograde analysis over (my cell, their cell, plies
left), for the side to move:

    W_k[m, o] = max(strike value, if m is next to o;  max over steps m' of 1 - W'_{k-1}[o, m'])

with W'_ the opponent's table (their size against mine), and W_0 the ply cap's result.  Camps
that nobody can take are walls here (entering one is a battle with humans that no one ahead
wants; a group behind might, which this model does not see).  Splits are not moves here: a
group that sends one unit away to pass its turn leaves the duel, and the caller's search
takes over.  The tables are float32 numpy arrays of the board's cells squared, computed once
per (board, walls, sizes) and extended as plies are asked for; they stop changing after a
number of plies that grows with the board, and then later plies reuse the last ones (15x29:
56 plies, 86 MB, 0.6 s).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from protocol.twilight import Move

from .rules import MONSTER_RATIO, State, win_probability

CELLS_LIMIT = 450  # boards with more cells are left to the search (the tables grow as cells**2)
STEPS = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]  # a group must move


def strike(mine: int, theirs: int) -> float:
    """The result, for the attacker, of `mine` units moving onto `theirs` when that ends the
    game (one group each): 1 for a certain kill; else the random battle, in which each of the
    winner's units survives with the winner's probability, and no survivor leaves a draw."""
    if mine >= MONSTER_RATIO * theirs:
        return 1.0
    p = win_probability(mine, theirs)
    none_left_after_win, none_left_after_loss = (1 - p) ** mine, p ** theirs
    return p * (1 - none_left_after_win) + 0.5 * (p * none_left_after_win + (1 - p) * none_left_after_loss)


def cap_result(mine: int, theirs: int) -> float:
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def _best_step(options: np.ndarray) -> np.ndarray:
    """max over the 8 king's steps s of options[cell + s, ...] (first two axes: the board),
    -inf where no step stays on the board."""
    best = np.full_like(options, -np.inf)
    rows, cols = options.shape[:2]
    for dy, dx in STEPS:
        ys, yd = slice(max(dy, 0), rows + min(dy, 0)), slice(max(-dy, 0), rows + min(-dy, 0))
        xs, xd = slice(max(dx, 0), cols + min(dx, 0)), slice(max(-dx, 0), cols + min(-dx, 0))
        np.maximum(best[yd, xd], options[ys, xs], out=best[yd, xd])
    return best


@dataclass
class Tables:
    """The duel's values on one board with fixed walls: `first` with `sizes[0]` units against
    `sizes[1]`, `second` the other way round; layer k of each is W_k (k plies left)."""

    rows: int
    cols: int
    walls: frozenset[tuple[int, int]]
    sizes: tuple[int, int]
    first: list[np.ndarray] = field(default_factory=list)
    second: list[np.ndarray] = field(default_factory=list)
    settled: int | None = None  # the first layer from which every later one equals it

    def __post_init__(self) -> None:
        n = self.rows * self.cols
        ys, xs = np.divmod(np.arange(n), self.cols)
        gap = np.maximum(np.abs(ys[:, None] - ys[None, :]), np.abs(xs[:, None] - xs[None, :]))
        self.near = gap == 1
        self.blocked = np.eye(n, dtype=bool)  # a step onto the enemy is the strike, not a move
        for x, y in self.walls:
            self.blocked[y * self.cols + x, :] = True
        a, b = self.sizes
        self.first.append(np.full((n, n), cap_result(a, b), dtype=np.float32))
        self.second.append(np.full((n, n), cap_result(b, a), dtype=np.float32))
        self.strikes = (strike(a, b), strike(b, a))

    def _next(self, theirs: np.ndarray, hit: float) -> np.ndarray:
        # my step m -> m' leads to their table at (o, m'): options[m', o] = 1 - theirs[o, m']
        options = np.where(self.blocked, np.float32(-np.inf), 1 - theirs.T).reshape(self.rows, self.cols, -1)
        best = _best_step(options).reshape(options.shape[2], -1)
        stuck = np.isneginf(best)  # walled in: the turn passes (the model's only pass)
        best = np.where(stuck, 1 - theirs.T, best)
        return np.where(self.near, np.maximum(best, np.float32(hit)), best)

    def layer(self, k: int, deadline: float | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """(first, second) with k plies left; None if that takes past `deadline` (a
        time.monotonic() reading: the layers done so far are kept for the next call)."""
        while self.settled is None and len(self.first) <= k:
            if deadline is not None and time.monotonic() > deadline:
                return None
            first = self._next(self.second[-1], self.strikes[0])
            second = self._next(self.first[-1], self.strikes[1])
            if np.array_equal(first, self.first[-1]) and np.array_equal(second, self.second[-1]):
                self.settled = len(self.first) - 1
                break
            self.first.append(first)
            self.second.append(second)
        if self.settled is not None:
            k = min(k, self.settled)
        return self.first[k], self.second[k]


@lru_cache(maxsize=4)  # one duel per game at a time; 15x29's settled tables take about 90 MB
def tables(rows: int, cols: int, walls: frozenset[tuple[int, int]], a: int, b: int) -> Tables:
    return Tables(rows, cols, walls, (a, b))


def duel(state: State) -> bool:
    """One group a side, no camp that either could convert, a board the tables fit."""
    mine, theirs = state.groups(state.to_move), state.groups(state.to_move.other)
    if len(mine) != 1 or len(theirs) != 1 or state.rows * state.cols > CELLS_LIMIT:
        return False
    return all(c > max(mine[0][2], theirs[0][2]) for _, _, c in state.humans)


@dataclass(frozen=True)
class Choice:
    move: Move
    value: float  # the side to move's chance of winning (a draw counts half), both playing best
    options: tuple[tuple[Move, float], ...]  # every move of the whole group with its value


def solve(state: State, deadline: float | None = None) -> Choice | None:
    """The best move of the side to move in a `duel` position, with the value of each.

    Among equal values: the strike first (the game ends sooner), then the step nearer to an
    enemy this group kills for certain, or farther from one it does not.  None if the group
    cannot move (walled in by camps), or if the tables are not ready by `deadline`."""
    (mx, my, m), (ox, oy, o) = state.groups(state.to_move)[0], state.groups(state.to_move.other)[0]
    cols = state.cols
    walls = frozenset((x, y) for x, y, _ in state.humans)
    left = state.max_plies - state.ply
    if m <= o:
        mine_table = 1
        t = tables(state.rows, cols, walls, o, m)
    else:
        mine_table = 0
        t = tables(state.rows, cols, walls, m, o)
    layer = t.layer(left - 1, deadline)
    if layer is None:
        return None
    theirs = layer[1 - mine_table]
    hunter = m >= MONSTER_RATIO * o
    options = []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            nx, ny = mx + dx, my + dy
            if not (dx or dy) or not (0 <= nx < cols and 0 <= ny < state.rows) or (nx, ny) in walls:
                continue
            move = Move(mx, my, m, nx, ny)
            if (nx, ny) == (ox, oy):
                options.append((t.strikes[mine_table], 2, move))
                continue
            gap = max(abs(nx - ox), abs(ny - oy))
            options.append((1.0 - float(theirs[oy * cols + ox, ny * cols + nx]), -gap if hunter else gap, move))
    if not options:
        return None
    value, _, move = max(options, key=lambda o: (round(o[0], 5), o[1]))
    return Choice(move, value, tuple((mv, v) for v, _, mv in options))
