"""How far before a game's end the exact Hex solver proves its positions, with and without
H-search's connections (bots.hex.solver's `vc_min`): a table, one row for each number of
plies before the end.

The positions come from games of `mcts` against itself at a fixed number of iterations a
move (two random opening moves each, so the games differ), played to the end; each position
is solved with each `vc_min` under the same node and time limits.  Where two settings both
prove a position they must agree (the script stops otherwise).

    python tools/hex_solver_reach.py --games 24 --size 11 --iterations 3000 --seconds 0.3
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bots.hex import solver as S
from bots.hex.board import State, empty
from bots.hex.mcts import MCTS
from search.budget import Budget


def self_play(games: int, size: int, iterations: int, seed: int) -> list[list[State]]:
    rng = random.Random(seed)
    out = []
    for g in range(games):
        players = [MCTS(playouts=iterations, seed=seed * 1000 + 2 * g + i, solver=False) for i in range(2)]
        states = [empty(size)]
        for _ in range(2):
            states.append(states[-1].play(rng.choice(states[-1].legal_moves())))
        while not states[-1].is_terminal():
            move = players[len(states) % 2].choose(states[-1], None, Budget(60.0)).move
            states.append(states[-1].play(move))
        out.append(states)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--size", type=int, default=11)
    ap.add_argument("--iterations", type=int, default=3000, help="mcts iterations a move in the games")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0.3, help="time for each proof")
    ap.add_argument("--nodes", type=int, default=3_000_000, help="node limit for each proof")
    ap.add_argument("--back", default="2,4,8,12,16,24", help="plies before the end, comma-separated")
    ap.add_argument("--vc-min", default=f"{S.NO_VC},{S.VC_MIN}",
                    help=f"the settings compared, comma-separated ({S.NO_VC}: no H-search)")
    args = ap.parse_args()
    back = [int(x) for x in args.back.split(",")]
    settings = [int(x) for x in args.vc_min.split(",")]
    S.warm()
    games = self_play(args.games, args.size, args.iterations, args.seed)
    rows: dict[int, list[tuple[int, list[tuple[int | None, float]]]]] = {}
    for states in games:
        for j in back:
            if j >= len(states) - 1 or states[-1 - j].board.count(0) > S.MAX_EMPTIES:
                continue
            s = states[-1 - j]
            res = []
            for vc_min in settings:
                start = time.monotonic()
                proof = S.solve(s, nodes=args.nodes, seconds=args.seconds, vc_min=vc_min)
                res.append((proof.winner, time.monotonic() - start))
            winners = {w for w, _ in res if w is not None}
            if len(winners) > 1:
                raise SystemExit(f"the settings disagree at {j} plies before a game's end: {res}")
            rows.setdefault(j, []).append((s.board.count(0), res))
    print(f"{args.games} games of {args.size}x{args.size}, {args.iterations} iterations a move; "
          f"{args.seconds} s and {args.nodes} nodes a proof")
    head = f"{'plies before the end':>20} {'positions':>9} {'empties p50':>11}"
    for v in settings:
        head += f" {'proved, vc_min %d' % v:>18} {'s p50 / max':>13}"
    print(head)
    for j in sorted(rows):
        r = rows[j]
        line = f"{j:>20} {len(r):>9} {statistics.median(e for e, _ in r):>11}"
        for i in range(len(settings)):
            times = [res[i][1] for _, res in r]
            proved = sum(res[i][0] is not None for _, res in r)
            line += f" {proved:>18} {statistics.median(times):>6.3f} / {max(times):.3f}"
        print(line)


if __name__ == "__main__":
    main()
