"""Imported by the forkserver (bots.runner.PRELOAD): compiles (or loads from numba's disk
cache) the kernels of the games named in $BOTS_WARM_GAMES once, in the process every worker
is forked from, so workers start with them in memory and a rebuilt pool is ready in a
fraction of a second."""

from __future__ import annotations

import os
from typing import Iterable


def warm_games(games: Iterable[str]) -> None:
    """Run each game's warm-up hook (bots.registry.Game.warm)."""
    from bots import registry

    for game in games:
        registry.get(game).warm()


warm_games(filter(None, os.environ.get("BOTS_WARM_GAMES", "").split(",")))
