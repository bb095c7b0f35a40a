"""The players of the gnd games (Gopher and Dodo), generic over a game's rules module.

Every search player runs the same steps: a known winning line first (Gopher: the opening
table and the Edwards strategy), then the exact solver for a share of the budget (its
table is exact, so it is kept between moves and later attempts start where the last one
stopped), then its own search for the rest.  Players are cached per worker process
(bots.players.think), which is what makes their tables survive from move to move.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from search import mcts, negamax
from search.budget import Budget, SearchResult
from search.contracts import Context

from ..hooks import RulesModule

TABLE_LIMIT = 1_500_000  # entries per table before it is cleared (about 300 MB at worst)


@dataclass
class Random:
    """Uniformly random legal moves (the built-in opponent of the course server)."""

    seed: int | None = None
    rules: ClassVar[RulesModule]

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, state: Any, context: Context | None, budget: Budget) -> SearchResult:
        return SearchResult(self._rng.choice(allowed(state, context or Context())), 0.0, 0, 1, 0.0)


def allowed(state: Any, context: Context) -> list:
    """The legal moves minus those the server refused (context.exclude, after an HTTP 310)."""
    moves = [m for m in state.legal_moves() if m not in context.exclude]
    return moves or state.legal_moves()


def quick_move(rules: RulesModule, state: Any, context: Context = Context()) -> Any:
    """A cheap decent move (one ply, the search's evaluation): the fallback if a search fails."""
    pos = rules.Position(state)
    best, best_value = None, None
    for move in allowed(state, context):
        pos.play(pos.index_of(move))
        value = -pos.WIN_FOR_STUCK if not pos.moves() else -pos.evaluate()
        pos.undo()
        if best_value is None or value > best_value:
            best, best_value = move, value
    return best


@dataclass
class _Searcher(ABC):
    """Shared steps of the search players; subclasses implement `_search`."""

    solve_share: float = 0.3  # the share of the budget the exact solver may use first
    book: bool = True  # known winning lines (Gopher: opening table, Edwards on odd sizes)
    rules: ClassVar[RulesModule]
    _solved: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.solve_share <= 1.0:
            raise ValueError(f"solve_share {self.solve_share} is outside 0..1")

    def choose(self, state: Any, context: Context | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        context = context or Context()
        exclude = context.exclude
        if self.book:
            move = self.rules.book_move(state, context.previous)
            if move is not None and state.is_legal(move) and move not in exclude:
                return SearchResult(move, 1.0, 0, 0, time.monotonic() - t0)
        pos = self.rules.Position(state)
        root = [pos.index_of(m) for m in allowed(state, context)] if exclude else None
        if self.solve_share > 0:
            if len(self._solved) > TABLE_LIMIT:
                self._solved.clear()
            deadline = budget.start + budget.seconds * self.solve_share
            proof = negamax.solve(pos, deadline, self._solved, root_moves=root)
            if proof is not None and proof[0] > 0:  # a proven win: play it
                return SearchResult(pos.move_of(proof[1]), negamax.WIN, -1, proof[2], time.monotonic() - t0)
        result = self._search(pos, budget, root)
        return SearchResult(pos.move_of(result.move), result.value, result.depth, result.nodes, result.elapsed)

    @abstractmethod
    def _search(self, pos: Any, budget: Budget, root_moves: list | None) -> SearchResult:
        """The player's own search over the search position, within `budget`."""


@dataclass
class AlphaBeta(_Searcher):
    """Seed 004: negamax alpha-beta, transposition table (symmetric keys), move ordering
    (table move, history), incremental legal moves; iterative deepening under the clock."""

    max_depth: int = 64
    _table: dict = field(default_factory=dict, init=False, repr=False)
    _history: dict = field(default_factory=dict, init=False, repr=False)

    def _search(self, pos: Any, budget: Budget, root_moves: list | None) -> SearchResult:
        if len(self._table) > TABLE_LIMIT:
            self._table.clear()
            self._history.clear()
        return negamax.search(pos, budget, self.max_depth, self._table, self._history, root_moves)


@dataclass
class MCTS(_Searcher):
    """UCT with a transposition table, proven values and tree reuse between moves."""

    c: float = 0.7  # exploration constant
    seed: int | None = None
    early_stop: bool = True  # stop when the chosen move can no longer change
    _table: dict = field(default_factory=dict, init=False, repr=False)

    def _search(self, pos: Any, budget: Budget, root_moves: list | None) -> SearchResult:
        return mcts.search(pos, budget, self._table, self.c, self.seed, early_stop=self.early_stop,
                           root_moves=root_moves)
