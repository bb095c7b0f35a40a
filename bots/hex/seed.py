"""The seed project's four computer players (docs/protocols/hex.md section 8.2, seed 002).

The seed (`Nainterceptor/4AIT-hexgame`, 2015) offered `[r]andom IA`, `[p]ath IA`,
`[m]ind path IA` and `[b]ruteforce IA`; they are `Random`, `Path`, `MindPath` and
`Bruteforce` here (the registry names them `random`, `path`, `mind-path`, `bruteforce`).
Each is a dataclass whose one option is `seed` (its own `random.Random`).

The seed had no swap rule: when SWAP is legal these players never choose it, they play a
cell.  On a finished game there is no legal move, and `choose` raises UsageError.

"Forward" is towards the player's goal edge: increasing row for Black (top to bottom),
increasing column for White (left to right).  A step from a cell to a neighbour weighs +1
(forward), 0 (sideways) or -1 (back), the seed's weights.

Shared helpers (also used by `bots.hex.resistance`): `edges`, `bfs01` and `distances` (0-1 BFS),
`path_cost`, `winning_cells`, `shortest_path`.
"""

from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache

from protocol.errors import UsageError
from search.budget import Budget, SearchResult
from search.contracts import Context

from .board import BLACK, EMPTY, State, neighbours

INF = 10 ** 9  # "no path": larger than any real cost


# -- geometry -------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def edges(width: int, height: int, colour: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(start edge, goal edge) cells of `colour`, each in order along the edge: Black's top
    row then bottom row; White's left column then right column."""
    if colour == BLACK:
        return tuple(range(width)), tuple(range((height - 1) * width, height * width))
    return (tuple(r * width for r in range(height)),
            tuple(r * width + width - 1 for r in range(height)))


def progress(cell: int, width: int, colour: int) -> int:
    """How far `cell` is from `colour`'s start edge: its row for Black, its column for White."""
    row, col = divmod(cell, width)
    return row if colour == BLACK else col


def step_weight(a: int, b: int, width: int, colour: int) -> int:
    """The seed's weight of a step from `a` to its neighbour `b`: +1 forward, 0 sideways, -1 back."""
    d = progress(b, width, colour) - progress(a, width, colour)
    return (d > 0) - (d < 0)


def _empties(state: State) -> list[int]:
    return [c for c, v in enumerate(state.board) if v == EMPTY]


def _require_moves(state: State) -> list[int]:
    if state.is_terminal():
        raise UsageError("the game is over: there is no move to choose")
    return _empties(state)


# -- 0-1 BFS: own stones cost 0, empty cells 1, opponent stones are walls -------------------------

def bfs01(board: bytes, width: int, height: int, colour: int, sources=None,
           from_goal: bool = False) -> tuple[list[int], list[int]]:
    """0-1 BFS for `colour` over own stones (cost 0) and empty cells (cost 1), never through
    the opponent's stones, from `sources` (default: the start edge, the goal edge if
    `from_goal`).  Returns (dist, parent): dist[c] is the fewest empty cells on a chain from a
    source to c, both ends counted (INF where none); parent[c] the previous cell on one such
    chain (-1 at a source).  Each cell is expanded once, at its final distance, so the parents
    form a forest."""
    if sources is None:
        start, goal = edges(width, height, colour)
        sources = goal if from_goal else start
    nbrs = neighbours(width, height)
    wall = 3 - colour
    dist = [INF] * (width * height)
    parent = [-1] * (width * height)
    done = bytearray(width * height)
    todo: deque[int] = deque()
    for c in sources:
        v = board[c]
        if v == wall:
            continue
        d = 0 if v == colour else 1
        if d < dist[c]:
            dist[c] = d
            if d == 0:
                todo.appendleft(c)
            else:
                todo.append(c)
    while todo:
        c = todo.popleft()
        if done[c]:
            continue
        done[c] = 1
        dc = dist[c]
        for n in nbrs[c]:
            v = board[n]
            if v == wall or done[n]:
                continue
            if v == colour:
                if dc < dist[n]:
                    dist[n], parent[n] = dc, c
                    todo.appendleft(n)
            elif dc + 1 < dist[n]:
                dist[n], parent[n] = dc + 1, c
                todo.append(n)
    return dist, parent


