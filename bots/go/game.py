"""Go in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """The board's side (komi 7.5, positional superko)."""
    from .board import empty

    return empty(int(setup))


GAME = Game(
    name="go",
    players="bots.go.players",
    default_player="mcts",
    commands="bots.go.commands",
    session="bots.go.cgos_session",
    render="bots.go.board",
    start=start,
    setups=("5", "9"),
    summary="9x9 Go: GTP engine, CGOS client, the course referee's drop-in",
)
