"""Our Go engine over GTP v2 (docs/protocols/gtp.md sections 2-4): what `bots gtp go` runs.

The protocol runtime (command tables and `handle`, the `serve` transport loop, stdio and the
process around it) is shared with Hex's HTP engine and lives in bots/gtp_runtime.py; this
module holds Go's commands and Go's state:

* `Engine` holds the game (an immutable `State`, the states before each move for `undo`,
  the time settings and clocks) and answers one `protocol.gtp.Command` at a time with
  `(ok, text)`.  Every failure becomes a `?` answer; a handler builds its new state before
  assigning it, so a refused command leaves the engine as it was.  The time settings, the
  clocks, `time_settings` and `kgs-time_settings` are the ones Hex's engine has
  (bots/gtp_clock.py over the clock model of bots/clock.py); Go gives them its estimate of
  the moves left (bots/go/clock.py) and parses `time_left`.
* `serve(reader, writer, engine)` (bots.gtp_runtime.serve) is the transport loop.
* `main(...)` runs the engine on stdin/stdout under uvloop with a `SearchRunner`
  (bots.gtp_runtime.main): stdout carries nothing but GTP.

GTP lets a controller play either colour at any time and keep playing after two passes
(e.g. `kgs-genmove_cleanup` after a disputed end); the engine follows: the named colour is
made the side to move without a pass (the simple-ko point is dropped, positional superko
still applies), and a finished game is resumed.  Moves are generated with
`bots.decide.decide`, so an illegal move never leaves the process.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import numpy as np

from protocol.gtp import Command, ProtocolError, board_size_limit, parse_vertex
from search.contracts import Context

from .. import gtp_runtime
from ..clock import TimeSettings
from ..gtp_clock import ClockedEngine
from ..gtp_runtime import Failure, arity, command, integer, natural, number, serve
from ..gtp_runtime import seconds as _seconds  # `seconds` is a local name in this module
from ..runner import SearchRunner
from . import fallback, handicap, kernel as K
from .board import (
    BLACK,
    PASS,
    WHITE,
    IllegalMove,
    State,
    empty,
    point_name,
    render,
)
from .clock import moves_left

__all__ = ["DEAD_PLAYOUTS", "Engine", "Failure", "TimeSettings", "dead_stones", "main", "serve"]

MIN_BOARD, MAX_BOARD = 2, 19
DEAD_PLAYOUTS = 200


# -- dead stones ------------------------------------------------------------------------------

def dead_stones(state: State, playouts: int = DEAD_PLAYOUTS, seed: int = 0) -> list[int]:
    """The stones (sorted points) whose point ends up owned by the opponent in more than half
    of `playouts` random playouts (no own-eye filling) from `state`.  A finished game is
    played on as if it had not ended.

    The playouts are the kernel's light ones (bots/go/kernel.py: simple ko only, uniform
    moves that fill no own eye), with its random generator seeded with `seed` for them
    (`kernel.seeded`).  A point's owner is read from the final board with `kernel.owners`:
    a stone's colour, or the one colour around an empty region.
    """
    if not isinstance(playouts, int) or playouts < 1:
        raise ValueError(f"playouts must be a positive int, got {playouts!r}")
    stones = [p for p, k in enumerate(state.board) if k]
    if not stones:
        return []
    B0, S0 = K.to_kernel(state._replace(passes=0) if state.passes else state)
    where = np.array([K.padded(p, state.size) for p in stones], np.int64)
    opponent = np.array([3 - state.board[p] for p in stones], np.int8)
    amaf = np.zeros(B0.shape[1], np.int32)  # the playout records first moves here; unused
    limit = 3 * state.size ** 2
    against = np.zeros(len(stones), np.int64)
    with K.seeded(seed % 2 ** 32):
        for _ in range(playouts):
            B, S = B0.copy(), S0.copy()
            K.playout(B, S, state.komi, amaf, limit, False, False, False)
            against += K.owners(B, S)[where] == opponent
    return [p for p, n in zip(stones, against.tolist(), strict=True) if 2 * n > playouts]


# -- argument parsing ---------------------------------------------------------------------------

def _colour(text: str) -> int:
    return gtp_runtime.colour(text, BLACK, WHITE)


# -- the engine -------------------------------------------------------------------------------

class Engine(ClockedEngine):
    """One GTP game: state, undo history, time settings and clocks; `handle` answers commands."""

    game = "go"
    colours = (BLACK, WHITE)

    def __init__(self, runner: SearchRunner | None, player: str = "random", params: tuple = (),
                 superko: str = "positional", log: Any = None, ponder: bool = False) -> None:
        super().__init__(runner, player, params, log, ponder=ponder)
        self.superko = superko
        self.state: State = empty(9, 7.5, superko)
        self.history: list[State] = []

    # -- helpers ------------------------------------------------------------------------------
    def _point(self, text: str) -> int:
        """A point or PASS of the current board; Failure for a malformed or off-board vertex."""
        try:
            vertex = parse_vertex(text, board_size_limit())
        except ProtocolError as exc:
            raise Failure(f"syntax error: {exc}") from None
        if vertex is None:
            return PASS
        col, row = vertex
        size = self.state.size
        if col >= size or row >= size:
            raise Failure("illegal move")
        return row * size + col

    def _turn(self, colour: int) -> State:
        """The current state with `colour` to move (no pass is recorded) and a finished game
        resumed: GTP lets the controller do both."""
        s = self.state
        if s.passes >= 2:
            s = s._replace(passes=0)
        if s.to_move != colour:
            s = s._replace(to_move=colour, ko=PASS)
        return s

    def _commit(self, new: State) -> None:
        self.history.append(self.state)
        self.state = new

    def _new_game(self, size: int) -> None:
        self.state = empty(size, self.state.komi, self.superko)
        self.history = []
        self.restart_clocks()

    def moves_left(self) -> float:
        """Go's estimate of the moves we still have to play (bots.clock.budget's input)."""
        return moves_left(self.state)

    async def _generate(self, cmd: Command, commit: bool) -> str:
        arrived = time.monotonic()
        (arg,) = arity(cmd, 1)
        colour = _colour(arg)
        state = self._turn(colour)
        budget, left = self.move_budget(colour, arrived)
        move, report = await self.think(state, budget, Context(time_left=left))
        new = state.play(move)  # decide guarantees legality; a failure here is a bug
        if commit:
            self._commit(new)
            self.charge(colour, time.monotonic() - arrived, report.used)
        return "pass" if move == PASS else point_name(move, state.size)

    # -- setup ---------------------------------------------------------------------------------
    @command("boardsize")
    async def _boardsize(self, cmd: Command) -> str:
        (arg,) = arity(cmd, 1)
        size = integer(arg, "the board size")
        if not MIN_BOARD <= size <= MAX_BOARD:
            raise Failure("unacceptable size")
        self._new_game(size)
        return ""

    @command("clear_board")
    async def _clear_board(self, cmd: Command) -> str:
        arity(cmd, 0)
        self._new_game(self.state.size)
        return ""

    @command("komi")
    async def _komi(self, cmd: Command) -> str:
        (arg,) = arity(cmd, 1)
        komi = number(arg, "komi")
        self.state = self.state._replace(komi=komi)
        self.history = [s._replace(komi=komi) for s in self.history]
        return ""

    # -- handicap (GTP section 4.1; not in the move history, so `undo` keeps them) ----------
    def _handicap(self, points: list[int]) -> str:
        if any(self.state.board):
            raise Failure("board not empty")
        self.state = handicap.position(self.state.size, points, self.state.komi, self.superko)
        self.history = []
        return " ".join(point_name(p, self.state.size) for p in points)

    @command("fixed_handicap")
    async def _fixed_handicap(self, cmd: Command) -> str:
        (arg,) = arity(cmd, 1)
        count = integer(arg, "the number of stones")
        if not 2 <= count <= handicap.max_fixed(self.state.size):
            raise Failure("invalid number of stones")
        return self._handicap(handicap.fixed_points(self.state.size, count))

    @command("place_free_handicap")
    async def _place_free_handicap(self, cmd: Command) -> str:
        (arg,) = arity(cmd, 1)
        count = integer(arg, "the number of stones")
        if not 2 <= count < self.state.size ** 2:
            raise Failure("invalid number of stones")
        return self._handicap(handicap.free_points(self.state.size, count))

    @command("set_free_handicap")
    async def _set_free_handicap(self, cmd: Command) -> str:
        try:
            points = [self._point(v) for v in cmd.args]
        except Failure as exc:
            raise exc if str(exc).startswith("syntax error") else Failure("bad vertex list") from None
        if not 2 <= len(points) < self.state.size ** 2 or PASS in points or len(set(points)) != len(points):
            raise Failure("bad vertex list")
        return self._handicap(points)  # (black stones alone always leave every string a liberty)

    # -- play ----------------------------------------------------------------------------------
    @command("play")
    async def _play(self, cmd: Command) -> str:
        colour_text, vertex = arity(cmd, 2)
        colour = _colour(colour_text)
        move = self._point(vertex)
        state = self._turn(colour)
        try:
            new = state.play(move)
        except IllegalMove as exc:
            self.log.info("illegal move refused", move=f"{colour_text} {vertex}", reason=exc.reason)
            raise Failure("illegal move") from None
        self._commit(new)
        return ""

    @command("kgs-genmove_cleanup")
    async def _genmove_cleanup(self, cmd: Command) -> str:
        # Our players never pass while a playable point is left, so they capture dead stones.
        return await self._generate(cmd, commit=True)

    def _restore(self, entry: State) -> None:
        self.state = entry

    @command("showboard")
    async def _showboard(self, cmd: Command) -> str:
        arity(cmd, 0)
        return "\n" + render(self.state)

    # -- time (time_settings and kgs-time_settings: bots/gtp_clock.py) -----------------------
    @command("time_left")
    async def _time_left(self, cmd: Command) -> str:
        """GTP's `time_left COLOUR SECONDS STONES` (stones 0 in main time)."""
        colour_text, left, stones = arity(cmd, 3)
        colour = _colour(colour_text)
        self.read_clock(colour, _seconds(left, "time left"), natural(stones, "stones left"))
        return ""

    # -- scoring -------------------------------------------------------------------------------
    @command("final_score")
    async def _final_score(self, cmd: Command) -> str:
        arity(cmd, 0)
        return self.state.score_text()

    @command("final_status_list")
    async def _final_status_list(self, cmd: Command) -> str:
        (status,) = arity(cmd, 1)
        status = status.lower()
        if status not in ("alive", "dead", "seki"):
            raise Failure(f"syntax error: status must be alive, dead or seki, got {status!r:.20}")
        if status == "seki":
            return ""
        state = self.state
        # In a thread: before the kernels are loaded in this process it compiles them (issue 28).
        dead = set(await asyncio.to_thread(dead_stones, state, DEAD_PLAYOUTS, state.key()))
        points = [p for p, k in enumerate(state.board) if k and ((p in dead) == (status == "dead"))]
        return " ".join(point_name(p, state.size) for p in points)


