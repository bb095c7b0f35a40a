"""`planner`: the Twilight player that plays for the win, not for the biggest gamble.

Evaluation, from the root player's side.  D estimates the final population difference:
- units now (ours - theirs);
- the human race: each camp goes to the side whose group able to convert it (size >= the
  camp) arrives first (the side to move wins ties), if it arrives before the game ends; a
  group's k-th camp in distance order counts k moves later (it converts them one after
  another); a camp d moves away is worth `claim` * count * gamma**d, so converting now beats
  being first in line (gains that come sooner are worth more); in a short race (no more
  camps than both sides' groups can convert at once), a side that no camp is bigger than
  (all its units together) has nothing to grow into, and counts its camps with `grown_gamma`
  and `grown_claim` (0.98 and 1: almost flat) instead; a camp no group converts alone counts
  half for the side whose two biggest groups can meet on it first;
- tactics one ply deep: free kills (>= 1.5x, adjacent) the side to move takes now, and
  groups left within reach of an enemy 1.5x their size;
- with `prey` (off: one gauntlet against `expecti` accepted it, a second on another seed
  rejected it, docs/benchmarks/twilight.md), once the humans left are fewer than a tenth of
  the units, each of our groups that an enemy group 1.5x its size could hunt down counts
  against us: `prey` * size * gamma**(d - 1), d the distance to its nearest such hunter (a lone
  runner is always caught on a bounded board; merging into a group too big to hunt saves it);
- with `hunt` (not yet the default: its sequential test has not accepted it), in the endgame
  (no camp that either side could ever take: bots.twilight.pursuit), pursuit instead of those
  tactics: each enemy group is worth its size * gamma**m to the side with a
  group 1.5x its size that catches it in m moves (the exact moves of the pursuit, both sides
  playing it best), if m is within the moves left; the same for theirs against ours.  A hunter
  then closes in by the shortest pursuit, and a smaller group runs where it is caught last.
A position with one group a side and no camp left (a duel) is not searched:
bots.twilight.showdown knows its exact best move (`duel`, on by default since its sequential
test accepted it: docs/benchmarks/twilight.md).
The value is tanh(D / S) plus a small linear tie-break.  S is what is at stake (a quarter
of every unit and human at the root of the search, so that a battle lost in the search costs
what it destroys) and shrinks over the last 60 plies, so a safe lead saturates
toward a win.  A finished game is +-1 plus a small bonus for the margin (and for winning
sooner).

Random battles: four outcomes each (won or lost, each split at the median of the survivors'
binomial distribution and valued at the mean of that half: the whole distribution, not
"won with the expected survivors").  A chance node is worth its expectation less some
standard deviations whoever starts the battle (`risk` ours, `their_risk` the opponent's): a
67% battle is taken only when the alternative is worse, and a group stays out of reach of an
enemy that could make the game a coin flip (the seeds' players take such gambles).

Move generation (for both sides: no speculation that the opponent never splits): per group,
kills, the camps it converts now, the best camps (count * order_gamma**d) by different first
steps, flights from a group 1.5x larger, merges, splits in two or three parts each aimed at a
camp it converts, every safe step when few ideas are left, and staying. A step picks, among the cells that bring
it closer, one no bigger enemy can reach, converting camps on the way. Joint actions combine the
groups' orders, best first; random battles against a neighbour at any odds (a side that is losing
anyway gambles) and gang-ups (two groups onto, or next to, an enemy neither kills alone) are
always among them, whatever that product kept. Search: alpha-beta with a transposition table and iterative
deepening to the deadline, keeping the part of an unfinished iteration that is done
(search.minimax with partial=True)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from itertools import combinations

from protocol.twilight import Move
from search.budget import Budget, SearchResult
from search.contracts import Context
from search.minimax import search

from . import pursuit, showdown
from .rules import HUMAN_RATIO, MONSTER_RATIO, State, Species, battle_outcomes, distance as _d, win_probability
from .tactics import Order, combine, fits

FAR = 1 << 20
PURSUIT_CELLS = 450  # larger boards (up to 30x30) play the endgame with the one-ply tactics: their
#                      pursuit tables take seconds to compute (15x29: 0.45 s, once per worker)


# -- evaluation -------------------------------------------------------------------------------


def race(humans, mine, theirs, mine_first: bool, gamma: float, left_mine: int, left_theirs: int,
         grown: tuple[float, float] | None = None) -> tuple[float, float]:
    """Discounted humans each side converts before the other (see the module docstring).
    `grown` = (discount, weight): the camps of a side that no camp is bigger than (its units
    together) count c * weight * discount**(d + k) instead: it has nothing to grow into, so
    sooner is not bigger.  (Judged per side, not per group: a split must not change the price.)
    The caller passes it only in a short race."""
    got_m: dict[int, list] = {}
    got_t: dict[int, list] = {}
    pair_m, pair_t = _biggest_two(mine), _biggest_two(theirs)
    sides = (list(enumerate(mine)), list(enumerate(theirs)))
    for hx, hy, c in humans:
        # (distance, index) of each side's nearest group able to convert `c` humans alone
        # (inlined: the evaluation's hot loop)
        nearest = []
        for groups in sides:
            best, index = FAR, -1
            for i, (x, y, n) in groups:
                if n >= c:
                    d = abs(x - hx)
                    e = abs(y - hy)
                    if e > d:
                        d = e
                    if d < best:
                        best, index = d, i
            nearest.append((best, index))
        (dm, gm), (dt, gt) = nearest
        if dm == dt == FAR:  # no group is big enough alone: two that merge first may be
            dm, dt = _merged(pair_m, hx, hy, c), _merged(pair_t, hx, hy, c)
            c, gm, gt = c / 2, -1, -1  # half: a plan, not a claim
        if dm < dt or (dm == dt and mine_first and dm < FAR):
            if dm <= left_mine:
                got_m.setdefault(gm, []).append((dm, c))
        elif dt < FAR and dt <= left_theirs:
            got_t.setdefault(gt, []).append((dt, c))
    if grown is None:
        return _tour(got_m, gamma), _tour(got_t, gamma)
    biggest = max((c for _, _, c in humans), default=0)
    price_m = grown if sum(g[2] for g in mine) >= biggest else (gamma, 1.0)
    price_t = grown if sum(g[2] for g in theirs) >= biggest else (gamma, 1.0)
    return _tour(got_m, *price_m), _tour(got_t, *price_t)


def _biggest_two(groups):
    return sorted(groups, key=lambda g: -g[2])[:2] if len(groups) >= 2 else None


def _merged(pair, hx: int, hy: int, c: int) -> int:
    """Moves for the two biggest groups to meet and reach a camp neither converts alone."""
    if pair is None:
        return FAR
    (ax, ay, an), (bx, by, bn) = pair
    if an + bn < c:
        return FAR
    return max(abs(ax - hx), abs(ay - hy), abs(bx - hx), abs(by - hy)) + 1


def _tour(claimed: dict[int, list], gamma: float, weight: float = 1.0) -> float:
    total = 0.0
    for camps in claimed.values():
        camps.sort()
        for k, (d, c) in enumerate(camps):
            total += c * weight * gamma ** (d + k)
    return total


def tactics(attackers, victims) -> tuple[float, float]:
    """(free kills the side to move takes now, its own units within two steps of a 1.5x enemy)."""
    kills = 0.0
    used = set()
    for vx, vy, vn in sorted(victims, key=lambda g: -g[2]):
        for i, (ax, ay, an) in enumerate(attackers):
            if i not in used and an >= MONSTER_RATIO * vn and _d(ax, ay, vx, vy) <= 1:
                kills += vn
                used.add(i)
                break
    exposed = 0.0
    for ax, ay, an in attackers:
        for vx, vy, vn in victims:
            if vn >= MONSTER_RATIO * an and _d(ax, ay, vx, vy) <= 2:
                exposed += an
                break
    return kills, exposed


def prey(groups, enemies, gamma: float) -> float:
    """The units of `groups` an enemy group 1.5x their size could hunt down, each group
    discounted by gamma**(d - 1), d the distance to its nearest such hunter."""
    total = 0.0
    for x, y, n in groups:
        near = min((_d(x, y, ex, ey) for ex, ey, en in enemies if en >= MONSTER_RATIO * n), default=FAR)
        if near < FAR:
            total += n * gamma ** (near - 1)
    return total


def endgame(state: State) -> bool:
    """No camp is left that either side could take, even with all its groups merged."""
    most = max(state.population(Species.VAMPIRES), state.population(Species.WEREWOLVES))
    return all(c > most for _, _, c in state.humans)


def hunted(table: list[list[int]], cols: int, hunters, prey, gamma: float, left: int) -> float:
    """The prey's units the hunters catch, each group discounted by gamma**moves its soonest
    catcher (a hunter 1.5x its size) needs, if within `left` moves (pursuit's `table`: the
    hunters' or the prey's turn)."""
    total = 0.0
    for px, py, pn in prey:
        row = py * cols + px
        best = FAR
        for hx, hy, hn in hunters:
            if hn >= MONSTER_RATIO * pn:
                m = table[hy * cols + hx][row]
                if m < best:
                    best = m
        if best <= left:
            total += pn * gamma ** best
    return total


# -- move generation --------------------------------------------------------------------------


class _Board:
    """Per-node lookups for move generation."""

    __slots__ = ("state", "side", "cells", "ours", "enemies", "humans", "_steps")

    def __init__(self, state: State) -> None:
        self.state = state
        self.side = state.to_move
        self.ours = state.groups(self.side)
        self.enemies = state.groups(self.side.other)
        self.humans = state.humans
        cells = {}
        for x, y, n in state.humans:
            cells[(x, y)] = (0, n)
        for x, y, n in self.ours:
            cells[(x, y)] = (1, n)
        for x, y, n in self.enemies:
            cells[(x, y)] = (2, n)
        self.cells = cells
        self._steps: dict = {}

    def danger(self, x: int, y: int, part: int) -> int:
        """How many enemy groups able to kill `part` units could reach (x, y) next ply."""
        return sum(1 for ex, ey, en in self.enemies if en >= MONSTER_RATIO * part and _d(ex, ey, x, y) <= 1)

    def _threat(self, x: int, y: int, part: int) -> float:
        """100 per enemy group able to kill `part` units on (x, y) next ply, and 10 per one that
        could attack them there at odds of 1 in 4 or better."""
        threat = 0.0
        for ex, ey, en in self.enemies:
            if -1 <= ex - x <= 1 and -1 <= ey - y <= 1 and 2 * en >= part:
                threat += 100.0 if en >= MONSTER_RATIO * part else 10.0
        return threat

    def step(self, x: int, y: int, part: int, tx: int, ty: int) -> tuple[int, int] | None:
        """The best next cell toward (tx, ty) for `part` units, or None."""
        key = (x, y, part, tx, ty)
        steps = self._steps
        if key in steps:
            return steps[key]
        d0 = _d(x, y, tx, ty)
        best, best_score = None, None
        if d0:
            cols, rows, cells = self.state.cols, self.state.rows, self.cells
            for dy in (-1, 0, 1):
                ny = y + dy
                if not 0 <= ny < rows or abs(ty - ny) >= d0:
                    continue
                for dx in (-1, 0, 1):
                    nx = x + dx
                    if not (dx or dy) or not 0 <= nx < cols or abs(tx - nx) >= d0:
                        continue
                    if abs(tx - nx) != d0 - 1 and abs(ty - ny) != d0 - 1:
                        continue
                    score = 0.0
                    kind, n = cells.get((nx, ny), (-1, 0))
                    if nx != tx or ny != ty:
                        if kind == 0:
                            score += n if part >= HUMAN_RATIO * n else -1000.0  # a camp on the way
                        elif kind == 2:
                            score += n if part >= MONSTER_RATIO * n else -1000.0
                    grown = part + n if kind == 0 and part >= HUMAN_RATIO * n else part  # converted there
                    score -= self._threat(nx, ny, grown)
                    score -= 0.01 * (abs(tx - nx) + abs(ty - ny))  # straight rather than zig-zag
                    if best_score is None or score > best_score:
                        best, best_score = (nx, ny), score
        steps[key] = best
        return best

    def flee(self, x: int, y: int, part: int, threats) -> list[tuple[int, int]]:
        """Neighbours that keep `part` units furthest from the groups that can kill them."""
        state = self.state
        scored = []
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                nx, ny = x + dx, y + dy
                if not (dx or dy) or not (0 <= nx < state.cols and 0 <= ny < state.rows):
                    continue
                kind, n = self.cells.get((nx, ny), (-1, 0))
                if kind == 2 or (kind == 0 and n > part):
                    continue
                gap = min(_d(nx, ny, tx, ty) for tx, ty, _ in threats)
                room = sum(1 for ax in (-1, 0, 1) for ay in (-1, 0, 1)
                           if 0 <= nx + ax < state.cols and 0 <= ny + ay < state.rows)
                scored.append((gap * 10 + room + (n if kind == 0 else 0), (nx, ny)))
        scored.sort(reverse=True)
        return [c for _, c in scored[:2]]


def _move(x: int, y: int, n: int, cell) -> Order:
    return () if cell is None else (Move(x, y, n, cell[0], cell[1]),)


def group_orders(b: _Board, group, gamma: float, may_split: bool, per_group: int) -> list[Order]:
    """What one group may do this ply, most promising first; () (stay) is last."""
    x, y, n = group
    orders: list[Order] = []
    kills = sorted((e for e in b.enemies if n >= MONSTER_RATIO * e[2]), key=lambda e: (_d(x, y, e[0], e[1]), -e[2]))
    for ex, ey, _ in kills[:2]:
        orders.append(_move(x, y, n, b.step(x, y, n, ex, ey)))
    threats = [e for e in b.enemies if e[2] >= MONSTER_RATIO * n and _d(x, y, e[0], e[1]) <= 3]
    camps = sorted(((c * gamma ** _d(x, y, hx, hy), (hx, hy, c)) for hx, hy, c in b.humans if c <= n), reverse=True)
    toward_camps: list[Order] = []
    for _, (hx, hy, _) in camps[:8]:  # the three best camps reached by different first steps
        order = _move(x, y, n, b.step(x, y, n, hx, hy))
        if order and order not in toward_camps:
            toward_camps.append(order)
            if len(toward_camps) == 3:
                break
    # a camp converted now is always a candidate, whatever the ranking says of farther ones
    now = sorted(((c, hx, hy) for hx, hy, c in b.humans if c <= n and _d(x, y, hx, hy) == 1), reverse=True)
    orders += [(Move(x, y, n, hx, hy),) for _, hx, hy in now[:2]]
    orders += toward_camps
    if threats:
        orders[:0] = [_move(x, y, n, cell) for cell in b.flee(x, y, n, threats)]
    friends = [g for g in b.ours if g != group]
    if friends:
        fx, fy, _ = min(friends, key=lambda g: (_d(x, y, g[0], g[1]), -g[2]))
        orders.append(_move(x, y, n, b.step(x, y, n, fx, fy)))
    if not b.humans and b.enemies and not kills:  # endgame: close in on the nearest enemy
        ex, ey, _ = min(b.enemies, key=lambda e: _d(x, y, e[0], e[1]))
        orders.append(_move(x, y, n, b.step(x, y, n, ex, ey)))
    if may_split and n >= 2:
        orders += splits(b, group, [h for _, h in camps[:5]])
    orders = list(dict.fromkeys(o for o in orders if o))
    if len(orders) < 3:  # few ideas (or none): every safe step is worth a look, so that no
        # side is searched as if it had to walk into the enemy (a MOV must move something)
        steps = [(b.danger(x + dx, y + dy, n), (Move(x, y, n, x + dx, y + dy),))
                 for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                 if (dx or dy) and 0 <= x + dx < b.state.cols and 0 <= y + dy < b.state.rows
                 and b.cells.get((x + dx, y + dy), (1, 0))[0] == 1]  # empty, or ours
        orders += [o for _, o in sorted(steps) if o not in orders]
    return orders[:per_group] + [()]


def splits(b: _Board, group, targets) -> list[Order]:
    """Split into two or three parts, each sent to its own camp with at least the camp's size;
    the spare units go with the largest part.  A part no bigger enemy can reach next ply."""
    x, y, n = group
    out: list[Order] = []
    for k in (2, 3):
        for combo in combinations(targets, k):
            need = sum(c for _, _, c in combo)
            if need > n:
                continue
            parts = [c for _, _, c in combo]
            parts[max(range(k), key=lambda i: parts[i])] += n - need
            moves, cells = [], set()
            for (hx, hy, _), part in zip(combo, parts, strict=True):
                cell = b.step(x, y, part, hx, hy)
                if cell is None or cell in cells or b.danger(cell[0], cell[1], part):
                    break
                cells.add(cell)
                moves.append(Move(x, y, part, cell[0], cell[1]))
            else:
                out.append(tuple(moves))
            if len(out) >= k:  # at most two splits in two, one in three
                break
    return out[:3]


def battles(b: _Board, odds: float) -> list[Order]:
    """Random battles against a neighbour at `odds` or better: taken when they are worth it,
    and seen as the opponent's option when it is the one to move (a side losing anyway gambles,
    and a group with nowhere to run attacks before it is attacked)."""
    return [(Move(x, y, n, ex, ey),) for x, y, n in b.ours for ex, ey, en in b.enemies
            if _d(x, y, ex, ey) == 1 and n < MONSTER_RATIO * en and win_probability(n, en) >= odds]


def gang_ups(b: _Board) -> list[Order]:
    """Two groups, neither able to kill an enemy alone, that can together: both onto it when both
    are next to it (a sure kill), else both to one free cell next to it (a merged group that
    threatens it next ply), the cell with the fewest enemies able to kill the merged group."""
    out: list[Order] = []
    cols, rows = b.state.cols, b.state.rows
    for ex, ey, en in b.enemies:
        need = MONSTER_RATIO * en
        near = [g for g in b.ours if g[2] < need and _d(g[0], g[1], ex, ey) <= 2]
        for (x1, y1, n1), (x2, y2, n2) in combinations(near, 2):
            if n1 + n2 < need:
                continue
            if _d(x1, y1, ex, ey) == 1 and _d(x2, y2, ex, ey) == 1:
                out.append((Move(x1, y1, n1, ex, ey), Move(x2, y2, n2, ex, ey)))
                continue
            meets = []
            for mx in range(max(0, ex - 1), min(cols, ex + 2)):
                for my in range(max(0, ey - 1), min(rows, ey + 2)):
                    kind, c = b.cells.get((mx, my), (1, 0))
                    if (kind == 1 or (kind == 0 and n1 + n2 >= c)) and _d(mx, my, x1, y1) <= 1 \
                            and _d(mx, my, x2, y2) <= 1:
                        meets.append((b.danger(mx, my, n1 + n2), (mx, my)))
            if meets:
                _, (mx, my) = min(meets)
                out.append(tuple(Move(x, y, n, mx, my) for x, y, n in ((x1, y1, n1), (x2, y2, n2))
                                 if (x, y) != (mx, my)))
    return out


# -- the model search.minimax plays on ----------------------------------------------------------


class PlannerModel:
    def __init__(self, me: Species, root: State, params: "Planner") -> None:
        self.me = me
        # What is at stake is measured once, at the root: a battle lost in the search then costs
        # the units it destroys, not a share of what is left (a 2-1 lead after losing 34 units
        # is not worth the 36-10 lead it came from).
        self.root_total = root.population(me) + root.population(me.other) + sum(h[2] for h in root.humans)
        self.p = params
        self.root_ply = root.ply
        self.hunt = pursuit.lists(root.rows, root.cols) if params.hunt and endgame(root) and \
            root.rows * root.cols <= PURSUIT_CELLS else None
        # race() takes a grown side's claim relative to `claim`, which multiplies the whole race
        grown = (params.gamma if params.grown_gamma is None else params.grown_gamma,
                 params.claim if params.grown_claim is None else params.grown_claim)
        self.grown = None if grown == (params.gamma, params.claim) else (grown[0], grown[1] / params.claim)

    def actions(self, state: State) -> list[Order]:
        b = _Board(state)
        p = self.p
        may_split = len(b.ours) < p.max_groups
        groups = sorted(b.ours, key=lambda g: -g[2])
        per_group = [group_orders(b, g, p.order_gamma, may_split, p.per_group) for g in groups]
        width = p.width if state.ply == self.root_ply else max(8, p.width // 2)
        actions = combine(per_group, width)
        # battles and ganging up, whatever the product of per-group orders kept or paired: the
        # other groups play their first order
        for decisive in battles(b, p.odds) + gang_ups(b):
            busy = {(m[0], m[1]) for m in decisive} | {(m[3], m[4]) for m in decisive}
            rest = [orders for g, orders in zip(groups, per_group, strict=True) if g[:2] not in busy]
            actions[1:1] = combine([[decisive], *rest], 1) or [decisive]
        actions = [a for a in dict.fromkeys(actions) if fits(state, a)]
        return actions or [m for m in state.legal_moves()]

    def outcomes(self, state: State, action: Order):
        return battle_outcomes(state, action)

    def is_terminal(self, state: State) -> bool:
        return state.is_terminal()

    def maximizing(self, state: State) -> bool:
        return state.to_move == self.me

    def key(self, state: State):
        return state.key() + (state.ply >= state.max_plies - 8 and state.ply,)

    def bound(self, state: State) -> float:
        return 3.0  # loose: values stay well inside it (risk prices chance nodes without pruning)

    def evaluate(self, state: State) -> float:
        me = self.me
        ours, theirs = state.groups(me), state.groups(me.other)
        po = sum(g[2] for g in ours)
        pt = sum(g[2] for g in theirs)
        humans = sum(h[2] for h in state.humans)
        total = po + pt + humans or 1
        if state.is_terminal():
            if po == pt and ours and theirs:
                return 0.0
            margin = 0.05 * abs(po - pt) / total
            if po > pt:  # a win sooner is worth a little more (a loss later is no better)
                return 1.0 + margin + 0.05 * (1 - state.ply / state.max_plies)
            return -1.0 - margin
        mine_first = state.to_move == me
        left = state.max_plies - state.ply
        left_mine = (left + (1 if mine_first else 0)) // 2
        left_theirs = (left + (0 if mine_first else 1)) // 2
        # A short race: no more camps than both sides' groups convert at once.  With more, a
        # camp converted sooner compounds (a bigger army splits and converts more at once), and
        # the steep discount pays for it (docs/benchmarks/twilight.md, "A race that discounts
        # only while growth matters").
        grown = self.grown if len(state.humans) <= 2 * self.p.max_groups else None
        gm, gt = race(state.humans, ours, theirs, mine_first, self.p.gamma, left_mine, left_theirs, grown)
        if self.hunt is not None:
            on_move, waiting = self.hunt
            cols, gamma = state.cols, self.p.gamma
            tact = hunted(on_move if mine_first else waiting, cols, ours, theirs, gamma, left_mine) - \
                hunted(waiting if mine_first else on_move, cols, theirs, ours, gamma, left_theirs)
        elif mine_first:
            kills, exposed = tactics(ours, theirs)
            tact = kills - 0.25 * exposed
        else:
            kills, exposed = tactics(theirs, ours)
            tact = -kills + 0.25 * exposed
        if self.p.prey and 10 * humans < po + pt:  # late: our groups' safety, not the race
            tact -= self.p.prey * prey(ours, theirs, self.p.gamma)
        diff = po - pt + self.p.claim * (gm - gt) + tact
        # What is at stake: a quarter of the armies and humans at the root; a lead counts for
        # more as the end comes near (the last 60 plies).
        scale = self.p.scale * max(2.0, 0.25 * self.root_total) * max(0.1, min(1.0, left / 60))
        return math.tanh(diff / scale) + 0.05 * diff / total

    def risk(self, state: State, values: list[tuple[float, float]]) -> float:
        """A random battle is worth its expected value to us less some standard deviations,
        whoever starts it: `risk` for ours (we gamble only when the alternative is worse),
        `their_risk` for the opponent's (we keep out of reach of a gamble that would make the
        game a coin flip).  Theirs costs a little less, so a coin flip that cannot be avoided
        is left to the opponent to start."""
        mean = sum(p * v for p, v in values)
        premium = self.p.risk if state.to_move == self.me else self.p.their_risk
        return mean - premium * math.sqrt(max(0.0, sum(p * (v - mean) ** 2 for p, v in values)))


@dataclass(frozen=True)
class Planner:
    """Plays for the win: race evaluation, risk-aware chance nodes, macro move generation."""

    max_depth: int = 20
    gamma: float = 0.85  # the evaluation: a camp d moves away is worth gamma**d of its size
    order_gamma: float = 0.85  # move generation: each group heads first for the camps of most count * order_gamma**d
    max_groups: int = 4  # no more splits once the side has this many groups
    width: int = 40  # joint actions at the root (half that deeper)
    per_group: int = 7  # orders per group, besides staying
    scale: float = 1.0  # larger: closer to maximising the expected difference; smaller: more careful
    risk: float = 0.3  # a random battle we start costs us this many standard deviations of its outcome
    their_risk: float = 0.25  # and one the opponent starts, this many
    claim: float = 0.75  # a human claimed (reached first) counts this much of a converted one
    grown_gamma: float | None = 0.98  # gamma and claim (None: the same) in a short race, for a side no
    grown_claim: float | None = 1.0  # camp is bigger than: converting sooner does not convert more
    odds: float = 0.0  # the lowest chance of winning of a random battle either side is seen to start
    hunt: bool = False  # the endgame's pursuit (issue 30; off until a sequential test accepts it)
    duel: bool = True  # one group a side in the endgame: the exact move (bots.twilight.showdown)
    prey: float = 0.0  # late in a game, our groups a 1.5x enemy could hunt down count this much against us

    def __post_init__(self) -> None:
        if not all(0 < g <= 1 for g in (self.gamma, self.order_gamma,
                                      1 if self.grown_gamma is None else self.grown_gamma)):
            raise ValueError("gamma, order_gamma and grown_gamma must be in (0, 1]")
        if not self.claim > 0 or not (self.grown_claim is None or self.grown_claim >= 0):
            raise ValueError("claim must be > 0 and grown_claim >= 0")
        for name in ("max_depth", "max_groups", "width", "per_group"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not self.scale > 0 or not self.risk >= 0 or not self.their_risk >= 0 or not self.prey >= 0:
            raise ValueError("scale must be > 0, risk, their_risk and prey >= 0")
        if not 0 <= self.odds <= 1:
            raise ValueError("odds must be in [0, 1]")

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        if self.duel and showdown.duel(state):
            started = time.monotonic()
            choice = showdown.solve(state, budget.start + budget.seconds / 2)
            if choice is not None:
                return SearchResult((choice.move,), 2 * choice.value - 1, state.max_plies - state.ply, 0,
                                    time.monotonic() - started)
        return search(state, PlannerModel(state.to_move, state, self), budget, self.max_depth, partial=True)
