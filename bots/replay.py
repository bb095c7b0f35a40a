"""`bots replay FILE`: a recorded game, rebuilt move by move with our rules, stepped through in
the terminal or drawn as a PNG.

A record is a JSON file of bots.records (its `rules` names the game) or an SGF file (its GM
property names the game: the game whose record module has that SGF_GM reads it).  Each game's
record module (bots.registry: Game.record) rebuilds its positions and draws them; nothing here
names a game.  A record that our rules cannot replay is refused with the move number and the
reason, before anything is shown.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, TextIO, cast

from . import records, registry
from .hooks import RecordModule, SgfRecord
from .sgf import game_type

HELP = "Enter or n: next move, p: previous, a number: jump to that move, q: quit"


class ReplayError(ValueError):
    """A file that is not a record we can replay; the message names the file and the problem."""


@dataclass(frozen=True)
class Replay:
    """A recorded game and every position of it: positions[k] is the board after k moves."""

    game: registry.Game
    record: dict
    positions: list

    @property
    def turns(self) -> list[dict]:
        return self.record["turns"]

    @property
    def hooks(self) -> RecordModule:
        return self.game.module("record")


def _games_with_records() -> list[registry.Game]:
    return [g for g in registry.games().values() if g.record is not None]


def read(path: str | Path) -> dict:
    """The record in a file, as bots.records' dict (an SGF file is converted by its game)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    if text.lstrip().startswith("("):
        gm = game_type(text) or "1"  # SGF's default game is Go
        readers = [g for g in _games_with_records() if getattr(g.module("record"), "SGF_GM", None) == gm]
        if not readers:
            raise ReplayError(f"{path}: an SGF file of game GM[{gm}], which no game of ours records")
        try:
            return cast(SgfRecord, readers[0].module("record")).from_sgf(text)
        except ValueError as exc:
            raise ReplayError(f"{path}: not an SGF record we can read ({exc})") from None
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise ReplayError(f"{path}: neither SGF nor JSON ({exc})") from None
    if not isinstance(record, dict) or record.get("format") != records.FORMAT:
        raise ReplayError(f"{path}: not a game record (no \"format\": \"{records.FORMAT}\"; "
                          f"save games with --record DIR)")
    return record


def load(path: str | Path) -> Replay:
    """Read a record and rebuild every position with our rules; ReplayError naming the move and
    the reason when a move cannot be replayed."""
    record = read(path)
    known = [g.name for g in _games_with_records()]
    if record.get("rules") not in known:
        raise ReplayError(f"{path}: game {record.get('rules')!r} is not one we replay (known: {', '.join(known)})")
    game = registry.get(record["rules"])
    hooks = game.module("record")
    turns = record.get("turns")
    if not isinstance(turns, list):
        raise ReplayError(f"{path}: the record has no list of turns")
    try:
        positions = [hooks.initial(record)]
    except (ValueError, KeyError, TypeError) as exc:
        raise ReplayError(f"{path}: bad starting position: {_reason(exc)}") from None
    for number, turn in enumerate(turns, 1):
        try:
            if not isinstance(turn, dict):
                raise ValueError(f"a turn must be an object, got {turn!r:.60}")
            positions.append(hooks.apply(positions[-1], turn))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ReplayError(f"{path}: move {number} cannot be replayed: {_reason(exc)}") from None
    return Replay(game, record, positions)


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing {exc.args[0]!r}"
    return str(exc) or type(exc).__name__


# -- what is shown ------------------------------------------------------------------------------------


def players(replay: Replay) -> str:
    labels = replay.record.get("names", {})  # an arena's records name the players behind "A" and "B"
    return ", ".join(f"{seat} {labels[name]} ({name})" if name in labels else f"{seat} {name}"
                     for seat, name in replay.record.get("players", {}).items())


def result(replay: Replay) -> str:
    """The outcome, the winner named by seat and player (e.g. "white mcts (B) won (W+Resign,
    resignation)"), from the winner's label or from SGF's RE."""
    r = replay.record
    labels = r.get("names", {})  # an arena's: label -> player
    seats = r.get("players", {})  # seat -> label (or player)
    text = r["result"] if isinstance(r.get("result"), str) and r["result"] else None
    winner = r.get("winner_name")
    if winner is not None:
        seat = next((s for s, label in seats.items() if label == winner), None)
    elif text and text[:2] in ("B+", "W+"):
        seat = {"B": "black", "W": "white"}[text[0]]
    else:
        seat = None
    if seat is not None:
        label = seats.get(seat)
        head = f"{seat} {labels[label]} ({label})" if label in labels else f"{seat} {label}" if label else seat
        head += " won"
    else:
        head = f"{winner} won" if winner else "a draw"
    how = ", ".join(filter(None, [text, r.get("reason") or r.get("end")]))
    return head + (f" ({how})" if how else "")