def distances(board: bytes, width: int, height: int, colour: int, sources=None,
              from_goal: bool = False) -> list[int]:
    """The `dist` of `bfs01`: for every cell, the fewest empty cells on a chain of `colour`
    (own stones and empty cells, never the opponent's) from `sources` to it, both ends
    counted; INF where none."""
    return bfs01(board, width, height, colour, sources, from_goal)[0]


def path_cost(board: bytes, width: int, height: int, colour: int) -> int:
    """The fewest empty cells `colour` must still fill to join its edges (0: joined; INF:
    impossible, the opponent has joined theirs)."""
    dist = distances(board, width, height, colour)
    return min(dist[c] for c in edges(width, height, colour)[1])


def costs_after(board: bytes, width: int, height: int, colour: int) -> dict[int, int]:
    """For every empty cell c, `path_cost` of `colour` after `colour` plays c, from two 0-1
    BFS (from each edge): a path through c then costs d_start[c] + d_goal[c] - 2 (c counted
    twice, now free), any other path is unchanged."""
    d1 = distances(board, width, height, colour)
    d2 = distances(board, width, height, colour, from_goal=True)
    base = min(d1[c] for c in edges(width, height, colour)[1])
    out = {}
    for c, v in enumerate(board):
        if v == EMPTY:
            through = d1[c] + d2[c] - 2 if d1[c] < INF and d2[c] < INF else INF
            out[c] = min(base, through)
    return out


def winning_cells(board: bytes, width: int, height: int, colour: int) -> list[int]:
    """The empty cells that join `colour`'s edges at once."""
    return [c for c, k in costs_after(board, width, height, colour).items() if k == 0]


def shortest_path(board: bytes, width: int, height: int, colour: int, via: int | None = None) -> list[int] | None:
    """A cheapest (fewest empty cells) chain of `colour` from its start edge to its goal edge,
    own stones and empty cells only, as a list of cells from the start edge; the cheapest of
    those through `via` when given.  None when there is none."""
    d1, p1 = bfs01(board, width, height, colour)
    d2, p2 = bfs01(board, width, height, colour, from_goal=True)
    if via is None:
        via = min(edges(width, height, colour)[1], key=lambda c: d1[c])
    if board[via] == 3 - colour or d1[via] >= INF or d2[via] >= INF:
        return None
    chain, cell = [], via
    while cell != -1:
        chain.append(cell)
        cell = p1[cell]
    chain.reverse()  # start edge ... via
    cell = p2[via]
    while cell != -1:
        chain.append(cell)
        cell = p2[cell]
    return list(dict.fromkeys(chain))


# -- the seed's memory of its own last stone ------------------------------------------------------

@dataclass
class _Memory:
    """What a seed player remembers between its moves: its colour, the cell it played last and
    the board right after that move.  `follows(state)` says whether `state` continues that
    game (same board size, our colour to move, every stone of that board still there, our last
    stone still ours); a new game, a swap of our stone or an unrelated state does not."""

    colour: int = 0
    last: int | None = None
    board: bytes | None = None
    plies: int = 0
    size: tuple[int, int] = (0, 0)

    def follows(self, state: State) -> bool:
        if self.board is None or self.last is None or self.size != (state.width, state.height):
            return False
        if state.to_move != self.colour or state.plies <= self.plies or state.board[self.last] != self.colour:
            return False
        return all(v == EMPTY or state.board[c] == v for c, v in enumerate(self.board))

    def record(self, state: State, move: int) -> None:
        self.colour, self.last, self.size = state.to_move, move, (state.width, state.height)
        self.board = state.play(move).board
        self.plies = state.plies + 1

    def forget(self) -> None:
        self.last, self.board = None, None


def _start_cell(state: State, rng: random.Random) -> int | None:
    """The seed's first move: a random free cell on our own start edge with an index from 1 to
    N-2 (`gen_range(1, N-1)`: both end cells never chosen).  On an edge shorter than 3 cells,
    or when those cells are all taken, any free cell of that edge; None if the edge is full."""
    start = edges(state.width, state.height, state.to_move)[0]
    inner = [c for c in start[1:-1] if state.board[c] == EMPTY]
    if inner:
        return rng.choice(inner)
    free = [c for c in start if state.board[c] == EMPTY]
    return rng.choice(free) if free else None


