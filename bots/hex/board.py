"""Hex rules: the immutable `State` that players, the HTP engine and the arena see.

Conventions (docs/protocols/hex.md section 2, Benzene's): Black moves first and joins the
top edge (row 1) to the bottom edge; White joins the left edge (column a) to the right edge.
A cell is an int `row * width + col`, row 0 at the top, column 0 on the left; its name is the
column letter and the row number from 1 (`a1` top-left, `c2` = column 2, row 1 counting from 0).
The neighbours of (col, row) are at (0, +-1), (+-1, 0), (-1, +1) and (+1, -1): each row sits
half a cell further right than the row above (see `render`).

Boards are `width` x `height`, each 1..MAX_SIZE (non-square boards where HTP asks for them).

The swap (pie) rule, when `State.swap` is on, is one canonical move, `SWAP` (-1): legal only as
the second move of the game, on a square board.  It is the "swap pieces" form (pgx): the one
stone moves to the transposed cell (row <-> column) and changes colour, and Black moves next, so
players alternate at every move and each colour keeps its edges.  Benzene's and HexGui's
`swap-pieces` (the players exchange colours; the board is unchanged and White moves again) is
the same position seen with colours exchanged and the board transposed; the HTP engine
translates at its edge (`bots.hex.htp`).

The seed's coordinates `[x, y]` (x = row, y = column, both from 0) convert with `from_seed` and
`to_seed`.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import NamedTuple

from protocol.errors import IllegalMove

EMPTY, BLACK, WHITE = 0, 1, 2
SWAP = -1
MIN_SIZE, MAX_SIZE = 1, 19
DEFAULT_SIZE = 11
LETTERS = "abcdefghijklmnopqrs"
COLOUR_NAMES = {BLACK: "Black", WHITE: "White"}
STONE_CHARS = {EMPTY: "-", BLACK: "B", WHITE: "W"}  # the seed's console board
OFFSETS = ((0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1))  # (dcol, drow), in cyclic order


def check_size(width: int, height: int | None = None) -> tuple[int, int]:
    """(width, height) if both are whole numbers in 1..MAX_SIZE, else ValueError."""
    height = width if height is None else height
    for what, n in (("width", width), ("height", height)):
        if isinstance(n, bool) or not isinstance(n, int) or not MIN_SIZE <= n <= MAX_SIZE:
            raise ValueError(f"a Hex board {what} must be a whole number from {MIN_SIZE} to {MAX_SIZE}, not {n!r}")
    return width, height


# -- geometry and names -----------------------------------------------------------------------

@lru_cache(maxsize=None)
def neighbours(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """The on-board neighbours of every cell, in the cyclic order of OFFSETS."""
    out = []
    for cell in range(width * height):
        row, col = divmod(cell, width)
        out.append(tuple((row + dr) * width + col + dc for dc, dr in OFFSETS
                         if 0 <= col + dc < width and 0 <= row + dr < height))
    return tuple(out)


def cell_name(cell: int, width: int) -> str:
    if cell == SWAP:
        return "swap-pieces"
    row, col = divmod(cell, width)
    return f"{LETTERS[col]}{row + 1}"


def parse_cell(text: str, width: int, height: int) -> int:
    """A cell of a width x height board from its name (`f6`, any case), or SWAP for `swap`,
    `swap-pieces` or `swap-sides`; ValueError naming what is wrong otherwise."""
    t = text.strip().lower()
    if t in ("swap", "swap-pieces", "swap-sides"):
        return SWAP
    if len(t) < 2 or t[0] not in LETTERS or not t[1:].isdigit() or t[1] == "0":
        raise ValueError(f"{text!r} is not a cell (a column letter and a row number, like a1)")
    col, row = LETTERS.index(t[0]), int(t[1:]) - 1
    if col >= width or row >= height:
        raise ValueError(f"{text!r} is off the {width}x{height} board "
                         f"(columns a-{LETTERS[width - 1]}, rows 1-{height})")
    return row * width + col


def from_seed(x: int, y: int, width: int) -> int:
    """The seed's `[x, y]` (x the row, y the column) as a cell."""
    return x * width + y


