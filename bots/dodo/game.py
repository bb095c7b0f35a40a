"""Dodo in the game registry (bots.registry)."""

from ..registry import Game

GAME = Game(
    name="dodo",
    players="bots.dodo.players",
    default_player=None,  # the gnd session picks the best player for the board size
    commands="bots.gnd.commands",
    session="bots.gnd.session",
    render="bots.gnd.display",
    summary="Dodo on the course's gnd HTTP server",
)
