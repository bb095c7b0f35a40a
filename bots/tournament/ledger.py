"""What a tournament has played, kept in its record directory so that a rerun resumes it.

    DIR/tournament.json   the game and the settings every game was played with
    DIR/ledger.jsonl      one line per game: its key, who sat where, done or crashed, seconds
    DIR/<game file>.json  the game's record as the game's arena gave it
    DIR/<game file>.sgf   and its SGF, for the games recorded as SGF (Go, Hex): `bots replay` reads it

A game is done when its ledger line says so and its record file is there; a rerun plays only
the games that are not.  A crashed game (our exception, not a player's fault: those are in
the record) is kept in the ledger for the report's list of faults and played again on a
rerun.  A ledger written by a run with other settings (another move time, another game) is
refused rather than mixed: the user names another directory.  A line cut short by a kill is
skipped (that game is played again).
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any

import structlog

from ..cmdline import UsageFailure

LEDGER = "ledger.jsonl"
SETTINGS = "tournament.json"
log = structlog.get_logger("bots.tournament")


def key_of(entry: dict) -> tuple:
    return tuple(entry["key"])


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=_-]+", "_", text).strip("_")[:32] or "x"


def file_name(entry: dict) -> str:
    """The record file of a game: readable, and unique by a checksum of its key."""
    key = entry["key"]
    crc = zlib.crc32(json.dumps(key).encode())
    return (f"{_slug(entry['setup'])}_{key[3]:03d}_{_slug(entry['first'])}_vs_{_slug(entry['second'])}"
            f"_{crc:08x}.json")


class Ledger:
    """The games played so far (`done`: key -> entry with its record), on disk if `directory`."""

    def __init__(self, directory: str | Path | None, game: str, settings: dict[str, Any]) -> None:
        self.directory = Path(directory) if directory else None
        self.about = {"game": game, "settings": settings}
        self.done: dict[tuple, dict] = {}
        self.crashed: list[dict] = []

    def open(self) -> "Ledger":
        """Create the directory, or check it holds this tournament, and read what was played;
        UsageFailure naming the problem."""
        if self.directory is None:
            return self
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            about = self.directory / SETTINGS
            if about.exists():
                self._same_tournament(json.loads(about.read_text(encoding="utf-8")))
            else:
                about.write_text(json.dumps(self.about, indent=1) + "\n", encoding="utf-8")
            self._read()
        except OSError as exc:
            raise UsageFailure(f"cannot use the record directory {self.directory}: {exc.strerror or exc}") from None
        except ValueError as exc:  # json: a tournament.json that is not ours
            raise UsageFailure(f"{self.directory / SETTINGS} is not a tournament's settings file: {exc}") from None
        return self

    def _same_tournament(self, before: dict) -> None:
        if before.get("game") != self.about["game"]:
            raise UsageFailure(f"{self.directory} holds a {before.get('game')} tournament, not "
                               f"{self.about['game']}: give another --record directory")
        old, new = before.get("settings", {}), self.about["settings"]
        changed = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        if changed:
            diff = ", ".join(f"{k} {old.get(k)!r} there, {new.get(k)!r} now" for k in changed)
            raise UsageFailure(f"{self.directory} holds games played with other settings ({diff}): "
                               "give the same options to resume, or another --record directory")

    def _read(self) -> None:
        path = self.directory / LEDGER
        if not path.exists():
            return
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                entry = json.loads(line)
                key = key_of(entry)
            except (ValueError, KeyError, TypeError):
                log.warning("ledger line unreadable, its game will be played again", file=str(path), line=number)
                continue
            if entry.get("status") != "done":
                self.crashed.append(entry)
                continue
            try:
                entry["record"] = json.loads((self.directory / entry["file"]).read_text(encoding="utf-8"))
            except (OSError, ValueError, KeyError):
                log.warning("record file missing or unreadable, its game will be played again",
                            file=str(self.directory / entry.get("file", "?")))
                continue
            self.done[key] = entry
        self.crashed = [e for e in self.crashed if key_of(e) not in self.done]

    def add(self, entry: dict) -> None:
        """Keep a finished (or crashed) game: its record file first, then its ledger line, so a
        line always has its file."""
        if entry["status"] == "done":
            self.done[key_of(entry)] = entry
        else:
            self.crashed.append(entry)
        if self.directory is None:
            return
        line = {k: v for k, v in entry.items() if k != "record"}
        if entry["status"] == "done":
            line["file"] = entry["file"] = file_name(entry)
            path = self.directory / line["file"]
            path.write_text(json.dumps(entry["record"]) + "\n", encoding="utf-8")
            if isinstance(entry["record"].get("sgf_text"), str):
                path.with_suffix(".sgf").write_text(entry["record"]["sgf_text"], encoding="utf-8")
        with open(self.directory / LEDGER, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


# -- what an entry says (a record's players are labelled "A": the first, "B": the second) ------------

def first_score(entry: dict) -> float:
    """The first participant's score in a done game: 1, 0.5 (a draw) or 0."""
    return {"A": 1.0, "B": 0.0, None: 0.5}[entry["record"]["winner_name"]]


def winner(entry: dict) -> str | None:
    """The winning participant of a done game, None for a draw."""
    return {"A": entry["first"], "B": entry["second"], None: None}[entry["record"]["winner_name"]]


def seat_of(entry: dict) -> dict[str, str]:
    """{participant: its seat} in a done game (e.g. "vampires", "black", "red")."""
    names = {"A": entry["first"], "B": entry["second"]}
    return {names[label]: seat for seat, label in entry["record"]["players"].items()}


def results(entries: list[dict]) -> list[tuple[str, str, float]]:
    """(first, second, the first's score) of done games, as bots.tournament.ratings.fit reads them."""
    return [(e["first"], e["second"], first_score(e)) for e in entries]
