"""A finished Hex game as SGF (FF[4] GM[11]), as HexGui writes and reads it.

Moves are cell names (`;B[f6]`, `a1` top-left, letter = column), the board `SZ[11]` or
`SZ[9:7]` (width:height) when it is not square, and a swap is White's `swap-pieces`.  The
file speaks HexGui's dialect (shared/specs/hex.md section 4): after a swap the players have
exchanged colours on an unchanged board, so the moves that follow are translated from our
canonical game (bots.hex.board.benzene).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable

from .board import SWAP, State, benzene, cell_name, empty, parse_cell

MOVES_PER_LINE = 12


def _text(value: object, simple: bool = True) -> str:
    s = str(value).replace("\\", "\\\\").replace("]", "\\]")
    return " ".join(s.splitlines()) if simple else s


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
             swap: bool = False, date: str | _dt.date | None = None, comment: str | None = None) -> str:
    """The SGF text of one game from its canonical moves (cells, SWAP or names)."""
    if date is None:
        date = _dt.date.today()
    if isinstance(date, _dt.date):
        date = date.isoformat()
    size = str(width) if width == height else f"{width}:{height}"
    head = (f"(;FF[4]GM[11]CA[UTF-8]AP[bots]SZ[{size}]PB[{_text(black)}]PW[{_text(white)}]"
            f"RE[{_text(result)}]DT[{_text(date)}]")
    if comment:
        head += f"C[{_text(comment, simple=False)}]"
    nodes = [f";{colour}[{move}]" for colour, move in dialect_moves(width, height, moves, swap)]
    lines = [head] + ["".join(nodes[i:i + MOVES_PER_LINE]) for i in range(0, len(nodes), MOVES_PER_LINE)]
    return "\n".join(lines) + ")\n"


_SIZE = re.compile(r"SZ\[(\d+)(?::(\d+))?\]")
_MOVE = re.compile(r";\s*([BW])\[([^\]]*)\]")


def parse_moves(text: str, swap: bool = True) -> State:
    """The final State of a game that `game_sgf` wrote (HexGui's dialect back to ours);
    ValueError for a file that is not one."""
    m = _SIZE.search(text)
    if m is None:
        raise ValueError("no SZ[...] in the SGF text")
    width = int(m.group(1))
    height = int(m.group(2) or width)
    state: State = empty(width, height, swap)
    for colour, move in _MOVE.findall(text):
        if move.strip().lower() == "resign":
            break
        ours, cell = benzene(state, "BW".index(colour) + 1, parse_cell(move, width, height))
        if ours != state.to_move:
            raise ValueError(f"{colour}[{move}] is out of turn")
        state = state.play(cell)
    return state
