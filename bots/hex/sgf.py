"""A finished Hex game as SGF (FF[4] GM[11]), as HexGui writes and reads it.

Moves are cell names (`;B[f6]`, `a1` top-left, letter = column), the board `SZ[11]` or
`SZ[9:7]` (width:height) when it is not square, and a swap is White's `swap-pieces`.  The
file speaks HexGui's dialect (docs/protocols/hex.md section 4): after a swap the players have
exchanged colours on an unchanged board, so the moves that follow are translated from our
canonical game (bots.hex.board.benzene).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Sequence

from ..sgf import nodes, one, text as _text, think_comment, think_of
from .board import SWAP, State, benzene, cell_name, empty, parse_cell

MOVES_PER_LINE = 12


def dialect_moves(width: int, height: int, moves: Iterable[int | str], swap: bool = False) -> list[tuple[str, str]]:
    """(colour letter, move) of a canonical game in HexGui's dialect."""
    state: State = empty(width, height, swap)
    out = []
    for move in moves:
        cell = state.check(move)
        colour, shown = benzene(state, state.to_move, cell)
        out.append(("BW"[colour - 1], "swap-pieces" if shown == SWAP else cell_name(shown, width)))
        state = state.play(cell)
    return out


def game_sgf(width: int, height: int, black: str, white: str, moves: Iterable[int | str], result: str,
             swap: bool = False, date: str | _dt.date | None = None, comment: str | None = None,
             thinks: Sequence[float | None] = ()) -> str:
    """The SGF text of one game from its canonical moves (cells, SWAP or names); `thinks`: each
    move's think time in seconds, written as the move's comment (bots.sgf.think_comment)."""
    if date is None:
        date = _dt.date.today()
    if isinstance(date, _dt.date):
        date = date.isoformat()
    size = str(width) if width == height else f"{width}:{height}"
    head = (f"(;FF[4]GM[11]CA[UTF-8]AP[bots]SZ[{size}]PB[{_text(black)}]PW[{_text(white)}]"
            f"RE[{_text(result)}]DT[{_text(date)}]")
    if comment:
        head += f"C[{_text(comment, simple=False)}]"
    played = [f";{colour}[{move}]{think_comment(thinks[i] if i < len(thinks) else None)}"
              for i, (colour, move) in enumerate(dialect_moves(width, height, moves, swap))]
    lines = [head] + ["".join(played[i:i + MOVES_PER_LINE]) for i in range(0, len(played), MOVES_PER_LINE)]
    return "\n".join(lines) + ")\n"


_SIZE = re.compile(r"^(\d+)(?::(\d+))?$")


def board_size(root: dict[str, list[str]]) -> tuple[int, int]:
    """(width, height) of an SGF root's `SZ[n]` or `SZ[width:height]`; ValueError without one."""
    m = _SIZE.match((one(root, "SZ") or "").strip())
    if m is None:
        raise ValueError("no SZ[width] or SZ[width:height] in the SGF root")
    return int(m.group(1)), int(m.group(2) or m.group(1))


def read_game(sgf_text: str) -> dict:
    """What a file `game_sgf` wrote says: the board, players, result, and the moves in
    HexGui's dialect, each `(colour letter, move, think time or None)`; ValueError if it is
    not one game tree of such moves."""
    tree = nodes(sgf_text)
    width, height = board_size(tree[0])
    moves = []
    for number, node in enumerate(tree[1:], 1):
        played = [k for k in ("B", "W") if k in node]
        if len(played) != 1:
            raise ValueError(f"SGF node {number} should hold exactly one B or W move")
        moves.append((played[0], one(node, played[0]) or "", think_of(node)))
    return {"width": width, "height": height, "black": one(tree[0], "PB") or "",
            "white": one(tree[0], "PW") or "", "result": one(tree[0], "RE") or "", "moves": moves}


def play_dialect(state: State, colour: str, move: str) -> State:
    """`state` after HexGui's `colour[move]` (translated to our canonical game); ValueError
    (IllegalMove is one) when it cannot be played."""
    ours, cell = benzene(state, "BW".index(colour) + 1, parse_cell(move, state.width, state.height))
    if ours != state.to_move:
        raise ValueError(f"{colour}[{move}] is out of turn")
    return state.play(cell)


def parse_moves(text: str, swap: bool = True) -> State:
    """The final State of a game that `game_sgf` wrote (HexGui's dialect back to ours);
    ValueError for a file that is not one."""
    game = read_game(text)
    state: State = empty(game["width"], game["height"], swap)
    for colour, move, _ in game["moves"]:
        if move.strip().lower() == "resign":
            break
        state = play_dialect(state, colour, move)
    return state