# -- the process ----------------------------------------------------------------------------------

def _warm() -> None:
    """Load the kernels this process runs itself (the workers warm their own): the fallback
    move computed before every search, and the dead-stone playouts of final_score."""
    fallback.warm()
    dead_stones(empty(5).play(12), 1)


def main(player: str, params: tuple, workers: int = 2, superko: str = "positional", ponder: bool = False) -> int:
    """Run the GTP engine on stdin/stdout until quit or EOF (`ponder`: search on while the
    opponent thinks).  0 when done, 1 when stdin or stdout cannot be used, 2 for a bad player
    or option, 130 on Ctrl-C."""
    params = tuple(sorted(params))
    return gtp_runtime.main("go", lambda runner, log: Engine(runner, player, params, superko, log, ponder=ponder),
                            workers, _warm, label="GTP", logger="bots.go.gtp_engine")


if __name__ == "__main__":
    parser = gtp_runtime.argument_parser("python -m bots.go.gtp_engine",
                                         "Our Go engine over GTP on stdin/stdout (logs on stderr).", "Go")
    parser.add_argument("--superko", default="positional", choices=("positional", "goban"))
    ns = parser.parse_args()
    sys.exit(main(ns.player, tuple(ns.param), ns.workers, ns.superko, ns.ponder))
