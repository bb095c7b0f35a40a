"""What each module a game's registry entry names must hold, as Protocols.

A game (bots.registry.Game) names its hook modules by dotted name, imported on first use
(`Game.module`).  Each kind of module is a Protocol here; a module satisfies one by having
the attributes and functions it lists (mypy checks a module against a Protocol the same way,
its functions standing for the methods without `self`).  `Game.module(field)` is typed with
them, and tests/test_registry.py checks every module of every registered game against its
Protocols: every attribute present, every function of the right arity (and a coroutine
function where the Protocol's is `async`).

    field       Protocol                             used by
    players     PlayersModule (+ Warm, optional)     bots.players, bots.runner's warm-up
    commands    CommandsModule                       bots.cli
    session     SessionModule                        bots.playing, bots.settings
    render      RenderModule                         Game.draw, --show, bots.human
    practice    PracticeModule                       bots.soak
    match       bots.matches.MatchHooks              bots.arena, bots.tournament
                (+ PlayHooks for a game with a session: bots.playing, `bots play`)
    bench       BenchModule                          bots.cli (`bots bench`)
    record      RecordModule (+ SgfRecord, optional) bots.replay
    rules       RulesModule                          bots.gnd (Gopher and Dodo)

A module may hold more (its own helpers); the shared layers use only what is listed.  A
state a hook is given is typed Any: each game's hook takes its own State class, which a
Protocol's parameter cannot name (what a hook returns is a search.contracts.State).
"""

from __future__ import annotations

import argparse
from contextlib import AbstractAsyncContextManager
from typing import Any, Callable, Protocol

from search import contracts

from .matches import MatchHooks


class PlayersModule(Protocol):
    """Game.players: the players by name; bots.players.make_player builds one from options."""

    PLAYERS: dict[str, type[contracts.Player]]


class Warm(Protocol):
    """Optional in a players module: compile or load the kernels its players use; every search
    worker runs it at start (Game.warm, bots.registry.warm), so no move pays for it."""

    def warm(self) -> None: ...


class CommandsModule(Protocol):
    """Game.commands: what only this game has on the command line (`serve` its server, `gtp`
    or `htp` its engine, Twilight's `demo` and `maps`)."""

    def commands(self, game: str) -> dict[tuple[str, str | None], Callable[[argparse._SubParsersAction], None]]:
        """{(command, target): add(subparsers)}: `bots COMMAND TARGET` (target None: `bots
        COMMAND`), added once when several games share it (bots.cli)."""


class SessionModule(Protocol):
    """Game.session: a bot of this game on its server (the daemon, `bots play`, `bots soak`)."""

    async def play(self, bot: Any, runner: Any, on_state: Callable[[Any], None] | None = None,
                   log: Any = None, stop: Any = None) -> list[dict]:
        """Join the server with `bot` and play; a summary per finished game (bots.playing
        retries what fails; `runner` is the bots.runner.SearchRunner of its searches).  Once
        the asyncio.Event `stop` is set, no new game starts (bots.session.Client.stopping)."""

    def bot_from_table(self, table: dict, where: str) -> Any:
        """The bot a `[[bot]]` table of the daemon's config describes (bots.settings), checked:
        bots.settings.SettingsError naming `where` and the bad key."""


class RenderModule(Protocol):
    """Game.render: the board as text (Game.draw, --show, the person at the keyboard)."""

    def render(self, state: Any, colour: bool = False) -> str: ...


class PracticeModule(Protocol):
    """Game.practice: a local server with an opponent for one of our bots (`bots soak`)."""

    def practice(self, game: str, name: str, move_time: float,
                 seed: int) -> AbstractAsyncContextManager[tuple[Any, Any]]:
        """While entered: (our bot named `name`, a function giving the games it lost on time)."""


class PlayHooks(Protocol):
    """The match module of a game with a session also has `bots play GAME`'s options."""

    PLAY_EXAMPLES: str  # the epilog of `bots play GAME --help`

    def add_play_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The server's options (address, password, ...)."""

    def play_table(self, args: argparse.Namespace) -> dict:
        """Those options as the keys of a `[[bot]]` table (SessionModule.bot_from_table)."""


class BenchModule(Protocol):
    """Game.bench: `bots bench GAME`, the search speed as a table."""

    def add_arguments(self, parser: argparse.ArgumentParser, game: str) -> None: ...

    def run(self, args: argparse.Namespace) -> str: ...


class RecordModule(Protocol):
    """Game.record: a game record (bots.records' dict) replayed and drawn (bots.replay)."""

    def initial(self, record: dict) -> contracts.State: ...

    def apply(self, state: Any, turn: dict) -> contracts.State: ...

    def move_text(self, turn: dict) -> str: ...

    def draw(self, state: Any, ax: Any) -> None:
        """The position on matplotlib axes."""


class SgfRecord(Protocol):
    """Optional in a record module, for a game recorded as SGF (bots.replay reads SGF files)."""

    SGF_GM: str  # the value of SGF's GM property for this game

    def from_sgf(self, text: str) -> dict:
        """The record as bots.records' dict; ValueError if it cannot be read."""


class RulesModule(Protocol):
    """Game.rules of a gnd game (Gopher, Dodo): bots.gnd plays the game by it."""

    State: Any  # the class of its immutable states (search.contracts.State), with
    # State.from_cells(size, cells, to_move) and expected_moves()
    Position: Any  # the class of the mutable position a search plays on (search.contracts.Position)
    LAYOUTS: tuple[str, ...]  # the starting layouts `start` knows (none: the game has one start)

    def start(self, size: int, layout: str = "gnd") -> contracts.State:
        """The position our server starts a game from."""

    def book_move(self, state: Any, previous: Any = None) -> Any:
        """A known winning move, or None (`previous`: search.contracts.Context.previous)."""


# The Protocols a module named in each field of a Game satisfies; OPTIONAL: those a module
# may satisfy (all of one or none of it).  Game.hooks() adds PlayHooks for a game with a session.
MODULES: dict[str, type] = {
    "players": PlayersModule,
    "commands": CommandsModule,
    "session": SessionModule,
    "render": RenderModule,
    "practice": PracticeModule,
    "match": MatchHooks,
    "bench": BenchModule,
    "record": RecordModule,
    "rules": RulesModule,
}
OPTIONAL: dict[str, tuple[type, ...]] = {"players": (Warm,), "record": (SgfRecord,)}
