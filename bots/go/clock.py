"""Go's estimate of the moves we still have to make, what bots.clock.budget spreads a game
clock over (CGOS, the GTP engine, the course referee, the arena)."""

from __future__ import annotations

from .board import State

OWN_MOVES_PER_EMPTY = 0.45  # a 9x9 game against a good engine: about 30-40 of our moves from 81 empties


def moves_left(state: State) -> float:
    """The moves we still expect to play: a share of the empty points, counting at least 20."""
    return max(state.board.count(0), 20) * OWN_MOVES_PER_EMPTY
