"""Building blocks the Twilight players share: steps, targets, combining group orders."""

from __future__ import annotations

from itertools import product
from typing import Iterable, Sequence

from protocol.twilight import Move

from .rules import MAX_UNITS, MONSTER_RATIO, Group, State, distance

Order = tuple[Move, ...]  # what one group does this ply: () stays, (m,) moves, (m1, m2) splits


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def step(x: int, y: int, tx: int, ty: int) -> tuple[int, int]:
    """The next cell on a shortest (Chebyshev) path from (x, y) to (tx, ty)."""
    return x + _sign(tx - x), y + _sign(ty - y)


def away(x: int, y: int, fx: int, fy: int, cols: int, rows: int) -> tuple[int, int] | None:
    """The neighbour that most increases the distance from (fx, fy), if any does."""
    best, best_d = None, distance(x, y, fx, fy)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            nx, ny = x + dx, y + dy
            if (dx or dy) and 0 <= nx < cols and 0 <= ny < rows:
                d = distance(nx, ny, fx, fy)
                if d > best_d:
                    best, best_d = (nx, ny), d
    return best


def toward(group: Group, target: Sequence[int], count: int | None = None) -> Order:
    """Send `count` units (default all) of `group` one step toward `target`."""
    x, y, n = group
    tx, ty = step(x, y, target[0], target[1])
    if (tx, ty) == (x, y):
        return ()
    return (Move(x, y, n if count is None else count, tx, ty),)


def beats(attackers: int, defenders: int) -> bool:
    """Attackers win for certain against monsters (the 1.5x rule)."""
    return attackers >= MONSTER_RATIO * defenders


def threat_balance(ours: Iterable[Group], theirs: Sequence[Group]) -> float:
    """Enemy groups ours can kill (+their size / distance) minus our groups an enemy can
    kill (-our size / distance): who is in reach of a group 1.5x its size."""
    score = 0.0
    for x, y, n in ours:
        for ex, ey, e in theirs:
            if beats(n, e):
                score += e / distance(x, y, ex, ey)
            elif beats(e, n):
                score -= n / distance(x, y, ex, ey)
    return score


def nearest(x: int, y: int, groups: Iterable[Group]) -> Group | None:
    return min(groups, key=lambda g: (distance(x, y, g[0], g[1]), -g[2]), default=None)


def combine(orders: Sequence[Sequence[Order]], cap: int) -> list[Order]:
    """Joint actions from each group's orders, first choices first, at most `cap`.

    A joint action is dropped when a cell would be both a source and a target, when
    more than 255 units would meet in a cell, or when every group stays.  If the full
    product is larger than `cap`, later groups keep fewer of their (ordered) choices.
    """
    orders = [list(dict.fromkeys(o)) for o in orders]  # dedupe, keep order
    widths = [len(o) for o in orders]
    while _prod(widths) > cap and max(widths) > 1:
        i = max(range(len(widths)), key=lambda k: (widths[k], k))
        widths[i] -= 1
    out: list[Order] = []
    for combo in product(*(o[:w] for o, w in zip(orders, widths, strict=True))):
        action = tuple(m for order in combo for m in order)
        if action and _consistent(action):
            out.append(action)
    return out


def _prod(values: Sequence[int]) -> int:
    total = 1
    for v in values:
        total *= v
    return total


def _consistent(action: Order) -> bool:
    sources = {(m[0], m[1]) for m in action}
    arriving: dict[tuple[int, int], int] = {}
    for m in action:
        target = (m[3], m[4])
        if target in sources:
            return False
        arriving[target] = arriving.get(target, 0) + m[2]
    return all(v <= MAX_UNITS for v in arriving.values())


def fits(state: State, action: Order) -> bool:
    """No cell of ours would pass 255 units, by a merge or by a conversion.

    Validation rejects the merges; a conversion past 255 is legal but the official
    server stores it in a byte, so it would wrap around (rules.stored).
    """
    held = {(x, y): n for x, y, n in state.groups(state.to_move)}
    held.update({(x, y): n for x, y, n in state.humans})
    arriving: dict[tuple[int, int], int] = {}
    for m in action:
        arriving[(m[3], m[4])] = arriving.get((m[3], m[4]), 0) + m[2]
    return all(n + held.get(c, 0) <= MAX_UNITS for c, n in arriving.items())
