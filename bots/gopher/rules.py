"""Gopher (Mark Steere, 2021) on the gnd hexagon: the immutable state and the search position.

Red's first stone goes anywhere; every later stone must touch exactly one enemy stone
and no friendly one; the player to move with no legal placement loses
(docs/protocols/gnd.md section 9.1).
"""

from __future__ import annotations

import random

from protocol.errors import IllegalMove

from ..gnd.hexagon import BLUE, RED, Cell, HexState, as_cell, bits, expected_moves, grid


def legal_mask(state: HexState, player: int | None = None) -> int:
    """The cells where `player` (default: the side to move) may place, as a bitboard."""
    g = state.grid
    p = state.to_move if player is None else player
    own, opp = (state.red, state.blue) if p == RED else (state.blue, state.red)
    empty = g.valid & ~(own | opp)
    if not (own | opp):
        return empty  # the first stone goes anywhere
    near_own = once = twice = 0
    for s in g.shifts:
        near_own |= g.shift(own, s)
        x = g.shift(opp, s)
        twice |= once & x
        once |= x
    return empty & ~near_own & once & ~twice


class State(HexState):
    """A Gopher position (immutable).  Moves are cells (q, r)."""

    def legal_moves(self) -> list[Cell]:
        return self.grid.to_cells(legal_mask(self))

    def is_legal(self, cell: Cell) -> bool:
        g = self.grid
        cell = as_cell(cell)
        return cell in g.index and bool(legal_mask(self) >> g.index[cell] & 1)

    def check(self, cell: Cell) -> None:
        """Raise IllegalMove naming the reason if `cell` is not a legal placement now."""
        if self.is_legal(cell):
            return
        if as_cell(cell) is None:
            raise IllegalMove(f"{cell!r} is not a cell (q, r)")
        cell = as_cell(cell)
        if cell not in self.grid.index:
            raise IllegalMove(f"{cell} is not on the board")
        if self.at(cell):
            raise IllegalMove(f"{cell} is occupied")
        raise IllegalMove(f"{cell} must touch exactly one enemy stone and no friendly one")

    def play(self, cell: Cell) -> State:
        self.check(cell)
        bit = 1 << self.grid.index[as_cell(cell)]
        if self.to_move == RED:
            return State(self.size, self.red | bit, self.blue, BLUE)
        return State(self.size, self.red, self.blue | bit, RED)

    def is_terminal(self) -> bool:
        return not legal_mask(self)

    def winner(self) -> int | None:
        """None while the game runs; else the player who placed last (the side to move lost)."""
        return (3 - self.to_move) if self.is_terminal() else None

    def key(self) -> tuple:
        return (self.size, self.red, self.blue, self.to_move)

    def expected_moves(self) -> float:
        """How many more moves the side to move should expect to make (for the clock): half
        the mean length of a few random playouts, which track searched games closely."""
        return expected_moves(Position(self))


LAYOUTS: tuple[str, ...] = ()  # Gopher has one start, the empty board (Dodo has layouts)


def start(size: int, layout: str = "gnd") -> State:
    """The empty board of side `size`; `layout`, Dodo's choice of starting checkers (our server
    takes one for either gnd game), changes nothing here."""
    grid(size)  # checks the size
    return State(size, 0, 0, RED)


def _update_legal(legal: list, count: list, stones: list, neighbours: tuple, bit: int, p: int) -> None:
    """After p's stone lands on `bit` (already in `stones`): its neighbours' counts and both legal sets.

    Only the cell and its neighbours change: the cell is taken, its neighbours now touch a
    p stone (so p may not play there) and are open to the opponent iff this is their only
    p neighbour and they touch no opponent stone.
    """
    o = 3 - p
    cp, co = count[p], count[o]
    lp, lo = legal[p] & ~bit, legal[o] & ~bit
    occupied = stones[RED] | stones[BLUE]
    for n in neighbours:
        cp[n] += 1
        m = 1 << n
        lp &= ~m
        if not occupied & m and co[n] == 0 and cp[n] == 1:
            lo |= m
        else:
            lo &= ~m
    legal[p], legal[o] = lp, lo


