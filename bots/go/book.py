"""The Go opening book: positions -> moves, built by our own MCTS thinking long, shipped as
package data (`bots/go/data/book.json`).

Positions are stored under the smallest of their 8 symmetric images (so one entry serves
every rotation and reflection), with the move in that image.  `lines` keeps the book's
self-play lines as move lists: seed 001's alphabeta follows one line for its colour.

This module only reads the book (it is read once per process); the players import it.  The
builder, which runs the mcts player, is `bots.go.bookmaker`:
`python -m bots.go.bookmaker --lines 6 --plies 10 --seconds 8` (a few minutes per line on
one core).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path

from .board import State, parse_point

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
