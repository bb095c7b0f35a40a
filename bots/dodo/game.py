"""Dodo in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """The hexagon's side (dodo: the gnd server's starting position)."""
    from .rules import layout

    return layout(int(setup))


GAME = Game(
    name="dodo",
    players="bots.dodo.players",
    default_player=None,  # the gnd session picks the best player for the board size
    commands="bots.gnd.commands",
    session="bots.gnd.session",
    render="bots.gnd.display",
    start=start,
    setups=("3", "4", "6"),
    summary="Dodo on the course's gnd HTTP server",
)
