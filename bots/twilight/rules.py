"""Vampires vs Werewolves: immutable state and the official server's rules.

Reference: docs/protocols/twilight.md sections 3, 7 and 8 (coordinates, validation,
resolution).  Coordinates are (x, y) = (column, row).  A state holds three sorted
tuples of groups `(x, y, count)`, one per population, so it is hashable, compares by
value and pickles in microseconds.

Resolution follows the official server: moves are grouped by target in order of first
appearance; an arrival converts humans at >= 1x, kills monsters at >= 1.5x, and
otherwise fights a random battle in which the attacker wins with probability
P = E1/(2*E2) if E1 < E2, 0.5 if equal, E1/E2 - 0.5 above.  A winner's units (and,
against humans, the humans) survive one by one with probability P; when the attacker
loses, each defender survives with probability 1 - P.
"""

from __future__ import annotations

import math
import random
from enum import IntEnum
from itertools import product
from typing import Iterable, NamedTuple, Sequence

from protocol.errors import IllegalMove
from protocol.twilight import Cell, Move


class Species(IntEnum):
    VAMPIRES = 0
    WEREWOLVES = 1

    @property
    def other(self) -> "Species":
        return Species(1 - self)


HUMAN_RATIO = 1.0  # an arrival converts humans when E1 >= 1.0 * E2
MONSTER_RATIO = 1.5  # an arrival kills monsters when E1 >= 1.5 * E2
MAX_UNITS = 255  # every count travels as one byte


Group = tuple[int, int, int]  # (x, y, count)
Groups = tuple[Group, ...]


class State(NamedTuple):
    """One position: who is where, whose ply it is, and how many plies were played."""

    rows: int
    cols: int
    humans: Groups
    vampires: Groups
    werewolves: Groups
    to_move: Species = Species.VAMPIRES
    ply: int = 0
    max_plies: int = 200

    # -- views ----------------------------------------------------------------------
    def groups(self, species: Species) -> Groups:
        return self.vampires if species == Species.VAMPIRES else self.werewolves

    def population(self, species: Species) -> int:
        return sum(g[2] for g in self.groups(species))

    def cells(self) -> tuple[Cell, ...]:
        """Every non-empty cell, row-major, as the MAP frame lists them."""
        out = [Cell(x, y, n, 0, 0) for x, y, n in self.humans]
        out += [Cell(x, y, 0, n, 0) for x, y, n in self.vampires]
        out += [Cell(x, y, 0, 0, n) for x, y, n in self.werewolves]
        return tuple(sorted(out, key=lambda c: (c.y, c.x)))

    def cell(self, x: int, y: int) -> Cell:
        for kind, groups in enumerate((self.humans, self.vampires, self.werewolves)):
            for gx, gy, n in groups:
                if gx == x and gy == y:
                    counts = [0, 0, 0]
                    counts[kind] = n
                    return Cell(x, y, *counts)
        return Cell(x, y, 0, 0, 0)

    def key(self) -> tuple:
        """Hashable identity for transposition tables (the ply counter is left out)."""
        return (self.humans, self.vampires, self.werewolves, self.to_move)

    # -- game status ------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return not self.vampires or not self.werewolves or self.ply >= self.max_plies

    def winner(self) -> Species | None:
        """The winner of a finished game (None for a draw or a game still running)."""
        if not self.vampires and self.werewolves:
            return Species.WEREWOLVES
        if not self.werewolves and self.vampires:
            return Species.VAMPIRES
        if self.ply >= self.max_plies:
            return self.leader()
        return None

    def leader(self) -> Species | None:
        """The side with more units (None when equal): who wins at the ply or time cap."""
        v, w = self.population(Species.VAMPIRES), self.population(Species.WEREWOLVES)
        return None if v == w else Species.VAMPIRES if v > w else Species.WEREWOLVES

    def survivor(self) -> Species | None:
        """The winner by elimination as the official server decides it (it looks at the
        vampires first: none left loses, even when no werewolves are left either); None
        while both species remain."""
        if not self.vampires:
            return Species.WEREWOLVES
        if not self.werewolves:
            return Species.VAMPIRES
        return None

    def result(self, player: Species) -> float:
        """1 for a win, 0 for a loss, 0.5 for a draw, from `player`'s side."""
        winner = self.winner()
        return 0.5 if winner is None else float(winner == player)

    # -- moves ------------------------------------------------------------------------
    def legal_moves(self) -> list[tuple[Move, ...]]:
        """Single-step moves of each group of the player to move: all of it, or as much
        as fits where a whole move would take a cell past 255 units.

        The full move space (any split of any group, in any combination) is
        combinatorial; players generate the parts of it they need and check them with
        `validate`.  This list is never empty while the player has units.
        """
        out = []
        for x, y, n in self.groups(self.to_move):
            for tx, ty in neighbours(x, y, self.cols, self.rows):
                target = self.cell(tx, ty)
                room = MAX_UNITS - target[3 + self.to_move] - target.humans
                if room > 0:
                    out.append((Move(x, y, min(n, room), tx, ty),))
        return out

    def play(self, moves: Sequence[Move], rng: random.Random | None = None) -> "State":
        """The state after the player to move sends `moves` (validated first).

        With `rng` random battles are sampled as the server samples them; without it
        the most probable of the search outcomes is taken.
        """
        validate(self, self.to_move, moves)
        if rng is not None:
            return resolve(self, moves, rng)[0]
        return max(outcomes(self, moves), key=lambda o: o[0])[1]

    def outcomes(self, moves: Sequence[Move]) -> list[tuple[float, "State"]]:
        validate(self, self.to_move, moves)
        return outcomes(self, moves)

    def skip(self) -> "State":
        """The state after the player to move timed out (the ply passes)."""
        return self._replace(to_move=self.to_move.other, ply=self.ply + 1)


