"""A person at the terminal as a Gopher or Dodo player, with cells as the gnd server writes
them: `(q, r)`, the axial coordinates of its JSON.  A Gopher move is one cell (`(0, 0)`,
also `0,0` or `0 0`), a Dodo move two, from and to (`(0, -2) (1, -1)`, also `0,-2 1,-1`).

The board the gnd server and `--show` draw (bots.gnd.display) has no coordinates, so the
legal moves are listed under it when there are few, and `help` draws the hexagon again
with every cell's coordinates.  The dialogue (clock, quit, asking again, the rules check
and its reason) is the shared one, bots.human; each game's players module names its
subclass (`game`, `cells` per move, `rules_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from protocol.gnd import cell_text

from .hexagon import RED, HexState
from ..human import Person

SHOWN = 24  # legal moves listed under the board when there are at most this many
_NUMBER = re.compile(r"-?\d+")
_ALLOWED = re.compile(r"[\s\d(),>-]*")  # digits, signs, brackets, commas, arrows and spaces


def move_text(move: Any) -> str:
    """A move as the human player writes it: "(q, r)" or "(q, r) -> (q, r)"."""
    if isinstance(move[0], tuple):
        return " -> ".join(cell_text(c) for c in move)
    return cell_text(move)


def coordinates(size: int) -> str:
    """The hexagon drawn as bots.gnd.display draws it, each cell showing its "q,r"."""
    width = 3 * (4 * size - 1) + 6
    lines = []
    for height in range(2 * size - 2, -2 * size + 1, -1):  # q + r, top row first, as display.render
        row = [" "] * width
        for q in range(-size + 1, size):
            r = height - q
            if max(abs(q), abs(r), abs(q - r)) > size - 1:
                continue
            label = f"{q},{r}"
            start = 3 * (2 * size - 1 + q - r) + 3 - len(label) // 2
            row[start:start + len(label)] = label
        lines.append("".join(row).rstrip())
    return "\n".join(lines)


@dataclass
class Human(Person):
    """Moves typed at the terminal (see the module docstring)."""

    cells: ClassVar[int]  # cells per move: 1 (Gopher) or 2 (Dodo)
    rules_text: ClassVar[str]  # the game's rule in a sentence, for `help`

    def _colour(self, state: HexState) -> str:
        return "red (R)" if state.to_move == RED else "blue (B)"

    def status(self, state: HexState) -> list[str]:
        moves = state.legal_moves()
        if len(moves) > SHOWN:
            return [f"{len(moves)} legal moves (help lists them, with every cell's coordinates)."]
        return ["Legal: " + "  ".join(move_text(m) for m in moves)]

    def prompt(self, state: HexState) -> str:
        what = "a cell (q, r)" if self.cells == 1 else "two cells, from (q, r) to (q, r)"
        return f"You are {self._colour(state)}; your move: {what}"

    def help(self, state: HexState) -> str:
        example = move_text(state.legal_moves()[0])
        return "\n".join([
            f"{self.game.capitalize()}: {self.rules_text}",
            f"Type {'a cell' if self.cells == 1 else 'the cell you move from, then the cell you move to'} "
            f"as the server writes it, e.g. {example} (brackets and commas optional).",
            "Each cell's coordinates (q, r), placed as on the board above ((1,1) is straight up, "
            "(1,0) up-right, (0,1) up-left):",
            coordinates(state.size),
            "Legal now: " + "  ".join(move_text(m) for m in state.legal_moves()),
        ])

    def parse(self, state: HexState, text: str) -> Any:
        """The move `text` names as cells (our rules then say whether it is legal); ValueError
        when it is not `cells` pairs of whole numbers."""
        numbers = [int(n) for n in _NUMBER.findall(text)]
        want = 2 * self.cells
        if not _ALLOWED.fullmatch(text) or len(numbers) != want:
            shape = "(q, r)" if self.cells == 1 else "(q, r) (q, r)"
            raise ValueError(f"{text!r} is not a move: type {want} whole numbers as {shape}, "
                             f"like {move_text(state.legal_moves()[0])}.")
        cells = tuple((numbers[i], numbers[i + 1]) for i in range(0, want, 2))
        return cells[0] if self.cells == 1 else cells
