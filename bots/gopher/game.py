"""Gopher in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """The hexagon's side (gopher: the gnd server's starting position)."""
    from .rules import start

    return start(int(setup))



def fallback(state, context):
    """The best move one ply deep by the search's evaluation (moves the server refused excluded)."""
    from ..gnd.players import quick_move
    from . import rules

    return quick_move(rules, state, context)


def notation(state, move):
    from protocol import gnd

    return list(gnd.encode_action(gnd.game_number(GAME.name), move))

GAME = Game(
    name="gopher",
    players="bots.gopher.players",
    default_player=None,  # the gnd session picks the best player for the board size
    commands="bots.gnd.commands",
    session="bots.gnd.session",
    render="bots.gnd.display",
    start=start,
    fallback=fallback,
    notation=notation,
    practice="bots.gnd.practice",
    setups=("3", "4", "6"),
    summary="Gopher on the course's gnd HTTP server",
)