class Position:
    """The mutable position a search plays on: make/undo, incremental legal moves, symmetric keys.

    Legal sets are kept as bitboards and updated from per-cell neighbour counts: a placement
    changes legality only at its own cell and its six neighbours (seed 004).  The key is the
    smallest of 12 Zobrist keys, one per symmetry of the hexagon, each updated with one XOR
    per placement, so the 12 images of a position share one table entry.
    """

    WIN_FOR_STUCK = -1  # the side to move with no legal move has lost

    def __init__(self, state: HexState) -> None:
        g = self.g = state.grid
        self.to_move = state.to_move
        self.stones = [0, state.red, state.blue]
        span = g.width * (2 * g.size - 1)
        self.count = [None, [0] * span, [0] * span]  # count[p][i]: p's stones next to cell i
        self.keys = [0] * 12
        self.zs = g.symmetric_zobrist
        for p in (RED, BLUE):
            for i in bits(self.stones[p]):
                for n in g.neighbours[i]:
                    self.count[p][n] += 1
                z = self.zs[i][p - 1]
                self.keys = [k ^ zz for k, zz in zip(self.keys, z, strict=True)]
        self.legal = [0, 0, 0]
        self._relegal()
        self.history: list = []

    def _relegal(self) -> None:
        for p in (RED, BLUE):
            self.legal[p] = legal_mask(HexState(self.g.size, self.stones[RED], self.stones[BLUE], p))

    def state(self) -> State:
        return State(self.g.size, self.stones[RED], self.stones[BLUE], self.to_move)

    def moves(self) -> list[int]:
        return list(bits(self.legal[self.to_move]))

    def play(self, i: int) -> None:
        p = self.to_move
        o = 3 - p
        legal = self.legal
        self.history.append((i, legal[RED], legal[BLUE], self.keys))
        first = not (self.stones[RED] | self.stones[BLUE])
        bit = 1 << i
        self.stones[p] |= bit
        z = self.zs[i][p - 1]
        self.keys = [k ^ zz for k, zz in zip(self.keys, z, strict=True)]
        _update_legal(legal, self.count, self.stones, self.g.neighbours[i], bit, p)
        self.to_move = o
        if first:
            self._relegal()

    def undo(self) -> None:
        i, lr, lb, self.keys = self.history.pop()
        o = self.to_move
        p = 3 - o
        self.stones[p] &= ~(1 << i)
        cp = self.count[p]
        for n in self.g.neighbours[i]:
            cp[n] -= 1
        self.legal[RED], self.legal[BLUE] = lr, lb
        self.to_move = p

    def key(self) -> int:
        return min(self.keys) ^ self.g.base_key ^ (self.g.side_key if self.to_move == BLUE else 0)

    def exact_key(self) -> int:
        """A key that tells symmetric images apart (for tables that store moves)."""
        return self.keys[0] ^ self.g.base_key ^ (self.g.side_key if self.to_move == BLUE else 0)

    def evaluate(self) -> float:
        """Heuristic value for the side to move in (-1, 1): mobility, counting moves only we can make."""
        mine, theirs = self.legal[self.to_move], self.legal[3 - self.to_move]
        a = (mine & ~theirs).bit_count()
        b = (theirs & ~mine).bit_count()
        shared = (mine & theirs).bit_count()
        return (a - b) / (a + b + 0.5 * shared + 1.0)

    def playout(self, rng: random.Random) -> int:
        """Play uniformly random legal moves to the end (the position is unchanged); the winner.
        `playout_plies` is then the length of that playout."""
        stones = self.stones[:]
        count = [None, self.count[RED][:], self.count[BLUE][:]]
        legal = self.legal[:]
        p = self.to_move
        nbrs = self.g.neighbours
        if not (stones[RED] | stones[BLUE]):  # never from the empty board: let search pick the opening
            if not legal[p]:
                self.playout_plies = 0
                return 3 - p
            return self._playout_slow(rng)
        plies = 0
        while True:
            lp = legal[p]
            if not lp:
                self.playout_plies = plies
                return 3 - p
            plies += 1
            k = rng.randrange(lp.bit_count())
            for _ in range(k):
                lp &= lp - 1
            bit = lp & -lp
            stones[p] |= bit
            _update_legal(legal, count, stones, nbrs[bit.bit_length() - 1], bit, p)
            p = 3 - p

    def _playout_slow(self, rng: random.Random) -> int:
        moves = self.moves()
        self.play(rng.choice(moves))
        try:
            return self.playout(rng)
        finally:
            self.playout_plies += 1
            self.undo()

    def move_of(self, i: int) -> Cell:
        return self.g.cell_at[i]

    def index_of(self, cell: Cell) -> int:
        return self.g.index[cell]


def edwards(state: State, previous: State | None = None) -> Cell | None:
    """Drew Edwards' winning strategy for Red on odd sizes, or None
    (docs/protocols/gnd.md section 10.1).

    Red opens in the centre; after each Blue stone b, whose red neighbour is r, Red plays
    b + (b - r).  Blue's last stone is found by comparing with `previous` (the position
    after our last move) when given, else as the one Blue stone whose extension is open.
    None when the strategy does not apply (even size, Blue, or a position it never reaches).
    """
    if state.size % 2 == 0 or state.to_move != RED:
        return None
    if not (state.red | state.blue):
        return (0, 0)
    g = state.grid
    if previous is not None and (previous.red == state.red and previous.blue & ~state.blue == 0):
        fresh = state.blue & ~previous.blue
    else:
        fresh = state.blue
    legal = legal_mask(state)
    options = set()
    for i in bits(fresh):
        b = g.cell_at[i]
        for n in g.neighbours[i]:
            if state.red >> n & 1:
                r = g.cell_at[n]
                t = (2 * b[0] - r[0], 2 * b[1] - r[1])
                if t in g.index and legal >> g.index[t] & 1:
                    options.add(t)
    return options.pop() if len(options) == 1 else None


# Red's first stone where the size is solved (docs/protocols/gnd.md section 10.2; checked by
# our solver in the tests).
OPENINGS = {3: (0, 0), 4: (-3, -3)}


def book_move(state: State, previous: State | None = None) -> Cell | None:
    """A move known to win, or None: the opening table, then Edwards' strategy on odd sizes."""
    if not (state.red | state.blue) and state.size in OPENINGS:
        return OPENINGS[state.size]
    return edwards(state, previous)
