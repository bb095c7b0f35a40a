"""The Twilight board drawn as text, coloured on a terminal."""

from __future__ import annotations

from .rules import State

_COLOURS = {"V": "\033[31m", "W": "\033[34m", "h": "\033[32m"}
_RESET = "\033[0m"


def render(state: State, colour: bool = False) -> str:
    """A header (the ply, each side's population), the columns' numbers (x), then one line per
    row led by its number (y); each cell shows V/W/h and its count, or a dot.  An order names
    cells by these numbers: `x y count x2 y2`."""
    grid = [["  . " for _ in range(state.cols)] for _ in range(state.rows)]
    for mark, groups in (("h", state.humans), ("V", state.vampires), ("W", state.werewolves)):
        for x, y, n in groups:
            text = f"{mark}{n:>3}"
            grid[y][x] = f"{_COLOURS[mark]}{text}{_RESET}" if colour else text
    header = (f"ply {state.ply}/{state.max_plies}  vampires {sum(g[2] for g in state.vampires)}"
              f"  werewolves {sum(g[2] for g in state.werewolves)}  humans {sum(g[2] for g in state.humans)}")
    columns = ("    " + "".join(f"{x:>3} " for x in range(state.cols))).rstrip()
    return "\n".join([header, columns] + [f"{y:>3} " + "".join(row) for y, row in enumerate(grid)])
