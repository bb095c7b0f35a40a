"""A tournament's games as Ray tasks on a Ray cluster (`--cluster ADDRESS`): one task per game,
each with its own small pool of search workers, on whichever node Ray picks.  The driver
(this process) gets each game's entry back and keeps the ledger and the report exactly as a
local run does.  `bots arena --cluster` plays its games the same way, a window of them at a
time (its sequential test decides after each pair whether to hand out more).  Ray is an
optional extra (`pip install 'tournament-bots[cluster]'`); without it only `--cluster` is
refused.

Every node needs bots installed (the same version), and any map file or engine the games
name; a game whose engine is missing on its node is a crashed game in the ledger, played
again by a rerun.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from typing import Callable, Iterable

from ..cmdline import UsageFailure
from ..matches import Watch
from ..runner import SearchRunner
from .play import new_entry, play_game
from .schedule import Job

REACH = 10.0  # seconds to open a connection to the head before giving up
INSTALL = "--cluster needs Ray, which is not installed: pip install 'tournament-bots[cluster]'"


def connect(address: str):
    """The ray module, joined to the cluster at `address` (HOST:PORT of the head); UsageFailure
    if Ray is missing or the cluster cannot be joined."""
    try:
        import ray
    except ImportError:
        raise UsageFailure(INSTALL) from None
    host, _, port = address.rpartition(":")
    if host and port.isdigit():  # Ray itself would retry an unreachable head for minutes
        try:
            socket.create_connection((host, int(port)), timeout=REACH).close()
        except OSError as exc:
            raise UsageFailure(f"cannot join the Ray cluster at {address}: {exc.strerror or exc} "
                               "(is `ray start --head` running there?)") from None
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UsageFailure(f"cannot join the Ray cluster at {address}: {exc}") from None
    return ray


def _task(game: str, job: Job, settings: dict, seed: int, workers: int,
          labels: tuple[str, str] = ("A", "B")) -> dict:
    """The Ray task: one game, on a fresh event loop and pool in the Ray worker; the entry says
    how long the pool took to start ("startup"), the runner's overhead on a cluster."""

    async def main() -> dict:
        started = time.monotonic()
        async with SearchRunner(workers, games=[game]) as runner:
            ready = time.monotonic() - started
            return {**await play_game(game, job, settings, seed, runner, Watch(labels)), "startup": round(ready, 4)}

    return asyncio.run(main())


def run_cluster(address: str, game: str, jobs: Iterable[Job], settings: dict, base_seed: int, workers: int,
                on_entry: Callable[[dict], None], on_ready: Callable[[], None] = lambda: None,
                labels: Callable[[Job], tuple[str, str]] = lambda job: ("A", "B"),
                window: int | None = None) -> None:
    """Play `jobs` as Ray tasks (`workers` CPUs each); entries go to `on_entry` as games end.
    `labels(job)`: the labels of the first and the second seat in the job's record.  With a
    `window`, at most that many games are on the cluster at once, and a job is taken from
    `jobs` only when one ends (as bots.tournament.play.run_local's lanes take them); without
    one, every job is handed to Ray at once and Ray queues them."""
    ray = connect(address)
    try:
        task = ray.remote(num_cpus=workers, max_retries=0)(_task)
        queue = iter(jobs)
        pending: dict = {}

        def fill() -> None:
            while window is None or len(pending) < window:
                job = next(queue, None)
                if job is None:
                    return
                pending[task.remote(game, job, settings, job.seed(base_seed), workers, labels(job))] = job

        fill()
        on_ready()
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                job = pending.pop(ref)
                try:
                    entry = ray.get(ref)
                except ray.exceptions.RayError as exc:  # the task's process died, or Ray lost the node
                    entry = {**new_entry(job), "status": "crashed", "error": f"Ray: {exc}".splitlines()[0],
                             "record": None, "seconds": 0.0}
                on_entry(entry)
            fill()
    finally:
        ray.shutdown()
