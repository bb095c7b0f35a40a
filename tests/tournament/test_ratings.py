"""Ratings against answers known or solved by hand (bots.tournament.ratings)."""

from __future__ import annotations

import math

import pytest

from bots.tournament.ratings import fit


def games(first: str, second: str, wins: int, draws: int = 0, losses: int = 0) -> list[tuple[str, str, float]]:
    return [(first, second, 1.0)] * wins + [(first, second, 0.5)] * draws + [(first, second, 0.0)] * losses


def test_a_75_percent_score_is_190_8_elo():
    ratings = fit(["A", "B"], games("A", "B", 3, losses=1), anchor="B").by_name()
    assert ratings["B"].elo == 0.0
    assert ratings["A"].elo == pytest.approx(400 * math.log10(3), abs=1e-6)  # 190.85
    assert ratings["A"].score == 0.75 and ratings["A"].games == 4


def test_draws_count_as_half_a_win():
    """2 wins, 2 draws, 1 loss is a 60% score, the same as 3 wins and 2 losses."""
    with_draws = fit(["A", "B"], games("A", "B", 2, draws=2, losses=1), anchor="B").by_name()["A"]
    plain = fit(["A", "B"], games("A", "B", 3, losses=2), anchor="B").by_name()["A"]
    assert with_draws.elo == pytest.approx(400 * math.log10(3 / 2), abs=1e-6)
    assert with_draws.elo == pytest.approx(plain.elo)
    assert with_draws.points == 3.0


def test_three_players_solved_by_hand():
    """Strengths 4 : 2 : 1 give P(A>B) = 2/3, P(B>C) = 2/3, P(A>C) = 4/5.  With exactly those
    scores each player's expected score equals its actual one (A: 2 + 4, B: 1 + 2, C: 1 + 1),
    so the maximum is there: A = 400 log10 4 = 240.8 and B = 400 log10 2 = 120.4 above C."""
    results = games("A", "B", 2, losses=1) + games("B", "C", 1, draws=2) + games("C", "A", 1, losses=4)
    ratings = fit(["A", "B", "C"], results, anchor="C")
    by = ratings.by_name()
    assert by["C"].elo == 0.0 and by["C"].low == by["C"].high == 0.0
    assert by["A"].elo == pytest.approx(400 * math.log10(4), abs=1e-6)
    assert by["B"].elo == pytest.approx(400 * math.log10(2), abs=1e-6)
    assert ratings.note == ""
    # anchored elsewhere, only the origin moves
    again = fit(["A", "B", "C"], results, anchor="A").by_name()
    assert again["A"].elo == 0.0 and again["C"].elo == pytest.approx(-240.82, abs=0.01)


def test_intervals_shrink_as_games_grow():
    """Four times the games (same scores): same ratings, intervals half as wide."""
    few = fit(["A", "B"], games("A", "B", 3, losses=1), anchor="B").by_name()["A"]
    many = fit(["A", "B"], games("A", "B", 12, losses=4), anchor="B").by_name()["A"]
    assert many.elo == pytest.approx(few.elo)
    assert few.low < many.low < many.elo < many.high < few.high
    assert (many.high - many.low) == pytest.approx((few.high - few.low) / 2, rel=1e-6)
    # the standard error is 1 / sqrt(n p (1 - p)) in theta: 4 games at 75% -> 1.1547
    assert (few.high - few.elo) == pytest.approx(1.959964 * 400 / math.log(10) / math.sqrt(4 * 0.75 * 0.25), rel=1e-5)


def test_a_perfect_score_is_finite_and_flagged():
    ratings = fit(["A", "B", "C"], games("A", "B", 2) + games("B", "C", 1, losses=1) + games("A", "C", 2))
    by = ratings.by_name()
    assert "virtual draw" in ratings.note and "A" in ratings.note
    assert by["A"].elo == 0.0 and by["B"].elo < 0 and by["C"].elo < 0
    assert by["A"].score == 1.0 and by["A"].games == 4  # the table counts the real games only


def test_unplayed_and_unconnected_participants_are_not_rated():
    ratings = fit(["A", "B", "C", "D", "E"], games("A", "B", 1, losses=1) + games("C", "D", 1, losses=1))
    by = ratings.by_name()
    assert by["A"].elo == 0.0 and by["B"].elo == pytest.approx(0.0, abs=1e-9)
    assert by["C"].elo is None and by["D"].elo is None and by["E"].elo is None and by["E"].games == 0
    assert "—" in ratings.table()


def test_an_anchor_without_games_gives_way_to_the_first_rated():
    ratings = fit(["A", "B", "C"], games("B", "C", 3, losses=1), anchor="A")
    assert ratings.anchor == "B" and ratings.by_name()["B"].elo == 0.0
    assert ratings.by_name()["C"].elo == pytest.approx(-190.85, abs=0.01)
