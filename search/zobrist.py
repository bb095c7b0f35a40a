"""Zobrist keys: random 64-bit numbers, one per (point, colour) and per other feature of a
position, XORed together into a position's hash.

Keys must be the same in every process and every run (positions are compared across worker
processes, and a stored table is only good with the keys it was built with), so they come from
a generator seeded with a fixed number per game and board size, drawn in a fixed order:

    keys = Keys(SEED * 32 + size)
    black, white = keys.take(n), keys.take(n)  # a tuple of n keys each
    side = keys.next()
"""

from __future__ import annotations

import random


class Keys:
    """A reproducible stream of 64-bit Zobrist keys: Python's Mersenne Twister seeded with
    `seed`, so the same seed gives the same keys in every process and run."""

    def __init__(self, seed: int) -> None:
        self._bits = random.Random(seed).getrandbits

    def next(self) -> int:
        """The next key."""
        return self._bits(64)

    def take(self, n: int) -> tuple[int, ...]:
        """The next `n` keys."""
        return tuple(self._bits(64) for _ in range(n))
