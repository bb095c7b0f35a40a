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
    """The outcome as the record tells it (SGF's RE, or the winner and why the game ended)."""
    r = replay.record
    if isinstance(r.get("result"), str) and r["result"]:
        return r["result"] + (f" ({r['end']})" if r.get("end") else "")
    winner = r.get("winner_name")
    why = r.get("reason") or r.get("end")
    return (f"{winner} won" if winner else "a draw") + (f" ({why})" if why else "")


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
    """The board after k moves as a PNG, titled with the game, the players and the move."""
    from .plotting import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 7))
    try:
        replay.hooks.draw(replay.positions[k], ax)
        ax.set_title(caption(replay, k), fontsize=9, loc="left")
        fig.tight_layout()
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
