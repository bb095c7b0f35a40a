"""The game registry: the one place that knows which games exist.

Each game package has a small `game` module (cheap to import: it names modules, it does not
load them) whose `GAME` describes the game.  The command line, the settings, the daemon, the
runner's warm-up and the player lookup read this registry and never name a game; adding a
game is a new package and one line in PACKAGES.

What each hook module must hold is a Protocol of bots.hooks (`Game.module` is typed with
them); tests/test_registry.py checks every module of every game against them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable, Iterable, Literal, cast, overload

from search.contracts import Context, Player, State

from .hooks import (MODULES, BenchModule, CommandsModule, PlayersModule, PlayHooks, PracticeModule, RecordModule,
                    RenderModule, RulesModule, SessionModule)
from .matches import MatchHooks

PACKAGES = ("bots.twilight", "bots.gopher", "bots.dodo", "bots.go", "bots.hex")
DEFAULT = "twilight"  # the game of `bots demo` and of the Docker image


@dataclass(frozen=True)
class Game:
    """What the shared layers need to know about one game.  Module fields are dotted module
    names, imported on first use, so that `bots --help` does not load every game's search;
    what each module holds is the bots.hooks Protocol named beside it."""

    name: str
    players: str  # PlayersModule: its PLAYERS table {name: Player class}, optionally warm()
    default_player: str  # the player a command uses when none is named
    commands: str  # CommandsModule: what only this game has on the command line (bots.cli)
    session: str | None  # SessionModule: a bot on the game's server; `bots play` reads its options
    # through the match module (PlayHooks); None for a game with no server to join (Hex: the
    # controller runs our engine, `bots htp hex`)
    render: str  # RenderModule: the board drawn as text
    start: Callable[[str], State]  # the State a game starts from, given a setup (a map, a size)
    setups: tuple[str, ...]  # setups worth trying (the conformance test plays each)
    fallback: Callable[[State, Context], Any]  # a cheap legal move, computed beside every search
    # (bots.decide); not one of the context's `exclude`
    notation: Callable[[State, Any], Any]  # (state, move) -> the move as a log line shows it
    practice: str | None  # PracticeModule: a local server and our bot on it (bots soak); None
    # when `session` is None
    match: str  # bots.matches.MatchHooks, for `bots arena` and `bots tournament` (and PlayHooks
    # when the game has a session)
    bench: str  # BenchModule: `bots bench`
    summary: str = ""  # one line for `bots --help`
    record: str | None = None  # RecordModule (and SgfRecord for a game recorded as SGF): bots.replay
    rules: str | None = None  # RulesModule: the rules a shared layer plays the game by (bots.gnd)

    @overload
    def module(self, field: Literal["players"]) -> PlayersModule: ...
    @overload
    def module(self, field: Literal["commands"]) -> CommandsModule: ...
    @overload
    def module(self, field: Literal["session"]) -> SessionModule: ...
    @overload
    def module(self, field: Literal["render"]) -> RenderModule: ...
    @overload
    def module(self, field: Literal["practice"]) -> PracticeModule: ...
    @overload
    def module(self, field: Literal["match"]) -> MatchHooks: ...
    @overload
    def module(self, field: Literal["bench"]) -> BenchModule: ...
    @overload
    def module(self, field: Literal["record"]) -> RecordModule: ...
    @overload
    def module(self, field: Literal["rules"]) -> RulesModule: ...

    def module(self, field: str) -> Any:
        """The module named in `field`, imported (LookupError if this game names none there)."""
        name = getattr(self, field)
        if name is None:
            raise LookupError(f"{self.name} has no {field} module")
        return importlib.import_module(name)

    def hooks(self) -> dict[str, tuple[type, ...]]:
        """The bots.hooks Protocols each module this game names satisfies, by field (the
        optional ones, bots.hooks.OPTIONAL, aside)."""
        out: dict[str, tuple[type, ...]] = {field: (protocol,) for field, protocol in MODULES.items()
                                            if getattr(self, field) is not None}
        if self.has_server:
            out["match"] += (PlayHooks,)
        return out

    def play_hooks(self) -> PlayHooks:
        """The match module's `bots play` hooks, for a game with a session."""
        if not self.has_server:
            raise LookupError(f"{self.name} has no server to play on")
        return cast(PlayHooks, self.module("match"))

    @property
    def has_server(self) -> bool:
        """Can a bot of this game join a server (the daemon, `bots soak`)?"""
        return self.session is not None

    def draw(self, state: State, colour: bool = False) -> str:
        return self.module("render").render(state, colour=colour)

    def player_table(self) -> dict[str, type[Player]]:
        return self.module("players").PLAYERS

    def warm(self) -> None:
        """Compile or load the game's kernels (a players-module hook), if it has any."""
        hook: Callable[[], Any] | None = getattr(self.module("players"), "warm", None)
        if hook is not None:
            hook()


class UnknownGame(ValueError):
    """A game name that is not in the registry; the message lists the known ones."""


@cache
def games() -> dict[str, Game]:
    """Every game, by name, in PACKAGES order."""
    out: dict[str, Game] = {}
    for package in PACKAGES:
        game = importlib.import_module(f"{package}.game").GAME
        out[game.name] = game
    return out


def get(name: str) -> Game:
    try:
        return games()[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(games())})") from None


def names() -> tuple[str, ...]:
    return tuple(games())


def warm(names: Iterable[str]) -> None:
    """Compile or load the kernels of each named game (`Game.warm`)."""
    for name in names:
        get(name).warm()
