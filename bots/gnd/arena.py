"""Gopher/Dodo arena: two players meet through our local gnd server over real HTTP.

Games alternate colours: in even games A queues first and so plays Red.  Each of the
`parallel` lanes has its own server (FIFO pairing must not mix lanes) and plays its
games one after another; a 2-core machine runs two lanes without the players'
searches overlapping much, since only the side to move thinks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

from .. import records as records_
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


async def run_arena(a: Side, b: Side, game: str, size: int, games: int, clock: float, runner: SearchRunner,
                    parallel: int = 1, layout: str = "gnd", overhead: float = 0.1,
                    on_game: Callable[[dict], None] | None = None, on_state: Callable | None = None,
                    record: str | Path | None = None) -> list[dict]:
    """Play `games` games; the records in bots.matches form, players named "A" and "B".  With
    `record` (a directory) each game is also saved there as JSON (bots.records) before
    `on_game` sees it, its path in the record's `record_file`."""
    label = f"{game} {size}"
    records: list[dict] = []
    numbers = iter(range(games))

    async def lane() -> None:
        server = GndServer(ServerConfig(game, size, clock, layout=layout), on_ply=on_state)
        port = await server.start()
        url = f"http://127.0.0.1:{port}/"
        bots = {s.label: GndBot(game=game, server=url, group=i + 1, members=s.label, password=s.label,
                                player=s.player, params=s.params, overhead=overhead)
                for i, s in enumerate((a, b))}
        try:
            for n in numbers:
                first, second = ("A", "B") if n % 2 == 0 else ("B", "A")
                red = asyncio.ensure_future(play(bots[first], runner))
                # The first to queue plays Red: blue starts once red is queued (or once red's
                # session has ended: gather raises its error).
                queued = asyncio.ensure_future(server.wait_queued(1))
                await asyncio.wait([red, queued], return_when=asyncio.FIRST_COMPLETED)
                queued.cancel()
                blue = asyncio.ensure_future(play(bots[second], runner))
                await asyncio.gather(red, blue)
                game_record = as_match_record(server.records[-1], label)
                game_record["game_number"] = n
                game_record["names"] = names(a, b)
                records_.keep(record, game_record, n)
                records.append(game_record)
                if on_game:
                    on_game(game_record)
        finally:
            await server.close()

    await asyncio.gather(*(lane() for _ in range(max(1, min(parallel, games)))))
    return records