def legend(replay: Replay) -> list[tuple[str, str]]:
    """(label, colour) per seat of the game's pictures (its record hooks' LEGEND), each seat
    labelled with the player who sat there."""
    labels = replay.record.get("names", {})
    seats = replay.record.get("players", {})
    out = []
    for seat, colour in getattr(replay.hooks, "LEGEND", {}).items():
        label = seats.get(seat)
        player = f"{labels[label]} ({label})" if label in labels else label
        out.append((f"{seat}: {player}" if player else seat, colour))
    return out


def caption(replay: Replay, k: int) -> str:
    """The line above the board after k moves: who moved, the move and its think time."""
    total = len(replay.turns)
    if k == 0:
        setup = replay.record.get("setup", {}).get("name", "")
        return f"{replay.game.name} {setup}: start ({total} moves; {players(replay)})"
    turn = replay.turns[k - 1]
    think = turn.get("think")
    timed = "" if think is None else f" in {think:.3f} s"
    measured = f" ({replay.record['think_measured_by']}'s clock)" if "think_measured_by" in replay.record else ""
    line = (f"move {k}/{total}: {turn.get('seat')} ({turn.get('name')}) played "
            f"{replay.hooks.move_text(turn)}{timed}{measured if timed else ''}")
    return line + (f"\nend of the game: {result(replay)}" if k == total else "")


def show(replay: Replay, k: int, out: TextIO, colour: bool) -> None:
    print(caption(replay, k), file=out)
    print(replay.game.draw(replay.positions[k], colour=colour), file=out, flush=True)


def commands(stream: TextIO, out: TextIO) -> Iterator[str]:
    """The user's commands, one a line: from the keyboard with a prompt, or read line by line."""
    interactive = stream.isatty()
    while True:
        if interactive:
            print(f"[{HELP}] > ", end="", file=out, flush=True)
        line = stream.readline()
        if not line:
            return
        yield line.strip().lower()


def browse(replay: Replay, start: int, stream: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:
    """Step through the game from move `start` until `q` or the end of the input."""
    last = len(replay.positions) - 1
    k = start
    colour = out.isatty()
    show(replay, k, out, colour)
    for command in commands(stream, out):
        if command == "q":
            return
        if command in ("", "n"):
            if k == last:
                print(f"(the last move: {last})", file=out, flush=True)
                continue
            k += 1
        elif command == "p":
            if k == 0:
                print("(the start: no previous move)", file=out, flush=True)
                continue
            k -= 1
        elif command.isdigit():
            if int(command) > last:
                print(f"(no move {command}: the game has moves 0 to {last})", file=out, flush=True)
                continue
            k = int(command)
        else:
            print(f"(unknown command {command!r}: {HELP})", file=out, flush=True)
            continue
        show(replay, k, out, colour)


def to_png(replay: Replay, k: int, path: str | Path) -> Path:
    """The board after k moves as a PNG, titled with the game, the players and the move (and at
    the end who won), with a legend of the seats' colours and players."""
    from .plotting import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 7))
    try:
        replay.hooks.draw(replay.positions[k], ax)
        ax.set_title(caption(replay, k), fontsize=9, loc="left")
        keys = legend(replay)
        if keys:
            from matplotlib.patches import Patch

            fig.legend(handles=[Patch(facecolor=colour, edgecolor="#555555", label=text) for text, colour in keys],
                       loc="lower center", ncol=len(keys), fontsize=8, frameon=False)
            fig.subplots_adjust(bottom=0.12)
        fig.tight_layout(rect=(0, 0.06 if keys else 0, 1, 1))
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return Path(path)


def move_number(replay: Replay, move: Any) -> int:
    """`--move N` (None: the last), checked against the game's length (ReplayError)."""
    last = len(replay.positions) - 1
    if move is None:
        return last
    if not 0 <= move <= last:
        raise ReplayError(f"--move {move}: the game has moves 0 to {last}")
    return move
