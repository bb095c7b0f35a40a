"""Small waits for tests: a condition with a deadline, and an awaited event with a deadline;
and ScriptedRunner, the one stand-in for bots.runner.SearchRunner.

Waits on sleeps that decide ordering become waits on events (issue 9 item 7): a test that
needs one thing to happen before another awaits the event that says so (a server's
`wait_queued`, the referee's `connected`) through `reached`; where only a condition can be
observed (a pid gone, a counter grown) it polls it with `until`.  Both fail the test with a
message saying what never happened, instead of an assertion on a state that came too late.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Awaitable, Callable, Iterator

import pytest
import structlog
from structlog.testing import capture_logs

from bots.runner import MoveReport
from search.budget import Budget

POLL = 0.005  # seconds between two looks at a condition
ROOT = Path(__file__).resolve().parents[1]
# `bots ARGS` with Ctrl-C handled as in an interactive shell, even if the test runner itself was started
# with SIGINT ignored (a background job), which the child would inherit.
WITH_SIGINT = [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
               "from bots.cli import main; sys.exit(main(sys.argv[1:]))"]


def server(*args: str) -> tuple[subprocess.Popen, int]:
    """One of our servers (`bots serve ...`) on a free port (port 0), and the port it logged."""
    proc = subprocess.Popen([*WITH_SIGINT, "--log-format", "json", *args, "--port", "0"], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        found = re.search(r'"(?:port|url)": "?(?:http://127\.0\.0\.1:)?(\d+)', line)
        if "listening" in line and found:
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep it drained
            return proc, int(found.group(1))
    raise AssertionError(f"the server did not start: {proc.wait()}")


async def until(predicate: Callable[[], Any], timeout: float = 5.0, what: str = "") -> None:
    """Wait until `predicate()` is true, looking every POLL seconds; fail the test after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            pytest.fail(f"not within {timeout:g} s: {what or getattr(predicate, '__name__', 'condition')}")
        await asyncio.sleep(POLL)


def until_sync(predicate: Callable[[], Any], timeout: float = 5.0, what: str = "") -> None:
    """`until` for a test without an event loop (it blocks the thread between looks)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            pytest.fail(f"not within {timeout:g} s: {what or getattr(predicate, '__name__', 'condition')}")
        time.sleep(POLL)


async def reached(awaitable: Awaitable[Any], what: str, timeout: float = 10.0,
                  watching: asyncio.Future | None = None) -> Any:
    """Await `awaitable` (an event: "the server has queued one client") and return its result.

    Fails the test if it takes more than `timeout` s, or if `watching` (the task that should
    bring the event about) ends first: its exception is raised, else the test fails saying so.
    """
    waiter = asyncio.ensure_future(awaitable)
    racing = [waiter] if watching is None else [waiter, watching]
    done, _ = await asyncio.wait(racing, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if waiter in done:
        return waiter.result()
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    if watching is not None and watching in done:
        result = watching.result()  # raises what the task raised
        pytest.fail(f"{what}: never happened; the task ended first, returning {result!r}")
    pytest.fail(f"{what}: not within {timeout:g} s")


def alive(pid: int) -> bool:
    """Running (a zombie has exited and only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


class Stopwatch:
    """Time a CPU-bound call made in this thread, not counting time the machine gave to others.

    `seconds` is the smaller of wall time and this thread's CPU time.  A search that ignores its
    deadline burns CPU past it and shows in both; a search that was merely descheduled for a
    moment by a busy 2-core machine (CI ran the suite while other processes worked) shows only
    in wall time, and a deadline test must not fail on that.  Garbage owed by earlier tests is
    collected first: a full collection of the whole test process takes about 0.37 s at 3 million
    live objects, and CI once measured 0.39 s for a 0.05 s search that keeps its deadline alone.
    """

    def __enter__(self) -> "Stopwatch":
        gc.collect()
        self._wall, self._cpu = time.monotonic(), time.thread_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.monotonic() - self._wall
        self.cpu = time.thread_time() - self._cpu
        self.seconds = min(self.wall, self.cpu)


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (workers are the forkserver's children, so grandchildren)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            parents.setdefault(ppid, []).append(int(entry))
    out, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


@contextlib.contextmanager
def info_logs() -> Iterator[list[dict]]:
    """Every log entry, info level included (the tests' set-up keeps warnings only)."""
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        with capture_logs() as logs:
            yield logs
    finally:
        structlog.configure(wrapper_class=saved["wrapper_class"])


FALLBACK = "a stand-in runner: the fallback"  # the reason a scripted failed search gives


class ScriptedRunner:
    """Stands in for bots.runner.SearchRunner: no worker, every search answered at once from a
    script, and every search's arguments recorded.

    `script`: the answers to the searches (`run`), in turn: a MoveReport, returned as it is; a
    move, as a search that found it (depth 1, one node); None, a search that failed (FALLBACK:
    bots.decide then sends the game's fallback move).  Once the script is used up every search
    gets `then`, in the same forms (None: the fallback).  `script` is a list the test may
    replace between moves.  `workers`: the share of the workers a session gets
    (`session().share()`, over which bots.decide fans a voting player).  `warm`: the seconds
    its workers still need to start (`warm_wait()`; 0, ready).

    `calls` holds each search's (args, budget), args being the job's arguments after the job
    (bots.players.think: game, player, params, state, context, session key); `last_state`,
    `last_context` and `last_budget` read the last one.  `ScriptedRunner.factory(...)` stands in
    for the SearchRunner class, constructor and `async with` included.
    """

    def __init__(self, *script: Any, workers: int = 1, then: Any = None) -> None:
        self.script = list(script)
        self.then = then
        self.workers = workers
        self.calls: list[tuple[tuple, Budget]] = []
        self.warm = 0.0
        self.made_with: tuple[tuple, dict] = ((), {})  # the SearchRunner arguments (factory)

    @classmethod
    def factory(cls, *script: Any, then: Any = None) -> Callable[..., "ScriptedRunner"]:
        """A stand-in for the SearchRunner class: each call, with SearchRunner's arguments
        (workers, grace, games, background, ...), makes a ScriptedRunner of this script that
        records them in `made_with`."""

        def make(*args: Any, **options: Any) -> ScriptedRunner:
            workers = args[0] if args else options.get("workers")
            runner = cls(*script, workers=workers or 1, then=then)
            runner.made_with = (args, options)
            return runner

        return make

    async def __aenter__(self) -> "ScriptedRunner":
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def session(self) -> Any:
        return SimpleNamespace(key="s", share=lambda: self.workers)

    def warm_wait(self) -> float:
        return self.warm

    async def run(self, job: Callable[..., Any], *args: Any, budget: Budget, fallback: Any = None) -> MoveReport:
        self.calls.append((args, budget))
        answer = self.script.pop(0) if self.script else self.then
        if isinstance(answer, MoveReport):
            return answer
        if answer is None:
            return MoveReport(None, budget.seconds, 0.0, 0, 1, 0.0, FALLBACK)
        return MoveReport(answer, budget.seconds, 0.0, 1, 1, 0.0)

    @property
    def last_state(self) -> Any:
        return self.calls[-1][0][3]

    @property
    def last_context(self) -> Any:
        return self.calls[-1][0][4]

    @property
    def last_budget(self) -> Budget:
        return self.calls[-1][1]
