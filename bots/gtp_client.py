"""Drive an external GTP engine (GNU Go, a seed player, ...) as an asyncio subprocess.

The framing is protocol.gtp's controller side (`encode_command`, `ResponseDecoder`); this
module only adds the process, the clock and the error policy:

* every command carries an id, and the answer must echo it (an engine that echoes no id is
  tolerated: GTP requires the echo, but the answer is still the one to our command);
* a `?` answer, a time-out, a line that is not GTP, or the engine exiting raises
  `EngineError`, whose message names the command and ends with the engine's stderr tail;
* a GTP engine cannot be interrupted, so after a time-out, garbage or a cancelled command its
  next answer could belong to an older command: the process is killed and further commands
  raise at once (`alive` is False; start a new `GtpProcess` to go on);
* `close()` sends `quit`, then terminates and finally kills an engine that lingers, and
  always reaps it: no zombie processes, even when the closing task is cancelled.  The engine
  runs in its own session, so signals go to its whole process group: an engine started
  through a wrapper script does not leave its real process behind.
"""

from __future__ import annotations

import asyncio
import collections
import os
import shlex
import signal
import time
from typing import Any

import structlog

from protocol.gtp import GtpError, ProtocolError, ResponseDecoder, encode_command

QUIT_WAIT = 2.0  # seconds an engine gets to exit after `quit`, then again after SIGTERM
STDERR_LINES = 12  # lines of the engine's stderr quoted in an EngineError
STDERR_CHARS = 1500
READ_CHUNK = 65536


class EngineError(Exception):
    """The engine failed a command: a `?` answer, a time-out, garbage or its exit.

    `command` is the command line sent (without the id), `reason` one of "refused",
    "timeout", "garbage", "exited", "start", "broken"; `answer` the engine's error text for
    "refused"."""

    def __init__(self, message: str, command: str = "", reason: str = "", answer: str = "") -> None:
        super().__init__(message)
        self.command = command
        self.reason = reason
        self.answer = answer


