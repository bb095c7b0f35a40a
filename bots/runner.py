"""SearchRunner: the only place that knows about worker processes.

One pre-warmed pool of worker processes (forkserver context) is shared by every session of
the process.  A search job is a picklable top-level function whose last argument is a
`Budget`; the worker computes its own deadline from it and returns the best move of its
last completed iteration.  The caller computes a cheap fallback move before dispatch.

The pool is fair to the bots that share it:

* A search never waits on another bot's clock.  Each bot plays in a *session*
  (`open_session()`, or implicitly its asyncio task); a search that fans out over several
  workers (Go's root parallelism) takes only `share()` of them: the workers divided evenly
  among the open sessions, at least one.
* A job still queued (no worker free) when its budget ends is withdrawn: the caller gets its
  fallback ("queued past its deadline") and the worker that later takes the job skips it.
  Nothing is killed: a queue is not a hang.
* A job that started gets until its budget's `limit` (the server's deadline less a network
  margin: a worker slowed by a loaded machine still makes it), or budget + grace when the
  caller knows no server deadline.  If it is still running then, its worker is
  hung: that one process is killed and replaced by a fresh, warmed one, and the caller gets
  its fallback ("worker late").  The other workers, and the searches of the other bots on
  them, run on untouched.  A worker that dies costs only its own job ("worker died"); a job
  that raises costs only its move.
* Worker-side caches (bots.players.think) are keyed by the session's `key`, so two bots with
  the same settings never share a cached player or search tree.

The pool is pebble's ProcessPool: unlike the standard library's executor it can kill one
worker (cancelling a running task) and replaces it with a new process that runs the
initializer, i.e. warms up, before its first job.  A queued job is not cancelled through
pebble: pebble has already written it to the workers' pipe and would kill the worker that
picks the cancelled job up; the worker skips it instead (`_work`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import multiprocessing
from multiprocessing import forkserver
import os
import select
import signal
import sys
import threading
import time
from collections import Counter
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import pebble
import structlog

from search.budget import Budget, SearchResult

from . import cache
from .cache import configure_numba
from .threads import in_daemon_thread

log = structlog.get_logger("bots.runner")

PRELOAD = ["bots.prewarm"]  # it ignores Ctrl-C first, then imports the searches and warms the games
WARM_ENV = "BOTS_WARM_GAMES"  # the games whose kernels the forkserver compiles (bots.prewarm)
QUEUED = "queued past its deadline"
WARMING = "search workers still warming up (first start: compiling the kernels)"
# pebble's own per-task timeout, counted from the job's start: it only backs up the parent's
# check at budget + grace, for a job whose start the parent had not yet heard of by then.
BACKSTOP = 1.0
# How long a start takes with the kernels already cached, with room to spare (0.6-0.8 s on the
# 2-core machine of docs/benchmarks/startup.md); a first start that compiles takes 20-40 s.
WARM_EXPECTED = 1.5


def _init_worker(games: tuple[str, ...], owner: int, ready: Any = None) -> None:
    """Runs in every worker before its first job (the pool's initializer, also in a worker
    that replaces a killed one), so no worker can be left cold: imports and a game's `warm()`
    hook (e.g. Go's numba kernels, compiled or loaded here) are paid for here, never on a
    move's clock.  Only the games this process plays are warmed: a Twilight bot does not wait
    for Go's kernels to compile.  When done it sends its pid on `ready` (a pipe to the runner).

    A worker exits when `owner` (the bots process) does, even after a kill -9: nothing else
    is sure to stop it.  It ignores Ctrl-C: the terminal sends SIGINT to the whole process
    group, and the owner alone decides how to stop.  SIGTERM kills it at once: pebble's own
    handler would wait for a hung numba kernel to return, and pebble holds the pool's channel
    while it waits (measured: every other worker's result was held up 3 s).

    The cyclic garbage collector is switched off in workers: searches keep tables of
    hundreds of thousands of objects, and a full collection over them paused a move by
    up to 0.1 s (measured).  Search structures hold no reference cycles, so reference
    counting alone frees them.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_exit_with, args=(owner,), name="owner-watch", daemon=True).start()
    from bots import registry

    registry.warm(games)
    gc.freeze()
    gc.disable()
    if ready is not None:
        ready.send(os.getpid())  # a few bytes: one atomic write, whichever worker sends


def _exit_with(owner: int) -> None:
    """Block until process `owner` ends (a pidfd on Linux, else polling), then exit at once."""
    try:
        fd = os.pidfd_open(owner)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])
    else:
        while True:
            time.sleep(0.5)
            try:
                os.kill(owner, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                pass
    os._exit(1)


class Withdrawn:
    """What a worker returns for a job whose deadline passed before the job reached it: the
    job is not run (the parent has already sent the fallback)."""


def _work(job: Callable[..., SearchResult], args: tuple, budget: Budget) -> Any:
    """Runs in a worker: `job(*args, budget)`, unless it was withdrawn while queued."""
    if budget.remaining() <= 0:
        return Withdrawn()
    return job(*args, budget)


@dataclass(frozen=True)
class MoveReport:
    """What one dispatched search did; sessions log it for every move."""

    move: Any
    budget: float
    used: float
    depth: int
    nodes: int
    late_by: float
    fallback: str | None = None  # why the fallback move was used, if it was
    votes: tuple = ()  # the search's root votes (SearchResult.votes)


_session_ids = itertools.count(1)
_current: ContextVar["Session | None"] = ContextVar("bots_runner_session", default=None)


class Session:
    """One bot's claim on a SearchRunner, from `runner.open_session()` to `close()`.

    While open it counts in every session's `share()` of the workers.  `key` is opaque and
    unique in the process: pass it to the job (bots.players.think) to scope worker caches to
    this session.  As a context manager (`with` or `async with`) it is the `runner.session()`
    of the code inside, and is closed on the way out.
    """

    def __init__(self, runner: "SearchRunner", label: str = "") -> None:
        self.runner = runner
        self.label = label
        self.key = f"s{next(_session_ids)}"
        self.open = True
        self._tokens: list = []

    def share(self) -> int:
        return self.runner.share(self)

    def close(self) -> None:
        if self.open:
            self.open = False
            self.runner._sessions.discard(self)

    def __enter__(self) -> "Session":
        self._tokens.append(_current.set(self))
        return self

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._tokens.pop())
        self.close()

    async def __aenter__(self) -> "Session":
        return self.__enter__()

    async def __aexit__(self, *exc: object) -> None:
        self.__exit__(*exc)

    def __repr__(self) -> str:
        return f"<Session {self.key} {self.label!r}{'' if self.open else ' closed'}>"


