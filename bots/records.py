"""Game records on disk: one file per game, written atomically, never over an existing file.

Twilight and the gnd games are recorded as JSON; Go and Hex as SGF (their own `sgf` modules
write the text, this module only names and writes the file).  A JSON record is the arena's
or server's record (every key other code reads stays: `players`, `winner_name`, `timeouts`,
`latencies`, `violations`, `map`, `plies`, ...) plus the keys a replay needs:

- `format`: FORMAT, so `bots replay` knows the file;
- `rules`: the game's registry name;
- `setup`: what the game started from (a map's name and its file contents, a board size);
- `initial`: the starting position as the game's record module writes it, so a replay needs
  nothing but the file;
- `turns`: every move in order, `{"n", "seat", "name", "move", "think"}` (the move as the
  game's record module writes it, the think time in seconds; a skipped turn has move null);
  a record made by a client adds `"position"`, the position the server showed before the move;
- `think_measured_by`: "server" (a referee timed every move: serve, arena) or "client" (we
  timed our own moves from the server's update to our answer: play, the daemon).

The result stays where the records always had it (`winner`, `winner_name`, `reason`) and
the faults too (`violations`, `timeouts`, gnd's `illegal`).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

import structlog

FORMAT = "bots-record/1"
SERVER, CLIENT = "server", "client"  # who measured the think times
REPLAY_KEYS = ("initial", "turns")  # the bulky keys, left out of the one-line summaries commands print


class RecordError(ValueError):
    """A record directory that cannot be used, or a file that is not a record we can read."""


def directory(path: str | os.PathLike) -> Path:
    """`path` as a record directory, created if missing and checked writable now, before any
    game is played (RecordError naming it otherwise)."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecordError(f"cannot create the record directory {folder}: {exc.strerror or exc}") from None
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise RecordError(f"cannot write records into {folder}: not a writable directory")
    return folder


def slug(text: object) -> str:
    """A piece of a file name: letters, digits and `.=_+` kept, the rest one `_`."""
    return re.sub(r"[^A-Za-z0-9.=_+]+", "_", str(text)).strip("_.")[:40] or "x"


def file_name(game: str, setup: str, first: str, second: str, number: int, extension: str,
              when: _dt.datetime | None = None) -> str:
    """`<timestamp>-<game>-<setup>-<first>-vs-<second>-<number>.<extension>` (UTC timestamp)."""
    stamp = (when or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    setup = slug(Path(setup).stem if setup.endswith(".xml") else setup)
    return f"{stamp}-{slug(game)}-{setup}-{slug(first)}-vs-{slug(second)}-{number}.{extension}"


def write(folder: str | os.PathLike, name: str, text: str) -> Path:
    """Write `text` as `folder/name` atomically (a whole file or none) and never over an
    existing file: if the name is taken, `-2`, `-3`, ... go before the extension."""
    folder = Path(folder)
    stem, dot, extension = name.rpartition(".")
    tmp = folder / f".{name}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask decides, as for any file
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        for attempt in range(1, 1000):
            path = folder / (name if attempt == 1 else f"{stem}-{attempt}{dot}{extension}")
            try:
                os.link(tmp, path)  # fails if the name exists: nothing is ever overwritten
                return path
            except FileExistsError:
                continue
        raise RecordError(f"too many records named like {folder / name}")
    finally:
        os.unlink(tmp)


def json_name(record: dict, number: int) -> str:
    """The file name of a JSON record: its game, setup and the players of its seats in order."""
    labels = record.get("names", {})  # an arena's: label -> player
    names = [labels.get(label, label) for label in record["players"].values()]
    return file_name(record["rules"], record["setup"]["name"], names[0], names[-1], number, "json")


def keep_text(folder: str | os.PathLike | None, name: str, text: str) -> Path | None:
    """write() into `folder` (None: no recording); a failed write is logged, not raised: a full
    disk must not end a match or a bot."""
    if folder is None:
        return None
    log = structlog.get_logger("bots.records")
    try:
        path = write(folder, name, text)
    except (OSError, RecordError) as exc:
        log.error("cannot save the game record", directory=str(folder), error=str(exc))
        return None
    log.info("game recorded", file=str(path))
    return path


def keep(folder: str | os.PathLike | None, record: dict, number: int) -> Path | None:
    """Save a JSON record into `folder` (keep_text) and note the path in the in-memory record as
    `record_file`."""
    path = keep_text(folder, json_name(record, number), json.dumps(record) + "\n")
    if path is not None:
        record["record_file"] = str(path)
    return path


def turn(n: int, seat: str, name: str, move: Any, think: float | None, **extra: Any) -> dict:
    """One entry of `turns` (think time rounded to 0.1 ms; None when nobody timed it)."""
    return {"n": n, "seat": seat, "name": name, "move": move,
            "think": None if think is None else round(think, 4), **extra}


def stamp(record: dict, rules: str, setup: dict, initial: Any, turns: list[dict], measured_by: str) -> dict:
    """`record` with the replay keys added (nothing it had is changed)."""
    return {**record, "format": FORMAT, "rules": rules, "setup": setup, "initial": initial,
            "turns": turns, "think_measured_by": measured_by}
