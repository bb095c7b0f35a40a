"""The Twilight players, by name: random, greedy, alphabeta (seed 000), expecti (seed 003), planner,
and human (the person at this terminal, bots.twilight.human)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from protocol.twilight import Move
from search.budget import Budget, SearchResult
from search.contracts import Context, Player

from .alphabeta import AlphaBeta
from .expecti import Expecti
from .human import Human
from .planner import Planner
from .rules import State, distance, is_legal
from .tactics import Order, away, beats, fits, toward


def greedy_action(state: State) -> Order:
    """Every group heads for its best prize now; legal, and cheap enough to be the fallback.

    A prize is a human group it converts (worth its size over the distance) or an enemy
    group it kills (1.5x that).  A group with an enemy able to kill it within two steps
    and no prize next door runs away instead.
    """
    me = state.to_move
    theirs = state.groups(me.other)
    orders = []
    for g in sorted(state.groups(me), key=lambda g: -g[2]):
        x, y, n = g
        prizes = [(h[2] / distance(x, y, h[0], h[1]), h) for h in state.humans if h[2] <= n]
        prizes += [(1.5 * e[2] / distance(x, y, e[0], e[1]), e) for e in theirs if beats(n, e[2])]
        threat = min((e for e in theirs if beats(e[2], n)), default=None,
                     key=lambda e: distance(x, y, e[0], e[1]))
        best = max(prizes, default=None)
        adjacent_prize = best is not None and distance(x, y, best[1][0], best[1][1]) == 1
        if threat and distance(x, y, threat[0], threat[1]) <= 2 and not adjacent_prize:
            cell = away(x, y, threat[0], threat[1], state.cols, state.rows)
            orders.append(toward(g, cell) if cell else ())
        elif best is not None:
            orders.append(toward(g, best[1]))
        elif theirs:  # nothing to win: close in on the nearest enemy we are not afraid of
            target = min(theirs, key=lambda e: distance(x, y, e[0], e[1]))
            orders.append(() if beats(target[2], n) else toward(g, target))
    action: list = []
    for order in orders:
        if not order:
            continue
        trial = action + list(order)
        sources = {(m[0], m[1]) for m in trial}
        if all((m[3], m[4]) not in sources for m in trial) and fits(state, trial) and is_legal(state, me, trial):
            action = trial
    if action:
        return tuple(action)
    return state.legal_moves()[0]


@dataclass(frozen=True)
class Greedy:
    """Baseline: one ply, no look-ahead (see greedy_action)."""

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        return SearchResult(greedy_action(state))


@dataclass(frozen=True)
class RandomPlayer:
    """Baseline: a random legal move of one or more groups, random split counts."""

    seed: int = 0  # 0 draws a fresh seed
    rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rng", random.Random(self.seed or None))

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        ours = list(state.groups(state.to_move))
        for _ in range(20):
            moves = []
            for x, y, n in self.rng.sample(ours, self.rng.randint(1, len(ours))):
                dx, dy = self.rng.choice([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy])
                moves.append(Move(x, y, self.rng.randint(1, n), x + dx, y + dy))
            if is_legal(state, state.to_move, moves):
                return SearchResult(tuple(moves))
        return SearchResult(self.rng.choice(state.legal_moves()))


PLAYERS: dict[str, type[Player]] = {
    "human": Human,
    "random": RandomPlayer,
    "greedy": Greedy,
    "alphabeta": AlphaBeta,
    "expecti": Expecti,
    "planner": Planner,
}
DEFAULT = "planner"
