"""Go rules: the immutable `State` (what search and sessions see) and the mutable `Board` (playouts).

Facts from shared/specs/go.md: stones with no liberty are captured (the mover's captures
first), suicide is illegal (a move that captures is never suicide), no move may recreate an
earlier whole-board position (positional superko), a pass is always legal, two passes in a
row end the game, and the score is bare area scoring (stones + empty regions that touch one
colour only; no dead-stone removal) minus komi for White.

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
* "goban": the course referee `Goban.py` (spec section 4.3) XORs the passer's pass key into
  its running hash at every pass, so a board seen before is forbidden only if both players'
  pass counts have the same parities as then.  `State.pass_offset` carries those pass keys.
  Every move that is legal under "positional" is legal under "goban" too.

Simple ko (`State.ko`, the point an immediate recapture would take) is implied by superko;
it is kept because `Board` playouts use it alone (no history there) and because it is part
of `key()`, which otherwise ignores the history, as transposition tables usually do.

Board design (see `Board`): strings are circular linked lists of stones with a root label
per stone (the smaller string is relabelled on a merge), and each string keeps
pseudo-liberties as three counters: count, sum and sum of squares of the liberty points
(counted once per adjacent stone, so shared liberties repeat).  A string is captured when
the count reaches 0, and it has exactly one liberty (atari) iff every pseudo-liberty is the
same point, i.e. iff sum * sum == count * sum_of_squares (Cauchy-Schwarz).  That makes the
suicide test exact in O(4), and every structure is a flat list of ints: `copy()` is a few
list copies, which is what MCTS wants (copy, then play forward, no undo).
"""

from __future__ import annotations

import operator
import random
from functools import cache, lru_cache
from typing import NamedTuple

