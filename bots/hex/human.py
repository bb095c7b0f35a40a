"""A person at the terminal as a Hex player (the seed's "[h]uman": it asked for X, then Y).

The dialogue is the shared one (bots.human: the board drawn, help, quit, a refused move
explained and asked again); what Hex adds is its notation.  A move is:

* a cell name, column letter then row number: `f6`;
* the seed's coordinates, X then Y on one line: `5 2` (X the row, Y the column, both
  counted from 0 as the seed did; `5,2` also works);
* `swap` when the swap is legal (the second move of a game with the pie rule).

A malformed, off-board or occupied cell is explained (the seed said "This cell is not free").
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import IllegalMove

from ..human import Person
from .board import BLACK, COLOUR_NAMES, SWAP, State, from_seed, parse_cell


@dataclass
class Human(Person):
    """Moves typed at the terminal."""

    game = "hex"

    def status(self, state: State) -> list[str]:
        return [f"Last move: {state.name(state.last)}."] if state.last is not None else []

    def prompt(self, state: State) -> str:
        who = COLOUR_NAMES[state.to_move]
        way = "top to bottom" if state.to_move == BLACK else "left to right"
        swap = ", or swap" if state.swap_allowed() else ""
        return (f"{who} ({way}), your move: a cell like {state.name(state.cells // 2)}, or X Y (X the row "
                f"0-{state.height - 1}, Y the column 0-{state.width - 1}, from 0 like the seed){swap}")

    def help(self, state: State) -> str:
        return (f"A cell is its column letter and row number, like {state.name(0)} (top left). Or type the seed's "
                f"X Y: X the row 0-{state.height - 1}, Y the column 0-{state.width - 1}, both from 0 "
                f"(0 0 is {state.name(0)}). swap takes the first stone when the swap rule allows it "
                f"(the second move only). {COLOUR_NAMES[BLACK]} joins top and bottom, "
                f"{COLOUR_NAMES[3 - BLACK]} left and right.")

    def parse(self, state: State, text: str) -> int:
        """The legal move `text` names (a cell name, `X Y`, `swap`); ValueError explaining
        what is wrong otherwise."""
        parts = text.replace(",", " ").split()
        if len(parts) == 2 and all(p.lstrip("-").isdigit() for p in parts):
            x, y = int(parts[0]), int(parts[1])
            if not (0 <= x < state.height and 0 <= y < state.width):
                raise ValueError(f"({x}, {y}) is off the board: X (the row) goes from 0 to "
                                 f"{state.height - 1} and Y (the column) from 0 to {state.width - 1}.")
            move = from_seed(x, y, state.width)
        elif len(parts) == 1:
            move = parse_cell(parts[0], state.width, state.height)
            if move == SWAP and not state.swap_allowed():
                raise ValueError("A swap is not possible now (only as the second move, with the swap rule on).")
        else:
            raise ValueError(f"{text!r} is not a move: type a cell like a1, or X Y like 0 0.")
        try:
            return state.check(move)
        except IllegalMove as exc:
            if exc.reason == "occupied":
                raise ValueError(f"This cell is not free: {state.name(move)} is taken.") from None
            raise
