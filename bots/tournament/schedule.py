"""The games of a tournament: pairings x setups x games, the seats alternating.

A game's key is (one participant, the other, setup, index), the pair in sorted order, so the
key does not depend on the order of --players: a rerun with the names reordered, or a run
on a Ray cluster, plays exactly the same games with the same seats.  Even indices put the
first of the pair in the first seat (Twilight's vampires, Black, Red), odd ones the second.
The games come round by round (every pairing and setup plays its game 0, then its game 1,
...), so standings mean something early and an interrupted run is evenly spread.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Job:
    """One game to play: `first` takes the first seat."""

    pair: tuple[str, str]  # sorted
    setup: str
    index: int

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (*self.pair, self.setup, self.index)

    @property
    def first(self) -> str:
        return self.pair[self.index % 2]

    @property
    def second(self) -> str:
        return self.pair[1 - self.index % 2]

    def seed(self, base: int) -> int:
        """A seed for this game (e.g. the referee's random battles), the same in every run."""
        return (base * 1_000_003 + zlib.crc32(repr(self.key).encode())) % 2 ** 31


def pairings(participants: list[str], gauntlet: str | None = None) -> list[tuple[str, str]]:
    """Every pair (round robin), or `gauntlet` against each of the others; pairs sorted."""
    if gauntlet is not None:
        return [tuple(sorted((gauntlet, other))) for other in participants if other != gauntlet]
    return [tuple(sorted(pair)) for pair in combinations(participants, 2)]


def schedule(participants: list[str], setups: list[str], games: int, gauntlet: str | None = None) -> list[Job]:
    """Every game of the tournament, round by round."""
    pairs = pairings(participants, gauntlet)
    return [Job(pair, setup, index) for index in range(games) for setup in setups for pair in pairs]
