"""Handicap stones: GTP's fixed placement and our free placement (docs/protocols/gtp.md section 3.4).

Fixed placement (GTP 2, section 4.1.1): from 2 to 9 stones on odd boards of 9x9 and larger, at
most 4 on even boards of 8x8 and larger and on 7x7, none on smaller boards.  The corner points
are on the third line, the fourth on boards of 13x13 and larger; stones 5, 7 and 9 go on the
centre point, 6 and 7 add the middle points of the left and right sides, 8 and 9 those of the
top and bottom.  The first four take opposite corners first: bottom left and top right, then
top left, then bottom right.

Free placement (`place_free_handicap`): the fixed points while they last, then the points of
the third line and in that lie farthest from every stone placed so far (ties to the lowest
point), so that any number up to the board's points minus one can be placed."""

from __future__ import annotations

from .board import WHITE, State, setup


def max_fixed(size: int) -> int:
    """The most stones GTP's fixed placement puts on a size x size board (0: none)."""
    if size < 7:
        return 0
    return 4 if size == 7 or size % 2 == 0 else 9


def fixed_points(size: int, count: int) -> list[int]:
    """GTP's fixed handicap placement; ValueError for a count it does not define."""
    if not 2 <= count <= max_fixed(size):
        raise ValueError(f"fixed handicap of {count} stones is not defined on {size}x{size} "
                         f"(2 to {max_fixed(size)})" if max_fixed(size) else
                         f"no fixed handicap on {size}x{size} (7x7 is the smallest)")
    low = 3 if size >= 13 else 2
    high, mid = size - 1 - low, size // 2

    def at(col: int, row: int) -> int:
        return row * size + col

    corners = [at(low, low), at(high, high), at(low, high), at(high, low)]
    sides = [at(low, mid), at(high, mid), at(mid, low), at(mid, high)]
    points = corners[:min(count, 4)]
    if count >= 6:
        points += sides[:2 if count < 8 else 4]
    if count in (5, 7, 9):
        points.append(at(mid, mid))
    return points


def free_points(size: int, count: int) -> list[int]:
    """Our choice of `count` handicap stones (see the module docstring); ValueError below 2 or
    at the board's points or more."""
    if not 2 <= count < size * size:
        raise ValueError(f"a handicap is 2 to {size * size - 1} stones on {size}x{size}, not {count}")
    points = fixed_points(size, min(count, max_fixed(size))) if max_fixed(size) >= 2 else []
    edge = 2 if size >= 7 else 0
    inner = [p for p in range(size * size)
             if min(p // size, p % size, size - 1 - p // size, size - 1 - p % size) >= edge]
    # each point's distance to the nearest stone placed (kept up to date, point by point)
    gap = {p: min((_distance(p, q, size) for q in points), default=size) for p in range(size * size)}
    while len(points) < count:
        free = [p for p in inner if gap[p]] or [p for p in range(size * size) if gap[p]]
        best = max(free, key=lambda p: (gap[p], -p))
        points.append(best)
        for p in gap:
            gap[p] = min(gap[p], _distance(p, best, size))
    return points


def _distance(p: int, q: int, size: int) -> int:
    return max(abs(p // size - q // size), abs(p % size - q % size))


def position(size: int, points: list[int], komi: float, superko: str = "positional") -> State:
    """The board with Black's handicap stones on `points`, White to move."""
    return setup(size, black=points, to_move=WHITE, komi=komi, superko=superko)