def neighbours(x: int, y: int, cols: int, rows: int) -> list[tuple[int, int]]:
    """The up to 8 cells at Chebyshev distance 1 inside the grid."""
    return [
        (x + dx, y + dy)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < cols and 0 <= y + dy < rows
    ]


def distance(ax: int, ay: int, bx: int, by: int) -> int:
    """Moves a group needs to go from one cell to another (Chebyshev distance)."""
    return max(abs(ax - bx), abs(ay - by))


def state_from_cells(
    rows: int, cols: int, cells: Iterable[Cell], to_move: Species = Species.VAMPIRES,
    ply: int = 0, max_plies: int = 200,
) -> State:
    """Build a state from MAP-style entries; later entries for a cell replace earlier ones."""
    contents: dict[tuple[int, int], Cell] = {}
    for c in cells:
        if not (0 <= c.x < cols and 0 <= c.y < rows):
            raise ValueError(f"cell ({c.x},{c.y}) lies outside the {rows}x{cols} grid")
        if sum(1 for n in c[2:] if n) > 1:
            raise ValueError(f"cell ({c.x},{c.y}) holds two populations: {tuple(c)}")
        contents[(c.x, c.y)] = c
    return _assemble(rows, cols, contents.values(), to_move, ply, max_plies)


def _assemble(rows, cols, cells, to_move, ply, max_plies) -> State:
    pops: list[list[Group]] = [[], [], []]
    for c in cells:
        for kind in range(3):
            if c[2 + kind]:
                pops[kind].append((c.x, c.y, c[2 + kind]))
    return State(rows, cols, *(tuple(sorted(p)) for p in pops), to_move, ply, max_plies)


def apply_update(state: State, cells: Iterable[Cell], to_move: Species, ply: int) -> State:
    """Overwrite the listed cells (an UPD frame); everything else stays."""
    contents = {(c.x, c.y): c for c in state.cells()}
    for c in cells:
        if not (0 <= c.x < state.cols and 0 <= c.y < state.rows):
            raise ValueError(f"update for cell ({c.x},{c.y}) outside the grid")
        if sum(1 for n in c[2:] if n) > 1:
            raise ValueError(f"update gives cell ({c.x},{c.y}) two populations: {tuple(c)}")
        contents[(c.x, c.y)] = c
    return _assemble(state.rows, state.cols, contents.values(), to_move, ply, state.max_plies)


