"""Learn the Go search's prior gammas (bots/go/data/gammas.json) from recorded 9x9 games.

    python tools/go_gammas.py OUT.json RECORD_DIR... [--skip 2] [--sweeps 40] [--shapes 0] [--source TEXT]

Every SGF under the directories is replayed; from move `--skip` on, each move (not a pass) is
one competition among the mover's legal moves that fill no own eye, won by the move played.
Large patterns (the diamonds of bots.go.kernel.large_codes) played at least `--shapes` times in
the fitted games get a gamma of their own (0: none).  The gammas are fitted by Coulom's
minorization-maximization ("Computing Elo ratings of move patterns in the game of Go", ICGA
Journal 2007), one feature group at a time, each gamma with a virtual win and a virtual loss
against a gamma of 1 (so unseen features stay at 1).  It prints the fit's log-likelihood and
how often the strongest move was the one played.

The shipped table was learned from Pachi's self-play, recorded by our arena (run from Pachi's
source directory, where it finds its joseki file):

    P="gtp:pachi -t =4000 threads=1"
    bots arena go --a "$P" --b "$P" --games 400 --parallel 2 --opening-moves 2 --record rec --workers 1
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from bots.go import gammas as gammas_table, kernel as K
from bradley_terry import arguments, fit, games, held_out, report
from bots.go.board import PASS, parse_point
from bots.go.sgf import parse_moves


def competitions(paths: list[Path], skip: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features: one row of feature indexes per competitor, its large pattern slot still 0;
    the competitor's two diamond codes; its competition's number; the competitor that won
    each competition)."""
    rows: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    owner: list[np.ndarray] = []
    winners: list[int] = []
    out = np.empty(400, np.int64)
    feats = np.empty(K.NGROUPS, np.int64)
    first = 0
    for path in paths:
        size, _komi, names = parse_moves(path.read_text())
        B, S = K.new_board(np.int64(size))
        for i, name in enumerate(names):
            point = parse_point(name, size)
            p = np.int64(-1 if point == PASS else K.padded(point, size))
            if i >= skip and p >= 0:
                n = K.moves(B, S, out)
                legal = list(out[:n])
                if p in legal:
                    c = S[K.TOMOVE]
                    block = np.empty((n, K.NGROUPS), np.int64)
                    pair = np.empty((n, 2), np.int64)
                    for k in range(n):
                        K.move_features(B, S, out[k], c, True, K.NO_SHAPES, feats)
                        block[k] = feats
                        pair[k] = K.large_codes(B, S, out[k], c)
                    rows.append(block)
                    codes.append(pair)
                    owner.append(np.full(n, len(winners), np.int64))
                    winners.append(first + legal.index(p))
                    first += n
            K.play(B, S, p)
    return np.concatenate(rows), np.concatenate(codes), np.concatenate(owner), np.array(winners, np.int64)


def harvest(codes: np.ndarray, winners: np.ndarray, least: int) -> np.ndarray:
    """The sorted codes of the diamonds (of either size) played at least `least` times."""
    if least <= 0:
        return K.NO_SHAPES
    played, counts = np.unique(codes[winners].ravel(), return_counts=True)
    return played[counts >= least].astype(np.int64)


def place(F: np.ndarray, codes: np.ndarray, shapes: np.ndarray) -> None:
    """Fill the large patterns' column of F: the slot of each competitor's largest known
    diamond, as the search finds it (bots.go.kernel.shape_slot)."""
    F[:, -1] = K.NFEATURES + np.array([K.shape_slot(shapes, small, large) for small, large in codes], np.int64)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--shapes", type=int, default=0,
                        help="a large pattern played this often in the fitted games gets its own gamma "
                             "(0, the shipped table: none)")
    args = parser.parse_args(argv)
    fitted, kept = games(parser, args)
    F, codes, owner, winners = competitions(fitted, args.skip)
    shapes = harvest(codes, winners, args.shapes)
    place(F, codes, shapes)
    gammas = fit(F, owner, winners, K.FEATURE_SIZES + (1 + len(shapes),), args.sweeps)
    loglik, top = report(F, owner, winners, gammas)
    print(f"{len(fitted)} games, {len(winners)} moves, {len(shapes)} large patterns: log-likelihood {loglik:.3f}, "
          f"strongest played {top:.1%}")
    if kept:
        Ft, ct, ot, wt = competitions(kept, args.skip)
        place(Ft, ct, shapes)
        print(held_out(len(kept), Ft, ot, wt, gammas))
        for other in args.compare:
            table = gammas_table.load(other)
            place(Ft, ct, table.shapes)
            loglik, top = report(Ft, ot, wt, table.gammas)
            print(f"held out, {other}: log-likelihood {loglik:.3f}, strongest played {top:.1%}")
    table = {"source": args.source, "games": len(fitted), "moves": len(winners), "sizes": list(K.FEATURE_SIZES),
             "shapes": [int(x) for x in shapes], "gammas": [round(float(g), 6) for g in gammas]}
    args.out.write_text(json.dumps(table) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
