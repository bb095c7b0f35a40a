"""The pure-Python Go board: the oracle the numba kernel (bots/go/kernel.py) agrees with.

Not shipped: production code plays on the immutable `bots.go.board.State` (the full rules)
or on the kernel's arrays.  This mutable `Board` implements the same fast board in plain
Python, slowly and readably, so tests can replay kernel moves and playouts next to it
(tests/go/test_kernel.py), check it against `State` along random games
(tests/go/test_go_board.py), and time it against the kernel (`python -m tests.go.speed`).
`dead_stones` is the Board-based estimate the kernel-based
`bots.go.gtp_engine.dead_stones` replaced, kept to compare the two.

Board design: strings are circular linked lists of stones with a root label per stone (the
smaller string is relabelled on a merge), and each string keeps pseudo-liberties as three
counters: count, sum and sum of squares of the liberty points (counted once per adjacent
stone, so shared liberties repeat).  A string is captured when the count reaches 0, and it
has exactly one liberty (atari) iff every pseudo-liberty is the same point, i.e. iff
sum * sum == count * sum_of_squares (Cauchy-Schwarz).  That makes the suicide test exact in
O(4), and every structure is a flat list of ints: `copy()` is a few list copies.  The
kernel keeps the same structures in numpy rows on a padded board.
"""

from __future__ import annotations

import random
from functools import cache

from bots.go.board import (
    COLOUR_NAMES,
    PASS,
    WHITE,
    IllegalMove,
    State,
    _check_size_and_rule,
    _strings,
    area_of,
    empty,
    geometry,
    owners,
    point_name,
)


@cache
def _diagonals_and_edge(size: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Per point: its diagonal neighbours on the board, and 1 if it is on the edge."""
    diags, edge = [], []
    for p in range(size * size):
        r, c = divmod(p, size)
        diags.append(tuple(rr * size + cc for rr, cc in
                           ((r - 1, c - 1), (r - 1, c + 1), (r + 1, c - 1), (r + 1, c + 1))
                           if 0 <= rr < size and 0 <= cc < size))
        edge.append(int(r in (0, size - 1) or c in (0, size - 1)))
    return tuple(diags), tuple(edge)


def dead_stones(state: State, playouts: int = 200, seed: int = 0) -> list[int]:
    """The stones (sorted points) whose point ends up owned by the opponent in more than half
    of `playouts` light playouts of this Board from `state` (a finished game is played on):
    what `bots.go.gtp_engine.dead_stones` computed before it ran on the kernel."""
    stones = [p for p, k in enumerate(state.board) if k]
    if not stones:
        return []
    base = Board(state._replace(passes=0) if state.passes else state)
    rng = random.Random(seed)
    against = [0] * len(state.board)
    for _ in range(playouts):
        board = base.copy(keep_history=False)
        board.playout(rng)
        own = owners(board.colour, board.nbrs)
        for p in stones:
            if own[p] == 3 - state.board[p]:
                against[p] += 1
    return [p for p in stones if 2 * against[p] > playouts]


# -- the fast mutable board -------------------------------------------------------------------

_SNAPSHOT = ("colour", "root", "nxt", "nlib", "lsum", "lsq", "ssize", "empties", "epos", "captures")


class Board:
    """The mutable board (the kernel's reference).  Build it from a State: `Board(state)`;
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
        self.nbrs, self.zob, self.pass_keys = g.neighbours, g.zobrist, g.pass_keys
        self.diags, self.edge = _diagonals_and_edge(state.size)
        n = g.n
        board = state.board
        if len(board) != n:
            raise ValueError(f"a {state.size}x{state.size} board needs {n} cells, not {len(board)}")
        self.colour = list(board)
        self.root = list(range(n))
        self.nxt = list(range(n))
        self.nlib, self.lsum, self.lsq, self.ssize = [0] * n, [0] * n, [0] * n, [0] * n
        s = _strings(state.size, board)
        for stones, libs in zip(s.stones, s.libs, strict=True):
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
        for name, value in zip(_SNAPSHOT, snap, strict=True):
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
