"""Our Go engine over GTP v2 (shared/specs/go.md sections 6 and 7): what `bots gtp go` runs.

Three layers, so each can be tested alone:

* `Engine` holds the game (an immutable `State`, the states before each move for `undo`,
  the time settings and clocks) and answers one `protocol.gtp.Command` at a time with
  `(ok, text)`.  Every failure becomes a `?` answer; a handler builds its new state before
  assigning it, so a refused command leaves the engine as it was.
* `serve(reader, writer, engine)` is the transport loop: bytes -> `CommandDecoder` ->
  `Engine.handle` -> `encode_response`, in order, until `quit` (answered first) or EOF.
* `main(...)` runs `serve` on stdin/stdout under uvloop with a `SearchRunner`.  stdout
  carries nothing but GTP: file descriptor 1 is pointed at stderr before anything else runs
  (logs, worker processes, stray prints), and GTP goes out on a private copy of the
  original stdout.

GTP lets a controller play either colour at any time and keep playing after two passes
(e.g. `kgs-genmove_cleanup` after a disputed end); the engine follows: the named colour is
made the side to move without a pass (the simple-ko point is dropped, positional superko
still applies), and a finished game is resumed.  Moves are generated with
`bots.decide.decide`, so an illegal move never leaves the process.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import signal
import stat
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import structlog

import bots
from protocol.gtp import (
    Command,
    CommandDecoder,
    ProtocolError,
    UsageError,
    board_size_limit,
    encode_response,
    parse_color,
    parse_vertex,
)
from search.budget import Budget

from ..players import make_player
from ..runner import SearchRunner
from . import fallback, kernel as K
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
from ..decide import decide
from .clock import move_seconds

NAME = "bots"
MIN_BOARD, MAX_BOARD = 2, 19
DEAD_PLAYOUTS = 200
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")


class Failure(Exception):
    """A command that fails: the message is the text of the `?` response."""


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
    amaf = np.zeros(B0.shape[1], np.int8)  # the playout records first moves here; unused
    limit = 3 * state.size ** 2
    against = np.zeros(len(stones), np.int64)
    with K.seeded(seed % 2 ** 32):
        for _ in range(playouts):
            B, S = B0.copy(), S0.copy()
            K.playout(B, S, state.komi, amaf, limit, False)
            against += K.owners(B, S)[where] == opponent
    return [p for p, n in zip(stones, against.tolist()) if 2 * n > playouts]


# -- time ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TimeSettings:
    """GTP time_settings: `main` seconds, then `byo_stones` moves per `byo_time` seconds
    (Canadian byo-yomi).  byo_time = byo_stones = 0: absolute; byo_time > 0 and
    byo_stones = 0: no limit."""

    main: float
    byo_time: float
    byo_stones: int

    @property
    def unlimited(self) -> bool:
        return self.byo_time > 0 and self.byo_stones == 0

    def start(self) -> tuple[float, int] | None:
        """The clock (seconds, stones) at the start of a game; None without a limit."""
        if self.unlimited:
            return None
        if self.main > 0 or self.byo_stones == 0:
            return (self.main, 0)
        return (self.byo_time, self.byo_stones)

    def after_move(self, clock: tuple[float, int], elapsed: float) -> tuple[float, int]:
        """The clock after one of our moves took `elapsed` seconds.  A move that runs out
        of main time starts byo-yomi and counts as its first move; the period restarts once
        its stones are played."""
        seconds, stones = clock
        seconds -= elapsed
        if stones == 0:
            if seconds > 0 or self.byo_stones == 0:
                return (max(0.0, seconds), 0)
            seconds += self.byo_time
            stones = self.byo_stones
        stones -= 1
        if stones <= 0:
            return (self.byo_time, self.byo_stones)
        return (max(0.0, seconds), stones)


# -- argument parsing ---------------------------------------------------------------------------

def _arity(cmd: Command, *counts: int) -> tuple[str, ...]:
    if len(cmd.args) not in counts:
        want = " or ".join(str(c) for c in counts)
        raise Failure(f"syntax error: {cmd.name} takes {want} argument{'s' if counts != (1,) else ''}, "
                      f"got {len(cmd.args)}")
    return cmd.args


def _number(text: str, what: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise Failure(f"syntax error: {what} must be a number, got {text!r:.30}")
    value = float(text)
    if not math.isfinite(value):
        raise Failure(f"syntax error: {what} must be finite, got {text!r:.30}")
    return value


def _integer(text: str, what: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise Failure(f"syntax error: {what} must be an integer, got {text!r:.30}")
    return int(text)


def _seconds(text: str, what: str) -> float:
    value = _number(text, what)
    if value < 0:
        raise Failure(f"syntax error: {what} must not be negative, got {text!r:.30}")
    return value


def _stones(text: str, what: str) -> int:
    value = _integer(text, what)
    if value < 0:
        raise Failure(f"syntax error: {what} must not be negative, got {text!r:.30}")
    return value


def _colour(text: str) -> int:
    try:
        return BLACK if parse_color(text) == "b" else WHITE
    except ProtocolError as exc:
        raise Failure(f"syntax error: {exc}") from None


# -- the engine -------------------------------------------------------------------------------

Handler = Callable[["Engine", Command], Awaitable[str]]
_COMMANDS: dict[str, Handler] = {}


def _command(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _COMMANDS[name] = fn
        return fn
    return register


class Engine:
    """One GTP game: state, undo history, time settings and clocks; `handle` answers commands."""

    def __init__(self, runner: SearchRunner, player: str = "random", params: tuple = (),
                 superko: str = "positional", log: Any = None) -> None:
        self.runner = runner
        self.player = player
        self.params = tuple(sorted(params))
        make_player("go", player, dict(self.params))  # PlayerError now rather than a fallback per move
        self.superko = superko
        self.log = log if log is not None else structlog.get_logger("bots.go.gtp_engine")
        self.state: State = empty(9, 7.5, superko)
        self.history: list[State] = []
        self.time: TimeSettings | None = None
        self.clocks: dict[int, tuple[float, int] | None] = {BLACK: None, WHITE: None}
        self.quit_requested = False

    @staticmethod
    def commands() -> list[str]:
        """Every command the engine knows, sorted."""
        return sorted(_COMMANDS)

    async def handle(self, cmd: Command) -> tuple[bool, str]:
        """(ok, text) for one command; never raises."""
        handler = _COMMANDS.get(cmd.name)
        if handler is None:
            return False, "unknown command"
        try:
            return True, await handler(self, cmd)
        except Failure as exc:
            self.log.debug("command failed", command=cmd.name, args=cmd.args, error=str(exc))
            return False, str(exc)
        except Exception as exc:  # a bug must cost one answer, not the game
            self.log.exception("command raised", command=cmd.name, args=cmd.args)
            return False, f"internal error: {type(exc).__name__}"

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
        start = self.time.start() if self.time is not None else None
        self.clocks = {BLACK: start, WHITE: start}

    def move_budget(self, colour: int, state: State) -> tuple[float, float | None]:
        """(seconds to think, seconds left on our clock or None) for `colour`'s next move."""
        clock = self.clocks[colour]
        if clock is None:
            return move_seconds(state), None
        seconds, stones = clock
        if stones > 0:
            return move_seconds(state, per_move=seconds / stones), seconds
        budget = move_seconds(state, time_left=seconds)
        t = self.time
        if t is not None and t.byo_stones > 0:
            # Main time spent at the byo-yomi rate never runs the clock out.
            budget = max(budget, move_seconds(state, per_move=t.byo_time / t.byo_stones))
        return budget, seconds

    def _charge(self, colour: int, elapsed: float) -> None:
        """Take one of our moves off `colour`'s clock (until the next time_left corrects it)."""
        clock = self.clocks[colour]
        if clock is None:
            return
        if self.time is not None:
            self.clocks[colour] = self.time.after_move(clock, elapsed)
            return
        seconds, stones = clock  # time_left without time_settings: the next period is unknown
        if stones == 1:
            self.clocks[colour] = None
        else:
            self.clocks[colour] = (max(0.0, seconds - elapsed), max(0, stones - 1))

    async def _generate(self, cmd: Command, commit: bool) -> str:
        (arg,) = _arity(cmd, 1)
        colour = _colour(arg)
        state = self._turn(colour)
        started = time.monotonic()
        seconds, left = self.move_budget(colour, state)
        context = {"time_left": left} if left is not None else None
        move, _ = await decide(self.runner, "go", self.player, self.params, state, Budget(seconds, start=started),
                               context, log=self.log)
        new = state.play(move)  # decide guarantees legality; a failure here is a bug
        if commit:
            self._commit(new)
            self._charge(colour, time.monotonic() - started)
        return "pass" if move == PASS else point_name(move, state.size)

    # -- administrative ----------------------------------------------------------------------
    @_command("protocol_version")
    async def _protocol_version(self, cmd: Command) -> str:
        _arity(cmd, 0)
        return "2"

    @_command("name")
    async def _name(self, cmd: Command) -> str:
        _arity(cmd, 0)
        return NAME

    @_command("version")
    async def _version(self, cmd: Command) -> str:
        _arity(cmd, 0)
        return bots.__version__

    @_command("known_command")
    async def _known_command(self, cmd: Command) -> str:
        (name,) = _arity(cmd, 1)
        return "true" if name in _COMMANDS else "false"

    @_command("list_commands")
    async def _list_commands(self, cmd: Command) -> str:
        _arity(cmd, 0)
        return "\n".join(self.commands())

    @_command("quit")
    async def _quit(self, cmd: Command) -> str:
        self.quit_requested = True
        return ""

    # -- setup ---------------------------------------------------------------------------------
    @_command("boardsize")
    async def _boardsize(self, cmd: Command) -> str:
        (arg,) = _arity(cmd, 1)
        size = _integer(arg, "the board size")
        if not MIN_BOARD <= size <= MAX_BOARD:
            raise Failure("unacceptable size")
        self._new_game(size)
        return ""

    @_command("clear_board")
    async def _clear_board(self, cmd: Command) -> str:
        _arity(cmd, 0)
        self._new_game(self.state.size)
        return ""

    @_command("komi")
    async def _komi(self, cmd: Command) -> str:
        (arg,) = _arity(cmd, 1)
        komi = _number(arg, "komi")
        self.state = self.state._replace(komi=komi)
        self.history = [s._replace(komi=komi) for s in self.history]
        return ""

    # -- play ----------------------------------------------------------------------------------
    @_command("play")
    async def _play(self, cmd: Command) -> str:
        colour_text, vertex = _arity(cmd, 2)
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

    @_command("genmove")
    async def _genmove(self, cmd: Command) -> str:
        return await self._generate(cmd, commit=True)

    @_command("kgs-genmove_cleanup")
    async def _genmove_cleanup(self, cmd: Command) -> str:
        # Our players never pass while a playable point is left, so they capture dead stones.
        return await self._generate(cmd, commit=True)

    @_command("reg_genmove")
    async def _reg_genmove(self, cmd: Command) -> str:
        return await self._generate(cmd, commit=False)

    @_command("undo")
    async def _undo(self, cmd: Command) -> str:
        _arity(cmd, 0)
        if not self.history:
            raise Failure("cannot undo")
        self.state = self.history.pop()
        return ""

    @_command("showboard")
    async def _showboard(self, cmd: Command) -> str:
        _arity(cmd, 0)
        return "\n" + render(self.state)

    # -- time ----------------------------------------------------------------------------------
    def _set_time(self, settings: TimeSettings | None) -> None:
        self.time = settings
        start = settings.start() if settings is not None else None
        self.clocks = {BLACK: start, WHITE: start}

    @_command("time_settings")
    async def _time_settings(self, cmd: Command) -> str:
        main, byo_time, byo_stones = _arity(cmd, 3)
        self._set_time(TimeSettings(_seconds(main, "main time"), _seconds(byo_time, "byo-yomi time"),
                                    _stones(byo_stones, "byo-yomi stones")))
        return ""

    @_command("kgs-time_settings")
    async def _kgs_time_settings(self, cmd: Command) -> str:
        if not cmd.args:
            raise Failure("syntax error: kgs-time_settings needs a system: none, absolute, byoyomi, canadian")
        system, args = cmd.args[0].lower(), cmd.args[1:]
        if system == "none" and not args:
            self._set_time(None)
        elif system == "absolute" and len(args) == 1:
            self._set_time(TimeSettings(_seconds(args[0], "main time"), 0.0, 0))
        elif system == "byoyomi" and len(args) == 3:
            # Japanese periods: every move must fit in one period, which is Canadian with 1 stone.
            _stones(args[2], "byo-yomi periods")
            self._set_time(TimeSettings(_seconds(args[0], "main time"), _seconds(args[1], "period time"), 1))
        elif system == "canadian" and len(args) == 3:
            self._set_time(TimeSettings(_seconds(args[0], "main time"), _seconds(args[1], "byo-yomi time"),
                                        _stones(args[2], "byo-yomi stones")))
        else:
            raise Failure(f"syntax error: kgs-time_settings {system!r:.20} with {len(args)} arguments; "
                          "expected none, absolute MAIN, byoyomi MAIN PERIOD COUNT or canadian MAIN TIME STONES")
        return ""

    @_command("time_left")
    async def _time_left(self, cmd: Command) -> str:
        colour_text, seconds, stones = _arity(cmd, 3)
        colour = _colour(colour_text)
        self.clocks[colour] = (_seconds(seconds, "time left"), _stones(stones, "stones left"))
        return ""

    # -- scoring -------------------------------------------------------------------------------
    @_command("final_score")
    async def _final_score(self, cmd: Command) -> str:
        _arity(cmd, 0)
        return self.state.score_text()

    @_command("final_status_list")
    async def _final_status_list(self, cmd: Command) -> str:
        (status,) = _arity(cmd, 1)
        status = status.lower()
        if status not in ("alive", "dead", "seki"):
            raise Failure(f"syntax error: status must be alive, dead or seki, got {status!r:.20}")
        if status == "seki":
            return ""
        state = self.state
        dead = set(dead_stones(state, DEAD_PLAYOUTS, state.key()))
        points = [p for p, k in enumerate(state.board) if k and ((p in dead) == (status == "dead"))]
        return " ".join(point_name(p, state.size) for p in points)


