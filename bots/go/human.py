"""A person at the terminal as a Go player: a vertex as GTP and CGOS write it (`E5`, column
letter without I, row from 1 at the bottom) or `pass`.  The dialogue (board, clock, help,
quit, asking again) is the shared one, bots.human."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import IllegalMove

from ..human import Person
from .board import BLACK, COLOUR_NAMES, COLUMNS, State, parse_point, point_name

WHY = {"occupied": "is taken", "suicide": "would leave your stones there without a liberty (suicide)",
       "superko": "would repeat an earlier position (ko)", "game over": "comes after two passes: the game is over"}


@dataclass
class Human(Person):
    """Moves typed at the terminal."""

    game = "go"

    def status(self, state: State) -> list[str]:
        if state.last is None:
            return []
        return [f"{COLOUR_NAMES[3 - state.to_move]} played {point_name(state.last, state.size)}."]

    def prompt(self, state: State) -> str:
        stone = "X" if state.to_move == BLACK else "O"
        return f"{COLOUR_NAMES[state.to_move]} ({stone}), your move: a point like {self._centre(state)}, or pass"

    def help(self, state: State) -> str:
        last = COLUMNS[state.size - 1]
        return (f"A point is its column letter A-{last} (there is no I) and its row number 1-{state.size}, "
                f"row 1 at the bottom: {self._centre(state)} is the centre, A1 the bottom left corner. "
                "pass passes; two passes in a row end the game, scored by area (stones and surrounded "
                f"points) with komi {state.komi:g} for White. Dead stones are not removed: capture them.")

    @staticmethod
    def _centre(state: State) -> str:
        return point_name((state.size // 2) * (state.size + 1), state.size)

    def parse(self, state: State, text: str) -> int:
        """The legal move `text` names; ValueError explaining what is wrong otherwise."""
        try:
            move = parse_point(text, state.size)
        except ValueError:
            raise ValueError(f"{text!r} is not a point: type a column letter A-{COLUMNS[state.size - 1]} "
                             f"(no I) and a row 1-{state.size}, like {self._centre(state)}, or pass.") from None
        try:
            state.check(move)
        except IllegalMove as exc:
            raise ValueError(f"{point_name(move, state.size)} {WHY.get(exc.reason, exc.reason)}.") from None
        return move
