"""Imported by the forkserver (bots.runner.PRELOAD): compiles (or loads from numba's disk
cache) the kernels of the games named in $BOTS_WARM_GAMES once, in the process every worker
is forked from, so workers start with them in memory and a rebuilt pool is ready in a
fraction of a second."""

from __future__ import annotations

import importlib
import os
from typing import Iterable


def warm_games(games: Iterable[str]) -> None:
    """Call the `warm()` hook of each game's players module that has one."""
    from bots.players import GAMES

    for game in games:
        warm = getattr(importlib.import_module(GAMES[game]), "warm", None)
        if warm is not None:
            warm()


warm_games(filter(None, os.environ.get("BOTS_WARM_GAMES", "").split(",")))
