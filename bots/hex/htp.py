"""Our Hex engine over HTP, Benzene's and HexGui's dialect of GTP (docs/protocols/hex.md
sections 3 and 4): what `bots htp hex` runs.

The protocol runtime (command table and `handle`, the `serve` transport loop, stdio and the
process around it) is bots/gtp_runtime.py, shared with Go's GTP engine; this module holds
Hex's commands and Hex's state.

The engine keeps our canonical game (bots/hex/board.py): an immutable `State` whose swap is
the "swap pieces" move `SWAP` (the stone moves to the transposed cell and changes colour;
Black moves next), and whose `swapped` flag records that one was played.  The controller
speaks Benzene's dialect, where `swap-pieces` has the players exchange colours on an unchanged
board and White moves again.  The two are the same position with colours exchanged and the
board transposed, so once `swapped` is set every colour and cell crossing the wire is
translated (`bots.hex.board.benzene`, its own inverse): `play` and `genmove` in and out,
`showboard`, `all_legal_moves`, `final_score`; `undo` of the swap restores the unswapped
state.  The clocks belong to the colours as the controller names them (`time_left white` is
the clock of whoever plays White now), so they need no translation.

As in Go's engine, colours need not alternate: the named colour becomes the side to move.  A
won game (a connection, or a `play <colour> resign`) accepts no more moves, and `genmove`
answers `resign`.  Moves are generated with `bots.decide.decide` (`Engine.think`), so an
illegal move never leaves the process.

Clocks are Go's (bots/gtp_clock.py over the clock model of bots/clock.py): GTP's
`time_settings MAIN BYO_TIME BYO_STONES` (`0 S 1` is S seconds a move, `M 0 0` a game clock),
KGS's `kgs-time_settings`, Benzene's `param_game game_time S` (a game clock of S seconds), and
`time_left` in Benzene's form (`time_left COLOUR SECONDS`) and GTP's (`... SECONDS STONES`).
Hex gives them its estimate of the moves left (`moves_left`).  With no time command at all a
move thinks bots.clock.DEFAULT_SECONDS (2 s), less the overhead; docs/protocols/time-control.md
has the whole story.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from protocol.errors import IllegalMove
from protocol.gtp import Command
from search.contracts import Context

from .. import gtp_runtime, registry
from ..clock import Clock, TimeSettings
from ..gtp_clock import ClockedEngine
from ..gtp_runtime import Failure, arity, command, integer, natural, serve
from ..runner import SearchRunner
from .board import (
    BLACK,
    COLOUR_NAMES,
    DEFAULT_SIZE,
    EMPTY,
    SWAP,
    WHITE,
    State,
    benzene,
    cell_name,
    check_size,
    empty,
    from_moves,
    parse_cell,
    render,
)

__all__ = ["Engine", "Failure", "main", "moves_left", "serve"]

ANALYZE_COMMANDS = (  # HexGui builds its Analyze menu from these: type/label/command
    "param/Game Param/param_game",
    "plist/All Legal Moves/all_legal_moves %c",
    "string/ShowBoard/showboard",
    "string/Final Score/final_score",
    "string/Time Left/time_left",
)
_TRUE, _FALSE = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


def moves_left(state: State) -> float:
    """The moves we may still have to make in `state`, what bots.clock.budget spreads a game
    clock over: about half the empty cells, but never fewer than 10 (so an almost full board
    does not spend the whole clock on one move)."""
    return max(10.0, state.board.count(EMPTY) / 2)


def _seconds_text(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _clock_text(reading: Clock | None) -> str:
    """A clock as `time_left` would set it: `SECONDS` in main time, `SECONDS STONES` in a
    byo-yomi period, `none` when nothing limits it."""
    if reading is None:
        return "none"
    seconds, stones = reading
    return _seconds_text(seconds) + (f" {stones}" if stones else "")


def _colour(text: str) -> int:
    return gtp_runtime.colour(text, BLACK, WHITE)


class Engine(ClockedEngine):
    """One HTP game: the canonical state, the states before each move for `undo`, who resigned,
    the swap rule, the time settings and the clocks (of the colours as the controller names
    them); `handle` answers commands."""

    game = "hex"
    colours = (BLACK, WHITE)

    def __init__(self, runner: SearchRunner | None, player: str = "random", params: tuple = (),
                 log: Any = None, ponder: bool = False) -> None:
        super().__init__(runner, player, params, log, ponder=ponder)
        self.allow_swap = False  # Benzene's default: `param_game allow_swap 1` turns it on
        self.little_golem = False  # print the swap as LittleGolem's `swap`
        self.state: State = empty(DEFAULT_SIZE)
        self.resigned: int | None = None  # the canonical colour that resigned
        self.history: list[tuple[State, int | None]] = []  # (state, resigned) before each move

    # -- the game in the controller's terms ---------------------------------------------------
    def canonical(self, colour: int) -> int:
        """Our colour for the controller's `colour` (and back: the translation is an involution)."""
        return benzene(self.state, colour)[0]

    def winner(self) -> int | None:
        """The winner in our canonical colours (by connection or resignation), or None."""
        if self.resigned is not None:
            return 3 - self.resigned
        return self.state.winner()

    def to_move(self) -> int:
        """The side to move as the controller names it."""
        return self.canonical(self.state.to_move)

    def _turn(self, colour: int) -> State:
        """The state with canonical `colour` to move (the controller need not alternate), the
        swap rule on in it only for Black's first stone on the empty board and White's reply
        to it when allow_swap is on (the swap itself is legal only in the reply)."""
        s = self.state
        if s.to_move != colour:
            s = s._replace(to_move=colour)
        swap = self.allow_swap and not s.swapped and (
            (colour == WHITE and s.plies == 1 and s.board.count(BLACK) == 1)
            or (colour == BLACK and s.plies == 0))
        if s.swap != swap:
            s = s._replace(swap=swap)
        return s

    def _commit(self, new: State, resigned: int | None = None) -> None:
        self.history.append((self.state, self.resigned))
        self.state, self.resigned = new, resigned

    def _new_game(self, width: int, height: int) -> None:
        self.state = empty(width, height, self.allow_swap)
        self.resigned = None
        self.history = []
        self.restart_clocks()

    def _move_name(self, state: State, move: int) -> str:
        """A canonical move of `state` as the controller names it."""
        if move == SWAP:
            return "swap" if self.little_golem else "swap-pieces"
        return cell_name(benzene(state, state.to_move, move)[1], state.width)

    def view(self) -> State:
        """The position as the controller sees it (colours and cells translated after a swap)."""
        s = self.state
        if not s.swapped:
            return s
        board = bytearray(s.cells)
        for cell, stone in enumerate(s.board):
            if stone != EMPTY:
                colour, where = benzene(s, stone, cell)
                board[where] = colour
        last = None if s.last in (None, SWAP) else benzene(s, BLACK, s.last)[1]
        return s._replace(board=bytes(board), to_move=self.to_move(), last=last)

    def moves_left(self) -> float:
        """Hex's estimate of the moves left (bots.clock.budget's input)."""
        return moves_left(self.state)

    async def _generate(self, cmd: Command, commit: bool) -> str:
        arrived = time.monotonic()
        (arg,) = arity(cmd, 1)
        colour = _colour(arg)
        if self.winner() is not None:
            return "resign"
        state = self._turn(self.canonical(colour))
        budget, left = self.move_budget(colour, arrived)
        move, report = await self.think(state, budget, Context(time_left=left))
        new = state.play(move)  # decide guarantees legality; a failure here is a bug
        if commit:
            self._commit(new)
            self.charge(colour, time.monotonic() - arrived, report.used)
        return self._move_name(state, move)

    # -- setup ---------------------------------------------------------------------------------
    @command("boardsize")
    async def _boardsize(self, cmd: Command) -> str:
        args = arity(cmd, 1, 2)
        sizes = [integer(a, "the board size") for a in args]
        try:
            width, height = check_size(*sizes)
        except ValueError:
            raise Failure("unacceptable size") from None
        self._new_game(width, height)
        return ""

    @command("clear_board")
    async def _clear_board(self, cmd: Command) -> str:
        arity(cmd, 0)
        self._new_game(self.state.width, self.state.height)
        return ""

    def game_time(self) -> float:
        """The game time `param_game` lists: the main time of the settings (the whole game's
        under `param_game game_time`), 0 when no limit is set (the default per move applies)
        or the settings have no main time (byo-yomi only, e.g. `time_settings 0 2 1`)."""
        t = self.time
        return 0.0 if t is None or t.unlimited else t.main

    @command("param_game")
    async def _param_game(self, cmd: Command) -> str:
        """No argument: the parameters and their values, one a line (`[type] name value`);
        `NAME VALUE`: set one.  `game_time S` sets a game clock of S seconds per colour
        (absolute time, as `time_settings S 0 0`), only before the first move."""
        args = arity(cmd, 0, 2)
        if not args:
            return "\n".join((f"[bool] allow_swap {int(self.allow_swap)}",
                              f"[bool] on_little_golem {int(self.little_golem)}",
                              f"[string] game_time {_seconds_text(self.game_time())}"))
        name, value = args
        if name in ("allow_swap", "on_little_golem"):
            if value.lower() not in _TRUE + _FALSE:
                raise Failure(f"syntax error: {name} is 1 or 0, got {value!r:.20}")
            setattr(self, "allow_swap" if name == "allow_swap" else "little_golem", value.lower() in _TRUE)
        elif name == "game_time":
            seconds = gtp_runtime.seconds(value, "game_time")
            if self.history:
                raise Failure("game_time can only be set before the first move")
            self.set_time(TimeSettings(seconds, 0.0, 0))
        else:
            raise Failure(f"unknown parameter: {name:.30} (allow_swap, on_little_golem, game_time)")
        return ""

    # -- play ----------------------------------------------------------------------------------
    @command("play")
    async def _play(self, cmd: Command) -> str:
        colour_text, move_text = arity(cmd, 2)
        colour = self.canonical(_colour(colour_text))

        def illegal(reason: str) -> Failure:
            self.log.info("illegal move refused", move=f"{colour_text} {move_text}", reason=reason)
            return Failure(f"illegal move: {move_text:.20} ({reason})")

        if self.winner() is not None:
            raise illegal("game over")
        s = self.state
        if move_text.lower() == "resign":
            self._commit(s, colour)
            return ""
        try:
            move = parse_cell(move_text, s.width, s.height)
        except ValueError:
            raise illegal("invalid") from None
        state = self._turn(colour)
        if move == SWAP:
            if not self.allow_swap:
                raise illegal("swap off")
            if not state.swap_allowed():
                raise illegal("swap only as White's reply to Black's first move")
        else:
            move = benzene(s, colour, move)[1]
        try:
            new = state.play(move)
        except IllegalMove as exc:
            raise illegal(exc.reason) from None
        self._commit(new)
        return ""

    def _restore(self, entry: tuple[State, int | None]) -> None:
        self.state, self.resigned = entry

    # -- looking at the game ------------------------------------------------------------------
    @command("showboard")
    async def _showboard(self, cmd: Command) -> str:
        """The board on the lines after `= `: column letters, then each row one step further
        right (a1 top-left), then who has won or is to move."""
        arity(cmd, 0)
        view = self.view()
        lines = render(view).split("\n")[:-1]  # render's last line speaks of our canonical game
        winner = self.winner()
        if self.resigned is not None:
            loser = self.canonical(self.resigned)
            lines.append(f"{COLOUR_NAMES[loser]} resigned: {COLOUR_NAMES[3 - loser]} has won.")
        elif winner is not None:
            lines.append(f"{COLOUR_NAMES[self.canonical(winner)]} has won.")
        else:
            lines.append(f"{COLOUR_NAMES[view.to_move]} to move.")
        if self.state.swapped:
            lines.append("The players swapped sides after the first move.")
        return "\n" + "\n".join(lines)

    @command("all_legal_moves")
    async def _all_legal_moves(self, cmd: Command) -> str:
        args = arity(cmd, 0, 1)
        colour = _colour(args[0]) if args else self.to_move()
        if self.winner() is not None:
            return ""
        state = self._turn(self.canonical(colour))
        view = self.view()
        moves = [cell_name(c, view.width) for c, stone in enumerate(view.board) if stone == EMPTY]
        if state.swap_allowed():
            moves.append(self._move_name(state, SWAP))
        return " ".join(moves)

    @command("final_score")
    async def _final_score(self, cmd: Command) -> str:
        arity(cmd, 0)
        winner = self.winner()
        if winner is None:
            return "cannot score"
        return f"{'BW'[self.canonical(winner) - 1]}+"

    @command("hexgui-analyze_commands")
    async def _analyze_commands(self, cmd: Command) -> str:
        arity(cmd, 0)
        return "\n".join(ANALYZE_COMMANDS)

    # -- time (time_settings and kgs-time_settings: bots/gtp_clock.py) -----------------------
    @command("time_left")
    async def _time_left(self, cmd: Command) -> str:
        """No argument: both clocks (`black C white C`); a colour: its clock C; a colour and
        seconds (Benzene's form): set that clock, in the byo-yomi period it is in if it is in
        one, else in main time; a colour, seconds and stones (GTP's form, stones 0 in main
        time): set that clock.  A clock C is written as it would be set: `SECONDS`,
        `SECONDS STONES` in a byo-yomi period, or `none` when nothing limits it."""
        args = arity(cmd, 0, 1, 2, 3)
        if not args:
            return f"black {_clock_text(self.clocks[BLACK])} white {_clock_text(self.clocks[WHITE])}"
        colour = _colour(args[0])
        if len(args) == 1:
            return _clock_text(self.clocks[colour])
        left = gtp_runtime.seconds(args[1], "time left")
        if len(args) == 3:
            stones = natural(args[2], "stones left")
        else:
            current = self.clocks[colour]
            stones = current[1] if current is not None else 0
        self.read_clock(colour, left, stones)
        return ""


# -- the process ----------------------------------------------------------------------------------

def _warm() -> None:
    """Load what this process runs itself before the first genmove (the workers warm their
    own): the fallback move computed beside every search, and the connection check."""
    state = from_moves(3, [4], swap=True)
    registry.get("hex").fallback(state, Context())
    state.play(SWAP).winner()


def main(player: str, params: tuple, workers: int = 2, ponder: bool = False) -> int:
    """Run the HTP engine on stdin/stdout until quit or EOF (`ponder`: search on while the
    opponent thinks).  0 when done, 1 when stdin or stdout cannot be used, 2 for a bad player
    or option, 130 on Ctrl-C."""
    params = tuple(sorted(params))
    return gtp_runtime.main("hex", lambda runner, log: Engine(runner, player, params, log, ponder=ponder), workers,
                            _warm, label="HTP", logger="bots.hex.htp")


if __name__ == "__main__":
    parser = gtp_runtime.argument_parser("python -m bots.hex.htp",
                                         "Our Hex engine over HTP on stdin/stdout (logs on stderr).", "Hex")
    ns = parser.parse_args()
    sys.exit(main(ns.player, tuple(ns.param), ns.workers, ns.ponder))
