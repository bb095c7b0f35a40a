"""Dodo (Mark Steere, 2021) on the gnd hexagon: the immutable state and the search position.

Each turn the mover steps one of its checkers to an empty cell straight or diagonally
forward: red by (1,1), (1,0), (0,1), blue by the opposites.  No captures, no passing.
A player with no legal move at the start of its turn WINS (docs/protocols/gnd.md section 9.2).
"""

from __future__ import annotations

import random

from protocol.errors import IllegalMove

from ..gnd.hexagon import BLUE, DIRECTIONS, RED, Cell, HexState, as_cell, bits, expected_moves, grid

FORWARD = {RED: ((1, 1), (1, 0), (0, 1)), BLUE: ((-1, -1), (-1, 0), (0, -1))}
Move = tuple[Cell, Cell]  # (from, to)


def _shifts(size: int, player: int) -> tuple[int, ...]:
    g = grid(size)
    return tuple(g.shifts[DIRECTIONS.index(d)] for d in FORWARD[player])


def mobility(state: HexState, player: int) -> int:
    g = state.grid
    own = state.stones(player)
    empty = state.empty
    return sum((g.shift(own, s) & empty).bit_count() for s in _shifts(state.size, player))


class State(HexState):
    """A Dodo position (immutable).  Moves are (from, to) pairs of cells."""

    def legal_moves(self) -> list[Move]:
        g = self.grid
        empty = self.empty
        own = self.stones(self.to_move)
        out = []
        for s in _shifts(self.size, self.to_move):
            for t in bits(g.shift(own, s) & empty):
                out.append((g.cell_at[t - s], g.cell_at[t]))
        return out

    def check(self, move: Move) -> None:
        """Raise IllegalMove naming the reason if `move` is not legal now."""
        try:
            a, b = (as_cell(c) for c in move)
        except (TypeError, ValueError):
            a = b = None
        if a is None or b is None:
            raise IllegalMove(f"{move!r} is not a pair of cells")
        g = self.grid
        for c in (a, b):
            if c not in g.index:
                raise IllegalMove(f"{c} is not on the board")
        if self.at(a) != self.to_move:
            raise IllegalMove(f"{a} does not hold a checker of player {self.to_move}")
        if self.at(b):
            raise IllegalMove(f"{b} is occupied")
        if (b[0] - a[0], b[1] - a[1]) not in FORWARD[self.to_move]:
            raise IllegalMove(f"{a} -> {b} is not one step forward for player {self.to_move}")

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except IllegalMove:
            return False
        return True

    def play(self, move: Move) -> State:
        self.check(move)
        g = self.grid
        flip = (1 << g.index[as_cell(move[0])]) | (1 << g.index[as_cell(move[1])])
        if self.to_move == RED:
            return State(self.size, self.red ^ flip, self.blue, BLUE)
        return State(self.size, self.red, self.blue ^ flip, RED)

    def is_terminal(self) -> bool:
        return mobility(self, self.to_move) == 0

    def winner(self) -> int | None:
        """None while the game runs; else the side to move, which has no move and so wins."""
        return self.to_move if self.is_terminal() else None

    def key(self) -> tuple:
        return (self.size, self.red, self.blue, self.to_move)

    def expected_moves(self) -> float:
        """How many more moves the side to move should expect to make (for the clock): half
        the mean length of a few random playouts, which track searched games closely."""
        return expected_moves(Position(self))


LAYOUTS: tuple[str, ...] = ("gnd", "steere")  # the starting layouts `start` knows, the first the default


def start(size: int, layout: str = "gnd") -> State:
    """A starting position for the local server: never used as a client (the server sends it).

    "gnd": the gnd server before 1.0.2 (docs/protocols/gnd.md section 9.3): red holds
    q + r <= -3, plus on size 5 the three central cells of q + r = -2; "steere": the rule
    sheet's figure (size 4, q + r <= -3 plus the central line), extended to other sizes the
    same way.  Blue holds the point mirror.  Size 3 uses q + r <= -2.
    """
    g = grid(size)
    if layout not in LAYOUTS:
        raise ValueError(f"unknown Dodo layout {layout!r} (known: {', '.join(LAYOUTS)})")
    limit = -2 if size == 3 else -3
    extra = ((-2, 0), (-1, -1), (0, -2)) if layout == "steere" or (layout == "gnd" and size == 5) else ()
    red = [c for c in g.cells if c[0] + c[1] <= limit] + [c for c in extra if c in g.index]
    cells = {c: RED for c in red}
    cells.update({(-q, -r): BLUE for q, r in red})
    return State.from_cells(size, cells, RED)


