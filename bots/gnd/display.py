"""The gnd hexagon drawn in the terminal, oriented as the official client draws it.

Larger q + r is higher on the screen and q - r runs left to right, so (1,1) is straight
up, (1,0) up-right and (0,1) up-left; red starts at the bottom in Dodo.
"""

from __future__ import annotations

from .hexagon import BLUE, RED, HexState

GLYPH = {0: "·", RED: "R", BLUE: "B"}
ANSI = {RED: "\033[1;31m", BLUE: "\033[1;34m"}
RESET = "\033[0m"


def render(state: HexState, colour: bool = False, title: str = "") -> str:
    """The board as text; `colour` adds ANSI colours for a terminal."""
    n = state.size
    cells = state.cells()
    lines = [title] if title else []
    for height in range(2 * n - 2, -2 * n + 1, -1):  # q + r, top row first
        row = [" "] * (4 * n - 1)
        for (q, r), v in cells.items():
            if q + r == height:
                row[2 * n - 1 + (q - r)] = GLYPH[v] if not colour or not v else ANSI[v] + GLYPH[v] + RESET
        lines.append("".join(row).rstrip())
    mover = "red (R)" if state.to_move == RED else "blue (B)"
    lines.append(f"{mover} to move")
    return "\n".join(lines)
