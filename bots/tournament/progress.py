"""The tournament as it runs: on a terminal a live display (games done, time left, standings),
redrawn after each game; otherwise one log line per game (stderr), so a log file or CI output
gets a line per game and no screen redraws."""

from __future__ import annotations

import sys
import time
from typing import Callable

import structlog

from .ledger import winner
from .ratings import Ratings, ranked

log = structlog.get_logger("bots.tournament").bind(tournament=True)  # kept by command.quiet_games


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Display:
    """Told of each finished game; `standings()` gives the current ratings."""

    def __init__(self, title: str, total: int, already: int, standings: Callable[[], Ratings],
                 live: bool | None = None) -> None:
        self.title, self.total, self.already = title, total, already
        self.standings = standings
        self.live = sys.stdout.isatty() if live is None else live
        self.played = 0  # games finished in this run
        self.started = time.monotonic()
        self._live = None

    def __enter__(self) -> "Display":
        self.started = time.monotonic()
        if self.live:
            from rich.live import Live

            self._live = Live(self._render(), refresh_per_second=4, transient=True)  # the table is printed at the end
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.__exit__(*exc)

    def start(self) -> None:
        """The workers are ready: time from here (the estimate should not count the start-up)."""
        self.started = time.monotonic()

    def left(self) -> float | None:
        """Seconds until the last game ends, from this run's pace so far."""
        if not self.played:
            return None
        remaining = self.total - self.already - self.played
        return (time.monotonic() - self.started) / self.played * remaining

    def game(self, entry: dict) -> None:
        self.played += 1
        done = self.already + self.played
        left = self.left()
        if self._live is not None:
            self._live.update(self._render())
            return
        if entry["status"] == "done":
            record = entry["record"]
            log.info("game over", game=f"{done}/{self.total}", setup=entry["setup"], first=entry["first"],
                     second=entry["second"], winner=winner(entry) or "draw",
                     reason=record.get("reason") or record.get("end"), seconds=entry["seconds"],
                     left=duration(left) if left is not None else None)
        else:
            log.warning("game crashed", game=f"{done}/{self.total}", setup=entry["setup"], first=entry["first"],
                        second=entry["second"], error=entry["error"])

    def _render(self):
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        done = self.already + self.played
        left = self.left()
        head = f"{self.title}: {done}/{self.total} games"
        if self.already:
            head += f" ({self.already} from an earlier run)"
        head += f", {duration(time.monotonic() - self.started)} so far"
        if left is not None and done < self.total:
            head += f", about {duration(left)} left"
        table = Table(box=None, pad_edge=False)
        for column, justify in (("#", "right"), ("participant", "left"), ("games", "right"), ("score", "right"),
                                ("Elo", "right"), ("95% interval", "left")):
            table.add_column(column, justify=justify)
        ratings = self.standings()
        for rank, r in enumerate(ranked(ratings.rows), 1):
            table.add_row(str(rank), r.name, str(r.games), f"{100 * r.score:.1f}%", *ratings.texts(r))
        return Group(Text(head, style="bold"), table)