def to_seed(cell: int, width: int) -> tuple[int, int]:
    return divmod(cell, width)


def transpose(cell: int, width: int, height: int) -> int:
    """The cell mirrored across the a1 diagonal (row <-> column) onto the height x width board."""
    row, col = divmod(cell, width)
    return col * height + row


# -- who has won ------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def connected(width: int, height: int, board: bytes, colour: int) -> bool:
    """Does `colour` join its two edges (Black: top and bottom; White: left and right)?"""
    nbrs = neighbours(width, height)
    if colour == BLACK:
        starts = [c for c in range(width) if board[c] == BLACK]
        goal = lambda c: c >= (height - 1) * width  # noqa: E731
    else:
        starts = [r * width for r in range(height) if board[r * width] == WHITE]
        goal = lambda c: c % width == width - 1  # noqa: E731
    seen = set(starts)
    todo = deque(starts)
    while todo:
        c = todo.popleft()
        if goal(c):
            return True
        for n in nbrs[c]:
            if n not in seen and board[n] == colour:
                seen.add(n)
                todo.append(n)
    return False


# -- the immutable state -------------------------------------------------------------------------

class State(NamedTuple):
    """A Hex position (immutable; pickles as plain data).

    `board`: bytes of width*height cells (0 empty, 1 Black, 2 White), cell = row*width + col.
    `swap`: the pie rule is on.  `plies`: moves played so far (a swap included).  `last`: the
    last move played (a cell or SWAP; None at the start).  `swapped`: a swap was played, so
    that the edges that speak Benzene's dialect translate (`benzene`); it is history, not
    position, and `key()` leaves it out.
    """

    width: int
    height: int
    board: bytes
    to_move: int = BLACK
    swap: bool = False
    plies: int = 0
    last: int | None = None
    swapped: bool = False

    @property
    def cells(self) -> int:
        return self.width * self.height

    def at(self, cell: int) -> int:
        return self.board[cell]

    def name(self, move: int) -> str:
        return cell_name(move, self.width)

    def key(self) -> tuple:
        """Equal positions have equal keys (the last move and the ply count are history;
        whether a swap is still possible is not)."""
        return self.width, self.height, self.board, self.to_move, self.swap_allowed()

    def swap_allowed(self) -> bool:
        return self.swap and self.plies == 1 and self.width == self.height

    # -- moves --------------------------------------------------------------------------------
    def legal_moves(self) -> list[int]:
        if self.is_terminal():
            return []
        moves = [c for c, v in enumerate(self.board) if v == EMPTY]
        if self.swap_allowed():
            moves.append(SWAP)
        return moves

    def check(self, move) -> int:
        """The move as a cell (or SWAP) if legal here; IllegalMove with a reason otherwise."""
        if isinstance(move, str):
            try:
                move = parse_cell(move, self.width, self.height)
            except ValueError as exc:
                raise IllegalMove(str(exc), "invalid") from None
        if isinstance(move, bool) or not isinstance(move, int):
            raise IllegalMove(f"{move!r} is not a Hex move", "invalid")
        if self.is_terminal():
            raise IllegalMove(f"the game is over ({COLOUR_NAMES[self.winner()]} has won)", "game over")
        if move == SWAP:
            if not self.swap:
                raise IllegalMove("the swap rule is off in this game", "swap off")
            if self.plies != 1 or self.width != self.height:
                raise IllegalMove("a swap is legal only as the second move, on a square board", "swap late")
            return move
        if not 0 <= move < self.cells:
            raise IllegalMove(f"{move!r} is off the {self.width}x{self.height} board", "invalid")
        if self.board[move] != EMPTY:
            raise IllegalMove(f"{self.name(move)} is occupied", "occupied")
        return move

    def is_legal(self, move) -> bool:
        try:
            self.check(move)
        except IllegalMove:
            return False
        return True

    def play(self, move) -> State:
        move = self.check(move)
        if move == SWAP:
            stone = self.board.index(BLACK)  # the one stone, Black's first move
            board = bytearray(self.cells)
            board[transpose(stone, self.width, self.height)] = WHITE
            return self._replace(board=bytes(board), to_move=BLACK, plies=2, last=SWAP, swapped=True)
        board = bytearray(self.board)
        board[move] = self.to_move
        return self._replace(board=bytes(board), to_move=3 - self.to_move, plies=self.plies + 1, last=move)

    # -- the end ------------------------------------------------------------------------------
    def winner(self) -> int | None:
        """The colour that has joined its edges (only the last mover can have), or None."""
        if self.last is None and self.plies == 0:
            return None
        for colour in (3 - self.to_move, self.to_move):
            if connected(self.width, self.height, self.board, colour):
                return colour
        return None

    def is_terminal(self) -> bool:
        return self.winner() is not None

    def result(self, player: int) -> float:
        w = self.winner()
        return 0.5 if w is None else float(w == player)


