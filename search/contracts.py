"""The contracts between the games and the search, written as Protocols.

Every game's State (bots/<game>/) is an immutable value that satisfies `State`; a game with
chance moves (Twilight's random battles) also satisfies `ChanceState`.  The conformance test
(tests/test_game_api.py) checks every registered game against these.  The search algorithms
read a game through narrower views: `search.minimax` through a `Model`, `search.negamax`
and `search.mcts` through a mutable `Position` (make/undo, so the hot loop allocates nothing).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable


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