# -- validation ---------------------------------------------------------------------------


def validate(state: State, species: Species, moves: Sequence[Move]) -> None:
    """Raise IllegalMove with the reason if the official server would reject `moves`."""
    if not isinstance(moves, (tuple, list)) or not all(isinstance(m, (tuple, list)) for m in moves):
        raise IllegalMove(f"malformed MOV {moves!r:.80}: a sequence of (x, y, count, x', y') moves", "malformed")
    if not moves:
        raise IllegalMove("no move: a MOV must carry at least one move (stayed static)")
    own = {(x, y): n for x, y, n in state.groups(species)}
    sources: dict[tuple[int, int], int] = {}
    targets: dict[tuple[int, int], int] = {}
    for m in moves:
        if len(m) != 5 or not all(isinstance(v, int) for v in m):
            raise IllegalMove(f"malformed move {m!r:.80}", "malformed")
        xf, yf, count, xt, yt = m
        for x, y in ((xf, yf), (xt, yt)):
            if not (0 <= x < state.cols and 0 <= y < state.rows):
                raise IllegalMove(f"cell ({x},{y}) is outside the {state.rows}x{state.cols} grid")
        if count <= 0:
            raise IllegalMove(f"move {tuple(m)} sends {count} units; at least 1 is needed")
        if (xf, yf) not in own:
            raise IllegalMove(f"source ({xf},{yf}) holds no {species.name.lower()}")
        if count > own[(xf, yf)]:
            raise IllegalMove(f"move {tuple(m)} sends {count} units from a cell holding {own[(xf, yf)]}")
        if abs(xf - xt) > 1 or abs(yf - yt) > 1:
            raise IllegalMove(f"move {tuple(m)} is not to an adjacent cell")
        sources[(xf, yf)] = sources.get((xf, yf), 0) + count
        targets[(xt, yt)] = targets.get((xt, yt), 0) + count
    both = sources.keys() & targets.keys()
    if both:
        raise IllegalMove(f"cell {sorted(both)[0]} is both a source and a target")
    for cell, total in sources.items():
        if total > own[cell]:
            raise IllegalMove(f"{total} units leave {cell}, which holds {own[cell]}")
    for (x, y), total in targets.items():
        if total > MAX_UNITS:
            raise IllegalMove(f"{total} units move into ({x},{y}); at most {MAX_UNITS} fit in a byte")
        if total + own.get((x, y), 0) > MAX_UNITS:
            raise IllegalMove(f"merging into ({x},{y}) would hold {total + own[(x, y)]} > {MAX_UNITS} units")


def is_legal(state: State, species: Species, moves: Sequence[Move]) -> bool:
    try:
        validate(state, species, moves)
    except IllegalMove:
        return False
    return True


# -- resolution ---------------------------------------------------------------------------


def stored(count: int) -> int:
    """A cell's count as the official server stores it: one byte, so above 255 it wraps.

    Verified for merges (docs/protocols/twilight.md section 7), inferred for conversions;
    validation forbids the merges, and our players never convert past 255 (see tactics.fits).
    """
    return count & 0xFF


def win_probability(attackers: int, defenders: int) -> float:
    """P(attacker wins) of a random battle (docs/protocols/twilight.md section 8.2)."""
    if attackers == defenders:
        return 0.5
    if attackers < defenders:
        return attackers / (2 * defenders)
    return min(1.0, attackers / defenders - 0.5)


def _arrivals(moves: Sequence[Move]) -> tuple[dict, dict]:
    """Units leaving each source and arriving at each target (targets in first-seen order)."""
    leaving: dict[tuple[int, int], int] = {}
    arriving: dict[tuple[int, int], int] = {}
    for xf, yf, count, xt, yt in moves:
        leaving[(xf, yf)] = leaving.get((xf, yf), 0) + count
        arriving[(xt, yt)] = arriving.get((xt, yt), 0) + count
    return leaving, arriving


