"""A person at the terminal as a Hex player (the seed's "[h]uman": it asked for X, then Y).

Each turn the board is drawn the seed's way (`bots.hex.board.render`) and a move is read:

* a cell name, column letter then row number: `f6`;
* the seed's coordinates, X then Y on one line: `5 2` (X the row, Y the column, both
  counted from 0 as the seed did; `5,2` also works);
* `swap` when the swap is legal (the second move of a game with the pie rule);
* `quit` (or end of input, Ctrl-D, or Ctrl-C) ends the game: `choose` raises `Quit`, which the
  caller turns into a clean exit.

A malformed, off-board or occupied cell is explained (the seed said "This cell is not free")
and the move asked again.  A person has no deadline: the budget is ignored.  The player reads
and writes the given streams (`input_stream`, `output_stream`; None means sys.stdin and
sys.stdout, looked up at each move), so it must run in the process that owns the terminal.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

from protocol.errors import IllegalMove, UsageError
from search.budget import Budget, SearchResult

from .board import BLACK, COLOUR_NAMES, SWAP, State, from_seed, parse_cell, render


class Quit(Exception):
    """The person ended the game (end of input, Ctrl-C or `quit`)."""


@dataclass
class Human:
    """Moves typed at the terminal.  `colour`: draw the stones in ANSI colours."""

    input_stream: Any = None
    output_stream: Any = None
    colour: bool = False

    def choose(self, state: State, context: dict | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        if state.is_terminal():
            raise UsageError("the game is over: there is no move to choose")
        try:  # Ctrl-C may come at any moment, not only while reading
            return SearchResult(self._ask(state), 0.0, 0, 0, time.monotonic() - t0)
        except KeyboardInterrupt:
            raise Quit("interrupted (Ctrl-C)") from None

    def _ask(self, state: State) -> int:
        out = self.output_stream or sys.stdout
        out.write(render(state, colour=self.colour) + "\n")
        if state.last is not None:
            out.write(f"Last move: {state.name(state.last)}.\n")
        while True:
            out.write(self.prompt(state))
            out.flush()
            try:
                return self.parse(state, self._read())
            except ValueError as exc:  # IllegalMove is a ValueError too
                out.write(f"{exc}\n")

    @staticmethod
    def prompt(state: State) -> str:
        who = COLOUR_NAMES[state.to_move]
        way = "top to bottom" if state.to_move == BLACK else "left to right"
        swap = ", or swap" if state.swap_allowed() else ""
        return (f"{who} ({way}), your move: a cell like "
                f"{state.name(state.cells // 2)}, or X Y (X the row 0-{state.height - 1}, "
                f"Y the column 0-{state.width - 1}, from 0 like the seed){swap}; quit to stop: ")

    def _read(self) -> str:
        line = (self.input_stream or sys.stdin).readline()
        if not line:
            raise Quit("end of input")
        return line

    @staticmethod
    def parse(state: State, line: str) -> int:
        """The legal move `line` names (a cell name, `X Y`, `swap`); ValueError explaining
        what is wrong otherwise; Quit for `quit`."""
        text = line.strip()
        if not text:
            raise ValueError("Type a move (for example a1, or 0 0).")
        if text.lower() in ("quit", "exit", "q"):
            raise Quit("the player quit")
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
