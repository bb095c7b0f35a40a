"""Gopher in the game registry (bots.registry)."""

from ..gnd.entry import entry

GAME = entry("gopher", "start", "Gopher on the course's gnd HTTP server")
