"""Decisions at the root of a Monte-Carlo search, shared by every MCTS here (the pure-Python
search/mcts.py and the numba tree of search/uct.py): when a search may stop before its
deadline, and how the root votes of several workers that searched the same position (root
parallelism) become one move.

Pure Python: no numba, no numpy needed (numpy arrays are accepted where sequences are).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def settled(visits: Sequence[float] | np.ndarray, remaining: float,
            wins: Sequence[float] | np.ndarray | None = None, done: int = 0,
            sure: float | None = None, share: float = 0.2) -> bool:
    """May the search stop now, its choice made?

    `visits[i]` (and `wins[i]`) are the statistics of the root's moves, `remaining` the
    iterations the search expects to run in the time it has left, `done` those it ran.  True:

    * when the root has fewer than two moves (nothing to choose);
    * when the most visited move leads the second by more than `remaining` visits (it can
      no longer be overtaken, so more work cannot change the move);
    * with `sure` given (and `wins`): when the most visited move wins more than `sure` of
      its visits and `done` is more than `share` of the expected total (done + remaining).
    """
    values = visits.tolist() if hasattr(visits, "tolist") else list(visits)
    if len(values) < 2:
        return True
    first, second = heapq.nlargest(2, values)
    if first - second > remaining:
        return True
    if sure is None or wins is None:
        return False
    best = values.index(first)  # the first most visited move, as numpy's argmax picks it
    return bool(first > 0 and wins[best] / first > sure and done > share * (done + remaining))


def merge_votes(ballots: Iterable[Iterable[tuple[Hashable, int]]]) -> tuple[Hashable, tuple[tuple[Hashable, int], ...]]:
    """The move with the most visits summed over the workers' `(move, visits)` root votes, and
    the summed votes sorted by move.  A tie goes to the move voted first.  At least one vote."""
    totals: dict[Hashable, int] = {}
    for votes in ballots:
        for move, visits in votes:
            totals[move] = totals.get(move, 0) + visits
    if not totals:
        raise ValueError("no votes to merge")
    best = max(totals, key=totals.__getitem__)
    return best, tuple(sorted(totals.items()))
