"""Build the Go opening book (bots/go/data/book.json, read by `bots.go.book`) by self-play
of our own `mcts` player: `python -m bots.go.bookmaker --lines 6 --plies 10 --seconds 8`
(a few minutes per line on one core).

Kept apart from `bots.go.book` because it runs the mcts player, which reads the book: the
reader stays below the players, the builder above them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from search.budget import Budget

from .board import PASS, empty, parse_point, point_name
from .book import PATH, canonical
from .mcts import MCTS


def build(count: int, plies: int, seconds: float, komi: float = 7.5, log=print) -> dict:
    """Self-play `count` lines of `plies` moves, each move from an MCTS search of `seconds`.
    Line i answers Black's first move with White's i-th best reply (by visits), so the lines
    cover several openings; every other move is the search's choice."""
    positions: dict[str, str] = {}
    replies: list[int] = []  # White's answers to Black's first move, best first
    out_lines = []
    for i in range(count):
        state, line = empty(9, komi), []
        for ply in range(plies):
            key, perm = canonical(state)
            if ply == 1 and replies:
                move = replies[min(i, len(replies) - 1)]
            elif key in positions:
                move = perm.index(parse_point(positions[key], 9))
            else:
                result = MCTS(use_book=False, seed=1000 * i + ply).choose(state, None, Budget(seconds))
                move = result.move
                if move == PASS:
                    break
                positions[key] = point_name(perm[move], 9)
                if ply == 1:  # distinct answers (not mirror images of one another), best first
                    seen: set[str] = set()
                    for m, _ in sorted(result.votes, key=lambda mv: -mv[1]):
                        image = canonical(state.play(m))[0]
                        if m != PASS and image not in seen:
                            seen.add(image)
                            replies.append(m)
            line.append(point_name(move, 9))
            state = state.play(move)
            log(f"line {i + 1}/{count} ply {ply + 1}/{plies}: {line[-1]}")
        out_lines.append(line)
    return {"komi": komi, "seconds": seconds, "built": time.strftime("%Y-%m-%d"),
            "positions": positions, "lines": out_lines}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bots.go.bookmaker", description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=6, help="self-play lines (6)")
    ap.add_argument("--plies", type=int, default=10, help="moves per line (10)")
    ap.add_argument("--seconds", type=float, default=8.0, help="search time per move (8)")
    ap.add_argument("--out", type=Path, default=PATH, help=f"where to write it ({PATH})")
    args = ap.parse_args(argv)
    data = build(args.lines, args.plies, args.seconds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(data['positions'])} positions, {len(data['lines'])} lines to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
