"""Go rules: the immutable `State` that search, sessions and the GTP engine see.

Facts from docs/protocols/go.md section 2: stones with no liberty are captured (the mover's
captures first), suicide is illegal (a move that captures is never suicide), no move may
recreate an earlier whole-board position (positional superko), a pass is always legal, two
passes in a row end the game, and the score is bare area scoring (stones + empty regions
that touch one colour only; no dead-stone removal) minus komi for White.

Conventions
-----------
* Points are ints `row * size + col`, row 0 at the bottom and col 0 on the left, so GTP
  "A1" is 0 and, on 9x9, the points are exactly the course referee's flat ints (`9 * y + x`).
  `PASS = -1`.  Colours: `EMPTY = 0`, `BLACK = 1`, `WHITE = 2`; the opponent of c is 3 - c.
* Names: column letters A..Z without I, rows from 1 ("A1", "J9"), "PASS"
  (`point_name`, `parse_point`).
* Scores are from Black's side: black area - white area - komi.

Superko
-------
Each position's 64-bit Zobrist hash (fixed seed, one key per point and colour) is kept in
`State.ko_history` (the current position included).  A stone move whose resulting hash is in
the history is illegal.  Two rules are offered through `State.superko`:

* "positional" (default; CGOS, GNU Go --positional-superko): the hash is the board only.
* "goban": the course referee `Goban.py` (docs/protocols/go.md section 5.2) XORs the
  passer's pass key into its running hash at every pass, so a board seen before is forbidden
  only if both players' pass counts have the same parities as then.  `State.pass_offset`
  carries those pass keys.  Every move that is legal under "positional" is legal under
  "goban" too.

Simple ko (`State.ko`, the point an immediate recapture would take) is implied by superko;
it is kept because the kernel's playouts (bots/go/kernel.py) use it alone (no history
there) and because it is part of `key()`, which otherwise ignores the history, as
transposition tables usually do.

Searches and playouts run on the numba kernel's board (`bots.go.kernel.to_kernel(state)`);
its plain-Python reference, the mutable `Board`, lives with the tests (tests/go/oracle.py).
"""

from __future__ import annotations

import operator
from functools import cache, lru_cache
from typing import NamedTuple

from protocol.errors import IllegalMove
from search.zobrist import Keys

EMPTY, BLACK, WHITE = 0, 1, 2
PASS = -1
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # no I: 25 letters, hence the largest board
MIN_SIZE, MAX_SIZE = 2, 25
SUPERKO_RULES = ("positional", "goban")
ZOBRIST_SEED = 20240609
STONE_CHARS = {BLACK: "X", WHITE: "O", EMPTY: "."}
COLOUR_NAMES = {BLACK: "Black", WHITE: "White"}


# -- geometry and names ---------------------------------------------------------------------

class Geometry:
    """Neighbour tables and Zobrist keys for one board size (shared, read-only)."""

    def __init__(self, size: int) -> None:
        if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size {size!r} is outside {MIN_SIZE}..{MAX_SIZE}")
        self.size = size
        self.n = n = size * size
        nbrs = []
        for p in range(n):
            r, c = divmod(p, size)
            nbrs.append(tuple(rr * size + cc for rr, cc in ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))
                              if 0 <= rr < size and 0 <= cc < size))
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(nbrs)
        keys = Keys(ZOBRIST_SEED * 32 + size)
        self.zobrist: tuple[tuple[int, ...], ...] = ((0,) * n, keys.take(n), keys.take(n))
        self.pass_keys = (0, keys.next(), keys.next())  # "goban" superko: XORed in by a pass
        self.side_key = keys.next()  # key(): White to move
        self.ko_keys = keys.take(n)  # key(): the simple-ko point
        self.passes_keys = (0, keys.next(), keys.next())  # key(): consecutive passes so far


@cache
def geometry(size: int) -> Geometry:
    return Geometry(size)


def point_name(point: int, size: int = 9) -> str:
    """"A1"-style name of a point (uppercase, no I), or "PASS"."""
    if point == PASS:
        return "PASS"
    r, c = divmod(point, size)
    if not 0 <= point < size * size:
        raise ValueError(f"point {point} is off a {size}x{size} board")
    return f"{COLUMNS[c]}{r + 1}"


def parse_point(text: str, size: int = 9) -> int:
    """The point named by `text` ("A1", "j9", "pass"; case-insensitive); ValueError if none."""
    t = str(text).strip().upper()
    if t == "PASS":
        return PASS
    if len(t) >= 2 and t[0] in COLUMNS[:size] and t[1:].isdigit() and t[1:].isascii():
        row = int(t[1:])
        if 1 <= row <= size:
            return (row - 1) * size + COLUMNS.index(t[0])
    raise ValueError(f"{text!r} is not a point of a {size}x{size} board")


