"""Hex in the game registry (bots.registry).

Hex has no server to join: a controller (HexGui, a MoHex tournament script, `bots arena hex`)
runs our engine over HTP (`bots htp hex`), so it has no session and no practice ground.
"""

from ..registry import Game


def start(setup: str):
    """A setup is the board, `11` or `9x7` (width x height), with `+swap` for the pie rule."""
    from .board import empty

    board, _, rule = setup.partition("+")
    width, _, height = board.partition("x")
    return empty(int(width), int(height) if height else None, swap=rule == "swap")


def fallback(state, context):
    """The empty cell nearest the centre that keeps our shortest path shortest is a search's
    job; the fallback is a random empty cell (the same one for the same position)."""
    import random

    from .board import SWAP

    moves = [m for m in state.legal_moves() if m != SWAP]
    return random.Random(hash(state.key())).choice(moves)


def notation(state, move):
    return state.name(move)


GAME = Game(
    name="hex",
    players="bots.hex.players",
    default_player="mcts",
    commands="bots.hex.commands",
    session=None,
    render="bots.hex.board",
    start=start,
    fallback=fallback,
    notation=notation,
    practice=None,
    setups=("2", "5", "6x4", "7+swap", "11"),
    summary="Hex (any size to 19x19, swap rule): HTP engine for HexGui and MoHex, play in the terminal",
)