# -- transport ------------------------------------------------------------------------------------

async def serve(reader: asyncio.StreamReader, writer: Any, engine: Engine) -> None:
    """Answer every command from `reader` on `writer` (anything with write() and async
    drain()), in order, until `quit` (answered first) or EOF.  A last line without LF at EOF
    is still answered.  A line the decoder rejects is answered with `?` (no id known)."""
    log = engine.log
    decoder = CommandDecoder()

    async def send(ident: int | None, ok: bool, text: str) -> None:
        try:
            data = encode_response(ident, ok, text)
        except UsageError as exc:
            log.error("response cannot be encoded", error=str(exc))
            data = encode_response(ident, False, "internal error: unencodable response")
        try:
            writer.write(data)
            await writer.drain()
        except RuntimeError as exc:  # uvloop: the pipe transport closed under us (the controller left)
            raise BrokenPipeError(str(exc)) from None

    async def answer_all() -> bool:
        """Answer every complete command buffered; False once quit was answered."""
        while True:
            try:
                cmd = decoder.next_event()
            except ProtocolError as exc:
                await send(None, False, f"syntax error: {exc}")
                continue
            if cmd is None:
                return True
            ok, text = await engine.handle(cmd)
            await send(cmd.id, ok, text)
            if engine.quit_requested:
                return False

    try:
        while True:
            data = await reader.read(65536)
            if not data:
                if decoder.buffered:
                    decoder.feed(b"\n")
                    await answer_all()
                log.info("controller closed the input")
                return
            decoder.feed(data)
            if not await answer_all():
                log.info("quit")
                return
    except OSError as exc:  # ConnectionError, BrokenPipeError, an unreadable input
        log.info("controller went away", error=f"{type(exc).__name__}: {exc}")


