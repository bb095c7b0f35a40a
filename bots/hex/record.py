"""Hex records (bots.replay): the arena's SGF files in HexGui's dialect (bots.hex.sgf), replayed
by our rules."""

from __future__ import annotations

import math
from typing import Any

from .. import records
from .board import BLACK, WHITE, State, cell_name, empty
from .sgf import play_dialect, read_game

SGF_GM = "11"
SEATS = {"B": "black", "W": "white"}
COLOURS = {0: "#d9c9a3", BLACK: "#222222", WHITE: "#ffffff"}
LEGEND = {"black": COLOURS[BLACK], "white": COLOURS[WHITE]}  # the seats' colours in a picture's legend


def from_sgf(text: str) -> dict:
    """An SGF file as a record (bots.records' keys); moves stay in HexGui's dialect (a turn's
    seat is the colour the file names), so that apply translates them as the file meant."""
    game = read_game(text)
    names = {"black": game["black"], "white": game["white"]}
    turns = [records.turn(n, SEATS[colour], names[SEATS[colour]], move, think)
             for n, (colour, move, think) in enumerate(game["moves"], 1)]
    swap = any(move.strip().lower() == "swap-pieces" for _, move, _ in game["moves"])
    board = f"{game['width']}x{game['height']}"
    setup = {"name": board + ("+swap" if swap else ""), "width": game["width"], "height": game["height"],
             "swap": swap}
    return {"format": records.FORMAT, "rules": "hex", "setup": setup, "players": names, "result": game["result"],
            "turns": turns}


def initial(record: dict) -> State:
    setup = record["setup"]
    return empty(int(setup["width"]), int(setup["height"]), bool(setup["swap"]))


def apply(state: State, turn: dict) -> State:
    letter = {seat: letter for letter, seat in SEATS.items()}.get(turn["seat"])
    if letter is None:
        raise ValueError(f"seat {turn['seat']!r} is neither black nor white")
    return play_dialect(state, letter, str(turn["move"]))


def move_text(turn: dict) -> str:
    return str(turn["move"])


def draw(state: State, ax: Any) -> None:
    """The rhombus as `--show` draws it (row 1 at the top, each row shifted right by half a
    cell), Black's edges (top and bottom) and White's (left and right) marked."""
    from matplotlib.patches import RegularPolygon

    ax.set_aspect("equal")
    ax.axis("off")
    h = math.sqrt(3) / 2
    centre = lambda row, col: (col + row * 0.5, -row * h)  # noqa: E731
    for cell in range(state.cells):
        row, col = divmod(cell, state.width)
        x, y = centre(row, col)
        ax.add_patch(RegularPolygon((x, y), 6, radius=1 / math.sqrt(3), facecolor=COLOURS[state.at(cell)],
                                    edgecolor="#888888", lw=0.8))
        if cell == state.last:
            ax.plot(x, y, "o", ms=4, color="#d32f2f")
    for col in range(state.width):  # column letters above the top row, Black's edges drawn thick
        x, y = centre(0, col)
        ax.text(x, y + 0.75, cell_name(col, state.width).rstrip("0123456789"), ha="center", fontsize=8)
        ax.plot([x - 0.5, x + 0.5], [y + 0.55, y + 0.55], color=COLOURS[BLACK], lw=4)
        x, y = centre(state.height - 1, col)
        ax.plot([x - 0.5, x + 0.5], [y - 0.55, y - 0.55], color=COLOURS[BLACK], lw=4)
    for row in range(state.height):  # row numbers on the left, White's edges drawn grey
        x, y = centre(row, 0)
        ax.text(x - 0.9, y, str(row + 1), ha="right", va="center", fontsize=8)
        ax.plot([x - 0.6, x - 0.6], [y - 0.45, y + 0.45], color="#999999", lw=4)
        x, y = centre(row, state.width - 1)
        ax.plot([x + 0.6, x + 0.6], [y - 0.45, y + 0.45], color="#999999", lw=4)
    ax.autoscale_view()
    ax.text(*centre(state.height, (state.width - 1) / 2 - state.height / 2),
            f"{'black' if state.to_move == BLACK else 'white'} to move", ha="center", fontsize=9)
