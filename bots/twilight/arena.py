"""Twilight arena: two players meet through our referee over real sockets.

Each map gets `games` games on one pair of connections; the referee swaps species
every game, so both players play both sides.  Up to `parallel` maps run at once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

from .. import records as records_
from ..matches import Side, names
from ..runner import SearchRunner
from .maps import load_map
from .referee import Referee, RefereeConfig
from .session import TwilightBot, play


async def run_arena(a: Side, b: Side, maps: list[str], games: int, move_time: float, overhead: float,
                    runner: SearchRunner, parallel: int = 1, max_plies: int = 200, seed: int = 1,
                    on_game: Callable[[dict], None] | None = None, on_state: Callable | None = None,
                    record: str | Path | None = None) -> list[dict]:
    """Play every map; returns the referee's records (players are named "A" and "B").  With
    `record` (a directory) each game is also saved there as JSON (bots.records) before
    `on_game` sees it, its path in the record's `record_file`."""
    gate = asyncio.Semaphore(parallel)
    records: list[dict] = []

    async def one_map(index: int, map_name: str) -> None:
        async with gate:
            state = load_map(map_name, max_plies)
            config = RefereeConfig(state, map_name, move_time, max_plies, seed + index, games)

            def note(game: dict) -> None:
                game["names"] = names(a, b)
                records_.keep(record, game, game["game"])
                records.append(game)
                if on_game:
                    on_game(game)

            referee = Referee(config, on_game=note, on_ply=on_state)
            port = await referee.start()
            try:
                bots = [TwilightBot(name=s.label, port=port, player=s.player, params=s.params,
                                    move_time=move_time, overhead=overhead, max_plies=max_plies,
                                    game_time=0) for s in (a, b)]  # our referee here has no time cap
                first = asyncio.ensure_future(play(bots[0], runner))
                # A connects first: A plays vampires in game 0.  B connects once the referee has
                # accepted A's connection (or once A's session has ended: gather raises its error).
                accepted = asyncio.ensure_future(referee.connected(1))
                await asyncio.wait([first, accepted], return_when=asyncio.FIRST_COMPLETED)
                accepted.cancel()
                second = asyncio.ensure_future(play(bots[1], runner))
                await asyncio.gather(first, second)
            finally:
                await referee.close()

    await asyncio.gather(*(one_map(i, m) for i, m in enumerate(maps)))
    return records
