"""`expecti`: seed 003's design (the "Twilight"/Towelie C++ client), as a named player.

- Expectiminimax with alpha-beta over the outcomes of random battles (two outcomes per
  battle: won with the expected survivors, or lost), iterative deepening under the
  deadline, `max_depth` plies (4 by default, +2 once no humans remain).
- At most about a dozen customised orders per group: toward the priority humans
  (those it can convert before any enemy group able to can), the closest other human
  group it can convert, the closest friendly group, the closest enemy group (attack,
  or run when that enemy is 1.5x larger), or stay.  Only the biggest group may split,
  and only while the side has fewer than `max_groups` groups.
- Speculation: the opponent is searched with at most as many groups as it has ever
  been seen to have (at least 1), which makes the search sharp against opponents that
  never split.  The session reports that count in the search context.
- Utility from our side: 2*(ours - theirs) + (our humans - their humans), where a
  side's humans are the groups it can convert before the other side; when one side
  outnumbers the other 1.5x the first term becomes ours (or -theirs); a finished game
  is worth +-(ours + theirs + humans + 1), beyond any unfinished one.
- Beyond the seed: claimed humans are discounted by distance (`discount`), and groups
  within reach of an enemy 1.5x their size count against their side (`threat`).

`action_method` selects how orders are generated, as the seed's option does:
1 whole-group steps to every neighbour; 2 customised whole-group orders; 3 customised
orders with splits of the biggest group; 4 (default) as 3, with the speculation on the
opponent's number of groups.
"""

from __future__ import annotations

from dataclasses import dataclass

from search.budget import Budget, SearchResult
from search.contracts import Context
from search.minimax import search

from .rules import State, Species, distance, neighbours, outcomes
from .tactics import Order, away, beats, combine, fits, nearest, threat_balance, toward

FAR = 10_000
PER_GROUP = 12
CAP = 36


def claims(state: State, side: Species) -> tuple[list, list]:
    """Human groups each side reaches first with a group able to convert them.

    Returns (mine, theirs) for `side`: lists of (human group, my distance).  The side to
    move wins ties, since it gets there first.
    """
    ours, others = state.groups(side), state.groups(side.other)
    mine, theirs = [], []
    for h in state.humans:
        hx, hy, hn = h
        d_me = min((distance(x, y, hx, hy) for x, y, n in ours if n >= hn), default=FAR)
        d_them = min((distance(x, y, hx, hy) for x, y, n in others if n >= hn), default=FAR)
        first = side == state.to_move
        if d_me < d_them or (d_me == d_them and first and d_me < FAR):
            mine.append((h, d_me))
        elif d_them < d_me or (d_them == d_me and not first and d_them < FAR):
            theirs.append((h, d_them))
    return mine, theirs