class Position:
    """The mutable position a search plays on: make/undo and keys folding the q <-> r mirror.

    A move is the int (from << 10) | to over bitboard indices.  Dodo's directions make only
    the reflection q <-> r a symmetry that keeps colours (docs/protocols/gnd.md section 7), so
    the key is the smaller of two Zobrist keys.
    """

    WIN_FOR_STUCK = 1  # the side to move with no legal move has won

    def __init__(self, state: HexState) -> None:
        g = self.g = state.grid
        self.to_move = state.to_move
        self.stones = [0, state.red, state.blue]
        self.dirs = {p: _shifts(state.size, p) for p in (RED, BLUE)}
        mirror = {g.index[c]: g.index[(c[1], c[0])] for c in g.cells}
        self.sym = next(k for k, t in enumerate(g.symmetries) if t == mirror)
        self.zs = {i: ((g.zobrist[i][0], g.zobrist[mirror[i]][0]), (g.zobrist[i][1], g.zobrist[mirror[i]][1]))
                   for i in g.index.values()}
        k0 = k1 = 0
        for p in (RED, BLUE):
            for i in bits(self.stones[p]):
                a, b = self.zs[i][p - 1]
                k0, k1 = k0 ^ a, k1 ^ b
        self.keys = (k0, k1)
        self.history: list = []

    def state(self) -> State:
        return State(self.g.size, self.stones[RED], self.stones[BLUE], self.to_move)

    def moves(self) -> list[int]:
        g = self.g
        p = self.to_move
        own = self.stones[p]
        empty = g.valid & ~(self.stones[RED] | self.stones[BLUE])
        out = []
        for s in self.dirs[p]:
            for t in bits(g.shift(own, s) & empty):
                out.append((t - s) << 10 | t)
        return out

    def play(self, m: int) -> None:
        p = self.to_move
        a, b = m >> 10, m & 1023
        self.history.append((m, self.keys))
        self.stones[p] ^= (1 << a) | (1 << b)
        za, zb = self.zs[a][p - 1], self.zs[b][p - 1]
        k0, k1 = self.keys
        self.keys = (k0 ^ za[0] ^ zb[0], k1 ^ za[1] ^ zb[1])
        self.to_move = 3 - p

    def undo(self) -> None:
        m, self.keys = self.history.pop()
        p = self.to_move = 3 - self.to_move
        self.stones[p] ^= (1 << (m >> 10)) | (1 << (m & 1023))

    def key(self) -> int:
        return min(self.keys) ^ self.g.base_key ^ (self.g.side_key if self.to_move == BLUE else 0)

    def exact_key(self) -> int:
        """A key that tells symmetric images apart (for tables that store moves)."""
        return self.keys[0] ^ self.g.base_key ^ (self.g.side_key if self.to_move == BLUE else 0)

    def _mobility(self, p: int) -> int:
        g = self.g
        own = self.stones[p]
        empty = g.valid & ~(self.stones[RED] | self.stones[BLUE])
        return sum((g.shift(own, s) & empty).bit_count() for s in self.dirs[p])

    def evaluate(self) -> float:
        """Heuristic value for the side to move in (-1, 1): fewer moves of our own is better."""
        me, them = self._mobility(self.to_move), self._mobility(3 - self.to_move)
        return (them - me) / (them + me + 1.0)

    def playout(self, rng: random.Random) -> int:
        """Play uniformly random legal moves to the end (the position is unchanged); the winner.
        `playout_plies` is then the length of that playout."""
        g = self.g
        valid = g.valid
        stones = self.stones[:]
        p = self.to_move
        dirs = self.dirs
        plies = 0
        while True:
            own = stones[p]
            empty = valid & ~(stones[RED] | stones[BLUE])
            targets = []
            total = 0
            for s in dirs[p]:
                d = ((own << s) if s > 0 else (own >> -s)) & empty
                c = d.bit_count()
                if c:
                    targets.append((s, d, c))
                    total += c
            if not total:
                self.playout_plies = plies
                return p
            plies += 1
            k = rng.randrange(total)
            for s, d, c in targets:  # noqa: B007  (s and d are read after the break)
                if k < c:
                    break
                k -= c
            for _ in range(k):
                d &= d - 1
            t = (d & -d).bit_length() - 1
            stones[p] ^= (1 << t) | (1 << (t - s))
            p = 3 - p

    def move_of(self, m: int) -> Move:
        return (self.g.cell_at[m >> 10], self.g.cell_at[m & 1023])

    def index_of(self, move: Move) -> int:
        return self.g.index[tuple(move[0])] << 10 | self.g.index[tuple(move[1])]


def book_move(state: State, previous: State | None = None) -> None:
    """Dodo has no known winning line (docs/protocols/gnd.md section 10.3)."""
    return None