# -- whole-board analysis (cached per position, shared by every State method) --------------

class _Strings(NamedTuple):
    of: tuple[int, ...]  # string index of each point, -1 when empty
    colour: tuple[int, ...]  # per string
    stones: tuple[tuple[int, ...], ...]
    libs: tuple[frozenset, ...]
    hashes: tuple[int, ...]  # Zobrist hash of each string's stones
    hash: int  # of the whole board (stones only)


@lru_cache(maxsize=1024)
def _strings(size: int, board: bytes) -> _Strings:
    g = geometry(size)
    nbrs = g.neighbours
    of = [-1] * g.n
    colours, stones, libs, hashes = [], [], [], []
    total = 0
    for p, k in enumerate(board):
        if not k or of[p] >= 0:
            continue
        sid = len(colours)
        zk = g.zobrist[k]
        members, lib, h = [], set(), 0
        of[p] = sid
        todo = [p]
        while todo:
            x = todo.pop()
            members.append(x)
            h ^= zk[x]
            for y in nbrs[x]:
                if board[y] == k:
                    if of[y] < 0:
                        of[y] = sid
                        todo.append(y)
                elif not board[y]:
                    lib.add(y)
        colours.append(k)
        stones.append(tuple(sorted(members)))
        libs.append(frozenset(lib))
        hashes.append(h)
        total ^= h
    return _Strings(tuple(of), tuple(colours), tuple(stones), tuple(libs), tuple(hashes), total)


def owners(board, nbrs) -> list[int]:
    """The owner of every point of `board` (bytes or a list of colours): a stone's colour, or
    for an empty region the one colour that touches it (EMPTY if it touches both or none)."""
    out = list(board)
    done = bytearray(len(board))
    for p, k in enumerate(board):
        if k or done[p]:
            continue
        region, todo, seen = [], [p], 0
        done[p] = 1
        while todo:
            x = todo.pop()
            region.append(x)
            for y in nbrs[x]:
                ky = board[y]
                if ky:
                    seen |= ky
                elif not done[y]:
                    done[y] = 1
                    todo.append(y)
        if seen == BLACK or seen == WHITE:
            for x in region:
                out[x] = seen
    return out


def area_of(board, nbrs) -> tuple[int, int]:
    """(black, white) area of `board`: stones plus empty regions that touch only that colour."""
    own = owners(board, nbrs)
    return own.count(BLACK), own.count(WHITE)


@lru_cache(maxsize=1024)
def _area(size: int, board: bytes) -> tuple[int, int]:
    return area_of(board, geometry(size).neighbours)


def _check_size_and_rule(size: int, superko: str) -> None:
    geometry(size)
    if superko not in SUPERKO_RULES:
        raise ValueError(f"superko rule {superko!r} is not one of {SUPERKO_RULES}")


# -- the immutable state --------------------------------------------------------------------

