"""The time budget of one move, shared by every search algorithm."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Budget:
    """Seconds for one move, counted from `start` (a time.monotonic() reading).

    On Linux time.monotonic() is the system-wide CLOCK_MONOTONIC, so a worker process
    computes the same deadline as the parent that issued the budget: time spent
    pickling and queueing is charged to the move, as it must be.

    `seconds` is what the search plans to use; `limit` (seconds from `start`, at least
    `seconds`) is when the move must be on its way to make the server's deadline, less a
    network margin: a search that overruns its plan (a loaded machine) is still waited for
    until then.  None: the caller knows no server deadline (the runner's grace applies).
    """

    seconds: float
    nodes: int | None = None
    start: float = field(default_factory=time.monotonic)
    limit: float | None = None

    @property
    def deadline(self) -> float:
        return self.start + self.seconds

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


@dataclass(frozen=True)
class SearchResult:
    """What a search returns: the move of its last completed iteration and its work."""

    move: Any
    value: float = 0.0
    depth: int = 0
    nodes: int = 0
    elapsed: float = 0.0
    votes: tuple[tuple[Any, int], ...] = ()  # (move, visits) at the root, for searches whose workers vote
