"""Gopher in the game registry (bots.registry)."""

from ..gnd.entry import entry

# alphabeta: the strongest Gopher player as measured by `bots arena` (README, Benchmarks)
GAME = entry("gopher", "Gopher on the course's gnd HTTP server", player="alphabeta")
