"""Dodo in the game registry (bots.registry)."""

from ..gnd.entry import entry

# mcts: the strongest Dodo player as measured by `bots arena` (README, Benchmarks)
GAME = entry("dodo", "Dodo on the course's gnd HTTP server", player="mcts")
