"""The forkserver's preload (bots.runner.PRELOAD): compiles (or loads from numba's disk cache)
the kernels of the games named in $BOTS_WARM_GAMES once, in the process every worker is forked
from, so workers start with them in memory and a rebuilt pool is ready in a fraction of a
second.

Ctrl-C is ignored first: a terminal sends SIGINT to the whole process group, and the
forkserver ignores it only once its preload is done, so a Ctrl-C during a first compile
printed the forkserver's traceback (issue 28).  The bots process alone decides how to stop,
and kills the forkserver if it is still compiling (bots.runner.SearchRunner.close).
"""

from __future__ import annotations

import os
import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)  # imported only as the forkserver's preload

import search.minimax  # noqa: E402,F401  (every worker's searches, loaded once in the forkserver)
import bots.players  # noqa: E402,F401
from bots import registry  # noqa: E402

registry.warm(filter(None, os.environ.get("BOTS_WARM_GAMES", "").split(",")))
