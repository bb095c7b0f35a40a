"""Go records (bots.replay): the arena's SGF files (bots.go.sgf), replayed by our rules."""

from __future__ import annotations

from typing import Any

from .. import records
from . import handicap
from .board import BLACK, WHITE, State, empty, parse_point, point_name
from .sgf import read_game

SGF_GM = "1"
SEATS = {BLACK: "black", WHITE: "white"}


LEGEND = {"black": "black", "white": "white"}  # the seats' colours in a picture's legend

def from_sgf(text: str) -> dict:
    """An SGF file as a record (bots.records' keys): players, result and every move with its
    think time (the move's comment, where the file has one)."""
    game = read_game(text)
    names = {"black": game["black"], "white": game["white"]}
    first = WHITE if game["first"] == "W" else BLACK  # (read_game checked that colours alternate)
    seats = [SEATS[first if n % 2 else 3 - first] for n in range(1, len(game["moves"]) + 1)]
    turns = [records.turn(n, seat, names[seat], move, think)
             for n, (seat, move, think) in enumerate(zip(seats, game["moves"], game["thinks"], strict=True), 1)]
    setup = {"name": f"{game['size']}x{game['size']}", "size": game["size"], "komi": game["komi"]}
    if game["handicap"]:
        setup["handicap"] = game["handicap"]
    return {"format": records.FORMAT, "rules": "go", "setup": setup, "players": names, "result": game["result"],
            "end": game["comment"].splitlines()[0].removeprefix("end: ") if game["comment"] else "", "turns": turns}


def initial(record: dict) -> State:
    size, komi, stones = int(record["setup"]["size"]), float(record["setup"]["komi"]), record["setup"].get("handicap")
    return handicap.position(size, [parse_point(p, size) for p in stones], komi) if stones else empty(size, komi)


def apply(state: State, turn: dict) -> State:
    if turn["seat"] != SEATS[state.to_move]:
        raise ValueError(f"{turn['seat']} moves, but it is {SEATS[state.to_move]}'s turn")
    return state.play(parse_point(turn["move"], state.size))


def move_text(turn: dict) -> str:
    return str(turn["move"])


def draw(state: State, ax: Any) -> None:
    """The board with its coordinates (A-J without I, row 1 at the bottom) and the stones,
    the last move marked."""
    from matplotlib.patches import Circle, Rectangle

    n = state.size
    ax.set_aspect("equal")
    ax.axis("off")
    ax.add_patch(Rectangle((-0.8, -0.8), n + 0.6, n + 0.6, color="#dcb35c", zorder=0))
    for i in range(n):
        ax.plot([0, n - 1], [i, i], color="black", lw=0.8, zorder=1)
        ax.plot([i, i], [0, n - 1], color="black", lw=0.8, zorder=1)
        letter = point_name(i, n)[0]
        ax.text(i, -0.6, letter, ha="center", va="center", fontsize=8)
        ax.text(-0.6, i, str(i + 1), ha="center", va="center", fontsize=8)
    for point in range(n * n):
        colour = state.at(point)
        if colour:
            row, col = divmod(point, n)
            ax.add_patch(Circle((col, row), 0.46, facecolor="black" if colour == BLACK else "white",
                                edgecolor="black", lw=0.8, zorder=2))
            if point == state.last:
                ax.add_patch(Circle((col, row), 0.15, facecolor="none", lw=1.5, zorder=3,
                                    edgecolor="white" if colour == BLACK else "black"))
    ax.set_xlim(-1, n)
    ax.set_ylim(-1, n)
    black, white = state.captures
    ax.text((n - 1) / 2, n - 0.35, f"{SEATS[state.to_move]} to move   captures: black {black}, white {white}",
            ha="center", fontsize=8)
