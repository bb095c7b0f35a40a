"""The runtime every engine speaking a GTP dialect runs on: Go's GTP (bots/go/gtp_engine.py)
and Hex's HTP (bots/hex/htp.py).  A game's engine module keeps its own commands and its own
state handling; everything else is here, once.

Three layers, so each can be tested alone:

* `Engine` is the base class of a game's engine: it answers one `protocol.gtp.Command` at a
  time with `(ok, text)` through `handle` (never raises: a `Failure`, or any bug, becomes a
  `?` answer).  Commands are methods marked with `@command("name")`; each subclass gets its
  own table (`Engine.table`, built by `command_table` when the class is created), holding the
  administrative commands every engine shares plus its own.  A handler builds its new state
  before assigning it, so a refused command leaves the engine as it was.
* `serve(reader, writer, engine)` is the transport loop: bytes -> `CommandDecoder` ->
  `engine.handle` -> `encode_response`, in order, until `quit` (answered first) or EOF.
* `main(game, make_engine, ...)` runs `serve` on stdin/stdout under uvloop at once, with a
  `SearchRunner` warming up in the background (issue 28: protocol first; see `_run`).
  stdout carries nothing but the protocol: file descriptor 1 is pointed at stderr before
  anything else runs (logs, worker processes, stray prints), and the protocol goes out on a
  private copy of the original stdout.

The argument helpers (`arity`, `number`, `integer`, `seconds`, `natural`, `colour`) raise
`Failure("syntax error: ...")`, the answer GTP expects for a malformed argument.

This module is shared: it names no game (the registry name a game's engine gives is all it
knows), so tests/test_imports.py holds it to importing no game package.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import math
import os
import re
import signal
import stat
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar

import structlog

import bots
from protocol.gtp import Command, CommandDecoder, ProtocolError, UsageError, encode_response, parse_color
from search.budget import Budget
from search.contracts import Context

from .cmdline import add_ponder
from .decide import decide
from .players import check_ponder, make_player, parts, ponder
from .runner import MoveReport, SearchRunner

NAME = "bots"
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
_MARK = "_gtp_command"
PONDER_SLICE = 0.05  # seconds of one pondering job: a move asked for waits at most this for its workers
PONDER_LIMIT = 1.0  # ... and a slice still running after this long has hung (its worker is replaced)


class Failure(Exception):
    """A command that fails: the message is the text of the `?` response."""


# -- argument parsing ---------------------------------------------------------------------------

def arity(cmd: Command, *counts: int) -> tuple[str, ...]:
    """`cmd`'s arguments if there are as many as one of `counts`; Failure otherwise."""
    if len(cmd.args) not in counts:
        want = " or ".join(str(c) for c in counts)
        raise Failure(f"syntax error: {cmd.name} takes {want} argument{'s' if counts != (1,) else ''}, "
                      f"got {len(cmd.args)}")
    return cmd.args


def number(text: str, what: str) -> float:
    """A finite decimal number (no `nan`, `inf`, hex or `1_000`)."""
    if not _NUMBER.fullmatch(text):
        raise Failure(f"syntax error: {what} must be a number, got {text!r:.30}")
    value = float(text)
    if not math.isfinite(value):
        raise Failure(f"syntax error: {what} must be finite, got {text!r:.30}")
    return value


def integer(text: str, what: str) -> int:
    """A decimal integer of at most 18 digits."""
    if not _INTEGER.fullmatch(text):
        raise Failure(f"syntax error: {what} must be an integer, got {text!r:.30}")
    return int(text)


def seconds(text: str, what: str) -> float:
    """A non-negative finite number."""
    value = number(text, what)
    if value < 0:
        raise Failure(f"syntax error: {what} must not be negative, got {text!r:.30}")
    return value


def natural(text: str, what: str) -> int:
    """A non-negative integer."""
    value = integer(text, what)
    if value < 0:
        raise Failure(f"syntax error: {what} must not be negative, got {text!r:.30}")
    return value


T = TypeVar("T")


def colour(text: str, black: T, white: T) -> T:
    """`black` for b/black, `white` for w/white (any case): the game's own colour values."""
    try:
        return black if parse_color(text) == "b" else white
    except ProtocolError as exc:
        raise Failure(f"syntax error: {exc}") from None