class SearchRunner:
    def __init__(self, workers: int | None = None, grace: float = 0.1,
                 games: Iterable[str] | None = None, bots: int = 1, background: bool = False) -> None:
        """`workers`: the searches that run truly in parallel (default: the cores); a fan-out
        search takes its share of them.  `bots`: how many bots share the runner; the pool has
        at least that many processes, so no bot's move waits in a queue behind another's
        search: with more bots than cores the searches share the cores (each worker owns its
        deadline, so each still answers in time, with fewer nodes).  `games`: the games this
        process will search (default: every game); only their kernels are compiled at start.
        `workers=0`: no pool at all, for a command whose every player is a person at the
        keyboard (bots.human: nothing to search); a search asked of it is an error.
        `background`: `async with` launches the workers and goes on at once (a protocol's
        engine or client: see `launch`) instead of waiting for them (`start`)."""
        from bots import registry

        self.workers = workers if workers is not None else os.cpu_count() or 1
        self.processes = max(self.workers, bots) if self.workers else 0
        self.grace = grace
        self.background = background
        self.games = tuple(sorted(set(games))) if games is not None else registry.names()
        # Read by bots.prewarm in the forkserver, which is started (once per process) by the
        # first pool; the workers' own warm-up covers a later runner with other games.
        os.environ[WARM_ENV] = ",".join(self.games)
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(PRELOAD)
        self._pool: pebble.ProcessPool | None = None
        self._warming: asyncio.Future | None = None  # the background start (`launch`)
        self._launched: float | None = None  # when it began (time.monotonic())
        self._closed = False
        self._sessions: set[Session] = set()
        self._by_task: dict[asyncio.Task, Session] = {}
        self._ready_pipe: tuple | None = None  # (reader, writer): warmed workers send their pid
        self._ready: set[int] = set()
        self._ready_changed: asyncio.Event | None = None
        self._serving = False  # the first warm-up is over: later ready workers are replacements
        self._loop: asyncio.AbstractEventLoop | None = None
        # What went wrong, by reason ("worker late", "queued past its deadline", "pool replaced",
        # ...): `bots soak` reports it; a healthy run has none.
        self.failures: Counter[str] = Counter()
        self._in_flight = 0  # searches asked for and not yet answered (`queued`)

    async def __aenter__(self) -> "SearchRunner":
        if self.background:
            self.launch()
        else:
            await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    # -- sessions ---------------------------------------------------------------------------

    def open_session(self, label: str = "") -> Session:
        """Register a session (one bot); close it when the bot stops playing."""
        session = Session(self, label)
        self._sessions.add(session)
        return session

    def session(self) -> Session:
        """The caller's session: the one it runs inside (`with runner.open_session()`), else
        one for its asyncio task, opened on first use and closed when the task ends.  So a
        caller that never opens a session still counts as one."""
        session = _current.get()
        if session is not None and session.runner is self and session.open:
            return session
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("SearchRunner.session() outside an asyncio task needs an open session")
        session = self._by_task.get(task)
        if session is None:
            session = self._by_task[task] = self.open_session(task.get_name())
            task.add_done_callback(self._task_ended)
        return session

    def _task_ended(self, task: asyncio.Task) -> None:
        session = self._by_task.pop(task, None)
        if session is not None:
            session.close()

    def share(self, session: Session | None = None) -> int:
        """How many workers one search of `session` (default: the caller's) may fan out over
        now: the workers divided evenly among the open sessions, at least one."""
        if session is None:
            self.session()  # the caller counts, even if it never opened a session
        return max(1, self.workers // max(1, len(self._sessions)))

    # -- the pool ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers (see `launch`) and wait until every one has warmed up: for a
        command that measures searches (arena, bench, soak), where a fallback move would
        spoil the measurement."""
        self.launch()
        if self._warming is not None:
            await asyncio.shield(self._warming)

    def launch(self) -> None:
        """Start the workers warming up in the background and return at once (issue 28: an
        engine answers its protocol from the first instant).  The first start after an
        install compiles the kernels (Go: about 30 s); a search asked for before the workers
        are ready waits for them until a quarter of its budget is left (a search that short is
        still worth more than the fallback), then gets its fallback move
        (WARMING).  Idempotent."""
        if self._warming is not None or not self.processes or self._closed:
            return
        self._loop = asyncio.get_running_loop()
        self._ready_changed = asyncio.Event()
        reader, writer = self._ready_pipe = self._ctx.Pipe(duplex=False)
        self._loop.add_reader(reader.fileno(), self._on_ready)
        with _safe_path():
            forkserver.ensure_running()  # at once (it does not wait for the preload): a stop knows its pid
        self._launched = time.monotonic()
        self._warming = asyncio.ensure_future(self._warm_up())
        self._warming.add_done_callback(_retrieve)

    async def _warm_up(self) -> None:
        t0 = time.monotonic()
        cache_dir = configure_numba()
        log.info("starting the search workers", workers=self.processes, games=list(self.games),
                 cache=cache_dir or None, note=cache.NOTE or None)
        try:
            # The forkserver's start blocks until its preload has compiled (or loaded) the
            # kernels: never on the event loop, and in a daemon thread that a stop does not
            # wait for (`close` kills the forkserver instead).
            pool = await in_daemon_thread(self._new_pool)
            if self._closed:
                _stop(pool)
                return
            self._pool = pool
            await self._wait_ready(pool)
        except BaseException as exc:
            if not self._closed:
                log.error("the search workers failed to start", error=f"{type(exc).__name__}: {exc}")
            self.kill()
            raise
        self._serving = True
        log.info("pool ready", workers=self.processes, pids=self.worker_pids(),
                 seconds=round(time.monotonic() - t0, 3))

    def when_ready(self, fn: Callable[[], Any]) -> asyncio.Task:
        """Run `fn` in a daemon thread once the workers are ready (or failed to start): for the
        kernels a process runs itself (a fallback move), which then load from the cache the
        workers filled instead of compiling beside them.  Cancel the task to drop it."""
        async def later() -> None:
            try:
                await self.start()
            except Exception:  # logged by _warm_up; load ours anyway
                pass
            await in_daemon_thread(fn)

        return asyncio.ensure_future(later())

    @property
    def ready(self) -> bool:
        """Have the workers warmed up (searches are dispatched)?"""
        return self._serving

    def warm_wait(self) -> float:
        """Seconds until the workers should be ready, while their start is under way: what is
        left of WARM_EXPECTED since it began.  0 when they are ready, when none is starting
        (or a start failed), and once a start has taken longer (it is compiling the kernels: waiting for it would
        only spend a clock).  An engine on a game clock may spend them on its first moves
        (bots.gtp_clock) rather than play the fallback move."""
        if self._serving or self._closed or self._warming is None or self._warming.done() or self._launched is None:
            return 0.0  # ready, closed, not started, or a start that failed
        return max(0.0, self._launched + WARM_EXPECTED - time.monotonic())

    def _new_pool(self) -> pebble.ProcessPool:
        pool = pebble.ProcessPool(self.processes, initializer=_init_worker, context=self._ctx,
                                  initargs=(self.games, os.getpid(), self._ready_pipe[1]))
        with _safe_path():
            _ = pool.active  # pebble starts its workers on first use; this is that use
        return pool

    def _on_ready(self) -> None:
        """A worker finished its warm-up (read from the pipe every worker writes to)."""
        if self._ready_pipe is None:
            return
        try:
            pid = self._ready_pipe[0].recv()
        except (EOFError, OSError):
            return
        live = set(self.worker_pids())
        if self._serving:
            log.info("worker ready", pid=pid)  # one that replaced a killed or dead worker
        self._ready = (self._ready & live) | {pid}
        self._ready_changed.set()

    async def _wait_ready(self, pool: pebble.ProcessPool) -> None:
        """Until every worker of `pool` has warmed up; RuntimeError if the pool broke."""
        while True:
            pids = set(self.worker_pids(pool))
            if len(pids) >= self.processes and pids <= self._ready:
                return
            if not pool.active:
                raise RuntimeError("the search workers failed to start (see the log above)")
            self._ready_changed.clear()
            try:
                await asyncio.wait_for(self._ready_changed.wait(), 0.5)
            except asyncio.TimeoutError:
                pass

    def worker_pids(self, pool: pebble.ProcessPool | None = None) -> list[int]:
        """The pids of a pool's worker processes (default: the current pool)."""
        pool = pool or self._pool
        if pool is None:
            return []
        # Private attribute (pebble has no public list); copied at once, as pebble's thread
        # may be replacing a worker.
        return sorted(pool._pool_manager.worker_manager.workers.copy())

    def _replace(self, broken: pebble.ProcessPool) -> None:
        """A new pool for one that pebble gave up on (a worker died while none had started a
        job, so pebble could not tell whose it was).  Jobs sent to the new pool wait in its
        queue while its workers warm up, and are withdrawn at their deadline if still there."""
        if self._pool is not broken:
            return  # another search already replaced it, or the runner was closed
        log.error("worker pool broke; starting a new one")
        self.failures["pool replaced"] += 1
        self._pool = self._new_pool()
        threading.Thread(target=_stop, args=(broken,), name="stop-broken-pool", daemon=True).start()

    def _detach(self) -> pebble.ProcessPool | None:
        """Take the pool out of service and stop reading the warm-up pipe."""
        pool, self._pool = self._pool, None
        self._serving = False
        if self._ready_pipe is not None:
            reader, writer = self._ready_pipe
            self._ready_pipe = None
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(reader.fileno())
            reader.close()
            writer.close()
        return pool

    def _stop_warming(self) -> None:
        """Stop a start still under way: the forkserver still compiling its preload is killed
        (it would go on for up to a minute, and the thread starting the pool waits on it)."""
        self._closed = True
        if self._warming is not None and not self._warming.done():
            if self._warming is not asyncio.current_task():  # not when the start itself failed
                self._warming.cancel()
            _kill_forkserver()

    def kill(self) -> None:
        """Kill every worker at once (a running search is lost)."""
        self._stop_warming()
        pool = self._detach()
        if pool is not None:
            pids = self.worker_pids(pool)
            pool.stop()
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            pool.join()

    def close(self) -> None:
        """Stop every worker (SIGTERM, which stops a worker at once; pebble follows with
        SIGKILL after 3 s) and wait for them."""
        self._stop_warming()
        pool = self._detach()
        if pool is not None:
            _stop(pool)

    # -- running a search -------------------------------------------------------------------

    async def run(self, job: Callable[..., SearchResult], *args: Any, budget: Budget,
                  fallback: Any = None) -> MoveReport:
        """Run `job(*args, budget)` in a worker; never later than `self.allowed(budget)` (see the
        module's docstring for a job that is queued, late, hung or dead)."""
        if not self.processes:
            raise RuntimeError("this runner has no search workers (workers=0): nothing can search")
        if not self._serving:
            await self._await_warm_up(budget)
        pool = self._pool
        if not self._serving or pool is None:
            self.failures[WARMING] += 1
            used = time.monotonic() - budget.start  # the move's own log line (bots.decide) says why
            return MoveReport(fallback, budget.seconds, used, 0, 0, max(0.0, used - budget.seconds), WARMING)
        try:
            task = pool.schedule(_work, (job, args, budget), timeout=self.allowed(budget) + BACKSTOP)
        except RuntimeError:  # pebble gave up on the pool
            self._replace(pool)
            pool = self._pool
            task = pool.schedule(_work, (job, args, budget), timeout=self.allowed(budget) + BACKSTOP)
        waiter = asyncio.wrap_future(task)
        waiter.add_done_callback(_retrieve)  # an outcome that comes after the fallback is dropped
        self._in_flight += 1
        try:
            reason, result = await self._wait(task, waiter, budget, pool)
        finally:
            self._in_flight -= 1
        used = time.monotonic() - budget.start
        late_by = max(0.0, used - budget.seconds)
        if reason is None:
            return MoveReport(result.move, budget.seconds, used, result.depth, result.nodes, late_by,
                              votes=result.votes)
        self.failures[reason] += 1
        log.error("search failed, sending the fallback move", reason=reason)
        return MoveReport(fallback, budget.seconds, used, 0, 0, late_by, reason)

    @property
    def queued(self) -> int:
        """Searches waiting for a free worker (the daemon's status page and /metrics)."""
        return max(0, self._in_flight - self.processes)

    def allowed(self, budget: Budget) -> float:
        """Seconds from the budget's start until a running search is given up: its `limit`
        (the server's deadline less a network margin), else budget + grace."""
        if budget.limit is not None:
            return max(budget.limit, budget.seconds)
        return budget.seconds + self.grace

    async def _await_warm_up(self, budget: Budget) -> None:
        """Wait for the workers' warm-up until a quarter of the budget is left (see `launch`)."""
        self.launch()
        if self._closed or self._warming is None or self._warming.done():  # closed, or a failed start
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._warming), max(0.0, budget.remaining() - budget.seconds / 4))
        except asyncio.TimeoutError:
            pass
        except asyncio.CancelledError:  # the start was stopped (close), unless this search was
            if asyncio.current_task().cancelling():
                raise
        except Exception:  # the start failed (logged by _warm_up): the fallback move
            pass

    async def _wait(self, task: Any, waiter: asyncio.Future, budget: Budget,
                    pool: pebble.ProcessPool) -> tuple[str | None, Any]:
        """(why the job failed or None, its result), by `allowed(budget)` at the latest."""
        # asyncio.wait, not wait_for: a timeout must not cancel the task (that kills a worker).
        await asyncio.wait([waiter], timeout=max(0.0, budget.remaining()))
        if not waiter.done() and not task.running():
            return QUEUED, None  # withdrawn: the worker that takes it will skip it
        if not waiter.done():
            await asyncio.wait([waiter], timeout=max(0.0, budget.start + self.allowed(budget) - time.monotonic()))
        if not waiter.done():
            if pool is not self._pool:
                return "runner closed under this search", None
            log.error("worker hung past its budget; killing it alone", budget=budget.seconds)
            task.cancel()  # pebble kills the worker running it and starts a fresh one
            return "worker late", None
        if waiter.cancelled():
            return "worker late", None
        try:
            result = waiter.result()
        except pebble.ProcessExpired:
            return "worker died", None  # pebble starts a fresh worker in its place
        except TimeoutError:  # pebble's backstop killed the worker
            return "worker late", None
        except BrokenProcessPool:
            self._replace(pool)
            return "worker pool broke", None
        except Exception as exc:  # a bug in the search must not cost the game
            return f"search raised {type(exc).__name__}: {exc}", None
        if isinstance(result, Withdrawn):
            return QUEUED, None
        return None, result