def _board(state: State) -> dict[tuple[int, int], list[int]]:
    """cell -> [kind, count] with kind 0 humans, 1 vampires, 2 werewolves."""
    board = {}
    for kind, groups in enumerate((state.humans, state.vampires, state.werewolves)):
        for x, y, n in groups:
            board[(x, y)] = [kind, n]
    return board


def _finish(state: State, board: dict) -> State:
    pops: list[list[Group]] = [[], [], []]
    for (x, y), (kind, n) in board.items():
        if n:
            pops[kind].append((x, y, n))
    return State(state.rows, state.cols, *(tuple(sorted(p)) for p in pops),
                 state.to_move.other, state.ply + 1, state.max_plies)


def _battles(state: State, moves: Sequence[Move]):
    """Apply departures and deterministic arrivals; list the random battles left.

    Returns (board, battles) where each battle is (cell, attackers, defender_kind,
    defenders).  The target cell of a battle is left holding the defenders.
    """
    me = 1 + state.to_move
    board = _board(state)
    leaving, arriving = _arrivals(moves)
    for cell, count in leaving.items():
        board[cell][1] -= count
    battles = []
    for cell, e1 in arriving.items():
        kind, e2 = board.get(cell, (me, 0))
        if kind == me or e2 == 0:
            board[cell] = [me, e2 + e1 if kind == me else e1]
        elif kind == 0 and e1 >= HUMAN_RATIO * e2:
            board[cell] = [me, stored(e1 + e2)]
        elif kind != 0 and e1 >= MONSTER_RATIO * e2:
            board[cell] = [me, e1]
        else:
            battles.append((cell, e1, kind, e2))
    return board, battles


def resolve(state: State, moves: Sequence[Move], rng: random.Random) -> tuple[State, set]:
    """Apply already validated `moves` with sampled battles, as the server does.

    Returns the new state and the set of cells touched (sources and targets).
    """
    me = 1 + state.to_move
    board, battles = _battles(state, moves)
    for cell, e1, kind, e2 in battles:
        p = win_probability(e1, e2)
        if rng.random() < p:
            survivors = sum(rng.random() < p for _ in range(e1))
            if kind == 0:
                survivors += sum(rng.random() < p for _ in range(e2))
            board[cell] = [me, stored(survivors)]
        else:
            board[cell] = [kind, sum(rng.random() < 1 - p for _ in range(e2))]
    touched = {(m[0], m[1]) for m in moves} | {(m[3], m[4]) for m in moves}
    return _finish(state, board), touched


def battle_cells(state: State, moves: Sequence[Move]) -> list[tuple[int, int]]:
    """The cells where validated `moves` start a random battle (what a record must tell to
    replay them: the rest of a ply is decided by the rules)."""
    return [cell for cell, *_ in _battles(state, moves)[1]]


def settle(state: State, moves: Sequence[Move], results: Iterable[Cell]) -> State:
    """The state after validated `moves` whose random battles ended as `results` (one cell
    per battle, as the server left it): how a recorded game is replayed.  IllegalMove if the
    results do not name exactly the battle cells, or name an outcome no battle can have."""
    me = 1 + state.to_move
    board, battles = _battles(state, moves)
    given = {(c[0], c[1]): c for c in results}
    wanted = {cell for cell, *_ in battles}
    if set(given) != wanted:
        raise IllegalMove(f"battle results for cells {sorted(given)}, but the battles are at {sorted(wanted)}",
                          "battles")
    for cell, e1, kind, e2 in battles:
        counts = list(given[cell][2:])
        if sum(1 for n in counts if n) > 1 or any(n < 0 for n in counts):
            raise IllegalMove(f"battle result {tuple(given[cell])} holds two populations", "battles")
        winner = next((k for k, n in enumerate(counts) if n), kind)
        most = stored(e1 + (e2 if kind == 0 else 0)) if winner == me else e2 if winner == kind else -1
        if most < 0 or counts[winner] > most:
            raise IllegalMove(f"battle at {cell} ({e1} against {e2}) cannot end as {tuple(given[cell])}", "battles")
        board[cell] = [winner, counts[winner]]
    return _finish(state, board)


