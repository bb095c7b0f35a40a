"""A person at the terminal as a Twilight player.  A turn is one or more orders `x y n x' y'`
(send n units from the cell at column x, row y to the neighbouring cell x', y'; both
counted from 0 at the top left), on one line, separated by commas or semicolons:
`4 3 5 5 3, 4 3 7 4 4`.  These are the MOV entries the server receives, in its order.

The board (bots.twilight.display) has no coordinates, so every group is listed under it
with its cell.  The dialogue (clock, help, quit, asking again with our rules' reason: the
referee's own validation) is the shared one, bots.human.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol.twilight import Move

from ..human import Person
from .rules import Species, State

_ORDERS = re.compile(r"[;,]")


def groups_text(groups: tuple, mark: str) -> str:
    return ", ".join(f"{x} {y} ({mark}{n})" for x, y, n in groups) or "none"


@dataclass
class Human(Person):
    """Orders typed at the terminal (see the module docstring)."""

    game = "twilight"

    def status(self, state: State) -> list[str]:
        me = state.to_move
        mark, theirs = ("V", "W") if me == Species.VAMPIRES else ("W", "V")
        return [f"Yours, {me.name.lower()}: {groups_text(state.groups(me), mark)}",
                f"Theirs, {me.other.name.lower()}: {groups_text(state.groups(me.other), theirs)}",
                f"Humans: {groups_text(state.humans, 'h')}"]

    def prompt(self, state: State) -> str:
        return f"{state.to_move.name.capitalize()}, your orders: x y n x' y', several separated by commas"

    def help(self, state: State) -> str:
        x, y, n = state.groups(state.to_move)[0]
        tx, ty = (x + 1, y) if x + 1 < state.cols else (x - 1, y)
        return (f"An order `x y n x' y'` sends n units from the cell at column x, row y to a neighbouring cell "
                f"x' y' (diagonals too); columns 0-{state.cols - 1} from the left, rows 0-{state.rows - 1} from "
                f"the top. Example: {x} {y} {n} {tx} {ty} moves your whole group at {x} {y} one cell. Give "
                "several orders in one turn on one line, separated by commas or semicolons, to move or split "
                "several groups; a cell may not be both a source and a target in one turn. Units that meet "
                "humans or enemies fight as the rules say; a turn needs at least one order.")

    def parse(self, state: State, text: str) -> tuple[Move, ...]:
        """The orders on the line, as MOV entries (our rules then check them); ValueError
        naming the order that is not five whole numbers."""
        orders = []
        for part in _ORDERS.split(text):
            fields = part.split()
            if not fields:
                raise ValueError(f"{text!r} has an empty order: separate orders by one comma or semicolon.")
            if len(fields) != 5 or not all(f.lstrip("-").isdigit() for f in fields):
                raise ValueError(f"{part.strip()!r} is not an order: type five whole numbers, x y n x' y'.")
            orders.append(Move(*(int(f) for f in fields)))
        return tuple(orders)