def _retrieve(future: asyncio.Future) -> None:
    """Mark a job's outcome as seen, so a late failure is not reported as never retrieved."""
    if not future.cancelled():
        future.exception()


_ENV_LOCK = threading.Lock()


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """While a forkserver may be started: on Python 3.11 it ignores the import path it is given
    and puts its working directory first (`python -c`, cpython #117378), so a `bots/` folder
    in the directory bots was started from shadowed the installed package in every worker.
    When this process's own path does not start with the working directory (the `bots`
    command), PYTHONSAFEPATH keeps it out of the forkserver's too."""
    if not sys.path or sys.path[0] in ("", os.getcwd()) or "PYTHONSAFEPATH" in os.environ:
        yield  # this process imports from its working directory (python -m ...): so do the workers
        return
    with _ENV_LOCK:
        os.environ["PYTHONSAFEPATH"] = "1"
        try:
            yield
        finally:
            del os.environ["PYTHONSAFEPATH"]


def _kill_forkserver() -> None:
    """Kill this process's forkserver and the workers it has forked so far (multiprocessing
    keeps one per process; the next pool starts a new one).  A worker still reading its start
    from this process would print an EOFError traceback once this process has gone."""
    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is None:
        return
    try:
        children = open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        children = []
    for victim in [*map(int, children), pid]:
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _stop(pool: pebble.ProcessPool) -> None:
    pool.stop()
    pool.join()