def _expected(x: float) -> int:
    return int(x + 0.5)


def outcomes(state: State, moves: Sequence[Move], decide=None) -> list[tuple[float, State]]:
    """Chance outcomes of already validated `moves`, for search.

    Each random battle has two outcomes: the attacker wins (probability P) with its
    expected survivors P*E1 (plus P*E2 converted humans), or loses (1 - P) leaving the
    expected (1 - P)*E2 defenders.  Several battles combine as independent events, and
    the probabilities sum to 1.  A `decide(e1, defender_kind, e2) -> bool` callback
    turns every battle into the one branch it names (a deterministic model of battles).
    """
    me = 1 + state.to_move
    board, battles = _battles(state, moves)
    if not battles:
        return [(1.0, _finish(state, board))]
    branches = []
    for cell, e1, kind, e2 in battles:
        p = win_probability(e1, e2)
        won = (p, cell, me, stored(_expected(p * (e1 + (e2 if kind == 0 else 0)))))
        lost = (1 - p, cell, kind, _expected((1 - p) * e2))
        if decide is None:
            branches.append((won, lost))
        else:
            branches.append(((1.0,) + (won if decide(e1, kind, e2) else lost)[1:],))
    out = []
    for combo in product(*branches):
        prob = 1.0
        for p, cell, kind, n in combo:
            prob *= p
            board[cell] = [kind, n]
        out.append((prob, _finish(state, board)))
    return out


def binomial_halves(n: int, p: float) -> tuple[int, int]:
    """Mean survivors in the lower and the upper half (by probability) of Binomial(n, p)."""
    if n == 0 or p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    lo_mass = lo_sum = 0.0
    hi_mass = hi_sum = 0.0
    acc = 0.0
    for k, q in enumerate(pmf):
        below = min(q, max(0.0, 0.5 - acc))  # the part of this mass inside the lower half
        lo_mass += below
        lo_sum += below * k
        hi_mass += q - below
        hi_sum += (q - below) * k
        acc += q
    return round(lo_sum / lo_mass) if lo_mass else 0, round(hi_sum / hi_mass) if hi_mass else n


def battle_outcomes(state: State, moves) -> list[tuple[float, State]]:
    """Chance outcomes of validated `moves`: four per random battle (won or lost, each at the
    mean of the lower and of the upper half of its survivors); two per battle when an
    action starts more than two battles, to keep the tree searchable."""
    me = 1 + state.to_move
    board, battles = _battles(state, moves)
    if not battles:
        return [(1.0, _finish(state, board))]
    fine = len(battles) <= 2
    branches = []
    for cell, e1, kind, e2 in battles:
        p = win_probability(e1, e2)
        won_n = e1 + (e2 if kind == 0 else 0)
        if fine:
            wl, wh = binomial_halves(won_n, p)
            ll, lh = binomial_halves(e2, 1 - p)
            branch = [(p / 2, cell, me, wl), (p / 2, cell, me, wh), ((1 - p) / 2, cell, kind, ll),
                      ((1 - p) / 2, cell, kind, lh)]
        else:
            branch = [(p, cell, me, round(p * won_n)), (1 - p, cell, kind, round((1 - p) * e2))]
        branches.append([b for b in branch if b[0] > 0])
    out = []
    combos: list[tuple[float, list]] = [(1.0, [])]
    for branch in branches:
        combos = [(q * b[0], chosen + [b]) for q, chosen in combos for b in branch]
    for q, chosen in combos:
        for _, cell, kind, n in chosen:
            board[cell] = [kind, min(n, MAX_UNITS)]
        out.append((q, _finish(state, board)))
    return out
