"""Go in the game registry (bots.registry)."""

from ..registry import Game

GAME = Game(
    name="go",
    players="bots.go.players",
    default_player="mcts",
    commands="bots.go.commands",
    session="bots.go.cgos_session",
    render="bots.go.board",
    summary="9x9 Go: GTP engine, CGOS client, the course referee's drop-in",
)
