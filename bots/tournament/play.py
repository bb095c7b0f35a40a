"""One game of a match through the game's match hooks, and the local way to play many.

A game takes part through the module its registry entry names in `match` (bots.matches.
MatchHooks); its `play_one(first, second, setup, settings, seed, runner, watch)` plays one
game with `first` in the first seat, labelled "A" in the record and `second` labelled "B"
unless `watch` says otherwise (the record form of bots.matches).  The same `play_game` runs
here (local: `bots tournament`, `bots arena`) and in a Ray task (bots.tournament.cluster), so
they all give the same entries.
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any, Callable, Iterable, Sized

import structlog

from .. import registry
from ..matches import MatchHooks, Watch
from ..runner import SearchRunner
from .schedule import Job

log = structlog.get_logger("bots.tournament")


def hooks(game: str) -> MatchHooks:
    """The game's match hooks."""
    hooks: Any = registry.get(game).module("match")
    return hooks


def new_entry(job: Job) -> dict[str, Any]:
    """A ledger entry for `job`, before its result: the key, who sits where, this host."""
    return {"key": list(job.key), "first": job.first, "second": job.second, "setup": job.setup,
            "index": job.index, "host": socket.gethostname()}


async def play_game(game: str, job: Job, settings: dict, seed: int, runner: SearchRunner,
                    watch: Watch = Watch()) -> dict:
    """Play `job`; its ledger entry, with the record, the wall time ("seconds") and the host.
    An exception of ours is caught and the entry says "crashed" (a player's fault, an illegal
    move or a dead engine, is in the record instead: the arena decides the game)."""
    started = time.monotonic()
    entry = new_entry(job)
    try:
        record = await hooks(game).play_one(job.first, job.second, job.setup, settings, seed, runner, watch)
        entry.update(status="done", error=None, record=record)
    except Exception as exc:  # our bug or a broken setup: recorded, the tournament goes on
        log.exception("game crashed", first=job.first, second=job.second, setup=job.setup, index=job.index)
        entry.update(status="crashed", error=f"{type(exc).__name__}: {exc}", record=None)
    entry["seconds"] = round(time.monotonic() - started, 4)
    return entry


async def run_local(game: str, jobs: Iterable[Job], settings: dict, base_seed: int, parallel: int,
                    workers: int | None, on_entry: Callable[[dict], None],
                    on_ready: Callable[[], None] = lambda: None,
                    watch: Callable[[Job], Watch] = lambda job: Watch()) -> None:
    """Play `jobs` here, `parallel` at once, all sharing one pool of search workers; each
    entry goes to `on_entry` as its game ends (in the event loop: no locking needed).
    `watch(job)`: the labels and the on-looker of a job's game.  A job is taken from `jobs`
    only when a lane is free, after the entries of the games before it went to `on_entry`,
    so a generator can stop handing out games on what it has seen (`bots arena --sprt`)."""
    queue = iter(jobs)
    lanes = min(parallel, len(jobs)) if isinstance(jobs, Sized) else parallel
    async with SearchRunner(workers, games=[game], bots=parallel) as runner:
        on_ready()

        async def lane() -> None:
            for job in queue:  # one iterator shared by the lanes: each job is played once
                on_entry(await play_game(game, job, settings, job.seed(base_seed), runner, watch(job)))

        await asyncio.gather(*(lane() for _ in range(max(1, lanes))))
