"""Sequential testing of one player against another, as engine makers test a change: game PAIRS
(one setup and seed, the seats swapped), their pentanomial counts, the generalized SPRT's
log-likelihood ratio (LLR) for two logistic Elo hypotheses, and the Elo estimate.

The tested player is A: H0 says A's Elo advantage over B is elo0, H1 that it is elo1 (elo0 <
elo1).  A pair gives A 0, 0.5, 1, 1.5 or 2 points; the counts of the five are the pentanomial
counts.  Both the LLR and the Elo estimate follow fishtest's statistics (Michel Van den
Bergh's GSPRT, server/fishtest/stats/LLRcalc.py and stat_util.py of official-stockfish/
fishtest): the five bins are scored 0, 1/4, 1/2, 3/4, 1 (the pair's score per game); an empty
bin counts as EMPTY pairs, so that the likelihoods exist; under each hypothesis the bins take
the maximum-likelihood distribution whose mean is that hypothesis's expected score s =
1/(1+10^(-elo/400)); the LLR is the log of the ratio of the two likelihoods.  docs/sprt.md
says it in words.  Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)  # A's points in a pair, bin by bin
VALUES = tuple(score / 2 for score in PAIR_SCORES)  # the same per game: 0, 1/4, 1/2, 3/4, 1
EMPTY = 1e-3  # what an empty bin counts as (fishtest's regularisation)
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
Verdict = Literal["H0", "H1"]
KEYS = ("elo0", "elo1", "alpha", "beta")
EXAMPLE = "elo0=0 elo1=10 alpha=0.05 beta=0.05"


@dataclass(frozen=True)
class Bounds:
    """The test: H0 elo = elo0 against H1 elo = elo1 (A's Elo over B), with error rates alpha
    (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for key in KEYS:
            if not math.isfinite(getattr(self, key)):
                raise ValueError(f"{key}={getattr(self, key)} is not a finite number")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0={self.elo0:g} must be less than elo1={self.elo1:g}")
        for key in ("alpha", "beta"):
            if not 0 < getattr(self, key) < 0.5:
                raise ValueError(f"{key}={getattr(self, key):g} must be between 0 and 0.5 (e.g. {key}=0.05)")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ln((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def decide(self, llr_value: float) -> Verdict | None:
        """"H1" at or past the upper bound, "H0" at or past the lower one, None in between."""
        if llr_value >= self.upper:
            return "H1"
        if llr_value <= self.lower:
            return "H0"
        return None

    def __str__(self) -> str:
        return " ".join(f"{key}={getattr(self, key):g}" for key in KEYS)


def parse(text: str) -> Bounds:
    """'elo0=0 elo1=10 alpha=0.05 beta=0.05' (keys in any order, separated by spaces or commas;
    alpha and beta 0.05 unless given) -> Bounds; ValueError naming the bad key or value."""
    given: dict[str, float] = {}
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    if not words:
        raise ValueError(f"no bounds given: write them as {EXAMPLE!r}")
    for word in words:
        key, sep, value = word.partition("=")
        key = key.strip().lower()
        if not sep:
            raise ValueError(f"{word!r} is not key=value (e.g. {EXAMPLE!r})")
        if key not in KEYS:
            raise ValueError(f"unknown key {key!r} in {word!r} (the keys: {', '.join(KEYS)})")
        if key in given:
            raise ValueError(f"{key} is given twice")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{key}={value!r} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"{key}={value} is not a finite number")
        given[key] = number
    missing = [key for key in ("elo0", "elo1") if key not in given]
    if missing:
        raise ValueError(f"{' and '.join(missing)} missing (e.g. {EXAMPLE!r})")
    return Bounds(**given)


# -- pairs ----------------------------------------------------------------------------------


def pair_bin(points: float) -> int:
    """The bin (0..4) of a pair in which A scored `points` (0, 0.5, 1, 1.5 or 2)."""
    for index, score in enumerate(PAIR_SCORES):
        if math.isclose(points, score, abs_tol=1e-9):
            return index
    raise ValueError(f"a pair's score is 0, 0.5, 1, 1.5 or 2 points, not {points!r}")


def pentanomial(pair_points: Iterable[float]) -> tuple[int, int, int, int, int]:
    """The counts of pairs in which A scored 0, 0.5, 1, 1.5 and 2 points."""
    counts = [0] * 5
    for points in pair_points:
        counts[pair_bin(points)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _checked(counts: Sequence[float]) -> list[float]:
    if len(counts) != 5:
        raise ValueError(f"pentanomial counts are 5 numbers, not {len(counts)}: {list(counts)}")
    if any(not math.isfinite(c) or c < 0 for c in counts):
        raise ValueError(f"pentanomial counts cannot be negative: {list(counts)}")
    return [float(c) for c in counts]


def regularised(counts: Sequence[float]) -> list[float]:
    """The counts with each empty bin counted as EMPTY pairs."""
    return [c if c > 0 else EMPTY for c in _checked(counts)]


# -- Elo ------------------------------------------------------------------------------------


def expected_score(elo: float) -> float:
    """A game's expected score for an Elo advantage `elo` (the logistic curve)."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(score: float) -> float:
    """The Elo advantage whose expected score is `score` (±inf at 0 and 1 and beyond)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class Estimate:
    """A's score per game, and A's Elo over B with its 95% interval (`low`, `high`)."""

    pairs: int
    score: float  # the plain score: points / games
    elo: float
    low: float
    high: float


def estimate(counts: Sequence[float]) -> Estimate:
    """The Elo estimate from pentanomial counts, as fishtest gives it: the mean m and the
    variance v of the (regularised) pairs' score per game; Elo(m) with the interval Elo(m ±
    1.96 sqrt(v / pairs)).  `score` is the plain one, without the regularisation."""
    raw = _checked(counts)
    pairs = sum(raw)
    if pairs == 0:
        raise ValueError("no pairs: nothing to estimate")
    score = sum(c * v for c, v in zip(raw, VALUES, strict=True)) / pairs
    reg = regularised(raw)
    n = sum(reg)
    mean = sum(c * v for c, v in zip(reg, VALUES, strict=True)) / n
    variance = sum(c * (v - mean) ** 2 for c, v in zip(reg, VALUES, strict=True)) / n
    half = Z95 * math.sqrt(variance / n)
    return Estimate(int(round(pairs)), score, elo_of(mean), elo_of(mean - half), elo_of(mean + half))


# -- the log-likelihood ratio ---------------------------------------------------------------


def mle(probabilities: Sequence[float], mean: float) -> list[float]:
    """The distribution over VALUES nearest to `probabilities` (every one > 0) in likelihood
    whose mean is `mean` (0 < mean < 1): q_i = p_i / (1 + x (v_i - mean)), the Lagrange
    multiplier x being the root of sum_i p_i (v_i - mean) / (1 + x (v_i - mean)) = 0 on
    (-1/(1 - mean), 1/mean), where every q_i is positive.  That sum falls strictly as x grows,
    from +inf to -inf, so bisection finds the root."""
    if not 0 < mean < 1:
        raise ValueError(f"the mean score must be between 0 and 1, not {mean}")
    if len(probabilities) != 5 or any(p <= 0 for p in probabilities):
        raise ValueError(f"the MLE needs 5 positive probabilities, not {list(probabilities)}")
    shifted = [v - mean for v in VALUES]

    def slope(x: float) -> float:
        return sum(p * d / (1 + x * d) for p, d in zip(probabilities, shifted, strict=True))

    low, high = -1 / (1 - mean), 1 / mean
    for _ in range(200):  # the interval halves each time: far below a double's precision
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2
    q = [p / (1 + x * d) for p, d in zip(probabilities, shifted, strict=True)]
    total = sum(q)
    return [value / total for value in q]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for pentanomial counts:
    N sum_i p_i ln(q1_i / q0_i), p the regularised empirical distribution of N pairs, q0 and
    q1 its maximum-likelihood distributions with mean score expected_score(elo0), resp. elo1."""
    reg = regularised(counts)
    n = sum(reg)
    p = [c / n for c in reg]
    q0, q1 = mle(p, expected_score(elo0)), mle(p, expected_score(elo1))
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1, strict=True))


def llr_normal(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The normal approximation of `llr`: N (s1 - s0) (2 m - s0 - s1) / (2 v), m and v the
    mean and the variance of the regularised pairs' score per game, s0 and s1 the expected
    scores of elo0 and elo1 (fishtest's LLR_alt2; Van den Bergh, "GSPRT approximation")."""
    reg = regularised(counts)
    n = sum(reg)
    mean = sum(c * v for c, v in zip(reg, VALUES, strict=True)) / n
    variance = sum(c * (v - mean) ** 2 for c, v in zip(reg, VALUES, strict=True)) / n
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


@dataclass(frozen=True)
class Status:
    """Where a test stands after some pairs."""

    counts: tuple[int, int, int, int, int]
    llr: float
    verdict: Verdict | None
    estimate: Estimate | None


def status(counts: Sequence[int], bounds: Bounds) -> Status:
    """The LLR, the verdict (None: go on) and the Elo estimate for pentanomial `counts`."""
    whole = tuple(int(c) for c in _checked(counts))
    if sum(whole) == 0:
        return Status((0, 0, 0, 0, 0), 0.0, None, None)
    value = llr(whole, bounds.elo0, bounds.elo1)
    return Status((whole[0], whole[1], whole[2], whole[3], whole[4]), value, bounds.decide(value), estimate(whole))
