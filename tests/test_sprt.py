"""bots.sprt: the bounds text, the pentanomial counts, the GSPRT's LLR (checked against a
constrained maximisation done another way, and against the normal approximation), the
decisions of simulated tests, and the Elo interval's coverage."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from bots import sprt

VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


# -- an independent reference: the constrained MLE by Newton's method on the primal ----------


def constrained_best(p: np.ndarray, s: float) -> np.ndarray:
    """argmax_q sum_i p_i ln q_i over the q >= 0 with sum q = 1 and q . VALUES = s, found by a
    damped Newton ascent inside that plane (coordinates on the null space of the two
    constraints), without any Lagrange multiplier."""
    constraints = np.vstack([np.ones(5), VALUES])
    basis = np.linalg.svd(constraints)[2][2:].T  # 5 x 3: directions keeping both sums
    t = 2 * s - 1  # a feasible start: the uniform distribution moved toward one end
    q = 0.2 * (1 - abs(t)) * np.ones(5)
    q[4 if t > 0 else 0] += abs(t)
    assert abs(q.sum() - 1) < 1e-12 and abs(q @ VALUES - s) < 1e-12 and (q > 0).all()
    objective = lambda x: float(p @ np.log(x))  # noqa: E731
    for _ in range(200):
        gradient = basis.T @ (p / q)
        hessian = -basis.T @ np.diag(p / q ** 2) @ basis
        step = basis @ np.linalg.solve(hessian, -gradient)
        scale = 1.0
        while (q + scale * step <= 0).any() or objective(q + scale * step) < objective(q) - 1e-15:
            scale /= 2
            assert scale > 1e-30, "no ascent step"
        q = q + scale * step
        if np.abs(scale * step).max() < 1e-15:
            break
    return q


def reference_llr(counts, elo0: float, elo1: float) -> float:
    regularised = np.array([c if c > 0 else 1e-3 for c in counts], dtype=float)
    n = regularised.sum()
    p = regularised / n
    q0, q1 = (constrained_best(p, 1 / (1 + 10 ** (-elo / 400))) for elo in (elo0, elo1))
    return float(n * (p @ np.log(q1 / q0)))


# -- the bounds text --------------------------------------------------------------------------


def test_parse_reads_the_four_keys_in_any_order():
    assert sprt.parse("elo0=0 elo1=10 alpha=0.05 beta=0.05") == sprt.Bounds(0, 10, 0.05, 0.05)
    assert sprt.parse("beta=0.1, elo1=5,elo0=-5  alpha=0.2") == sprt.Bounds(-5, 5, 0.2, 0.1)
    assert sprt.parse("elo1=10 elo0=0") == sprt.Bounds(0, 10, 0.05, 0.05)  # alpha and beta default
    assert str(sprt.parse("elo0=0 elo1=2.5")) == "elo0=0 elo1=2.5 alpha=0.05 beta=0.05"


@pytest.mark.parametrize("text, words", [
    ("", ["no bounds", "elo0=0 elo1=10"]),
    ("elo0=0 elo1=10 gamma=1", ["unknown key 'gamma'", "elo0, elo1, alpha, beta"]),
    ("elo0=0 elo1", ["'elo1' is not key=value"]),
    ("elo0=0 elo1=ten", ["elo1='ten' is not a number"]),
    ("elo0=0 elo1=nan", ["elo1=nan is not a finite number"]),
    ("elo0=0 elo1=inf", ["elo1=inf is not a finite number"]),
    ("elo0=0 elo0=1 elo1=5", ["elo0 is given twice"]),
    ("elo1=10", ["elo0 missing"]),
    ("alpha=0.1", ["elo0 and elo1 missing"]),
    ("elo0=10 elo1=0", ["elo0=10 must be less than elo1=0"]),
    ("elo0=5 elo1=5", ["elo0=5 must be less than elo1=5"]),
    ("elo0=0 elo1=5 alpha=0.5", ["alpha=0.5 must be between 0 and 0.5"]),
    ("elo0=0 elo1=5 beta=0", ["beta=0 must be between 0 and 0.5"]),
    ("elo0=0 elo1=5 beta=-0.1", ["beta=-0.1 must be between 0 and 0.5"]),
])
def test_parse_names_what_is_wrong(text, words):
    with pytest.raises(ValueError) as caught:
        sprt.parse(text)
    for word in words:
        assert word in str(caught.value)


def test_the_bounds_of_alpha_and_beta():
    bounds = sprt.Bounds(0, 10)
    assert bounds.lower == pytest.approx(-2.944438979) and bounds.upper == pytest.approx(2.944438979)
    uneven = sprt.Bounds(0, 10, alpha=0.01, beta=0.1)
    assert uneven.lower == pytest.approx(math.log(0.1 / 0.99)) and uneven.upper == pytest.approx(math.log(0.9 / 0.01))
    assert bounds.decide(2.95) == "H1" and bounds.decide(-2.95) == "H0" and bounds.decide(2.9) is None
    assert bounds.decide(bounds.upper) == "H1" and bounds.decide(bounds.lower) == "H0"


# -- pairs ------------------------------------------------------------------------------------


def test_pentanomial_counts_the_five_pair_scores():
    assert sprt.pentanomial([2, 0, 1, 1, 1.5, 0.5, 2, 2]) == (1, 1, 2, 1, 3)
    assert sprt.pentanomial([]) == (0, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="not 0.75"):
        sprt.pentanomial([1, 0.75])
    with pytest.raises(ValueError, match="not 3"):
        sprt.pentanomial([3])


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="5 numbers, not 3"):
        sprt.llr([1, 2, 3], 0, 10)
    with pytest.raises(ValueError, match="cannot be negative"):
        sprt.llr([1, -2, 3, 0, 0], 0, 10)
    with pytest.raises(ValueError, match="no pairs"):
        sprt.estimate([0, 0, 0, 0, 0])


# -- the LLR ----------------------------------------------------------------------------------


CASES = [  # pentanomial counts, elo0, elo1
    ([3, 5, 8, 5, 3], 0.0, 50.0),
    ([1, 2, 4, 10, 15], 0.0, 100.0),
    ([15, 10, 4, 2, 1], -50.0, 0.0),
    ([0, 0, 24, 0, 0], 0.0, 10.0),
    ([10, 0, 0, 0, 10], 0.0, 10.0),
    ([0, 0, 0, 0, 4], 0.0, 200.0),
    ([1, 0, 0, 0, 0], -10.0, 10.0),
    ([520, 2100, 3800, 2300, 610], 0.0, 5.0),
]


@pytest.mark.parametrize("counts, elo0, elo1", CASES)
def test_the_llr_is_the_constrained_maximum_likelihood_ratio(counts, elo0, elo1):
    assert sprt.llr(counts, elo0, elo1) == pytest.approx(reference_llr(counts, elo0, elo1), rel=1e-7, abs=1e-9)


def test_the_mle_has_the_asked_mean_and_is_the_sample_itself_at_the_sample_mean():
    p = [0.1, 0.2, 0.3, 0.25, 0.15]
    for s in (0.05, 0.3, 0.5, 0.9, 0.999):
        q = sprt.mle(p, s)
        assert sum(q) == pytest.approx(1) and sum(qi * v for qi, v in zip(q, VALUES, strict=True)) == pytest.approx(s)
        assert all(qi > 0 for qi in q)
    mean = sum(pi * v for pi, v in zip(p, VALUES, strict=True))
    assert sprt.mle(p, mean) == pytest.approx(p)
    with pytest.raises(ValueError, match="between 0 and 1"):
        sprt.mle(p, 1.0)


def test_hand_checked_values():
    # All draws: the sample's mean is 1/2, the expected score of elo0 = 0, so H0 fits better.
    assert sprt.llr([0, 0, 100, 0, 0], 0, 10) < 0
    assert sprt.llr([0, 0, 100, 0, 0], -10, 0) > 0  # and against elo0 = -10 it is H1 that fits
    # Elo 0 against elo 0 + something: a sample at H1's score gives N times the KL divergence.
    s1 = sprt.expected_score(40)
    p = [0.1, 0.2, 0.3, 0.25, 0.15]
    shift = (s1 - sum(pi * v for pi, v in zip(p, VALUES, strict=True))) / 0.75  # move mass from bin 0 to bin 3
    p = [p[0] - shift, p[1], p[2], p[3] + shift, p[4]]
    counts = [1000 * x for x in p]
    q0 = sprt.mle(p, 0.5)
    kl = sum(pi * math.log(pi / qi) for pi, qi in zip(p, q0, strict=True))
    assert sprt.llr(counts, 0, 40) == pytest.approx(1000 * kl, rel=1e-9)
    # Mirrored: A's losses are B's wins, so swapping the bins and the sign of the Elos swaps H0 and H1.
    for counts, elo0, elo1 in CASES:
        assert sprt.llr(counts[::-1], -elo1, -elo0) == pytest.approx(-sprt.llr(counts, elo0, elo1), abs=1e-9)


@pytest.mark.parametrize("counts, elo0, elo1", CASES)
def test_a_better_pair_raises_the_llr(counts, elo0, elo1):
    before = sprt.llr(counts, elo0, elo1)
    for low in range(4):
        if counts[low] >= 1:
            better = list(counts)
            better[low] -= 1
            better[low + 1] += 1
            assert sprt.llr(better, elo0, elo1) > before, (counts, low)
    won = [*counts[:4], counts[4] + 1]
    lost = [counts[0] + 1, *counts[1:]]
    assert sprt.llr(won, elo0, elo1) > before > sprt.llr(lost, elo0, elo1)


def test_the_normal_approximation_agrees_on_large_samples():
    rng = random.Random(7)
    for true_elo in (-5.0, 0.0, 2.5, 5.0, 10.0):
        counts = sample_counts(rng, true_elo, 40_000)
        exact, normal = sprt.llr(counts, 0, 5), sprt.llr_normal(counts, 0, 5)
        assert abs(exact - normal) < 0.005 * max(1.0, abs(exact)), (true_elo, counts, exact, normal)
    # ... and not on small ones far from the bounds, where only the exact one is right.
    assert abs(sprt.llr([0, 0, 0, 0, 4], 0, 200) - sprt.llr_normal([0, 0, 0, 0, 4], 0, 200)) > 0.5


# -- simulated tests ----------------------------------------------------------------------------


def game_points(rng: random.Random, elo: float, draws: float = 0.3) -> float:
    """One game's score for A, whose expected score is that of `elo`, `draws` of them drawn."""
    s = sprt.expected_score(elo)
    win = s - draws / 2
    r = rng.random()
    return 1.0 if r < win else 0.5 if r < win + draws else 0.0


