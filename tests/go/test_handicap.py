"""Handicap placement (bots.go.handicap): GTP's fixed points and our free placement."""

from __future__ import annotations

import pytest

from bots.go.board import BLACK, WHITE, point_name
from bots.go.handicap import fixed_points, free_points, max_fixed, position


def names(points, size):
    return [point_name(p, size) for p in points]


def test_fixed_placement_sizes():
    assert [max_fixed(n) for n in (5, 6, 7, 8, 9, 10, 11, 13, 19)] == [0, 0, 4, 4, 9, 4, 9, 9, 9]
    assert names(fixed_points(7, 4), 7) == ["C3", "E5", "C5", "E3"]
    assert names(fixed_points(19, 6), 19) == ["D4", "Q16", "D16", "Q4", "D10", "Q10"]
    assert names(fixed_points(19, 8), 19) == ["D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16"]
    for size, count in ((19, 10), (19, 1), (10, 5), (6, 2)):
        with pytest.raises(ValueError):
            fixed_points(size, count)


@pytest.mark.parametrize("size", [2, 5, 9, 10, 19])
def test_free_placement_places_any_number_of_distinct_stones(size):
    for count in sorted({2, 3, 5, 9, 10, 17, size * size // 2, size * size - 1} & set(range(2, size * size))):
        points = free_points(size, count)
        assert len(set(points)) == count and all(0 <= p < size * size for p in points)
        if max_fixed(size) >= count:
            assert points == fixed_points(size, count)
    with pytest.raises(ValueError):
        free_points(size, size * size)


def test_free_placement_spreads_the_stones_past_the_fixed_ones():
    extra = free_points(19, 13)[9:]
    assert all(min(p // 19, p % 19, 18 - p // 19, 18 - p % 19) >= 2 for p in extra)  # third line or in
    assert len(set(extra)) == 4


def test_position_has_white_to_move():
    state = position(9, fixed_points(9, 2), komi=0.5)
    assert state.to_move == WHITE and state.stones(BLACK) == sorted(fixed_points(9, 2)) and state.komi == 0.5
