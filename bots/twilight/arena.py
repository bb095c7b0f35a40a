"""One Twilight game between two of our players, through our referee over real sockets: the
first side connects first and plays the vampires (bots.twilight.match plays many).

Each side has its own time: a program `move_time` a move, a person at the terminal
`person_time` (the referee allows the longer one to both, so a program thinks at its own pace
against a person instead of spreading itself over the person's minutes)."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ..human import is_person
from ..matches import Side, names
from ..runner import SearchRunner
from .maps import load_map
from .referee import Referee, RefereeConfig
from .session import TwilightBot, play


async def play_game(first: Side, second: Side, map_name: str, move_time: float, overhead: float,
                    runner: SearchRunner, max_plies: int = 200, seed: int = 1,
                    on_state: Callable[[Any], None] | None = None, person_time: float = 300.0) -> dict:
    """Play one game on `map_name`; the referee's record, players named by the sides' labels."""
    state = load_map(map_name, max_plies)
    times = [person_time if is_person("twilight", s.player) else move_time for s in (first, second)]
    played: list[dict] = []
    referee = Referee(RefereeConfig(state, map_name, max(times), max_plies, seed, 1), on_game=played.append,
                      on_ply=on_state)
    port = await referee.start()
    try:
        bots = [TwilightBot(name=s.label, port=port, player=s.player, params=s.params, move_time=seconds,
                            overhead=overhead, max_plies=max_plies, game_time=0)  # our referee: no time cap
                for s, seconds in zip((first, second), times, strict=True)]
        vampires = asyncio.ensure_future(play(bots[0], runner))
        # The first side connects first and so plays the vampires; the second connects once the
        # referee has accepted the first (or once its session has ended: gather raises its error).
        accepted = asyncio.ensure_future(referee.connected(1))
        await asyncio.wait([vampires, accepted], return_when=asyncio.FIRST_COMPLETED)
        accepted.cancel()
        werewolves = asyncio.ensure_future(play(bots[1], runner))
        await asyncio.gather(vampires, werewolves)
    finally:
        await referee.close()
    record = played[0]
    record["names"] = names(first, second)
    return record
