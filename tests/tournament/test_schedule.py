"""The schedule: who plays whom, where and in which seat (bots.tournament.schedule)."""

from __future__ import annotations

from collections import Counter

from bots.tournament.schedule import pairings, schedule


def test_round_robin_every_pair_every_setup_seats_split_evenly():
    jobs = schedule(["c", "a", "b"], ["m1", "m2"], 4)
    assert len(jobs) == 3 * 2 * 4 and len({j.key for j in jobs}) == len(jobs)
    assert {j.pair for j in jobs} == {("a", "b"), ("a", "c"), ("b", "c")}
    firsts = Counter((j.pair, j.setup, j.first) for j in jobs)
    assert set(firsts.values()) == {2}  # each of a pair takes the first seat twice per setup
    assert [j.index for j in jobs[:6]] == [0] * 6  # round by round


def test_gauntlet_is_one_against_the_rest():
    assert pairings(["x", "a", "b", "c"], gauntlet="x") == [("a", "x"), ("b", "x"), ("c", "x")]
    assert len(schedule(["x", "a", "b"], ["9"], 3, gauntlet="x")) == 2 * 3


def test_keys_and_seeds_do_not_depend_on_the_order_of_players():
    one = schedule(["a", "b", "c"], ["m"], 3)
    other = schedule(["c", "b", "a"], ["m"], 3)
    assert {(j.key, j.first, j.seed(7)) for j in one} == {(j.key, j.first, j.seed(7)) for j in other}
    assert len({j.seed(7) for j in one}) == len(one) and one[0].seed(7) != one[0].seed(8)