def sample_counts(rng: random.Random, elo: float, pairs: int) -> list[int]:
    return list(sprt.pentanomial(game_points(rng, elo) + game_points(rng, elo) for _ in range(pairs)))


def run_test(rng: random.Random, elo: float, bounds: sprt.Bounds, cap: int = 5000) -> tuple[str | None, int]:
    """A sequential test of a simulated A of Elo `elo`: its verdict and its length in pairs."""
    counts = [0] * 5
    for pairs in range(1, cap + 1):
        counts[sprt.pair_bin(game_points(rng, elo) + game_points(rng, elo))] += 1
        verdict = sprt.status(counts, bounds).verdict
        if verdict:
            return verdict, pairs
    return None, cap


def test_a_strong_player_is_accepted_and_a_weak_one_rejected():
    rng = random.Random(2024)
    bounds = sprt.Bounds(0, 50, 0.05, 0.05)
    strong = [run_test(rng, 100, bounds) for _ in range(10)]
    weak = [run_test(rng, -50, bounds) for _ in range(10)]
    assert [v for v, _ in strong].count("H1") >= 9, strong
    assert [v for v, _ in weak].count("H0") >= 9, weak
    assert all(n < 1000 for _, n in strong + weak)


@pytest.mark.slow
def test_a_player_of_elo1_or_elo0_is_judged_with_about_the_error_rates():
    rng = random.Random(5)
    bounds = sprt.Bounds(0, 60, 0.1, 0.1)
    at_h1 = [run_test(rng, 60, bounds)[0] for _ in range(40)]
    at_h0 = [run_test(rng, 0, bounds)[0] for _ in range(40)]
    assert at_h1.count("H1") >= 30 and at_h0.count("H0") >= 30, (at_h1, at_h0)  # about 36 expected


def test_the_elo_interval_covers_the_true_elo_about_95_percent_of_the_time():
    rng = random.Random(11)
    true_elo, covered, trials = 40.0, 0, 300
    for _ in range(trials):
        guess = sprt.estimate(sample_counts(rng, true_elo, 200))
        assert guess.low < guess.elo < guess.high
        covered += guess.low <= true_elo <= guess.high
    assert 0.91 * trials <= covered <= 0.99 * trials, covered


def test_the_estimate_of_a_known_sample():
    guess = sprt.estimate([0, 0, 10, 0, 0])
    assert guess.pairs == 10 and guess.score == 0.5 and guess.elo == pytest.approx(0, abs=1e-9)
    assert guess.low == pytest.approx(-guess.high)
    winning = sprt.estimate([1, 2, 3, 4, 10])  # (0*1 + .25*2 + .5*3 + .75*4 + 1*10) / 20 per game
    assert winning.score == pytest.approx(15 / 20) and winning.elo == pytest.approx(sprt.elo_of(0.75), abs=1)
    assert sprt.elo_of(sprt.expected_score(123.4)) == pytest.approx(123.4)
    assert sprt.elo_of(1.0) == math.inf and sprt.elo_of(0.0) == -math.inf
