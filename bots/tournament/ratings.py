"""Ratings by maximum likelihood: the Bradley-Terry model with draws counted as half a win.

P(i scores against j) = 1 / (1 + exp(theta_j - theta_i)), and a game's score (1, 1/2, 0) is
the observation, so a draw is half a win and half a loss (Elo's own convention, and Ordo's).
We chose it over Davidson's or Rao-Kupper's draw models because there a player with wins and
draws but no loss has an infinite rating, and a reader of the table expects the score
column and the ratings to agree: a 75% score is 400 log10(3) = 190.8 Elo above its opponent.

Ratings are on the Elo scale (400 / ln 10 per unit of theta), anchored: the anchor's rating
is 0 and the others are measured from it.  The 95% intervals are +-1.96 standard errors from
the inverse of the observed information (minus the Hessian of the log-likelihood in the free
parameters), so they are intervals relative to the anchor, which has none.  Counting a draw as
half a win and half a loss overstates the variance a little when there are draws: the
intervals err on the wide side.

The maximum exists only when no group of participants won every point against the rest (the
"scored against" graph is strongly connected).  When one did, the fit adds one virtual draw
to every pairing that played (as BayesElo's prior does) and says so: the ratings stay finite
and in the right order, but are not maximum-likelihood values.  Participants with no games,
or whose games never connect to the anchor's, get no rating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

ELO = 400 / math.log(10)  # Elo points per unit of theta
Z95 = 1.959963984540054
VIRTUAL = "one virtual draw was added to every pairing: {who} scored all or nothing against the others, " \
          "so the maximum-likelihood ratings are infinite"


@dataclass(frozen=True)
class Rating:
    name: str
    games: int
    points: float  # wins + draws / 2
    elo: float | None  # None: not rated (no games, or none connected to the anchor)
    low: float | None  # the 95% interval, relative to the anchor
    high: float | None

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass(frozen=True)
class Ratings:
    rows: list[Rating]  # in the order of the names given
    anchor: str
    note: str = ""  # why the ratings are not plain maximum-likelihood ones, if they are not

    def by_name(self) -> dict[str, Rating]:
        return {r.name: r for r in self.rows}

    def texts(self, r: Rating) -> tuple[str, str]:
        """A row's Elo and 95% interval as the tables print them."""
        if r.elo is None:
            return "—", ""
        return f"{r.elo:+.0f}", "anchor" if r.name == self.anchor else f"[{r.low:+.0f}, {r.high:+.0f}]"

    def table(self) -> str:
        """The ratings as text, best first."""
        width = max([len(r.name) for r in self.rows] + [11])
        lines = [f"{'participant':<{width}}  {'games':>5}  {'score':>6}  {'Elo':>7}  95% interval"]
        for r in ranked(self.rows):
            elo, interval = self.texts(r)
            lines.append(f"{r.name:<{width}}  {r.games:>5}  {100 * r.score:>5.1f}%  {elo:>7}  {interval}")
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)


def ranked(rows: Iterable[Rating]) -> list[Rating]:
    """Best first: by rating, unrated ones last by score."""
    return sorted(rows, key=lambda r: (r.elo is None, -(r.elo or 0.0), -r.score, r.name))


def fit(names: list[str], results: Iterable[tuple[str, str, float]], anchor: str | None = None) -> Ratings:
    """Ratings of `names` from `results`: (first, second, the first's score: 1, 0.5 or 0).
    `anchor` (default: the first name) gets 0; if it has no games yet, the first rated name."""
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    games = np.zeros((n, n))  # games[i, j] = games[j, i]
    points = np.zeros((n, n))  # points[i, j]: what i scored against j
    for first, second, score in results:
        i, j = index[first], index[second]
        games[i, j] += 1
        games[j, i] += 1
        points[i, j] += score
        points[j, i] += 1 - score
    anchor = anchor if anchor is not None else names[0]
    played = games.sum(axis=1) > 0
    start = index[anchor] if played[index[anchor]] else next((i for i in range(n) if played[i]), None)
    members = _component(games, start) if start is not None else []
    fit_games, fit_points, note = games, points, ""
    if members and not _strongly_connected(points, members):
        who = ", ".join(names[i] for i in _all_or_nothing(points, members)) or "a group"
        fit_games, fit_points = games + (games > 0), points + 0.5 * (games > 0)
        note = VIRTUAL.format(who=who)
    elo, se = (_maximum(fit_games, fit_points, members, start) if len(members) > 1
               else ({start: 0.0}, {start: 0.0}) if members else ({}, {}))
    rows = []
    for name, i in index.items():
        total, scored = int(games[i].sum()), float(points[i].sum())
        if i in elo:
            rows.append(Rating(name, total, scored, elo[i], elo[i] - Z95 * se[i], elo[i] + Z95 * se[i]))
        else:
            rows.append(Rating(name, total, scored, None, None, None))
    return Ratings(rows, names[start] if start is not None else anchor, note)


def _component(games: np.ndarray, start: int) -> list[int]:
    """The participants connected to `start` by games played."""
    seen, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j in np.nonzero(games[i])[0]:
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return sorted(seen)


def _reach(edges: np.ndarray, members: list[int]) -> set[int]:
    seen, todo = {members[0]}, [members[0]]
    while todo:
        i = todo.pop()
        for j in members:
            if edges[i, j] and j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def _strongly_connected(points: np.ndarray, members: list[int]) -> bool:
    """Does every participant reach every other by "scored something against"?  Then the
    maximum-likelihood ratings are finite (Zermelo's and Ford's condition)."""
    scored = points > 0
    return len(_reach(scored, members)) == len(members) == len(_reach(scored.T, members))


def _all_or_nothing(points: np.ndarray, members: list[int]) -> list[int]:
    """Participants who scored nothing, or conceded nothing, in all their games."""
    out = []
    for i in members:
        got, gave = points[i, members].sum(), points[members, i].sum()
        if got == 0 or gave == 0:
            out.append(i)
    return out


def _loglik(theta: np.ndarray, games: np.ndarray, points: np.ndarray) -> float:
    d = theta[:, None] - theta[None, :]
    return float((points * -np.logaddexp(0.0, -d)).sum())


def _maximum(games: np.ndarray, points: np.ndarray, members: list[int], anchor: int) -> tuple[dict, dict]:
    """Newton's method on the concave log-likelihood, theta[anchor] = 0; returns Elo and
    standard errors (in Elo) by participant index."""
    m = np.array(members)
    g, s = games[np.ix_(m, m)], points[np.ix_(m, m)]
    k = len(m)
    a = members.index(anchor)
    free = [i for i in range(k) if i != a]
    theta = np.zeros(k)

    def derivatives(th: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1 / (1 + np.exp(-(th[:, None] - th[None, :])))  # p[i, j]: i scores against j
        grad = (s - g * p).sum(axis=1)
        w = g * p * (1 - p)
        hess = w - np.diag(w.sum(axis=1))
        return grad[free], hess[np.ix_(free, free)]

    for _ in range(200):
        grad, hess = derivatives(theta)
        step = np.linalg.solve(hess, -grad)
        before = _loglik(theta, g, s)
        scale = 1.0
        while True:  # step halving keeps every step uphill
            trial = theta.copy()
            trial[free] += scale * step
            if _loglik(trial, g, s) >= before - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta = trial
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    _, hess = derivatives(theta)
    cov = np.linalg.inv(-hess)
    se = np.zeros(k)
    se[free] = np.sqrt(np.diag(cov))
    return ({members[i]: float(theta[i] * ELO) for i in range(k)},
            {members[i]: float(se[i] * ELO) for i in range(k)})