class State(NamedTuple):
    """A Go position with the history the rules need (immutable; pickles as plain data).

    `board`: bytes of size*size cells (0 empty, 1 black, 2 white), point p = row*size + col.
    `passes`: consecutive passes just played (2 ends the game).  `ko`: the point the side to
    move may not take back at once (PASS if none).  `captures`: stones captured so far by
    (Black, White).  `ko_history`: hashes of every position of the game so far, this one
    included (see the module docstring).  `pass_offset`: pass keys folded into those hashes
    under superko="goban" (always 0 under "positional").  `last`: the last move played (a
    point or PASS; None when unknown), which searches use to answer it.

    Build states with `empty`, `setup`, `from_diagram` or `from_moves`; a State made
    directly from fields works too, with whatever history it is given.
    """

    size: int
    board: bytes
    to_move: int = BLACK
    komi: float = 7.5
    passes: int = 0
    ko: int = PASS
    captures: tuple[int, int] = (0, 0)
    ko_history: frozenset = frozenset()
    pass_offset: int = 0
    superko: str = "positional"
    last: int | None = None  # the last move (a point or PASS); None at the start or unknown

    # -- views ------------------------------------------------------------------------------
    def at(self, point: int) -> int:
        return self.board[point]

    def stones(self, colour: int) -> list[int]:
        return [p for p, k in enumerate(self.board) if k == colour]

    def position_hash(self) -> int:
        """The hash recorded in ko_history for this position."""
        return _strings(self.size, self.board).hash ^ self.pass_offset

    def key(self) -> int:
        """64-bit table key: board (and pass keys under "goban"), side to move, ko point,
        consecutive passes.  The longer history (superko) is left out."""
        g = geometry(self.size)
        h = _strings(self.size, self.board).hash ^ self.pass_offset ^ g.passes_keys[min(self.passes, 2)]
        if self.to_move == WHITE:
            h ^= g.side_key
        if self.ko >= 0:
            h ^= g.ko_keys[self.ko]
        return h

    def liberties(self, point: int) -> frozenset:
        """The liberties of the string at `point` (empty set for an empty point)."""
        s = _strings(self.size, self.board)
        return s.libs[s.of[point]] if s.of[point] >= 0 else frozenset()

    # -- moves ------------------------------------------------------------------------------
    def _normalise(self, move) -> int | None:
        if isinstance(move, str):
            try:
                return parse_point(move, self.size)
            except ValueError:
                return None
        if isinstance(move, bool):
            return None
        try:
            return operator.index(move)
        except TypeError:
            return None

    def _try(self, move: int):
        """(reason, captured string ids, resulting hash): reason None when the move is legal."""
        if self.passes >= 2:
            return "game over", (), 0
        if move == PASS:
            return None, (), 0
        n = self.size * self.size
        if move is None or not 0 <= move < n:
            return "off board", (), 0
        board = self.board
        if board[move]:
            return "occupied", (), 0
        g = geometry(self.size)
        s = _strings(self.size, board)
        of, colour, libs = s.of, s.colour, s.libs
        c = self.to_move
        alive = False
        captured: list[int] = []
        for y in g.neighbours[move]:
            sid = of[y]
            if sid < 0:
                alive = True
            elif colour[sid] == c:
                if len(libs[sid]) > 1:
                    alive = True
            elif len(libs[sid]) == 1 and sid not in captured:
                captured.append(sid)
        if not alive and not captured:
            return "suicide", (), 0
        h = s.hash ^ self.pass_offset ^ g.zobrist[c][move]
        for sid in captured:
            h ^= s.hashes[sid]
        if move == self.ko or h in self.ko_history:
            return "superko", (), 0
        return None, captured, h

    def legal_moves(self) -> list[int]:
        """Every empty point that is neither suicide nor a repeated position, then PASS; [] once
        the game is over."""
        if self.passes >= 2:
            return []
        board = self.board
        out = [p for p in range(len(board)) if not board[p] and self._try(p)[0] is None]
        out.append(PASS)
        return out

    def is_legal(self, move) -> bool:
        return self._try(self._normalise(move))[0] is None

    def check(self, move) -> None:
        """Raise IllegalMove (reason: off board, occupied, suicide, superko, game over) unless legal."""
        m = self._normalise(move)
        reason = self._try(m)[0]
        if reason is not None:
            where = point_name(m, self.size) if reason != "off board" else repr(move)
            raise IllegalMove(f"{COLOUR_NAMES[self.to_move]} {where}: {reason}", reason)

    def play(self, move) -> State:
        """The position after the side to move plays `move` (a point, PASS or a name)."""
        m = self._normalise(move)
        reason, captured, h = self._try(m)
        if reason is not None:
            self.check(move)  # raises with the full message
        c = self.to_move
        o = 3 - c
        if m == PASS:
            offset = self.pass_offset
            if self.superko == "goban":
                offset ^= geometry(self.size).pass_keys[c]
            h = _strings(self.size, self.board).hash ^ offset
            return self._replace(to_move=o, passes=self.passes + 1, ko=PASS, last=PASS,
                                 ko_history=self.ko_history | {h}, pass_offset=offset)
        s = _strings(self.size, self.board)
        b = bytearray(self.board)
        b[m] = c
        removed = 0
        for sid in captured:
            for x in s.stones[sid]:
                b[x] = EMPTY
            removed += len(s.stones[sid])
        ko = PASS
        if removed == 1:
            q = s.stones[captured[0]][0]
            if all(y == q or b[y] == o for y in geometry(self.size).neighbours[m]):
                ko = q  # a lone stone that took a lone stone and has that point as its only liberty
        caps = (self.captures[0] + removed, self.captures[1]) if c == BLACK else \
            (self.captures[0], self.captures[1] + removed)
        return State(self.size, bytes(b), o, self.komi, 0, ko, caps, self.ko_history | {h},
                     self.pass_offset, self.superko, m)

    # -- game status ------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.passes >= 2

    def area(self) -> tuple[int, int]:
        """(black, white) area of the board as it stands (dead stones count as alive)."""
        return _area(self.size, self.board)

    def score(self) -> float:
        """Area score from Black's side: black area - white area - komi."""
        b, w = _area(self.size, self.board)
        return b - w - self.komi

    def winner(self) -> int | None:
        """BLACK or WHITE once the game is over; None while it runs or for a draw (integer komi)."""
        if not self.is_terminal():
            return None
        s = self.score()
        return BLACK if s > 0 else WHITE if s < 0 else None

    def result(self, player: int) -> float:
        """1 for a win, 0 for a loss, 0.5 for a draw or a game still running, from `player`'s side."""
        w = self.winner()
        return 0.5 if w is None else float(w == player)

    def score_text(self) -> str:
        """"B+n", "W+n" or "0" (GTP final_score, Goban final_go_score) for the board as it stands."""
        s = self.score()
        return "0" if s == 0 else f"{'B' if s > 0 else 'W'}+{abs(s):g}"


