"""Imported by the forkserver (bots.runner.PRELOAD): compiles the Go kernels (or loads them
from numba's disk cache) once, in the process every worker is forked from, so workers start
with them in memory; a rebuilt pool is ready in a fraction of a second."""

from .players import warm

warm()
