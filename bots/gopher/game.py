"""Gopher in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """The hexagon's side (gopher: the gnd server's starting position)."""
    from .rules import start

    return start(int(setup))


GAME = Game(
    name="gopher",
    players="bots.gopher.players",
    default_player=None,  # the gnd session picks the best player for the board size
    commands="bots.gnd.commands",
    session="bots.gnd.session",
    render="bots.gnd.display",
    start=start,
    setups=("3", "4", "6"),
    summary="Gopher on the course's gnd HTTP server",
)