def empty(size: int = 9, komi: float = 7.5, superko: str = "positional") -> State:
    """The empty board, Black to move."""
    _check_size_and_rule(size, superko)
    return State(size, bytes(size * size), BLACK, float(komi), ko_history=frozenset({0}), superko=superko)


def setup(size: int, black=(), white=(), to_move: int = BLACK, komi: float = 7.5,
          superko: str = "positional") -> State:
    """A position with stones placed (points or names), no history but itself."""
    _check_size_and_rule(size, superko)
    b = bytearray(size * size)
    for colour, points in ((BLACK, black), (WHITE, white)):
        for p in points:
            p = parse_point(p, size) if isinstance(p, str) else p
            if not 0 <= p < size * size or b[p]:
                raise ValueError(f"cannot place a stone on {p!r}")
            b[p] = colour
    return _from_bytes(size, bytes(b), to_move, komi, superko)


def from_diagram(text: str, to_move: int = BLACK, komi: float = 7.5, superko: str = "positional") -> State:
    """A position from rows of `X`/`O`/`.` (`+` is also empty; spaces ignored), the top row
    first as `render` prints it (the last line is row 1)."""
    rows = [line.replace(" ", "") for line in text.strip("\n").splitlines() if line.strip()]
    size = len(rows)
    _check_size_and_rule(size, superko)
    b = bytearray(size * size)
    for i, line in enumerate(rows):
        if len(line) != size:
            raise ValueError(f"diagram row {line!r} should have {size} points")
        r = size - 1 - i
        for c, ch in enumerate(line):
            k = {"X": BLACK, "x": BLACK, "O": WHITE, "o": WHITE, ".": EMPTY, "+": EMPTY}.get(ch)
            if k is None:
                raise ValueError(f"unknown diagram character {ch!r}")
            b[r * size + c] = k
    return _from_bytes(size, bytes(b), to_move, komi, superko)


def _from_bytes(size: int, board: bytes, to_move: int, komi: float, superko: str) -> State:
    if to_move not in (BLACK, WHITE):
        raise ValueError(f"to_move must be BLACK (1) or WHITE (2), not {to_move!r}")
    s = _strings(size, board)
    for sid, libs in enumerate(s.libs):
        if not libs:
            raise ValueError(f"the string at {point_name(s.stones[sid][0], size)} has no liberty")
    return State(size, board, to_move, float(komi), ko_history=frozenset({s.hash}), superko=superko)


def from_moves(size: int = 9, moves=(), komi: float = 7.5, superko: str = "positional") -> State:
    """Replay `moves` (points, PASS or names) from the empty board; IllegalMove on a bad one."""
    state = empty(size, komi, superko)
    for m in moves:
        state = state.play(m)
    return state


def render(state: State, colour: bool = False) -> str:
    """The board for humans and GTP showboard: X black, O white, row 1 at the bottom (no colours)."""
    size = state.size
    letters = " ".join(COLUMNS[:size])
    lines = [f"   {letters}"]
    for r in range(size - 1, -1, -1):
        cells = " ".join(STONE_CHARS[state.board[r * size + c]] for c in range(size))
        lines.append(f"{r + 1:2d} {cells} {r + 1}")
    lines.append(f"   {letters}")
    lines.append(f"{COLOUR_NAMES[state.to_move]} to move; captures X {state.captures[0]} "
                 f"O {state.captures[1]}; komi {state.komi:g}"
                 + (f"; ko {point_name(state.ko, size)}" if state.ko >= 0 else "")
                 + (f"; {state.passes} pass{'es' if state.passes > 1 else ''}" if state.passes else ""))
    return "\n".join(lines)