# -- commands ---------------------------------------------------------------------------------

Handler = Callable[[Any, Command], Awaitable[str]]
H = TypeVar("H", bound=Handler)


def command(name: str) -> Callable[[H], H]:
    """Mark an engine method as the handler of the command `name` (see `command_table`)."""
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise ValueError(f"a command name is one non-empty word, got {name!r}")

    def mark(fn: H) -> H:
        setattr(fn, _MARK, name)
        return fn
    return mark


def command_table(cls: type) -> dict[str, Handler]:
    """{command name: handler} of an engine class: every method marked with `command`, its
    own and those it inherits.  A subclass's handler replaces an inherited one for the same
    command, and a method a subclass redefines is the subclass's (marked or not)."""
    table: dict[str, Handler] = {}
    for klass in reversed(cls.__mro__):
        own: dict[str, str] = {}
        for attr in vars(klass):
            fn = inspect.getattr_static(cls, attr)  # as the class resolves the attribute
            name = getattr(fn, _MARK, None)
            if name is None:
                continue
            if name in own and own[name] != attr:
                raise TypeError(f"{klass.__name__}: {own[name]} and {attr} both handle the command {name!r}")
            own[name] = attr
            table[name] = fn
    return table


class Engine:
    """The base of a game's engine: the player it generates moves with, the command table and
    `handle`, and the administrative commands every GTP dialect has.

    A subclass sets `game` (its registry name) and marks its handlers with `@command(...)`;
    its table is built when the class is created.  `quit_requested` tells `serve` to stop.
    """

    game: ClassVar[str] = ""
    name: ClassVar[str] = NAME
    protocol_version: ClassVar[str] = "2"
    table: ClassVar[dict[str, Handler]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.table = command_table(cls)

    def __init__(self, runner: SearchRunner | None, player: str, params: tuple = (), log: Any = None) -> None:
        self.runner = runner
        self.player = player
        self.params = tuple(sorted(params))
        make_player(self.game, player, dict(self.params))  # PlayerError now rather than a fallback per move
        self.log = log if log is not None else structlog.get_logger(type(self).__module__)
        self.quit_requested = False

    @classmethod
    def commands(cls) -> list[str]:
        """Every command the engine knows, sorted."""
        return sorted(cls.table)

    def describe(self) -> dict[str, Any]:
        """What the start-up log line says about this engine."""
        return {"player": self.player, "params": dict(self.params)}

    async def handle(self, cmd: Command) -> tuple[bool, str]:
        """(ok, text) for one command; never raises."""
        handler = type(self).table.get(cmd.name)
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

    def close(self) -> None:
        """Stop what the engine does in the background (`_run` calls it on the way out)."""

    async def think(self, state: Any, budget: Budget, context: Context | None = None) -> tuple[Any, MoveReport]:
        """Our player's move for `state` through `bots.decide.decide`: legal by our rules,
        whatever the search did."""
        return await decide(self.runner, self.game, self.player, self.params, state, budget, context, log=self.log)

    # -- administrative ----------------------------------------------------------------------
    @command("protocol_version")
    async def _protocol_version(self, cmd: Command) -> str:
        arity(cmd, 0)
        return self.protocol_version

    @command("name")
    async def _name(self, cmd: Command) -> str:
        arity(cmd, 0)
        return self.name

    @command("version")
    async def _version(self, cmd: Command) -> str:
        arity(cmd, 0)
        return bots.__version__

    @command("known_command")
    async def _known_command(self, cmd: Command) -> str:
        (name,) = arity(cmd, 1)
        return "true" if name in type(self).table else "false"

    @command("list_commands")
    async def _list_commands(self, cmd: Command) -> str:
        arity(cmd, 0)
        return "\n".join(self.commands())

    @command("quit")
    async def _quit(self, cmd: Command) -> str:
        self.quit_requested = True
        return ""


Engine.table = command_table(Engine)


class GameEngine(Engine):
    """An engine that plays one game at a time (Go's, Hex's): `genmove`, `reg_genmove`, `undo`
    and pondering once for both.  A subclass keeps `state` (the position) and `history` (one
    entry per move played, appended by its own `_commit`) and defines `_generate(cmd, commit)`
    (the move as the protocol writes it; played when `commit`) and `_restore(entry)` (back to
    the position of a history entry).

    With `ponder`, the workers search on after each move `genmove` played, while the
    controller waits for the opponent (bots.players.ponder: the player's kept tree grows), in
    slices of PONDER_SLICE seconds until the next command arrives: a move asked for then
    waits at most one slice for its workers, and the position it searches holds what the
    pondering found under the opponent's reply."""

    history: list
    state: Any

    def __init__(self, *args: Any, ponder: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if ponder:
            check_ponder(self.game, self.player, self.params)
        self.ponder = ponder
        self._ponder_task: asyncio.Task | None = None
        self._ponder_token: object | None = None  # the pondering under way; None: stop it

    async def handle(self, cmd: Command) -> tuple[bool, str]:
        self._ponder_token = None  # any command stops the pondering (its slice ends on its own)
        return await super().handle(cmd)

    def close(self) -> None:
        self._ponder_token = None
        if self._ponder_task is not None:
            self._ponder_task.cancel()

    @command("genmove")
    async def _genmove(self, cmd: Command) -> str:
        played = len(self.history)
        answer = await self._generate(cmd, commit=True)
        if self.ponder and self.runner is not None and len(self.history) > played and not self.state.is_terminal():
            session = self.runner.session()
            token = self._ponder_token = object()
            self._ponder_task = asyncio.ensure_future(self._pondering(
                self.state, session.key, parts(self.game, self.player, session.share()), token))
        return answer

    async def _pondering(self, state: Any, key: str, workers: int, token: object) -> None:
        """Ponder `state` in slices on `workers` workers until `token` is withdrawn, or a slice
        fails or searches nothing (a player that keeps no tree would spin the loop)."""
        started, nodes, failed = time.monotonic(), 0, None
        try:
            while self._ponder_token is token and failed is None:
                budget = Budget(PONDER_SLICE, limit=PONDER_LIMIT)
                reports = await asyncio.gather(*(self.runner.run(ponder, self.game, self.player, self.params,
                                                                 state, key, budget=budget) for _ in range(workers)))
                nodes += sum(r.nodes for r in reports)
                failed = next((r.fallback for r in reports if r.fallback is not None), None)
                if failed is None and not any(r.nodes for r in reports):  # (mcts:reuse=false keeps no tree)
                    failed = "nothing to search"
        finally:  # (also when the engine closes under it)
            self.log.info("pondered", seconds=round(time.monotonic() - started, 3), nodes=nodes, stopped_by=failed)

    @command("reg_genmove")
    async def _reg_genmove(self, cmd: Command) -> str:
        return await self._generate(cmd, commit=False)

    @command("undo")
    async def _undo(self, cmd: Command) -> str:
        arity(cmd, 0)
        if not self.history:
            raise Failure("cannot undo")
        self._restore(self.history.pop())
        return ""


# -- transport ------------------------------------------------------------------------------------

async def serve(reader: asyncio.StreamReader, writer: Any, engine: Any) -> None:
    """Answer every command from `reader` on `writer` (anything with write() and async
    drain()), in order, until `quit` (answered first) or EOF.  A last line without LF at EOF
    is still answered.  A line the decoder rejects is answered with `?` (no id known).
    `engine`: anything with `handle`, `quit_requested` and `log` (an `Engine`)."""
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
    """Blocking writes to a file or device the event loop cannot poll (`... > file`, `> /dev/null`)."""

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


def _pollable(fd: int) -> bool:
    """Can the event loop wait on `fd`?  Pipes, sockets and terminals, yes; epoll refuses regular
    files and devices such as /dev/null (EPERM), and uvloop's libuv aborts the process on that."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


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
    if _pollable(in_fd):
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                    os.fdopen(in_fd, "rb", 0))
        keep.append(transport)
    else:
        keep.append(asyncio.create_task(_read_file(in_fd, reader)))
    if _pollable(out_fd):
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(out_fd, "wb", 0))
        writer: Any = asyncio.StreamWriter(transport, protocol, None, loop)
    else:
        writer = _FdWriter(out_fd)
    keep.append(writer)
    return reader, writer, keep


# -- the process ----------------------------------------------------------------------------------

EngineFactory = Callable[[SearchRunner | None, Any], Engine]
"""(runner, log) -> a game's engine; ValueError (PlayerError) for a bad player or option.
`main` calls it once with runner None, to refuse a bad configuration before anything starts."""


async def _run(game: str, make_engine: EngineFactory, warm: Callable[[], Any] | None, workers: int,
               label: str, log: Any, in_fd: int, out_fd: int) -> None:
    # Protocol first (issue 28): commands are answered from the first instant.  The workers
    # warm up in the background (the first start after an install compiles the kernels); a
    # genmove before they are ready gets the game's fallback move within its budget
    # (bots.runner.WARMING, in the move's log line).  This process's own kernels (`warm`)
    # are loaded once the workers have filled the cache, so they load rather than compile.
    async with SearchRunner(workers, games=[game], background=True) as runner:
        engine = make_engine(runner, log)
        reader, writer, keep = await _stdio(in_fd, out_fd)
        log.info(f"{label.lower()} engine ready", **engine.describe(), workers=workers)
        serving = asyncio.create_task(serve(reader, writer, engine))
        warming = runner.when_ready(warm) if warm is not None else None
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, serving.cancel)  # stop cleanly: workers are closed
        try:
            await serving
        except asyncio.CancelledError:
            if not serving.cancelled() or asyncio.current_task().cancelling():
                raise
            log.info("stopped by SIGTERM")
        finally:
            engine.close()
            loop.remove_signal_handler(signal.SIGTERM)
            if warming is not None:
                warming.cancel()
            for item in keep:
                if isinstance(item, asyncio.Task):
                    item.cancel()
                else:
                    item.close()


def main(game: str, make_engine: EngineFactory, workers: int = 2, warm: Callable[[], Any] | None = None,
         *, label: str = "GTP", logger: str = __name__) -> int:
    """Run `game`'s engine (built by `make_engine`) on stdin/stdout until quit or EOF, with
    `workers` search processes; `warm` runs once in this process in the background, after the
    workers are ready (the kernels this process runs itself: the workers warm their own).  `label` names the
    protocol in log lines, `logger` the structlog logger.

    0 when done, 1 when stdin or stdout cannot be used, 2 for a bad player or option, 130 on
    Ctrl-C."""
    import uvloop

    from . import log as logsetup

    logsetup.setup(stream=sys.stderr)
    log = structlog.get_logger(logger)
    try:
        make_engine(None, log)  # checks the player and the game's options
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
    except ValueError as exc:  # PlayerError is a ValueError
        log.error(f"cannot start the {label} engine", error=str(exc))
        return 2
    try:
        for fd in (0, 1):
            os.fstat(fd)
    except OSError:
        log.error(f"cannot start the {label} engine", error="stdin or stdout is closed")
        return 1
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)  # from now on anything written to fd 1 (prints, workers) lands on stderr
    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as loop_runner:
            loop_runner.run(_run(game, make_engine, warm, workers, label, log, os.dup(0), os.dup(saved)))
    except KeyboardInterrupt:
        log.info("stopped by Ctrl-C")
        return 130
    except OSError as exc:  # e.g. stdin or stdout closed or unusable
        log.error(f"{label} engine stopped", error=f"{type(exc).__name__}: {exc}")
        return 1
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return 0


# -- `python -m bots.<game>.<engine>` ---------------------------------------------------------------

def _param(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not key=value")
    return key.strip(), value.strip()


def argument_parser(prog: str, description: str, game: str) -> argparse.ArgumentParser:
    """The options every engine module run as a script takes: --player, --param (repeatable
    KEY=VALUE, collected as (key, value) pairs), --workers."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--player", default="random", help=f"a {game} player name (default: random)")
    parser.add_argument("--param", type=_param, action="append", default=[], metavar="KEY=VALUE",
                        help="a player option (repeatable)")
    parser.add_argument("--workers", type=int, default=2, help="search worker processes (default: 2)")
    add_ponder(parser)
    return parser