# -- stdio ----------------------------------------------------------------------------------------

class _FdWriter:
    """Blocking writes to a regular file, for `... > file` where a pipe transport cannot be used."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        os.close(self.fd)


def _regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


async def _read_file(fd: int, reader: asyncio.StreamReader) -> None:
    loop = asyncio.get_running_loop()
    try:
        while data := await loop.run_in_executor(None, os.read, fd, 65536):
            reader.feed_data(data)
    except OSError as exc:
        reader.set_exception(exc)
        return
    reader.feed_eof()


async def _stdio(in_fd: int, out_fd: int) -> tuple[asyncio.StreamReader, Any, list]:
    """A StreamReader on `in_fd`, a writer on `out_fd`, and the tasks/objects to close."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 22)
    keep: list = []
    if _regular(in_fd):
        keep.append(asyncio.create_task(_read_file(in_fd, reader)))
    else:
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                    os.fdopen(in_fd, "rb", 0))
        keep.append(transport)
    if _regular(out_fd):
        writer: Any = _FdWriter(out_fd)
    else:
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(out_fd, "wb", 0))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
    keep.append(writer)
    return reader, writer, keep


def _warm() -> None:
    """Load the kernels this process runs itself (the workers warm their own): the fallback
    move computed before every search, and the dead-stone playouts of final_score."""
    fallback.warm()
    dead_stones(empty(5).play(12), 1)


