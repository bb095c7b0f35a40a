"""SearchRunner: the only place that knows about worker processes.

One pre-warmed ProcessPoolExecutor (forkserver context) is shared by every session of
the process.  A search job is a picklable top-level function whose last argument is a
`Budget`; the worker computes its own deadline from it and returns the best move of
its last completed iteration.  The parent waits budget + grace.  If the worker is late,
dies or raises, the parent returns the fallback move the caller computed before
dispatch, and rebuilds the pool when a worker may still be running (CPython 3.11 has
no public way to cancel a running worker, so the pool's processes are killed).
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import select
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import structlog

from search.budget import Budget, SearchResult

log = structlog.get_logger("bots.runner")

PRELOAD = ["search.minimax", "bots.players", "bots.prewarm"]
WARM_ENV = "BOTS_WARM_GAMES"  # the games whose kernels the forkserver compiles (bots.prewarm)


def _init_worker(games: tuple[str, ...], owner: int) -> None:
    """Runs in every worker before its first job (the executor's initializer), so no worker
    can be left cold: imports and a game's `warm()` hook (e.g. Go's numba kernels, compiled or
    loaded here) are paid for here, never on a move's clock.  Only the games this process
    plays are warmed: a Twilight bot does not wait for Go's kernels to compile.

    A worker exits when `owner` (the bots process) does, even after a kill -9: nothing else
    would stop it, since the forkserver and the executor's queues stay open while workers
    hold them.  It ignores Ctrl-C: the terminal sends SIGINT to the whole process group, and
    the owner alone decides how to stop.

    The cyclic garbage collector is switched off in workers: searches keep tables of
    hundreds of thousands of objects, and a full collection over them paused a move by
    up to 0.1 s (measured).  Search structures hold no reference cycles, so reference
    counting alone frees them.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(owner,), name="owner-watch", daemon=True).start()
    from bots.prewarm import warm_games

    warm_games(games)
    gc.freeze()
    gc.disable()


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


def _pid() -> int:
    return os.getpid()


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


class SearchRunner:
    def __init__(self, workers: int | None = None, grace: float = 0.1,
                 games: Iterable[str] | None = None) -> None:
        """`games`: the games this process will search (default: every game); only their
        kernels are compiled at start."""
        from bots import registry

        self.workers = workers or os.cpu_count() or 1
        self.grace = grace
        self.games = tuple(sorted(set(games))) if games is not None else registry.names()
        # Read by bots.prewarm in the forkserver, which is started (once per process) by the
        # first pool; the workers' own warm-up covers a later runner with other games.
        os.environ[WARM_ENV] = ",".join(self.games)
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(PRELOAD)
        self._pool: ProcessPoolExecutor | None = None
        self._warming: ProcessPoolExecutor | None = None  # a rebuilt pool not ready yet
        self._warm_task: asyncio.Task | None = None
        self._background: set[asyncio.Task] = set()

    async def __aenter__(self) -> "SearchRunner":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    async def start(self) -> None:
        if self._pool is None:
            self._pool = self._new_pool()
            try:
                await self._warm(self._pool)
            except BaseException:  # cancelled (SIGTERM) or broken: do not wait for the warm-up
                self.kill()
                raise

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=self._ctx, initializer=_init_worker,
                                   initargs=(self.games, os.getpid()))

    def worker_pids(self, pool: ProcessPoolExecutor | None = None) -> list[int]:
        """The pids of a pool's worker processes (default: the current pool)."""
        return sorted((getattr(pool or self._pool, "_processes", None) or {}).keys())

    async def _warm(self, pool: ProcessPoolExecutor) -> None:
        t0 = time.monotonic()
        loop = asyncio.get_running_loop()
        log.info("starting the search workers", workers=self.workers, games=list(self.games),
                 note="the first start after an install compiles the kernels (Go: about 20 s)")
        # Submitting `workers` jobs at once makes the executor start every process now; each
        # runs the initializer (the warm-up) before its first job.
        await asyncio.gather(*(loop.run_in_executor(pool, _pid) for _ in range(self.workers)))
        log.info("pool ready", workers=self.workers, pids=self.worker_pids(pool),
                 seconds=round(time.monotonic() - t0, 3))

    async def _warm_rebuilt(self, pool: ProcessPoolExecutor) -> None:
        try:
            await self._warm(pool)
        except BrokenProcessPool:
            pass  # killed by a later rebuild, or broken: the next search rebuilds it
        finally:
            if self._warming is pool:
                self._warming = None

    def _rebuild(self, broken: ProcessPoolExecutor) -> None:
        """Kill a pool whose worker is late or dead and start a fresh one in the background."""
        if self._pool is not broken:
            return  # another session already rebuilt it
        self.kill()
        self._pool = self._warming = self._new_pool()
        task = asyncio.get_running_loop().create_task(self._warm_rebuilt(self._pool))
        self._warm_task = task
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _detach(self) -> list:
        """Take the pool out of service; returns its worker processes."""
        pool, self._pool = self._pool, None
        if pool is None:
            return []
        # Private attribute: the only way to stop a worker that ignores its deadline.
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        return procs

    def kill(self) -> None:
        """Kill every worker at once (a running search is lost)."""
        for proc in self._detach():
            proc.kill()

    def close(self) -> None:
        """Stop every worker: asked politely first, killed if still running after a second."""
        procs = self._detach()
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.join(1.0)
            if proc.is_alive():
                proc.kill()

    async def run(self, job: Callable[..., SearchResult], *args: Any, budget: Budget,
                  fallback: Any) -> MoveReport:
        """Run `job(*args, budget)` in a worker; never later than budget + grace."""
        if self._pool is None:
            await self.start()
        pool = self._pool
        if pool is self._warming and self._warm_task is not None:
            # Its workers are still starting: wait for them within the budget, or else send the
            # fallback without killing them (a late search here would only rebuild it again).
            try:
                await asyncio.wait_for(asyncio.shield(self._warm_task), max(0.0, budget.remaining()))
            except (asyncio.TimeoutError, BrokenProcessPool):
                reason = "pool still warming up after a rebuild"
                log.error("search skipped, sending the fallback move", reason=reason)
                used = time.monotonic() - budget.start
                return MoveReport(fallback, budget.seconds, used, 0, 0, max(0.0, used - budget.seconds), reason)
            pool = self._pool
        loop = asyncio.get_running_loop()
        reason = None
        rebuild = True
        try:
            future = loop.run_in_executor(pool, job, *args, budget)
            result = await asyncio.wait_for(future, max(0.0, budget.remaining()) + self.grace)
        except asyncio.TimeoutError:
            reason = "worker late"
        except BrokenProcessPool:
            reason = "worker died"
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise  # our own task is being cancelled: not the worker's fault
            reason = "pool rebuilt under this search"
        except Exception as exc:  # a bug in the search must not cost the game
            reason, rebuild = f"search raised {type(exc).__name__}: {exc}", False
        used = time.monotonic() - budget.start
        late_by = max(0.0, used - budget.seconds)
        if reason is None:
            return MoveReport(result.move, budget.seconds, used, result.depth, result.nodes, late_by,
                              votes=result.votes)
        log.error("search failed, sending the fallback move", reason=reason)
        if rebuild:
            self._rebuild(pool)
        return MoveReport(fallback, budget.seconds, used, 0, 0, late_by, reason)
