"""How long a Go move may think: the budget from the clock (GTP time_left, CGOS, the course
referee), by the shared time manager (bots.clock).  The move itself is bots.decide's."""

from __future__ import annotations

from .. import clock
from .board import State

OVERHEAD = clock.OVERHEAD  # seconds kept back per move for the wire and the event loop
MIN_SECONDS = clock.MIN_SECONDS
DEFAULT_SECONDS = clock.DEFAULT_SECONDS  # per move when the session knows no clock
OWN_MOVES_PER_EMPTY = 0.45  # a 9x9 game against a good engine: about 30-40 of our moves from 81 empties


def moves_left(state: State) -> float:
    """The moves we still expect to play: a share of the empty points, at least 9."""
    return max(state.board.count(0), 20) * OWN_MOVES_PER_EMPTY


def move_seconds(state: State, time_left: float | None = None, per_move: float | None = None,
                 overhead: float = OVERHEAD) -> float:
    """Seconds to think about this move.

    `per_move` (a fixed time per move) wins; else `time_left` (our whole remaining clock) is
    spread by bots.clock over `moves_left(state)`; with neither, DEFAULT_SECONDS.  The
    overhead is taken off; the result is at least MIN_SECONDS.
    """
    if per_move is None and time_left is not None:
        return clock.move_seconds(time_left, moves_left(state), overhead)
    seconds = DEFAULT_SECONDS if per_move is None else per_move
    return max(MIN_SECONDS, seconds - overhead)
