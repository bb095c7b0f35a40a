"""Gopher and Dodo records (bots.records, bots.replay): positions as the server's cells, moves as
the server's action strings, replayed by our rules.

A server's record starts from its `initial` position and replays every action; a client's
record (it sees only the positions the server sends) also carries each turn's `position`.
"""

from __future__ import annotations

import math
from typing import Any

from protocol import gnd

from .entry import names, rules
from .hexagon import BLUE, RED

SEATS = {RED: "red", BLUE: "blue"}
COLOURS = {0: "#f3f0e6", RED: "#d32f2f", BLUE: "#1565c0"}
LEGEND = {"red": COLOURS[RED], "blue": COLOURS[BLUE]}  # the seats' colours in a picture's legend


def _game(state: Any) -> str:
    """The gnd game whose rules made `state`."""
    return next(name for name in names() if isinstance(state, rules(name).State))


def position(state: Any) -> dict:
    """A state as JSON: the size, the cells holding a stone ([q, r, colour]) and the side to move."""
    return {"size": state.size, "cells": [[q, r, v] for (q, r), v in state.cells().items() if v],
            "to_move": SEATS[state.to_move]}


def state_of(game: str, data: Any) -> Any:
    """The `game` state a `position` wrote; ValueError saying what is wrong."""
    seats = {v: k for k, v in SEATS.items()}
    try:
        cells = {(int(q), int(r)): int(v) for q, r, v in data["cells"]}
        return rules(game).State.from_cells(int(data["size"]), cells, seats[data["to_move"]])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a {game} position ({type(exc).__name__}: {exc})") from None


def initial(record: dict) -> Any:
    return state_of(record["rules"], record["initial"])


def apply(state: Any, turn: dict) -> Any:
    """The state after one recorded action (IllegalMove, ProtocolError or ValueError, with the reason)."""
    game = _game(state)
    if "position" in turn:
        state = state_of(game, turn["position"])
    if turn["seat"] != SEATS[state.to_move]:
        raise ValueError(f"{turn['seat']} moves, but it is {SEATS[state.to_move]}'s turn")
    action = gnd.decode_action(gnd.game_number(game), turn["move"])
    state.check(action)
    return state.play(action)


def move_text(turn: dict) -> str:
    return " -> ".join(turn["move"])


def draw(state: Any, ax: Any) -> None:
    """The hexagon as `--show` draws it (q + r up, q - r to the right), one coloured hexagon a cell."""
    from matplotlib.patches import RegularPolygon

    ax.set_aspect("equal")
    ax.axis("off")
    for (q, r), v in state.cells().items():
        x, y = (q - r) * math.sqrt(3) / 2, (q + r) / 2
        ax.add_patch(RegularPolygon((x, y), 6, radius=1 / math.sqrt(3) * 0.95, orientation=math.pi / 6,
                                    facecolor=COLOURS[v], edgecolor="#888888"))
        ax.text(x, y - 0.3, f"{q},{r}", ha="center", va="center", fontsize=5, color="#777777" if not v else "white")
    n = state.size
    ax.set_xlim(-n * math.sqrt(3) / 2 - 0.5, n * math.sqrt(3) / 2 + 0.5)
    ax.set_ylim(-n, n)
    ax.text(0, -n + 0.2, f"{SEATS[state.to_move]} to move", ha="center", fontsize=9)