from protocol.errors import IllegalMove

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
        nbrs, diags, edge = [], [], []
        for p in range(n):
            r, c = divmod(p, size)
            nbrs.append(tuple(rr * size + cc for rr, cc in ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))
                              if 0 <= rr < size and 0 <= cc < size))
            diags.append(tuple(rr * size + cc for rr, cc in
                               ((r - 1, c - 1), (r - 1, c + 1), (r + 1, c - 1), (r + 1, c + 1))
                               if 0 <= rr < size and 0 <= cc < size))
            edge.append(int(r in (0, size - 1) or c in (0, size - 1)))
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(nbrs)
        self.diagonals: tuple[tuple[int, ...], ...] = tuple(diags)
        self.on_edge: tuple[int, ...] = tuple(edge)
        rng = random.Random(ZOBRIST_SEED * 32 + size)
        bits = rng.getrandbits
        self.zobrist: tuple[tuple[int, ...], ...] = (
            (0,) * n, tuple(bits(64) for _ in range(n)), tuple(bits(64) for _ in range(n)))
        self.pass_keys = (0, bits(64), bits(64))  # "goban" superko: XORed in by a pass
        self.side_key = bits(64)  # key(): White to move
        self.ko_keys = tuple(bits(64) for _ in range(n))  # key(): the simple-ko point
        self.passes_keys = (0, bits(64), bits(64))  # key(): consecutive passes so far


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
        consecutive passes.  The longer history (superko) is left out.  Equals Board.key()."""
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


# -- the fast mutable board -------------------------------------------------------------------

_SNAPSHOT = ("colour", "root", "nxt", "nlib", "lsum", "lsq", "ssize", "empties", "epos", "captures")


class Board:
    """The mutable board searches and playouts run on.  Build it from a State: `Board(state)`;
    back with `board.state()`.

    Per point: `colour`; for stones `root` (the string's label) and `nxt` (the next stone of
    the string, a circular list).  Per root: `ssize` (stones), and pseudo-liberties `nlib`
    (count), `lsum` (sum of points) and `lsq` (sum of squares).  `empties` lists the empty
    points in any order, `epos` their positions in it.  `hash` is the Zobrist hash of the
    stones, `offset` the pass keys ("goban" superko), `seen` the set of position hashes of the
    game (None after a playout: then only simple ko is known).

    `play` checks everything (superko too, while `seen` is kept); `is_legal` is the fast
    test used in playouts (suicide and simple ko only).  `push`/`undo` snapshot the lists;
    `copy()` is the cheap way to branch.
    """

    __slots__ = (
        "captures",
        "colour",
        "diags",
        "edge",
        "empties",
        "epos",
        "geom",
        "hash",
        "history",
        "ko",
        "komi",
        "last",
        "lsq",
        "lsum",
        "n",
        "nbrs",
        "nlib",
        "nxt",
        "offset",
        "pass_keys",
        "passes",
        "playout_moves",
        "root",
        "seen",
        "size",
        "ssize",
        "superko",
        "to_move",
        "zob",
    )

    def __init__(self, state: State | None = None) -> None:
        if state is None:
            state = empty()
        g = self.geom = geometry(state.size)
        _check_size_and_rule(state.size, state.superko)
        self.size, self.n, self.komi, self.superko = state.size, g.n, state.komi, state.superko
        self.nbrs, self.diags, self.edge, self.zob, self.pass_keys = \
            g.neighbours, g.diagonals, g.on_edge, g.zobrist, g.pass_keys
        n = g.n
        board = state.board
        if len(board) != n:
            raise ValueError(f"a {state.size}x{state.size} board needs {n} cells, not {len(board)}")
        self.colour = list(board)
        self.root = list(range(n))
        self.nxt = list(range(n))
        self.nlib, self.lsum, self.lsq, self.ssize = [0] * n, [0] * n, [0] * n, [0] * n
        s = _strings(state.size, board)
        for stones, libs in zip(s.stones, s.libs):
            if not libs:
                raise ValueError(f"the string at {point_name(stones[0], self.size)} has no liberty")
            r = stones[0]
            self.ssize[r] = len(stones)
            for i, x in enumerate(stones):
                self.root[x] = r
                self.nxt[x] = stones[(i + 1) % len(stones)]
                for y in self.nbrs[x]:
                    if not board[y]:
                        self.nlib[r] += 1
                        self.lsum[r] += y
                        self.lsq[r] += y * y
        self.empties = [p for p in range(n) if not board[p]]
        self.epos = [0] * n
        for i, p in enumerate(self.empties):
            self.epos[p] = i
        self.to_move, self.passes, self.ko, self.last = state.to_move, state.passes, state.ko, state.last
        self.captures = [0, state.captures[0], state.captures[1]]
        self.hash, self.offset = s.hash, state.pass_offset
        self.seen: set | None = set(state.ko_history) | {s.hash ^ state.pass_offset}
        self.history: list = []
        self.playout_moves = 0

    # -- conversion and copies ------------------------------------------------------------
    def state(self) -> State:
        h = self.hash ^ self.offset
        history = frozenset(self.seen) if self.seen is not None else frozenset({h})
        return State(self.size, bytes(self.colour), self.to_move, self.komi, self.passes, self.ko,
                     (self.captures[1], self.captures[2]), history, self.offset, self.superko, self.last)

    def copy(self, keep_history: bool = True) -> Board:
        """An independent board (the superko set is dropped when keep_history is False)."""
        b = Board.__new__(Board)
        for name in ("size", "n", "komi", "superko", "nbrs", "diags", "edge", "zob", "pass_keys", "geom",
                     "to_move", "passes", "ko", "last", "hash", "offset", "playout_moves"):
            setattr(b, name, getattr(self, name))
        for name in _SNAPSHOT:
            setattr(b, name, getattr(self, name)[:])
        b.seen = set(self.seen) if keep_history and self.seen is not None else None
        b.history = []
        return b

    def push(self, move: int) -> None:
        """`play` that `undo` can take back (the lists are snapshotted: O(size^2))."""
        snap = tuple(getattr(self, name)[:] for name in _SNAPSHOT)
        scalars = (self.to_move, self.passes, self.ko, self.last, self.hash, self.offset)
        known = len(self.seen) if self.seen is not None else -1
        self.play(move)
        grew = self.seen is not None and len(self.seen) > known
        self.history.append((snap, scalars, self.hash ^ self.offset if grew else None))

    def undo(self) -> None:
        snap, scalars, added = self.history.pop()
        for name, value in zip(_SNAPSHOT, snap):
            setattr(self, name, value)
        self.to_move, self.passes, self.ko, self.last, self.hash, self.offset = scalars
        if added is not None and self.seen is not None:
            self.seen.discard(added)

    # -- rules ------------------------------------------------------------------------------
    def _atari(self, r: int) -> bool:
        """The string rooted at r has exactly one liberty (all pseudo-liberties coincide)."""
        s = self.lsum[r]
        return s * s == self.nlib[r] * self.lsq[r]

    def _not_suicide(self, p: int, c: int) -> bool:
        col, root, nlib, lsum, lsq = self.colour, self.root, self.nlib, self.lsum, self.lsq
        for y in self.nbrs[p]:
            k = col[y]
            if not k:
                return True
            r = root[y]
            s = lsum[r]
            if (s * s == nlib[r] * lsq[r]) != (k == c):
                return True  # an own string with another liberty, or an enemy string we capture
        return False

    def is_legal(self, move: int, player: int | None = None) -> bool:
        """Fast legality (suicide and simple ko; no superko) for `player` (default: to move)."""
        if move == PASS:
            return True
        if not 0 <= move < self.n or self.colour[move]:
            return False
        c = player or self.to_move
        if move == self.ko and c == self.to_move:
            return False
        return self._not_suicide(move, c)

    def hash_after(self, move: int, player: int | None = None) -> int:
        """The position hash (as recorded for superko) after a legal stone move."""
        c = player or self.to_move
        o = 3 - c
        h = self.hash ^ self.offset ^ self.zob[c][move]
        zo, col, root, nxt = self.zob[o], self.colour, self.root, self.nxt
        done = []
        for y in self.nbrs[move]:
            if col[y] == o:
                r = root[y]
                if r not in done and self._atari(r):
                    done.append(r)
                    x = r
                    while True:
                        h ^= zo[x]
                        x = nxt[x]
                        if x == r:
                            break
        return h

    def why_illegal(self, move) -> str | None:
        """The IllegalMove reason for `move` by the side to move, or None if it is legal
        (superko judged on `seen` while it is kept, else simple ko)."""
        if self.passes >= 2:
            return "game over"
        if move == PASS:
            return None
        if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < self.n:
            return "off board"
        if self.colour[move]:
            return "occupied"
        if not self._not_suicide(move, self.to_move):
            return "suicide"
        if move == self.ko or (self.seen is not None and self.hash_after(move) in self.seen):
            return "superko"
        return None

    def legal_moves(self) -> list[int]:
        """As State.legal_moves (exact while `seen` is kept)."""
        if self.passes >= 2:
            return []
        col = self.colour
        out = [p for p in range(self.n) if not col[p] and self.why_illegal(p) is None]
        out.append(PASS)
        return out

    def play(self, move: int) -> None:
        """The side to move plays `move` (checked: IllegalMove if the rules forbid it)."""
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMove(f"{COLOUR_NAMES[self.to_move]} {move!r}: {reason}", reason)
        c = self.to_move
        if move == PASS:
            self.passes += 1
            self.ko = PASS
            if self.superko == "goban":
                self.offset ^= self.pass_keys[c]
        else:
            self._place(move, c)
            self.passes = 0
        self.to_move = 3 - c
        self.last = move
        if self.seen is not None:
            self.seen.add(self.hash ^ self.offset)

    def _place(self, p: int, c: int) -> None:
        """Put a stone of colour c on the empty point p (legal: not suicide), capture, merge."""
        col, root, nxt, nlib, lsum, lsq, ssize = \
            self.colour, self.root, self.nxt, self.nlib, self.lsum, self.lsq, self.ssize
        E, epos = self.empties, self.epos
        i = epos[p]
        last = E.pop()
        if last != p:
            E[i] = last
            epos[last] = i
        col[p] = c
        root[p] = p
        nxt[p] = p
        ssize[p] = 1
        h = self.hash ^ self.zob[c][p]
        nbrs = self.nbrs[p]
        nl = s = q = 0
        pp = p * p
        for y in nbrs:
            k = col[y]
            if k:
                r = root[y]
                nlib[r] -= 1
                lsum[r] -= p
                lsq[r] -= pp
            else:
                nl += 1
                s += y
                q += y * y
        nlib[p], lsum[p], lsq[p] = nl, s, q
        o = 3 - c
        captured = 0
        ko = PASS
        rp = p
        for y in nbrs:
            k = col[y]
            if k == c:
                r = root[y]
                if r != rp:  # merge the smaller string into the larger
                    if ssize[r] < ssize[rp]:
                        big, small = rp, r
                    else:
                        big, small = r, rp
                    x = small
                    while True:
                        root[x] = big
                        x = nxt[x]
                        if x == small:
                            break
                    nxt[big], nxt[small] = nxt[small], nxt[big]
                    ssize[big] += ssize[small]
                    nlib[big] += nlib[small]
                    lsum[big] += lsum[small]
                    lsq[big] += lsq[small]
                    rp = big
            elif k == o:
                r = root[y]
                if not nlib[r]:
                    captured += ssize[r]
                    ko = y
                    h = self._remove(r, h, self.zob[o])
        self.hash = h
        if captured:
            self.captures[c] += captured
            if not (captured == 1 and ssize[rp] == 1 and nlib[rp] == 1):
                ko = PASS
        self.ko = ko

    def _remove(self, r: int, h: int, zo) -> int:
        """Take the string rooted at r off the board; returns the updated hash."""
        col, root, nxt, nlib, lsum, lsq = self.colour, self.root, self.nxt, self.nlib, self.lsum, self.lsq
        E, epos, nbrs = self.empties, self.epos, self.nbrs
        stones = []
        x = r
        while True:
            stones.append(x)
            col[x] = 0
            h ^= zo[x]
            epos[x] = len(E)
            E.append(x)
            x = nxt[x]
            if x == r:
                break
        for x in stones:
            xx = x * x
            for y in nbrs[x]:
                if col[y]:
                    ry = root[y]
                    nlib[ry] += 1
                    lsum[ry] += x
                    lsq[ry] += xx
        return h

    # -- playouts ------------------------------------------------------------------------------
    def is_eye(self, point: int, colour: int) -> bool:
        """An empty point whose orthogonal neighbours are all `colour` and whose diagonals hold
        at most one enemy stone (none on the edge or in the corner): don't fill it."""
        col = self.colour
        if col[point]:
            return False
        for y in self.nbrs[point]:
            if col[y] != colour:
                return False
        bad = self.edge[point]
        o = 3 - colour
        for d in self.diags[point]:
            if col[d] == o:
                bad += 1
        return bad < 2

    def legal_random_move(self, rng: random.Random, colour: int | None = None) -> int:
        """A uniformly random point that is legal for `colour` (fast test) and not its own eye;
        PASS when none is left.  (`empties` is reordered, which is harmless.)"""
        c = colour or self.to_move
        rand = rng.random
        E, epos = self.empties, self.epos
        k, m = 0, len(E)
        ko = self.ko if c == self.to_move else PASS
        while k < m:
            j = k + int(rand() * (m - k))
            p = E[j]
            if p != ko and not self.is_eye(p, c) and self._not_suicide(p, c):
                return p
            q = E[k]
            E[k], E[j] = p, q
            epos[p], epos[q] = k, j
            k += 1
        return PASS

    def playout(self, rng: random.Random, max_moves: int | None = None) -> float:
        """Play random legal moves that fill no own eye until two passes in a row (or
        `max_moves`, default 3 * size^2); return the area score, black - white - komi.

        Plays on this board (copy() first to keep it).  Only simple ko is enforced, so the
        superko set is dropped (`seen` becomes None).  `playout_moves` counts the moves made.
        """
        if max_moves is None:
            max_moves = 3 * self.n
        self.seen = None
        rand = rng.random
        col, root, nlib, lsum, lsq = self.colour, self.root, self.nlib, self.lsum, self.lsq
        nbrs, diags, edge = self.nbrs, self.diags, self.edge
        E, epos = self.empties, self.epos
        place = self._place
        c = self.to_move
        passes = self.passes
        moves = 0
        while passes < 2 and moves < max_moves:
            o = 3 - c
            ko = self.ko
            k, m = 0, len(E)
            move = PASS
            while k < m:
                j = k + int(rand() * (m - k))
                p = E[j]
                ok = p != ko
                if ok:
                    # own eye?
                    eye = True
                    for y in nbrs[p]:
                        if col[y] != c:
                            eye = False
                            break
                    if eye:
                        bad = edge[p]
                        for d in diags[p]:
                            if col[d] == o:
                                bad += 1
                        ok = bad >= 2
                    if ok:
                        # suicide?
                        ok = False
                        for y in nbrs[p]:
                            ky = col[y]
                            if not ky:
                                ok = True
                                break
                            r = root[y]
                            s = lsum[r]
                            if (s * s == nlib[r] * lsq[r]) != (ky == c):
                                ok = True
                                break
                if ok:
                    move = p
                    break
                q = E[k]
                E[k], E[j] = p, q
                epos[p], epos[q] = k, j
                k += 1
            if move == PASS:
                passes += 1
                self.ko = PASS
                if self.superko == "goban":
                    self.offset ^= self.pass_keys[c]
            else:
                place(move, c)
                passes = 0
            c = o
            moves += 1
        self.to_move = c
        self.passes = passes
        self.playout_moves = moves
        return self.score()

    # -- scoring and keys -----------------------------------------------------------------------
    def area(self) -> tuple[int, int]:
        """(black, white) area of the board as it stands."""
        return area_of(self.colour, self.nbrs)

    def score(self) -> float:
        b, w = self.area()
        return b - w - self.komi

    def is_terminal(self) -> bool:
        return self.passes >= 2

    def key(self) -> int:
        """The same key as State.key() for the same position."""
        g = self.geom
        h = self.hash ^ self.offset ^ g.passes_keys[min(self.passes, 2)]
        if self.to_move == WHITE:
            h ^= g.side_key
        if self.ko >= 0:
            h ^= g.ko_keys[self.ko]
        return h

    def string(self, point: int) -> list[int]:
        """The stones of the string at `point` (sorted)."""
        if not self.colour[point]:
            return []
        r = self.root[point]
        out, x = [], r
        while True:
            out.append(x)
            x = self.nxt[x]
            if x == r:
                return sorted(out)

    def liberties(self, point: int) -> set[int]:
        """The exact liberties of the string at `point`."""
        return {y for x in self.string(point) for y in self.nbrs[x] if not self.colour[y]}
