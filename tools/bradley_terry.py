"""Coulom's minorization-maximization for the generalized Bradley-Terry model ("Computing Elo
ratings of move patterns in the game of Go", ICGA Journal 2007), shared by the tools that
learn a search's prior gammas (tools/go_gammas.py, tools/hex_gammas.py).

A competition is one position: its competitors are the moves the mover could play, each a
row of F holding one feature index per group, and the move played wins it.  A move's strength
is the product of its features' gammas.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

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


def arguments(doc: str) -> argparse.ArgumentParser:
    """The command line both learners take (a tool adds its own options)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("records", type=Path, nargs="+")
    parser.add_argument("--skip", type=int, default=2, help="moves of each game not learned from (random openings)")
    parser.add_argument("--sweeps", type=int, default=40)
    parser.add_argument("--holdout", type=float, default=0.1, help="share of games kept out of the fit to test it")
    parser.add_argument("--compare", type=Path, nargs="*", default=[],
                        help="tables whose figures on the held-out games are printed too")
    parser.add_argument("--source", default="", help="where the games came from, written into the table")
    return parser


def games(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[list[Path], list[Path]]:
    """The SGF files under the record directories: those to fit, and those held out (the last
    `--holdout` share, in name order); a usage error if there are none."""
    paths = sorted(p for d in args.records for p in d.rglob("*.sgf"))
    if not paths:
        parser.error("no .sgf files under " + " ".join(map(str, args.records)))
    cut = len(paths) - int(len(paths) * args.holdout)
    return paths[:cut], paths[cut:]


def held_out(games: int, F: np.ndarray, owner: np.ndarray, winners: np.ndarray, gammas: np.ndarray) -> str:
    """The fit's figures on the held-out games, beside a uniform choice's."""
    loglik, top = report(F, owner, winners, gammas)
    uniform = report(F, owner, winners, np.ones(len(gammas)))[0]
    return (f"held out: {games} games, {len(winners)} moves: log-likelihood {loglik:.3f} "
            f"(uniform {uniform:.3f}), strongest played {top:.1%}")