def benzene(state: State, colour: int, cell: int | None = None) -> tuple[int, int | None]:
    """(colour, cell) of our canonical game as Benzene and HexGui name them, and back (the
    translation is its own inverse): after a swap they have the players exchange colours on
    an unchanged board, where we moved the stone to the transposed cell and recoloured it.
    SWAP itself is White's `swap-pieces` in both."""
    if not state.swapped or cell == SWAP:
        return colour, cell
    return 3 - colour, None if cell is None else transpose(cell, state.width, state.height)


def empty(width: int = DEFAULT_SIZE, height: int | None = None, swap: bool = False) -> State:
    width, height = check_size(width, height)
    return State(width, height, bytes(width * height), BLACK, bool(swap))


def from_moves(width: int = DEFAULT_SIZE, moves=(), height: int | None = None, swap: bool = False) -> State:
    """The state after `moves` (cells, SWAP or names) from the empty board."""
    s = empty(width, height, swap)
    for m in moves:
        s = s.play(m)
    return s


def from_rows(rows: list[str], to_move: int | None = None, swap: bool = False) -> State:
    """A state from rows of `B`/`W`/`-` (or `.`), top row first, whitespace ignored; Black to
    move when the stone counts are equal (unless `to_move` says otherwise)."""
    cleaned = ["".join(ch for ch in r if not ch.isspace()) for r in rows]
    cleaned = [r for r in cleaned if r]
    height, width = len(cleaned), len(cleaned[0]) if cleaned else 0
    check_size(width, height)
    codes = {"-": EMPTY, ".": EMPTY, "B": BLACK, "W": WHITE}
    board = bytearray()
    for r in cleaned:
        if len(r) != width:
            raise ValueError(f"rows of unequal length: {cleaned!r}")
        board.extend(codes[ch.upper()] for ch in r)
    blacks, whites = board.count(BLACK), board.count(WHITE)
    if to_move is None:
        to_move = BLACK if blacks == whites else WHITE
    return State(width, height, bytes(board), to_move, swap, blacks + whites, None)


def render(state: State, colour: bool = False) -> str:
    """The board as the seed draws it (`B`, `W`, `-`, each row indented one step further),
    with column letters above and row numbers on the left; the side to move below."""
    w = state.width
    lines = ["   " + " ".join(LETTERS[c] for c in range(w))]
    paint = {BLACK: "\x1b[1;34mB\x1b[0m", WHITE: "\x1b[1;31mW\x1b[0m"} if colour else {}
    for row in range(state.height):
        cells = [paint.get(state.board[row * w + c], STONE_CHARS[state.board[row * w + c]]) for c in range(w)]
        lines.append(f"{' ' * row}{row + 1:>2} " + " ".join(cells))
    w_ = state.winner()
    if w_ is not None:
        lines.append(f"{COLOUR_NAMES[w_]} has won.")
    else:
        lines.append(f"{COLOUR_NAMES[state.to_move]} to move "
                     f"({'top to bottom' if state.to_move == BLACK else 'left to right'}).")
    return "\n".join(lines)
