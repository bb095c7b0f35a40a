"""Dodo in the game registry (bots.registry)."""

from ..gnd.entry import entry

GAME = entry("dodo", "start", "Dodo on the course's gnd HTTP server")
