"""search/root.py: the early-stop rule every MCTS shares and the merging of root votes;
search/zobrist.py: reproducible key streams."""

from __future__ import annotations

import random

import numpy as np
import pytest

from search.root import merge_votes, settled
from search.zobrist import Keys


def test_settled_with_fewer_than_two_moves():
    assert settled([], 1e9) and settled([5], 1e9) and settled(np.zeros(1, np.float32), 0.0)


def test_settled_when_the_leader_cannot_be_overtaken():
    assert settled([10, 40, 25], 14)  # leads by 15 with 14 iterations to go
    assert not settled([10, 40, 25], 15)
    assert not settled([40, 40], 0)  # a tie is never settled by the lead alone
    assert settled(np.array([3.0, 90.0, 1.0], np.float32), 86.5)


def test_settled_when_the_leader_wins_almost_surely():
    visits, wins = [100, 90], [99, 10]
    assert not settled(visits, 1000, wins, done=190)  # no `sure`: the lead rule only
    assert not settled(visits, 1000, wins, done=190, sure=0.95)  # 190 is under 0.2 * 1190
    assert settled(visits, 500, wins, done=190, sure=0.95)  # 190 > 0.2 * 690
    assert not settled(visits, 500, [94, 10], done=190, sure=0.95)  # 94% is not sure enough
    assert not settled(visits, 500, wins, done=190, sure=0.95, share=0.5)
    # the most visited move counts, not the best rate
    assert not settled([100, 90], 500, [50, 90], done=190, sure=0.95)
    # numpy statistics as the numba tree keeps them
    assert settled(np.array([100, 90], np.float32), 500.0, np.array([99, 10], np.float32), 190, 0.95)


def test_merge_votes_sums_visits_and_picks_the_most():
    best, totals = merge_votes([[(10, 50), (20, 40), (30, 5)], [(20, 30), (10, 10), (40, 7)]])
    assert best == 20 and totals == ((10, 60), (20, 70), (30, 5), (40, 7))
    assert merge_votes(iter([iter([("b", 3), ("a", 3)])])) == ("b", (("a", 3), ("b", 3)))  # a tie: first voted
    with pytest.raises(ValueError):
        merge_votes([[], []])


def test_zobrist_keys_are_a_reproducible_stream():
    a, b = Keys(42), Keys(42)
    first = a.take(5)
    assert first == b.take(5) and a.next() == b.next()
    assert len(set(first)) == 5 and all(0 <= k < 2 ** 64 for k in first)
    rng = random.Random(42)  # the stream is Python's generator, drawn 64 bits at a time
    assert first == tuple(rng.getrandbits(64) for _ in range(5))
    assert Keys(43).take(5) != first
