"""The game registry: the one place that knows which games exist.

Each game package has a small `game` module (cheap to import: it names modules, it does not
load them) whose `GAME` describes the game.  The command line, the settings, the daemon, the
runner's warm-up and the player lookup read this registry and never name a game; adding a
game is a new package and one line in PACKAGES.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, Callable, Iterable

PACKAGES = ("bots.twilight", "bots.gopher", "bots.dodo", "bots.go", "bots.hex")
DEFAULT = "twilight"  # the game of `bots demo` and of the Docker image


@dataclass(frozen=True)
class Game:
    """What the shared layers need to know about one game.  Module fields are dotted module
    names, imported on first use, so that `bots --help` does not load every game's search."""

    name: str
    players: str  # its PLAYERS table {name: class}, and optionally warm(), run in every worker
    default_player: str  # the player a command uses when none is named
    commands: str  # commands(game) -> {(command, target): add(subparsers)}: what only this game has
    # (`serve` its server, `gtp`/`htp` its engine, Twilight's `demo` and `maps`), see bots.cli
    session: str | None  # play(bot, runner, log=...) -> [summary]; bot_from_table(table, where);
    # `bots play` reads its options through the match hooks (bots.playing.add_parser);
    # None for a game with no server to join (Hex: the controller runs our engine, `bots htp hex`)
    render: str  # render(state, colour=False) -> str: the board drawn as text
    start: Callable[[str], Any]  # the State a game starts from, given a setup (a map, a size)
    setups: tuple[str, ...]  # setups worth trying (the conformance test plays each)
    fallback: Callable[[Any, Any], Any]  # (state, context) -> a cheap legal move (bots.decide)
    notation: Callable[[Any, Any], Any]  # (state, move) -> the move as a log line shows it
    practice: str | None  # practice(game, name, move_time, seed): a local server and our bot on it
    # (bots soak); None when `session` is None
    match: str  # its match hooks, for `bots arena` and `bots tournament` (bots.matches.MatchHooks)
    bench: str  # its bench: add_arguments(parser, game) and table(args) -> str (`bots bench`)
    summary: str = ""  # one line for `bots --help`
    record: str | None = None  # its records (bots.replay): initial(record) -> State, apply(state, turn)
    # -> State, move_text(turn) -> str, draw(state, matplotlib axes); and for a game recorded as
    # SGF, SGF_GM (the GM value) and from_sgf(text) -> the record as a dict (bots.records' keys)
    rules: str | None = None  # its rules module, for a shared layer that plays the game by them
    # (bots.gnd: State, Position, start(size, layout), LAYOUTS, book_move; see bots.gnd.entry)

    def module(self, field: str) -> ModuleType:
        return importlib.import_module(getattr(self, field))

    @property
    def has_server(self) -> bool:
        """Can a bot of this game join a server (the daemon, `bots soak`)?"""
        return self.session is not None

    def draw(self, state: Any, colour: bool = False) -> str:
        return self.module("render").render(state, colour=colour)

    def player_table(self) -> dict[str, type]:
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
