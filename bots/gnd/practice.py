"""A Gopher or Dodo bot's practice ground (bots.registry: Game.practice, used by `bots soak`):
our gnd server on a free local port, pairing the bot with its built-in random player at the
tournament's clock."""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

from .commands import CLOCK
from .server import GndServer, ServerConfig
from .session import GndBot


@contextlib.asynccontextmanager
async def practice(game: str, name: str, move_time: float, seed: int) -> AsyncIterator[tuple[Any, Any]]:
    """(our bot, a function giving the games it lost on time) while the server runs."""
    server = GndServer(ServerConfig(game, 6, CLOCK[game], random=True, seed=seed))
    port = await server.start()
    try:
        yield (GndBot(game=game, server=f"http://127.0.0.1:{port}/", group=seed, members=name, password="practice",
                      name=name, games=0),
               lambda: sum(1 for rec in server.records if rec.get("reason") == "time"))
    finally:
        await server.close()
