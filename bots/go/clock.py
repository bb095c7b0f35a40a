"""How long a Go move may think: the budget from the clock (GTP time_left, CGOS, the course
referee).  The move itself is bots.decide's (the one move path of every game)."""

from __future__ import annotations

from .board import State

OVERHEAD = 0.1  # seconds kept back per move for the wire and the event loop
MIN_SECONDS = 0.05
DEFAULT_SECONDS = 2.0  # per move when the session knows no clock


def move_seconds(state: State, time_left: float | None = None, per_move: float | None = None,
                 overhead: float = OVERHEAD) -> float:
    """Seconds to think about this move.

    `per_move` (a fixed time per move) wins; else `time_left` (our whole remaining clock) is
    spread over the moves we still expect to make: half the empty points (at least 10) plus
    10, so the share grows as the board fills; never more than a quarter of what is left.  With
    neither, DEFAULT_SECONDS.  The overhead is taken off; the result is at least MIN_SECONDS.
    """
    if per_move is not None:
        seconds = per_move
    elif time_left is not None:
        empties = state.board.count(0)
        seconds = min(time_left / (max(empties, 20) / 2 + 10), time_left / 4)
    else:
        seconds = DEFAULT_SECONDS
    return max(MIN_SECONDS, seconds - overhead)