async def _run(player: str, params: tuple, workers: int, superko: str, in_fd: int, out_fd: int) -> None:
    log = structlog.get_logger("bots.go.gtp_engine")
    # The pool is warm before the first command is read: a search queued behind a worker's
    # start-up would be late, and SearchRunner would then rebuild the pool, possibly again
    # and again (test_runner_recovers_from_a_slow_rebuild in tests/go/test_gtp_engine.py).
    async with SearchRunner(workers, games=["go"]) as runner:
        await asyncio.to_thread(_warm)
        engine = Engine(runner, player, params, superko, log)
        reader, writer, keep = await _stdio(in_fd, out_fd)
        log.info("gtp engine ready", player=player, params=dict(engine.params), workers=workers)
        serving = asyncio.create_task(serve(reader, writer, engine))
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, serving.cancel)  # stop cleanly: workers are closed
        try:
            await serving
        except asyncio.CancelledError:
            if not serving.cancelled() or asyncio.current_task().cancelling():
                raise
            log.info("stopped by SIGTERM")
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            for item in keep:
                if isinstance(item, asyncio.Task):
                    item.cancel()
                else:
                    item.close()


def main(player: str, params: tuple, workers: int = 2, superko: str = "positional") -> int:
    """Run the GTP engine on stdin/stdout until quit or EOF.  0 when done, 1 when stdin or
    stdout cannot be used, 2 for a bad player or option, 130 on Ctrl-C."""
    import uvloop

    from .. import log as logsetup

    logsetup.setup(stream=sys.stderr)
    log = structlog.get_logger("bots.go.gtp_engine")
    params = tuple(sorted(params))
    try:
        Engine(None, player, params, superko, log)  # type: ignore[arg-type]  # checks player and rule
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
    except ValueError as exc:  # PlayerError is a ValueError
        log.error("cannot start the GTP engine", error=str(exc))
        return 2
    try:
        for fd in (0, 1):
            os.fstat(fd)
    except OSError:
        log.error("cannot start the GTP engine", error="stdin or stdout is closed")
        return 1
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)  # from now on anything written to fd 1 (prints, workers) lands on stderr
    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as loop_runner:
            loop_runner.run(_run(player, params, workers, superko, os.dup(0), os.dup(saved)))
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # e.g. stdin or stdout closed or unusable
        log.error("GTP engine stopped", error=f"{type(exc).__name__}: {exc}")
        return 1
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return 0


def _param(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not key=value")
    return key.strip(), value.strip()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bots.go.gtp_engine",
                                     description="Our Go engine over GTP on stdin/stdout (logs on stderr).")
    parser.add_argument("--player", default="random", help="a Go player name (default: random)")
    parser.add_argument("--param", type=_param, action="append", default=[], metavar="KEY=VALUE",
                        help="a player option (repeatable)")
    parser.add_argument("--workers", type=int, default=2, help="search worker processes (default: 2)")
    parser.add_argument("--superko", default="positional", choices=("positional", "goban"))
    ns = parser.parse_args()
    sys.exit(main(ns.player, tuple(ns.param), ns.workers, ns.superko))