class GtpProcess:
    """One engine process; commands are sent one at a time (a lock serialises callers)."""

    def __init__(self, argv: list[str], log: Any = None) -> None:
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError(f"an engine command line is a non-empty list of strings, got {argv!r:.100}")
        self.argv = list(argv)
        self.log = log if log is not None else structlog.get_logger("bots.gtp_client")
        self.log = self.log.bind(engine=os.path.basename(self.argv[0]))
        self._proc: asyncio.subprocess.Process | None = None
        self._decoder = ResponseDecoder()
        self._next_id = 1
        self._lock = asyncio.Lock()
        self._known: dict[str, bool] = {}
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._stderr_task: asyncio.Task | None = None
        self._broken: str | None = None  # why the process may no longer be used

    # -- state --------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        """Started, still running, and in step with us (no lost answer pending)."""
        return self._proc is not None and self._proc.returncode is None and self._broken is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc is not None else None

    def stderr_tail(self) -> str:
        """The last lines the engine wrote to stderr (at most STDERR_CHARS characters)."""
        return "\n".join(self._stderr)[-STDERR_CHARS:]

    def __repr__(self) -> str:
        return f"GtpProcess({shlex.join(self.argv)!r}, pid={self.pid})"

    # -- life cycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the engine; EngineError (reason "start") if it cannot be run."""
        if self._proc is not None:
            raise EngineError(f"{self!r} was already started", reason="start")
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise EngineError(f"cannot start engine {shlex.join(self.argv)!r}: {exc}", reason="start") from None
        self._stderr_task = asyncio.get_running_loop().create_task(self._read_stderr(self._proc.stderr))
        self.log.info("engine started", pid=self._proc.pid, argv=shlex.join(self.argv))

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        """Keep the tail of stderr (and drain it, so a chatty engine never blocks on it)."""
        pending = b""
        try:
            while data := await stream.read(READ_CHUNK):
                *lines, pending = (pending + data).split(b"\n")
                pending = pending[-STDERR_CHARS:]
                for line in lines:
                    self._note_stderr(line)
        except OSError:
            pass
        if pending:
            self._note_stderr(pending)

    def _note_stderr(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace").rstrip("\r")[-STDERR_CHARS:]
        self._stderr.append(text)
        self.log.debug("engine stderr", line=text[:200])

    async def close(self) -> None:
        """quit, then SIGTERM, then SIGKILL to the engine's process group, each after
        QUIT_WAIT seconds; the engine is always reaped."""
        proc = self._proc
        if proc is None:
            return
        try:
            if self._lock.locked():  # a command is still waiting for its answer: abandon it
                self._kill("closed while a command was running")
            if proc.returncode is None and self._broken is None:
                try:
                    await self.send("quit", timeout=QUIT_WAIT)
                except EngineError:
                    pass  # it may exit before answering; the waits below decide
            if proc.stdin is not None and not proc.stdin.is_closing():
                proc.stdin.close()
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None:
                    self._signal(sig)
                try:  # wait() also waits for the pipes: a helper process left holding them
                    await asyncio.wait_for(proc.wait(), QUIT_WAIT)  # is in the group signalled next
                    break
                except asyncio.TimeoutError:
                    continue
        finally:
            # Reached on cancellation too: a synchronous kill; the event loop's child watcher
            # reaps the process.
            if proc.returncode is None:
                self._signal(signal.SIGKILL)
            self._broken = self._broken or "closed"
            if self._stderr_task is not None and not self._stderr_task.done():
                self._stderr_task.cancel()
        self.log.info("engine closed", pid=proc.pid, returncode=proc.returncode)

    def _signal(self, sig: int) -> None:
        """Signal the engine's process group (it runs in its own session, so a wrapper script
        and whatever it started go too), or the engine alone if the group is gone."""
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, sig)
            return
        except (ProcessLookupError, PermissionError):
            pass
        if proc.returncode is None:
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                pass

    def _kill(self, why: str) -> None:
        """Out of step with the engine: no later answer can be trusted."""
        self._broken = why
        self._signal(signal.SIGKILL)

    # -- commands -----------------------------------------------------------------------------
    async def _error(self, message: str, command: str, reason: str, answer: str = "") -> EngineError:
        """An EngineError with the stderr tail appended (after letting stderr catch up if the
        process is gone)."""
        task = self._stderr_task
        if task is not None and not task.done() and self._proc is not None and self._proc.returncode is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), 0.5)
            except asyncio.TimeoutError:
                pass
        tail = self.stderr_tail()
        if tail:
            message += "; engine stderr: " + tail.replace("\n", " | ")
        return EngineError(message, command, reason, answer)

    async def send(self, name: str, *args: str | float, timeout: float | None = None) -> str:
        """Send one command and return the answer's text (stripped).  EngineError otherwise."""
        async with self._lock:
            return await self._send(name, args, timeout)

    async def _send(self, name: str, args: tuple, timeout: float | None) -> str:
        ident = self._next_id
        self._next_id += 1
        line = encode_command(name, *args, id=ident)  # UsageError: our own bug, let it raise
        command = line.decode("utf-8").strip().partition(" ")[2]
        proc = self._proc
        if proc is None:
            raise EngineError(f"{command!r}: the engine was not started", command, "broken")
        if self._broken is not None:
            raise EngineError(f"{command!r}: the engine is unusable ({self._broken})", command, "broken")
        if proc.returncode is not None:
            raise await self._error(f"{command!r}: the engine has exited (code {proc.returncode})",
                                    command, "exited")
        t0 = time.monotonic()
        try:
            proc.stdin.write(line)
            await proc.stdin.drain()
        except (ConnectionError, OSError) as exc:
            self._kill("write failed")
            await self._wait_exit(proc)
            raise await self._error(f"{command!r}: cannot write to the engine ({exc}); "
                                    f"exit code {proc.returncode}", command, "exited") from None
        try:
            async with asyncio.timeout(timeout):
                response = await self._read_response(proc, command)
        except asyncio.TimeoutError:
            self._kill(f"no answer to {command!r}")
            raise await self._error(f"{command!r}: no answer within {timeout:g} s (engine killed)",
                                    command, "timeout") from None
        except asyncio.CancelledError:
            self._kill(f"cancelled while waiting for {command!r}")
            raise
        self.log.debug("gtp", command=command, ok=response.ok, answer=response.text[:200],
                       seconds=round(time.monotonic() - t0, 3))
        if response.id is not None and response.id != ident:
            self._kill(f"answer id {response.id} to command id {ident}")
            raise await self._error(f"{command!r}: answer carries id {response.id}, expected {ident}",
                                    command, "garbage")
        if not response.ok:
            raise await self._error(f"{command!r} failed: ? {response.text.strip()}", command, "refused",
                                    response.text.strip())
        return response.text.strip()

    async def _read_response(self, proc: asyncio.subprocess.Process, command: str):
        decoder = self._decoder
        while True:
            try:
                response = decoder.next_event()
            except ProtocolError as exc:
                self._kill("garbage on stdout")
                raise await self._error(f"{command!r}: the engine's answer is not GTP ({exc})",
                                        command, "garbage") from None
            if response is not None:
                return response
            data = await proc.stdout.read(READ_CHUNK)
            if not data:
                await self._wait_exit(proc)
                self._broken = "exited"
                raise await self._error(f"{command!r}: the engine exited (code {proc.returncode}) "
                                        f"before answering", command, "exited")
            try:
                decoder.feed(data)
            except GtpError as exc:  # not expected for bytes; kept as a clear error
                self._kill("garbage on stdout")
                raise await self._error(f"{command!r}: {exc}", command, "garbage") from None

    async def _wait_exit(self, proc: asyncio.subprocess.Process) -> None:
        """Give a dying engine a moment to exit (so its code and stderr are known); kill it
        if it keeps running with its stdout closed."""
        try:
            await asyncio.wait_for(proc.wait(), 1.0)
        except asyncio.TimeoutError:
            self._kill("stdout closed")
            try:
                await asyncio.wait_for(proc.wait(), QUIT_WAIT)
            except asyncio.TimeoutError:  # a process outside its group holds a pipe; close() retries
                pass

    async def known(self, name: str) -> bool:
        """`known_command name`, cached; a `?` answer counts as unknown."""
        if name not in self._known:
            try:
                self._known[name] = (await self.send("known_command", name, timeout=10.0)).lower() == "true"
            except EngineError as exc:
                if exc.reason != "refused":
                    raise
                self._known[name] = False
        return self._known[name]
