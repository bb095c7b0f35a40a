"""Coulom's minorization-maximization for the generalized Bradley-Terry model ("Computing Elo
ratings of move patterns in the game of Go", ICGA Journal 2007), shared by the tools that
learn a search's prior gammas (tools/go_gammas.py, tools/hex_gammas.py).

A competition is one position: its competitors are the moves the mover could play, each a
row of F holding one feature index per group, and the move played wins it.  A move's strength
is the product of its features' gammas.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fit(F: np.ndarray, owner: np.ndarray, winners: np.ndarray, sizes: Sequence[int], sweeps: int) -> np.ndarray:
    """The gammas of all groups (group g's column of F holds indexes in its own range of
    `sizes[g]`, after the groups before it), fitted one group at a time, each gamma with a
    virtual win and a virtual loss against a gamma of 1 (so unseen features stay at 1).
    `owner[i]` is row i's competition, `winners[j]` the row that won competition j."""
    offsets = np.cumsum((0,) + tuple(sizes[:-1]))
    total_size = int(sum(sizes))
    gammas = np.ones(total_size)
    ncomp = len(winners)
    for _ in range(sweeps):
        for g in range(F.shape[1]):
            strength = np.prod(gammas[F], axis=1)
            total = np.bincount(owner, weights=strength, minlength=ncomp)
            col = F[:, g]
            others = strength / gammas[col] / total[owner]
            denom = np.bincount(col, weights=others, minlength=total_size)
            wins = np.bincount(col[winners], minlength=total_size).astype(float)
            lo, hi = offsets[g], offsets[g] + sizes[g]
            g_now = gammas[lo:hi]
            gammas[lo:hi] = (wins[lo:hi] + 1.0) / (denom[lo:hi] + 2.0 / (g_now + 1.0))
    return gammas


def report(F: np.ndarray, owner: np.ndarray, winners: np.ndarray, gammas: np.ndarray) -> tuple[float, float]:
    """(mean log-likelihood of the move played, share of competitions its strongest move won)."""
    strength = np.prod(gammas[F], axis=1)
    total = np.bincount(owner, weights=strength)
    loglik = float(np.mean(np.log(strength[winners] / total)))
    best = np.full(len(winners), -1.0)
    np.maximum.at(best, owner, strength)
    return loglik, float(np.mean(strength[winners] >= best))
