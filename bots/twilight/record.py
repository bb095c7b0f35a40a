"""Twilight records (bots.records, bots.replay): positions as JSON, moves replayed by our rules.

A turn's move is the MOV's list of `[x, y, count, x', y']`; a referee's record adds
`battles`, the cells where random battles were fought as the server left them
(`[x, y, humans, vampires, werewolves]`), so that a replay reaches the same positions.  A
client's record has no battles (it only sees the server's next update, with the opponent's
ply folded in) but each turn carries the `position` the server showed before our move.
"""

from __future__ import annotations

from typing import Any

from protocol.twilight import Cell, Move

from .rules import Species, State, settle, state_from_cells, validate

COLOURS = {"humans": "#4caf50", "vampires": "#d32f2f", "werewolves": "#1565c0"}
LEGEND = {"vampires": COLOURS["vampires"], "werewolves": COLOURS["werewolves"], "humans": COLOURS["humans"]}
"""The seats' colours in a picture's legend (bots.replay.legend)."""


def position(state: State) -> dict:
    """A state as JSON: the grid, every non-empty cell, the side to move and the plies."""
    return {"rows": state.rows, "cols": state.cols, "cells": [list(c) for c in state.cells()],
            "to_move": state.to_move.name.lower(), "ply": state.ply, "max_plies": state.max_plies}


def state_of(data: Any) -> State:
    """The state a `position` wrote; ValueError saying what is wrong."""
    try:
        cells = [Cell(*map(int, c)) for c in data["cells"]]
        return state_from_cells(int(data["rows"]), int(data["cols"]), cells, Species[data["to_move"].upper()],
                                int(data["ply"]), int(data["max_plies"]))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a Twilight position ({type(exc).__name__}: {exc})") from None


def initial(record: dict) -> State:
    return state_of(record["initial"])


def _moves(move: Any) -> tuple[Move, ...]:
    if not isinstance(move, list) or not all(isinstance(m, list) and len(m) == 5 for m in move):
        raise ValueError(f"move {move!r:.80} is not a list of [x, y, count, x', y']")
    return tuple(Move(*m) for m in move)


def apply(state: State, turn: dict) -> State:
    """The state after one recorded turn (IllegalMove or ValueError with the reason)."""
    if "position" in turn:
        state = state_of(turn["position"])
    if turn["seat"] != state.to_move.name.lower():
        raise ValueError(f"{turn['seat']} moves, but it is {state.to_move.name.lower()}' turn")
    if turn["move"] is None:
        return state.skip()
    moves = _moves(turn["move"])
    validate(state, state.to_move, moves)
    if "battles" in turn:
        return settle(state, moves, [Cell(*c) for c in turn["battles"]])
    return state.play(moves)  # a client's record: the most probable outcome of a battle


def move_text(turn: dict) -> str:
    if turn["move"] is None:
        return "(no move: time-out)"
    return ", ".join(f"{n} ({x},{y})->({tx},{ty})" for x, y, n, tx, ty in turn["move"])


def draw(state: State, ax: Any) -> None:
    """The grid, each group a coloured square with its count (row 0 at the top, as `--show`)."""
    from matplotlib.patches import Rectangle

    ax.set_xlim(0, state.cols)
    ax.set_ylim(state.rows, 0)
    ax.set_aspect("equal")
    ax.set_xticks([x + 0.5 for x in range(state.cols)], [str(x) for x in range(state.cols)])
    ax.set_yticks([y + 0.5 for y in range(state.rows)], [str(y) for y in range(state.rows)])
    ax.tick_params(length=0, labelsize=7)
    for x in range(state.cols + 1):
        ax.axvline(x, color="#bbbbbb", lw=0.6)
    for y in range(state.rows + 1):
        ax.axhline(y, color="#bbbbbb", lw=0.6)
    for kind, groups in (("humans", state.humans), ("vampires", state.vampires), ("werewolves", state.werewolves)):
        for x, y, n in groups:
            ax.add_patch(Rectangle((x + 0.06, y + 0.06), 0.88, 0.88, color=COLOURS[kind]))
            ax.text(x + 0.5, y + 0.5, str(n), ha="center", va="center", color="white", fontsize=10,
                    fontweight="bold")
    ax.set_xlabel("  ".join(f"{kind} {sum(g[2] for g in groups)}" for kind, groups in
                            (("vampires", state.vampires), ("werewolves", state.werewolves),
                             ("humans", state.humans))))

