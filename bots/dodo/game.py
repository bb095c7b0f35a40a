"""Dodo in the game registry (bots.registry)."""

from ..gnd.entry import entry

GAME = entry("dodo", "layout", "Dodo on the course's gnd HTTP server")
