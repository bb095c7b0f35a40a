"""A Twilight bot's practice ground (bots.registry: Game.practice, used by `bots soak`): our
referee on a free local port and a greedy sparring partner that thinks in a thread of this
process, not in the search pool, so the pool serves only the bots being measured."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from typing import Any, AsyncIterator

import structlog

from ..runner import MoveReport
from .maps import load_map
from .referee import Referee, RefereeConfig
from .session import TwilightBot, play

MAPS = ("map8", "humans_everywhere")


@dataclasses.dataclass(frozen=True)
class _Session:
    key: str = "sparring"

    def share(self) -> int:
        return 1


class _InThread:
    """A runner whose searches run in a thread here (greedy takes milliseconds)."""

    workers = 1

    @contextlib.contextmanager
    def open_session(self, label: str = ""):
        yield _Session()

    def session(self) -> _Session:
        return _Session()

    async def run(self, job, *args: Any, budget, fallback: Any = None) -> MoveReport:
        result = await asyncio.to_thread(job, *args, budget)
        used = time.monotonic() - budget.start
        return MoveReport(result.move, budget.seconds, used, result.depth, result.nodes,
                          max(0.0, used - budget.seconds))


async def _spar(bot: TwilightBot) -> None:
    while True:
        try:
            await play(bot, _InThread(), log=structlog.get_logger("bots.sparring"))
        except (OSError, ConnectionError):
            await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def practice(game: str, name: str, move_time: float, seed: int) -> AsyncIterator[tuple[Any, Any]]:
    """(our bot, a function giving the referee's count of our time-outs) while it runs."""
    map_name = MAPS[seed % len(MAPS)]
    referee = Referee(RefereeConfig(load_map(map_name), map_name, move_time, 200, seed=seed, games=1000))
    port = await referee.start()
    partner = asyncio.ensure_future(_spar(TwilightBot(name=f"sparring-{seed}", port=port, player="greedy",
                                                      move_time=move_time)))

    def timeouts() -> int:
        return sum(rec["timeouts"][side] for rec in referee.records for side in ("vampires", "werewolves")
                   if rec["players"][side] == name)

    try:
        yield TwilightBot(name=name, port=port, move_time=move_time, game_time=0), timeouts  # no cap here
    finally:
        partner.cancel()
        await asyncio.gather(partner, return_exceptions=True)
        await referee.close()
