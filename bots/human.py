"""A person at the keyboard as a player of any game: the board drawn, the clock shown, a move
typed in the game's own notation, checked by our rules and asked again until it is allowed.

A game's person is `human` in its players table, a subclass of `Person` that says how its
moves are written: `parse(state, text)` (a ValueError explains a bad entry), `prompt(state)`,
`help(state)` and, if useful, `status(state)` (lines under the board: the last move, the
coordinates of the groups).  The rest is shared by every game:

* `interactive = True`: bots.decide asks a person in this process (it reads the terminal), in
  a daemon thread (`bots.threads.in_daemon_thread`), never in a search worker.  No deadline is watched and
  no fallback is computed for it: the move is sent as typed; if the server's time ran out
  meanwhile, the server decides (as for any late move).  A command whose every player is a
  person starts no search workers (bots.cmdline.search_workers).
* Before each question the board is drawn with the game's `render` and the clock is shown:
  the game clock where the session knows it (Context.time_left, seconds on our clock when
  the position arrived), else the seconds left for this move (the budget); nothing when the
  game is untimed (an infinite budget: the arenas' per-move time does not bind a person).
* `help` explains the notation; `quit` (or end of input, Ctrl-D) raises Quit, which ends the
  command cleanly (bots.cli: "Game left unfinished.", exit 0); Ctrl-C exits 130 as it does
  for every command.
* A malformed entry or a move our rules refuse (bots.legal.refusal: the check every
  outgoing move passes) is explained and asked again.
* One question at a time: a lock keeps two games that ask at once (an arena's parallel
  games) from mixing their questions on the terminal.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from protocol.errors import UsageError
from search.budget import Budget, SearchResult
from search.contracts import Context

from . import registry
from .legal import refusal

QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("help", "h", "?")
_TERMINAL = threading.Lock()  # one question on the terminal at a time


class Quit(BaseException):
    """The person ended the game (`quit`, end of input).  A BaseException, like
    KeyboardInterrupt: the catch-all boundaries that keep a bot playing after a bug (a
    session's retry with backoff, an arena's forfeit) must let it through, since a person
    who quits wants the command to stop."""


def is_person(game: str, player: str | None) -> bool:
    """Whether `player` of `game` is a person at the keyboard (its class is `interactive`)."""
    from .players import player_table

    cls = player_table(game).get(player) if player else None
    return bool(getattr(cls, "interactive", False))


def duration(seconds: float) -> str:
    """12.3 s, or 4:05 from a minute up."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def clock_text(budget: Budget, context: Context) -> str:
    """What the clock says now, as a prompt's prefix ("" when the game is untimed)."""
    left = context.time_left
    if left is not None:
        return f"[your clock: {duration(left - (time.monotonic() - budget.start))} left] "
    if math.isfinite(budget.seconds):
        return f"[{duration(budget.remaining())} left for this move] "
    return ""


@dataclass
class Person(ABC):
    """Moves typed at the terminal (see the module docstring); subclasses name their `game`
    and write `parse`, `prompt` and `help`."""

    colour: bool | None = None  # ANSI colours on the board; None: when the output is a terminal
    interactive: ClassVar[bool] = True
    game: ClassVar[str]  # the registry's name: its render draws the board
    input_stream: Any = field(default=None, init=False, repr=False, compare=False)  # None: sys.stdin
    output_stream: Any = field(default=None, init=False, repr=False, compare=False)  # None: sys.stdout

    def streams(self, input_stream: Any, output_stream: Any) -> "Person":
        """Read and write these streams instead of the terminal (tests, scripts)."""
        self.input_stream, self.output_stream = input_stream, output_stream
        return self

    # -- what a game says ----------------------------------------------------------------------

    @abstractmethod
    def parse(self, state: Any, text: str) -> Any:
        """The move `text` names; ValueError saying what is wrong with it otherwise."""

    @abstractmethod
    def prompt(self, state: Any) -> str:
        """Who is to move and what to type, in a few words."""

    @abstractmethod
    def help(self, state: Any) -> str:
        """The notation in full, with examples from this position."""

    def status(self, state: Any) -> list[str]:
        """Lines shown under the board (nothing by default)."""
        return []

    # -- the shared dialogue ------------------------------------------------------------------

    def choose(self, state: Any, context: Context | None, budget: Budget) -> SearchResult:
        if state.is_terminal():
            raise UsageError("the game is over: there is no move to choose")
        t0 = time.monotonic()
        with _TERMINAL:
            try:  # Ctrl-C may come at any moment, not only while reading
                move = self._ask(state, context or Context(), budget)
            except KeyboardInterrupt:
                raise Quit("interrupted (Ctrl-C)") from None
        return SearchResult(move, elapsed=time.monotonic() - t0)

    def _ask(self, state: Any, context: Context, budget: Budget) -> Any:
        out = self.output_stream or sys.stdout
        colour = self.colour if self.colour is not None else out.isatty()
        out.write("\n" + registry.get(self.game).draw(state, colour=colour) + "\n")
        for line in self.status(state):
            out.write(line + "\n")
        while True:
            out.write(f"{clock_text(budget, context)}{self.prompt(state)} (or help, quit): ")
            out.flush()
            text = self._read().strip()
            if text.lower() in QUIT_WORDS:
                raise Quit("the player quit")
            if text.lower() in HELP_WORDS:
                out.write(self.help(state).rstrip("\n") + "\n")
                continue
            if not text:
                out.write("Type a move, help or quit.\n")
                continue
            try:
                move = self.parse(state, text)
            except ValueError as exc:  # IllegalMove is a ValueError too
                out.write(f"{exc}\n")
                continue
            why = refusal(state, move, context)
            if why is None:
                return move
            out.write(f"{text!r} is not allowed: {why}.\n")

    def _read(self) -> str:
        line = (self.input_stream or sys.stdin).readline()
        if not line:
            raise Quit("end of input")
        return line
