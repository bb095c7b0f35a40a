"""Learn the Hex search's prior gammas (bots/hex/data/gammas.json) from recorded games.

    python tools/hex_gammas.py OUT.json RECORD_DIR... [--skip 2] [--sweeps 40] [--source TEXT]

Every SGF under the directories is replayed; from move `--skip` on, each stone played is one
competition among the mover's empty cells, won by the cell played (a swap is not learned
from).  Each cell is the features of bots.hex.kernel; the gammas are fitted by
tools/bradley_terry.py.  It prints the fit's log-likelihood and how often the strongest move
was the one played, on the fitted games and on the held-out ones.

The shipped table was learned from MoHex 2.0's self-play on 11x11, recorded by our arena
(MoHex built outside this repo, docs/benchmarks/hex.md; a config file holding
`param_mohex max_time 0.3` and `param_mohex num_threads 1`):

    M="htp:mohex --use-logfile=0 --config=mohex-03.htp"
    bots arena hex --a "$M" --b "$M" --games 400 --parallel 2 --opening-moves 2 --record rec --move-time 2
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from bots.hex import gammas as gammas_table, kernel as K
from bots.hex.board import SWAP, empty
from bots.hex.sgf import play_dialect, read_game
from bradley_terry import arguments, fit, games, held_out, report


def competitions(paths: list[Path], skip: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features: one row of feature indexes per competitor; its competition's number; the
    competitor that won each competition)."""
    rows: list[np.ndarray] = []
    owner: list[np.ndarray] = []
    winners: list[int] = []
    first = 0
    for path in paths:
        game = read_game(path.read_text())
        state = empty(game["width"], game["height"], False)
        for i, (colour, move, _) in enumerate(game["moves"]):
            if move.strip().lower() in ("resign", "forfeit", ""):
                break
            after = play_dialect(state, colour, move)
            if i >= skip and after.last is not None and after.last != SWAP:
                pos = K.to_kernel(state)
                board = pos[K.OFF:]
                pw, ph = int(pos[K.PW]), int(pos[K.PH])
                cells = [K.padded(c, state.width) for c in range(state.cells) if state.board[c] == 0]
                block = np.empty((len(cells), K.WORK), np.int64)
                for k, p in enumerate(cells):
                    K.move_features(board, pw, ph, np.int64(pos[K.LAST]), p, state.to_move, block[k])
                rows.append(block[:, :K.NGROUPS])
                owner.append(np.full(len(cells), len(winners), np.int64))
                winners.append(first + cells.index(K.padded(after.last, state.width)))
                first += len(cells)
            state = after
    return np.concatenate(rows), np.concatenate(owner), np.array(winners, np.int64)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__)
    args = parser.parse_args(argv)
    fitted, kept = games(parser, args)
    F, owner, winners = competitions(fitted, args.skip)
    gammas = fit(F, owner, winners, K.FEATURE_SIZES, args.sweeps)
    loglik, top = report(F, owner, winners, gammas)
    print(f"{len(fitted)} games, {len(winners)} moves: log-likelihood {loglik:.3f}, strongest played {top:.1%}")
    if kept:
        Ft, ot, wt = competitions(kept, args.skip)
        print(held_out(len(kept), Ft, ot, wt, gammas))
        for other in args.compare:
            loglik, top = report(Ft, ot, wt, gammas_table.load(other))
            print(f"held out, {other}: log-likelihood {loglik:.3f}, strongest played {top:.1%}")
    table = {"source": args.source, "games": len(fitted), "moves": len(winners), "sizes": list(K.FEATURE_SIZES),
             "gammas": [round(float(g), 6) for g in gammas]}
    args.out.write_text(json.dumps(table) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
