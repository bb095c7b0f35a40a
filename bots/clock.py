"""How long one move may think when a clock runs for the whole game (sudden death): one policy
for every game's sessions, engines and drop-ins (Go on CGOS, GTP and the course referee,
Gopher and Dodo on gnd and the course kit, Hex over HTP, the arena's game clock).

The clock left is spread evenly over the moves we still expect to make (each game estimates
those from its position), less a small reserve, and less what each move costs on the clock
besides its thinking (`overhead`: the network, queueing; negative when a server gives time
back, as CGOS's 0.25 s per move does).  The share is recomputed from the clock at every move,
so time a move did not use (a book move, a search that stopped early) goes to the moves after
it, and the share grows as the game nears its end.  One move never takes more than a quarter
of what is left.

`Overhead` learns that cost from the clock itself: the server says what we had before a move
and what we have after it, and we know how long we thought.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_SECONDS = 0.05
RESERVE = 0.05  # of the clock never planned: the last moves, a move that overruns
MAX_SHARE = 0.25  # of what is left, at most, on one move
OVERHEAD = 0.1  # seconds per move besides thinking, until measured


def move_seconds(time_left: float, moves_left: float, overhead: float = OVERHEAD,
                 floor: float = MIN_SECONDS) -> float:
    """Seconds to think about this move with `time_left` on our clock and about `moves_left`
    moves of ours still to play (at least 1 is assumed)."""
    usable = max(0.0, time_left) * (1.0 - RESERVE)
    seconds = min(usable / max(1.0, moves_left), usable * MAX_SHARE) - overhead
    return max(floor, seconds)


@dataclass
class Overhead:
    """A running estimate of what a move costs on our clock besides thinking (see the module
    docstring): start from the configured `value`, then follow each measured move with
    weight `weight`.  Kept within [low, high] so one odd reading cannot derail a game."""

    value: float = OVERHEAD
    weight: float = 0.5
    low: float = -0.5
    high: float = 5.0

    def observe(self, before: float, after: float, thought: float) -> float:
        """One move: our clock read `before` it and `after` it, and we thought `thought`
        seconds (from receiving the request to sending the move).  Returns the estimate."""
        measured = (before - after) - thought
        estimate = (1.0 - self.weight) * self.value + self.weight * measured
        self.value = min(self.high, max(self.low, estimate))
        return self.value
