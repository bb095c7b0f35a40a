"""Write a finished game as SGF (FF[4]) and read the moves back.

SGF is what every Go viewer and tool opens (gogui, Sabaki, q5go, GNU Go's `loadsgf`), so
the arena keeps one file per game.  Coordinates are two letters, column then row, both
from `a`, the row counted from the TOP of the board (unlike GTP, whose row 1 is the
bottom): on 9x9, GTP "A1" is "ai" and "J9" is "ia".  A pass is the empty value `[]`.
Moves alternate, Black first; in a handicap game Black's stones are in the root (HA, AB) and
White moves first.

`parse_moves` reads what `game_sgf` writes (with any whitespace between tokens, and the
FF[3] pass `tt` on boards up to 19x19); it is not a general SGF reader: variations are
refused.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence

from ..sgf import nodes as _nodes, one as _one, text as _text, think_comment, think_of
from .board import MAX_SIZE, MIN_SIZE, PASS, parse_point, point_name

MOVES_PER_LINE = 12


def _point(move: int | str, size: int) -> int:
    """A move given as a point (int, PASS = -1) or a name ("E5", "pass") -> a point."""
    if isinstance(move, str):
        return parse_point(move, size)
    if isinstance(move, int) and not isinstance(move, bool) and (move == PASS or 0 <= move < size * size):
        return move
    raise ValueError(f"{move!r} is not a move of a {size}x{size} board")


def sgf_point(move: int | str, size: int) -> str:
    """The SGF value of a move: "ee" for E5 on 9x9, "" for a pass."""
    p = _point(move, size)
    if p == PASS:
        return ""
    row, col = divmod(p, size)
    return chr(ord("a") + col) + chr(ord("a") + size - 1 - row)


def game_sgf(size: int, komi: float, black: str, white: str, moves: Iterable[int | str], result: str,
             date: str | _dt.date | None = None, comment: str | None = None,
             thinks: Sequence[float | None] = (), handicap: Sequence[int | str] = ()) -> str:
    """The SGF text of one game: Black moves first and colours alternate, or with `handicap`
    stones (Black's, HA and AB in the root) White moves first.  `moves` are points or names
    ("E5", "PASS"); `date` defaults to today (ISO, as DT wants); `thinks`: each move's think
    time in seconds, written as the move's comment (bots.sgf.think_comment)."""
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size {size!r} is outside {MIN_SIZE}..{MAX_SIZE}")
    if date is None:
        date = _dt.date.today()
    if isinstance(date, _dt.date):
        date = date.isoformat()
    head = (f"(;FF[4]GM[1]CA[UTF-8]SZ[{size}]KM[{float(komi):g}]PB[{_text(black)}]PW[{_text(white)}]"
            f"RE[{_text(result)}]DT[{_text(date)}]AP[bots]")
    if handicap:
        head += f"HA[{len(handicap)}]AB" + "".join(f"[{sgf_point(p, size)}]" for p in handicap)
    if comment:
        head += f"C[{_text(comment, simple=False)}]"
    colours = "WB" if handicap else "BW"
    nodes = [f";{colours[i % 2]}[{sgf_point(m, size)}]{think_comment(thinks[i] if i < len(thinks) else None)}"
             for i, m in enumerate(moves)]
    lines = [head] + ["".join(nodes[i:i + MOVES_PER_LINE]) for i in range(0, len(nodes), MOVES_PER_LINE)]
    return "\n".join(lines) + ")\n"


def _move(value: str, size: int) -> int:
    v = value.strip()
    if v == "" or (v == "tt" and size <= 19):
        return PASS
    if len(v) != 2 or not all("a" <= ch < chr(ord("a") + size) for ch in v):
        raise ValueError(f"SGF move [{value}] is not a point of a {size}x{size} board")
    col, row_from_top = ord(v[0]) - ord("a"), ord(v[1]) - ord("a")
    return (size - 1 - row_from_top) * size + col


def read_game(sgf_text: str) -> dict:
    """What a file `game_sgf` wrote says: size, komi, players, result, Black's handicap stones
    (AB in the root, as names), the colour of the first move ("B" or "W") and the moves as
    names ("E5", "PASS") with their think times (None where the file has none).

    SZ defaults to 19 and KM to 0 (the SGF defaults).  ValueError for anything else than one
    game tree of B/W moves alternating from Black, or after handicap stones from the colour of
    the first move."""
    nodes = _nodes(sgf_text)
    root = nodes[0]
    try:
        size = int(_one(root, "SZ") or 19)
        komi = float(_one(root, "KM") or 0)
    except ValueError as exc:
        raise ValueError(f"bad SZ or KM in the SGF root: {exc}") from None
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"SGF board size {size} is outside {MIN_SIZE}..{MAX_SIZE}")
    handicap = [point_name(_move(v, size), size) for v in root.get("AB", ())]
    if "PASS" in handicap or len(set(handicap)) != len(handicap):
        raise ValueError("the SGF root's AB stones should be distinct points")
    moves: list[str] = []
    thinks: list[float | None] = []
    colours = "WB" if handicap and len(nodes) > 1 and "W" in nodes[1] else "BW"
    for number, node in enumerate(nodes[1:], 1):
        played = [k for k in ("B", "W") if k in node]
        if len(played) != 1:
            raise ValueError(f"SGF node {number} should hold exactly one B or W move")
        colour = played[0]
        if colour != colours[len(moves) % 2]:
            raise ValueError(f"SGF node {number}: {colour} to play out of turn")
        moves.append(point_name(_move(_one(node, colour) or "", size), size))
        thinks.append(think_of(node))
    return {"size": size, "komi": komi, "black": _one(root, "PB") or "", "white": _one(root, "PW") or "",
            "result": _one(root, "RE") or "", "comment": _one(root, "C") or "", "handicap": handicap,
            "first": colours[0], "moves": moves, "thinks": thinks}


def parse_moves(sgf_text: str) -> tuple[int, float, list[str]]:
    """(size, komi, moves) of a game written by `game_sgf` (read_game); moves as names."""
    game = read_game(sgf_text)
    return game["size"], game["komi"], game["moves"]
