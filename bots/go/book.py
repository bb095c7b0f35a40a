"""The Go opening book: positions -> moves, built by our own MCTS thinking long, shipped as
package data (`bots/go/data/book.json`).

Positions are stored under the smallest of their 8 symmetric images (so one entry serves
every rotation and reflection), with the move in that image.  `lines` keeps the book's
self-play lines as move lists: seed 001's alphabeta follows one line for its colour.

Build it with `python -m bots.go.book --lines 6 --plies 10 --seconds 8` (a few minutes per
line on one core); the book is read once per process.
"""

from __future__ import annotations

import argparse
import json
import time
from functools import cache
from importlib import resources
from pathlib import Path

from search.budget import Budget

from .board import PASS, State, empty, parse_point, point_name

PATH = Path(__file__).with_name("data") / "book.json"
CHARS = ".XO"


def _transforms(size: int) -> list[list[int]]:
    """The 8 symmetries of the board as point permutations: image[t][p]."""
    out = []
    n = size - 1
    for swap in (False, True):
        for fr in (False, True):
            for fc in (False, True):
                perm = []
                for p in range(size * size):
                    r, c = divmod(p, size)
                    if swap:
                        r, c = c, r
                    r, c = (n - r if fr else r), (n - c if fc else c)
                    perm.append(r * size + c)
                out.append(perm)
    return out


_TRANSFORMS = cache(_transforms)


def canonical(state: State) -> tuple[str, list[int]]:
    """The position's key (the smallest symmetric image, with the side to move) and the
    permutation that maps our points into that image."""
    best, best_perm = None, None
    for perm in _TRANSFORMS(state.size):
        image = [0] * len(state.board)
        for p, k in enumerate(state.board):
            image[perm[p]] = k
        text = "".join(CHARS[k] for k in image) + CHARS[state.to_move]
        if best is None or text < best:
            best, best_perm = text, perm
    return best, best_perm


@cache
def _load() -> dict:
    try:
        text = resources.files("bots.go").joinpath("data/book.json").read_text()
    except FileNotFoundError:
        return {"positions": {}, "lines": []}
    return json.loads(text)


def lookup(state: State) -> int | None:
    """The book move for `state` (legal under its rules), or None."""
    if state.size != 9 or state.passes:
        return None
    key, perm = canonical(state)
    name = _load()["positions"].get(key)
    if name is None:
        return None
    move = perm.index(parse_point(name, state.size))
    return move if state.is_legal(move) else None


def lines() -> list[list[str]]:
    """The self-play lines the book was built from (move names, Black first)."""
    return [list(line) for line in _load()["lines"]]


def build(count: int, plies: int, seconds: float, komi: float = 7.5, log=print) -> dict:
    """Self-play `count` lines of `plies` moves, each move from an MCTS search of `seconds`.
    Line i answers Black's first move with White's i-th best reply (by visits), so the lines
    cover several openings; every other move is the search's choice."""
    from .mcts import MCTS

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
    ap = argparse.ArgumentParser(prog="python -m bots.go.book", description=__doc__.split("\n\n")[0])
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
