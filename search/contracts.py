"""The contracts between the games and the search, written as Protocols.

Every game's State (bots/<game>/) is an immutable value that satisfies `State`; a game with
chance moves (Twilight's random battles) also satisfies `ChanceState`.  The conformance test
(tests/test_game_api.py) checks every registered game against these.  The search algorithms
read a game through narrower views: `search.minimax` through a `Model`, `search.negamax`
and `search.mcts` through a mutable `Position` (make/undo, so the hot loop allocates nothing).

A `Player` (every class of every game's PLAYERS table, bots/<game>/players.py) picks a move:
`choose(state, context, budget) -> SearchResult`, where `context` is the `Context` of the move,
what the session knows beyond the position (the clock, the moves the server refused).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .budget import Budget, SearchResult


@runtime_checkable
class State(Protocol):
    """A position: immutable, picklable, comparable.

    - `to_move`: the player to move.
    - `legal_moves()`: every move the rules allow (never empty while the game runs).
    - `play(move)`: the next State; the old one is unchanged.  Raises IllegalMove.
    - `is_terminal()`; `winner()`: the winning player, or None (running, or a draw);
      `result(player)`: 1 win, 0 loss, 0.5 draw or running.
    - `key()`: a hashable identity for transposition tables: equal positions have equal
      keys however they were reached.
    """

    @property
    def to_move(self) -> Any: ...

    def legal_moves(self) -> Sequence[Any]: ...

    def play(self, move: Any) -> "State": ...

    def is_terminal(self) -> bool: ...

    def winner(self) -> Any | None: ...

    def result(self, player: Any) -> float: ...

    def key(self) -> Hashable: ...


@runtime_checkable
class ChanceState(State, Protocol):
    """A State whose moves may have random outcomes.

    `outcomes(move)`: the search's model of the move, [(probability, State)] with the
    probabilities summing to 1; it may summarise the rules (Twilight's gives each random
    battle its two results with the expected survivors, where the rules draw each survivor).
    `play(move, rng)`: one draw of the rules' own randomness, as the server would make it;
    without `rng`, the most probable outcome."""

    def outcomes(self, move: Any) -> list[tuple[float, "State"]]: ...

    def play(self, move: Any, rng: random.Random | None = None) -> "State": ...


class Model(Protocol):
    """What search.minimax sees of a game (see that module's docstring)."""

    def actions(self, state: Any) -> list[Any]: ...

    def outcomes(self, state: Any, action: Any) -> list[tuple[float, Any]]: ...

    def evaluate(self, state: Any) -> float: ...

    def is_terminal(self, state: Any) -> bool: ...

    def maximizing(self, state: Any) -> bool: ...

    def key(self, state: Any) -> Hashable: ...

    def bound(self, state: Any) -> float: ...


class Position(Protocol):
    """What search.negamax and search.mcts see: a mutable position with make/undo."""

    to_move: int

    def moves(self) -> list[Any]: ...

    def play(self, move: Any) -> None: ...

    def undo(self) -> None: ...

    def key(self) -> Hashable: ...

    def evaluate(self) -> float: ...


@dataclass(frozen=True)
class Context:
    """What the session knows about one move beyond the position: one value, picklable (it goes
    to the worker processes with the state), the same for every game; a field a session does
    not know keeps its default, and a player reads only the fields it needs.

    bots.decide passes every search, fallback and rules check a Context (None becomes
    `Context()`); a player called directly (benches, tests, warm-ups) may be given None.
    """

    time_left: float | None = None
    """Seconds left on our clock for the rest of the game, None when unknown.  Set by the Go
    GTP engine and the Hex HTP engine (the controller's time_left), the CGOS and gnd sessions
    (the server's clock), the Go course drop-in and the engine arena; read by Go's alphabeta
    (its depth) and the person at the keyboard (bots.human shows it)."""

    exclude: frozenset[Any] = frozenset()
    """Moves the server refused this turn (the gnd server's HTTP 310): never to be sent again.
    Set by the gnd session and the gnd course drop-in; read by bots.legal.refusal (the rules
    check of bots.decide), the games' fallbacks, Hex's mcts and the gnd players.  Any iterable
    given is kept as a frozenset."""

    previous: Any = None
    """gnd: the position our last move made (the one the opponent moved from), None before
    our first move; the gnd players' opening book reads the opponent's reply off it.  Set by
    the gnd session and the gnd course drop-in."""

    opponent_max_groups: int = 1
    """Twilight: the most groups the opponent has had at once this game (the expecti player
    assumes it may split as much again).  Set by the Twilight session."""

    def __post_init__(self) -> None:
        if not isinstance(self.exclude, frozenset):
            object.__setattr__(self, "exclude", frozenset(self.exclude))


@runtime_checkable
class Player(Protocol):
    """A named player of a game (bots/<game>/players.py PLAYERS: name -> class, the class
    built by bots.players.make_player from its options): picks a move for `state`.

    - `choose(state, context, budget)`: a move legal in `state` (the game's State), found
      within `budget`, and what the search did.  `context` may be None: the same as
      `Context()`.
    - Optional class attributes: `parallel = True` (root parallelism: bots.decide runs the
      player in several workers and adds up their root votes, SearchResult.votes) and
      `interactive = True` (a person at the keyboard, bots.human: asked in the parent process).
    """

    def choose(self, state: Any, context: Context | None, budget: Budget) -> SearchResult: ...