def _path_step(state: State, board: bytes, cell: int, rng: random.Random, exclude=()) -> int | None:
    """The seed's Path rule from `cell`: among its free neighbours (not in `exclude`), one random
    cell per weight class (+1 forward, 0 sideways, -1 back); the best weight wins.  None when
    no neighbour is free."""
    w = state.width
    best: dict[int, list[int]] = {}
    for n in neighbours(w, state.height)[cell]:
        if board[n] == EMPTY and n not in exclude:
            best.setdefault(step_weight(cell, n, w, state.to_move), []).append(n)
    if not best:
        return None
    return rng.choice(best[max(best)])


# -- the players ----------------------------------------------------------------------------------

@dataclass
class Random:
    """The seed's Random IA: a uniformly random empty cell (never a swap)."""

    seed: int | None = None

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        move = self._rng.choice(_require_moves(state))
        return SearchResult(move, 0.0, 0, 1, time.monotonic() - t0)


@dataclass
class Path:
    """The seed's Path IA.

    First move: a random cell on its own start edge, index 1..N-2 (never an end cell; see
    `_start_cell` for tiny boards or a full edge).  Then: among the free neighbours of its
    own last played stone, one random cell per weight class (+1 forward, 0 sideways, -1
    back), the best weight wins; when none is free, a random empty cell (which becomes the
    last played stone).  The last stone is remembered between calls and checked against the
    state; when the state does not continue our game (a new game, a swap of our first stone,
    a state from elsewhere), Path starts over with a first move.
    """

    seed: int | None = None
    _memory: _Memory = field(default_factory=_Memory, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    @property
    def last(self) -> int | None:
        """Our last played stone, as remembered (None before the first move)."""
        return self._memory.last

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        empties = _require_moves(state)
        move = None
        if self._memory.follows(state):
            move = _path_step(state, state.board, self._memory.last, self._rng)
        else:
            self._memory.forget()
            move = _start_cell(state, self._rng)
        if move is None:  # stuck: the seed falls back on its Random IA
            move = self._rng.choice(empties)
        self._memory.record(state, move)
        return SearchResult(move, 0.0, 0, 1, time.monotonic() - t0)


@dataclass
class MindPath:
    """The seed's Mind Path IA: plans a whole path once, then fills it.

    The plan is made the Path way: a random start cell on our edge (as Path's first move),
    then Path's weighted random steps over empty cells until the goal edge.  Each turn it
    plays the plan's first empty cell.  When an opponent stone lands on the plan, it
    re-plans from its last placed stone.

    Departure from the seed: the re-planning is a correct shortest path (0-1 BFS: own stones
    cost 0, empty cells 1, opponent stones are walls) from the start edge to the goal edge
    through the last placed stone, so the stones already laid are reused; the seed's search
    stopped at the first neighbour that reached the goal and dropped the current cell from
    its result.  A first walk that gets stuck before the goal edge is replaced the same way
    (the shortest path through its start cell).  When the last stone is cut off, the
    shortest edge-to-edge path anywhere is the plan; when there is none (the game is lost),
    a random empty cell is played.
    """

    seed: int | None = None
    _memory: _Memory = field(default_factory=_Memory, init=False, repr=False)
    _plan: list[int] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    @property
    def plan(self) -> list[int] | None:
        """The current plan (cells from our start edge to our goal edge), None without one."""
        return None if self._plan is None else list(self._plan)

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        empties = _require_moves(state)
        me = state.to_move
        if not self._memory.follows(state):
            self._memory.forget()
            self._plan = self._first_plan(state)
        elif self._plan is None or any(state.board[c] not in (EMPTY, me) for c in self._plan):
            self._plan = self._replan(state, self._memory.last)
        move = self._next_cell(state)
        if move is None and self._plan is not None:  # a plan with no empty cell: make another
            self._plan = self._replan(state, self._memory.last)
            move = self._next_cell(state)
        if move is None:  # no chain of ours is left: in an unfinished game that cannot be
            self._plan = None  # (the opponent's stones would join their edges), but never fail
            move = self._rng.choice(empties)
        self._memory.record(state, move)
        return SearchResult(move, 0.0, 0, 1, time.monotonic() - t0)

    def _next_cell(self, state: State) -> int | None:
        if self._plan is None:
            return None
        return next((c for c in self._plan if state.board[c] == EMPTY), None)

    def _first_plan(self, state: State) -> list[int] | None:
        start = _start_cell(state, self._rng)
        if start is None:
            return self._replan(state, None)
        goal = set(edges(state.width, state.height, state.to_move)[1])
        plan, cell = [start], start
        seen = {start}
        while cell not in goal:
            cell = _path_step(state, state.board, cell, self._rng, exclude=seen)
            if cell is None:  # the walk is stuck: the shortest path through the start instead
                return self._replan(state, start)
            plan.append(cell)
            seen.add(cell)
        return plan

    def _replan(self, state: State, pivot: int | None) -> list[int] | None:
        args = (state.board, state.width, state.height, state.to_move)
        plan = shortest_path(*args, via=pivot) if pivot is not None else None
        return plan if plan is not None else shortest_path(*args)


@dataclass
class Bruteforce:
    """The seed's Bruteforce IA ("lowest-cost path"), made exact and polynomial.

    For every empty cell c, the cost of our best edge-to-edge chain after playing c (the
    number of empty cells it still needs; own stones cost 0, empty cells 1, opponent stones
    are walls) by 0-1 BFS; it plays a cell of least cost and, among those, one that leaves the
    opponent's best chain (measured the same way) the most expensive; remaining ties are
    broken at random (the seed tried cells in random order).

    Computation: two 0-1 BFS per colour (from each edge) give every cell's own cost at once
    (`costs_after`); the opponent's cost is recomputed by BFS only for the tied cells that lie
    on one of the opponent's cheapest chains (elsewhere it cannot change).

    Departures from the seed (docs/protocols/hex.md section 8.2): the seed enumerated every
    simple path by recursive DFS (exponential: its "4x4" bench took 0.5 s per game) and,
    against its own report, let opponent stones be passable at cost 1 (and start on them);
    here they are walls, as the report says.  The opponent's cost as a tie-break is ours (the
    seed kept the first cheapest cell in its random order).
    Properties and quirks: it takes a win in one (cost 0) and blocks a one-move threat (every
    chain of ours crosses the opponent's almost-complete chain at its one gap, so the gap is
    among our cheapest cells, and it is the one that raises the opponent's cost).  It has no
    lookahead beyond that: it does not know bridges or two-way threats, a single cost counts
    every cheapest chain the same, and on an empty board every cell ties (its opening is
    random, corners included).
    """

    seed: int | None = None

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def scores(self, state: State) -> dict[int, tuple[int, int]]:
        """For every empty cell: (our path cost, the opponent's path cost) after we play it,
        only for the cells that tie on our least cost (the others cannot be chosen)."""
        me, you = state.to_move, 3 - state.to_move
        w, h, board = state.width, state.height, state.board
        mine = costs_after(board, w, h, me)
        best = min(mine.values())
        tied = [c for c, k in mine.items() if k == best]
        o1 = distances(board, w, h, you)
        o2 = distances(board, w, h, you, from_goal=True)
        theirs = min(o1[c] for c in edges(w, h, you)[1])
        out = {}
        for c in tied:
            if theirs < INF and o1[c] + o2[c] - 1 == theirs:  # on a cheapest chain of theirs
                after = bytearray(board)
                after[c] = me
                out[c] = (best, path_cost(bytes(after), w, h, you))
            else:
                out[c] = (best, theirs)
        return out

    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        t0 = time.monotonic()
        _require_moves(state)
        scores = self.scores(state)
        top = max(k[1] for k in scores.values())
        cells = sorted(c for c, k in scores.items() if k[1] == top)
        move = self._rng.choice(cells)
        own, theirs = scores[move]
        value = float(min(theirs, 10 ** 6) - own)
        return SearchResult(move, value, 1, len(state.board), time.monotonic() - t0)


PLAYERS = {"random": Random, "path": Path, "mind-path": MindPath, "bruteforce": Bruteforce}