class SeedThreeModel:
    def __init__(self, me: Species, method: int, max_groups: int, their_max_groups: int,
                 discount: float = 0.7, threat: float = 0.5) -> None:
        self.me = me
        self.discount = discount
        self.threat = threat
        self.method = method
        self.limits = {me: max_groups, me.other: their_max_groups if method >= 4 else max_groups}
        self._bound = None

    # -- actions ------------------------------------------------------------------------
    def actions(self, state: State) -> list[Order]:
        side = state.to_move
        ours = state.groups(side)
        if self.method == 1:
            per_group = [[toward(g, c) for c in neighbours(g[0], g[1], state.cols, state.rows)] + [()]
                         for g in ours]
        else:
            priority, _ = claims(state, side)
            biggest = max(ours, key=lambda g: g[2])
            may_split = self.method >= 3 and len(ours) < self.limits[side]
            per_group = [self._orders(state, g, priority, may_split and g is biggest) for g in ours]
        actions = [a for a in combine(per_group, CAP) if fits(state, a)]
        return actions or list(state.legal_moves())

    def _orders(self, state: State, group, priority, split: bool) -> list[Order]:
        x, y, n = group
        side = state.to_move
        enemies, friends = state.groups(side.other), [g for g in state.groups(side) if g != group]
        dist = lambda t: distance(x, y, t[0], t[1])  # noqa: E731
        mine = sorted((h for h, _ in priority if h[2] <= n), key=lambda h: (-h[2] / dist(h), dist(h)))
        orders = [toward(group, h) for h in mine[:3]]
        others = [h for h in state.humans if h[2] <= n and h not in mine[:3]]
        if others:
            orders.append(toward(group, min(others, key=dist)))
        if friends:
            orders.append(toward(group, nearest(x, y, friends)))
        enemy = nearest(x, y, enemies)
        if enemy is not None:
            if beats(enemy[2], n) and dist(enemy) <= 3:
                cell = away(x, y, enemy[0], enemy[1], state.cols, state.rows)
                if cell:
                    orders.append(toward(group, cell))
            else:
                orders.append(toward(group, enemy))
            killable = [e for e in enemies if beats(n, e[2]) and e is not enemy]
            if killable:
                orders.append(toward(group, min(killable, key=dist)))
        if split:
            orders += self._splits(group, mine, enemies)
        orders = list(dict.fromkeys(o for o in orders if o))
        if len(orders) < 3:  # too few ideas: every step is worth a look
            orders += [toward(group, c) for c in neighbours(x, y, state.cols, state.rows)]
            orders = list(dict.fromkeys(orders))
        return orders[: PER_GROUP - 1] + [()]

    @staticmethod
    def _splits(group, targets, enemies) -> list[Order]:
        """Split off exactly what a priority human group needs; the rest takes the next one."""
        x, y, n = group
        out = []
        for i, h in enumerate(targets):
            rest = n - h[2]
            if rest <= 0 or any(beats(e[2], min(rest, h[2])) and distance(x, y, e[0], e[1]) <= 4 for e in enemies):
                continue  # neither part may be left where a bigger enemy group can catch it
            part = toward(group, h, h[2])
            nxt = next((t for t in targets[i + 1:] if t[2] <= rest), None)
            remainder = toward(group, nxt, rest) if nxt else ()
            if part and remainder and remainder[0][3:] != part[0][3:]:
                out.append(part + remainder)
            if len(out) == 3:
                break
        return out

    # -- model --------------------------------------------------------------------------
    def outcomes(self, state: State, action: Order):
        return outcomes(state, action)

    def is_terminal(self, state: State) -> bool:
        return state.is_terminal()

    def maximizing(self, state: State) -> bool:
        return state.to_move == self.me

    def key(self, state: State):
        return state.key()

    def bound(self, state: State) -> float:
        if self._bound is None:  # populations never grow: the root's total bounds the tree
            total = sum(g[2] for groups in (state.humans, state.vampires, state.werewolves) for g in groups)
            self._bound = 4.0 * total + 2  # units 2x, humans 1x, threat 0.5x
        return self._bound

    def evaluate(self, state: State) -> float:
        ours = state.population(self.me)
        theirs = state.population(self.me.other)
        if state.is_terminal():
            winner = state.winner()
            total = ours + theirs + sum(h[2] for h in state.humans) + 1
            return 0.0 if winner is None else (total if winner == self.me else -total)
        if ours >= 1.5 * theirs:
            units = float(ours)
        elif theirs >= 1.5 * ours:
            units = float(-theirs)
        else:
            units = 2.0 * (ours - theirs)
        mine, their = claims(state, self.me)
        # A human group reached sooner is worth more: a gradient toward the prizes.
        g = self.discount
        humans = sum(h[2] * g ** d for h, d in mine) - sum(h[2] * g ** d for h, d in their)
        # Beyond the seed: its utility only counts units, so a depth-4 search splits into
        # pieces that a bigger enemy group then hunts down over more plies than it sees.
        balance = threat_balance(state.groups(self.me), state.groups(self.me.other))
        threat = max(-(ours + theirs), min(ours + theirs, balance))
        return units + humans + self.threat * threat


@dataclass(frozen=True)
class Expecti:
    """Seed 003: expectiminimax with alpha-beta over customised actions."""

    max_depth: int = 4
    action_method: int = 4
    max_groups: int = 3
    discount: float = 0.7  # beyond the seed: weight of a claimed human group d steps away is discount**d
    threat: float = 0.5  # beyond the seed: weight of groups within reach of an enemy 1.5x their size

    def __post_init__(self) -> None:
        if not 0 < self.discount <= 1:
            raise ValueError("discount must be in (0, 1]")
        if self.threat < 0:
            raise ValueError("threat must be >= 0")
        if self.max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        if self.action_method not in (1, 2, 3, 4):
            raise ValueError("action_method must be 1, 2, 3 or 4")
        if self.max_groups < 1:
            raise ValueError("max_groups must be at least 1")

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        their_groups = max(1, (context or Context()).opponent_max_groups, len(state.groups(state.to_move.other)))
        model = SeedThreeModel(state.to_move, self.action_method, self.max_groups, their_groups,
                               self.discount, self.threat)
        depth = self.max_depth + (2 if not state.humans else 0)
        return search(state, model, budget, depth)
