"""What pondering is worth to the next move: the share of the iterations searched on the
opponent's turn that the next root keeps (the visits the reply actually played gained while
pondering), for Go 9x9 and Hex 11x11.  A table, one row a game.

In each position of a game between two `mcts` players with fixed iterations a move, ours
ponders the opponent's turn for as many iterations as a move gets, the other player replies
independently, and the visits the reply's node gained are divided by the pondered
iterations.  Fixed iterations, not seconds: the load of the machine does not change it.

    python tools/ponder_kept.py --iterations 3000 --positions 30
"""

from __future__ import annotations

import argparse
import statistics

from search import uct
from search.budget import Budget

LONG = 600.0  # seconds: the iteration cap decides


def players(game: str):
    """(ours, theirs, the empty board, the tree's move of a State move) for `game`."""
    if game == "go":
        from bots.go.board import empty as go_empty
        from bots.go.mcts import MCTS as GoMCTS, padded as go_padded
        return (GoMCTS(seed=1, use_book=False, early_stop=False), GoMCTS(seed=2, use_book=False, early_stop=False),
                go_empty(9, 7.5), lambda m: go_padded(m, 9))
    from bots.hex.board import empty as hex_empty
    from bots.hex.mcts import MCTS as HexMCTS, padded as hex_padded
    return (HexMCTS(seed=1, early_stop=False), HexMCTS(seed=2, early_stop=False), hex_empty(11),
            lambda m: hex_padded(m, 11))


def visits(tree: uct.Tree, move: int) -> float:
    """The visits of the root's child by `move` (0 when the tree has none)."""
    node = int(uct.child_of(tree.I, uct.root(tree), move))
    return float(tree.V[uct.VN, node]) if node >= 0 else 0.0


def kept_shares(game: str, iterations: int, positions: int) -> list[float]:
    ours, theirs, state, pad = players(game)
    budget = Budget(LONG, nodes=iterations)
    shares: list[float] = []
    while len(shares) < positions and not state.is_terminal():
        state = state.play(ours.choose(state, None, budget).move)
        if state.is_terminal():
            break
        tree = ours._root_for(state)  # re-rooted as ponder does (it keeps this tree)
        reply = theirs.choose(state, None, budget).move
        before = visits(tree, pad(reply))
        ours.ponder(state, budget)
        if ours._tree is not tree:
            raise SystemExit("the pondered tree was not kept")
        shares.append((visits(tree, pad(reply)) - before) / iterations)
        state = state.play(reply)
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=3000, help="iterations a move and a pondering (3000)")
    parser.add_argument("--positions", type=int, default=30, help="positions a game at most (30)")
    args = parser.parse_args()
    print(f"pondered iterations the next root keeps ({args.iterations} a move and a pondering)")
    print(f"{'game':<10}{'positions':>10}{'median':>8}{'mean':>8}{'min':>6}{'max':>6}")
    for game in ("go", "hex"):
        s = kept_shares(game, args.iterations, args.positions)
        print(f"{game:<10}{len(s):>10}{statistics.median(s):>8.2f}{statistics.mean(s):>8.2f}"
              f"{min(s):>6.2f}{max(s):>6.2f}")


if __name__ == "__main__":
    main()
