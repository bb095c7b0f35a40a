"""One Gopher or Dodo game between two of our players, through our local gnd server over real
HTTP: the first side queues first and so plays Red (bots.gnd.match plays many).

Each side has its own clock: a program `clock`, a person at the terminal `person_clock`, so a
program does not spread its thinking over the minutes a person needs to type."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ..human import is_person
from ..matches import Side, names
from ..runner import SearchRunner
from .server import GndServer, ServerConfig
from .session import GndBot, play


def as_match_record(record: dict, label: str) -> dict:
    """A server record in the shape bots.matches.summarise reads (seats are colours)."""
    seats = {"red": record["red"], "blue": record["blue"]}
    lost_on_time = {c: int(record["reason"] == "time" and record["winner_name"] != n) for c, n in seats.items()}
    violations = [{"species": c} for c, n in record["illegal"].items() for _ in range(n)]
    return {**record, "map": label, "players": seats, "timeouts": lost_on_time, "violations": violations}


async def play_game(first: Side, second: Side, game: str, size: int, clock: float, runner: SearchRunner,
                    layout: str = "gnd", overhead: float = 0.1,
                    on_state: Callable[[Any], None] | None = None, person_clock: float = 600.0) -> dict:
    """Play one game; its record in bots.matches form, players named by the sides' labels."""
    red_clock, blue_clock = (person_clock if is_person(game, s.player) else clock for s in (first, second))
    server = GndServer(ServerConfig(game, size, clock, layout=layout, clocks=(red_clock, blue_clock)),
                       on_ply=on_state)
    port = await server.start()
    url = f"http://127.0.0.1:{port}/"
    red_bot, blue_bot = (GndBot(game=game, server=url, group=i + 1, members=s.label, password=s.label,
                                player=s.player, params=s.params, overhead=overhead)
                         for i, s in enumerate((first, second)))
    try:
        red = asyncio.ensure_future(play(red_bot, runner))
        # The first to queue plays Red: blue starts once red is queued (or once red's session
        # has ended: gather raises its error).
        queued = asyncio.ensure_future(server.wait_queued(1))
        await asyncio.wait([red, queued], return_when=asyncio.FIRST_COMPLETED)
        queued.cancel()
        blue = asyncio.ensure_future(play(blue_bot, runner))
        await asyncio.gather(red, blue)
    finally:
        await server.close()
    record = as_match_record(server.records[-1], f"{game} {size}")
    record["names"] = names(first, second)
    return record
