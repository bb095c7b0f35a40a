"""Exponential retry delays, shared by the daemon and the sessions that retry on their own."""

from __future__ import annotations

import random


class Backoff:
    """Exponential delays with jitter: 1, 2, 4 ... capped, reset after a success."""

    def __init__(self, first: float = 1.0, cap: float = 60.0, rng: random.Random | None = None) -> None:
        self.first, self.cap, self.failures = first, cap, 0
        self.rng = rng or random.Random()

    def next(self) -> float:
        delay = min(self.cap, self.first * 2 ** self.failures)
        self.failures += 1
        return delay * self.rng.uniform(0.8, 1.2)

    def reset(self) -> None:
        self.failures = 0
