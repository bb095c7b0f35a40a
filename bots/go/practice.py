"""A Go bot's practice ground (bots.registry: Game.practice, used by `bots soak`): our CGOS
server on a free local port, pairing the bot with its random player, 120 s per side."""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

from .cgos_server import CgosServer
from .cgos_session import CgosBot

MAIN_TIME = 120.0


@contextlib.asynccontextmanager
async def practice(game: str, name: str, move_time: float, seed: int) -> AsyncIterator[tuple[Any, Any]]:
    """(our bot, a function giving the games it lost on time) while the server runs."""
    server = CgosServer(random_opponent=True, main_time=MAIN_TIME, pair_delay=0.1, seed=seed)
    port = await server.start()
    try:
        yield (CgosBot(name=name, host="127.0.0.1", port=port, password="practice"),
               lambda: sum(1 for rec in server.records if "Time" in str(rec.get("result"))))
    finally:
        await server.close()
