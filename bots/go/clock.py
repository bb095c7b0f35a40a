"""Go's estimate of the moves we still have to make, what bots.clock.budget spreads a game
clock over (CGOS, the GTP engine, the course referee, the arena).

The moves are counted in shares of thinking, as Pachi's time manager does with its fuseki and
yose phases: a middle-game move (MIDDLE_FILL of the board taken, where groups live or die)
deserves up to 1 + MIDDLE_WEIGHT times what an opening or endgame move does.  So the count
seen from the middle game is smaller (each move there gets more of the clock), and seen from
the opening it is larger (the clock is kept for the middle game).  The time a move saves by
stopping early (search.root) is spread by the same weights.
"""

from __future__ import annotations

import math

from .board import State

OWN_MOVES_PER_EMPTY = 0.45  # a 9x9 game against a good engine: about 30-40 of our moves from 81 empties
MIDDLE_FILL = 0.35  # the share of the board taken where a move weighs most
MIDDLE_SPAN = 0.45  # the weight falls to the plain 1 at MIDDLE_FILL +- this (the board 80% full)
MIDDLE_WEIGHT = 1.0  # the extra weight there


def weight(filled: float) -> float:
    """The thinking a move deserves, in plain moves, when `filled` (0 to 1) of the board is taken."""
    return 1.0 + MIDDLE_WEIGHT * max(0.0, 1.0 - abs(filled - MIDDLE_FILL) / MIDDLE_SPAN)


def moves_left(state: State) -> float:
    """The moves we still expect to play (a share of the empty points, counting at least 20),
    each weighed by `weight` as the board fills, in units of this move's weight."""
    points = len(state.board)
    empties = state.board.count(0)
    own = max(empties, 20) * OWN_MOVES_PER_EMPTY
    step = empties / own  # empty points taken between two moves of ours
    whole = math.ceil(own)
    weights = [weight(1.0 - max(0.0, empties - k * step) / points) for k in range(whole)]
    total = sum(weights[:-1]) + weights[-1] * (own - (whole - 1))
    return total / weights[0]
