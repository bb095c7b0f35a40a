"""The registry entry of a gnd game: Gopher and Dodo are played the same way (the gnd server,
its session and commands), so their `game.py` are one line each."""

from __future__ import annotations

from ..registry import Game


def entry(name: str, start: str, summary: str) -> Game:
    """The Game of gnd game `name`, whose rules module starts a game with `start(size)`."""

    def begin(setup: str):
        """The hexagon's side (the gnd server's starting position)."""
        from .games import rules

        return getattr(rules(name), start)(int(setup))

    def fallback(state, context):
        """The best move one ply deep by the search's evaluation (moves the server refused excluded)."""
        from .games import rules
        from .players import quick_move

        return quick_move(rules(name), state, context)

    def notation(state, move):
        from protocol import gnd

        return list(gnd.encode_action(gnd.game_number(name), move))

    return Game(
        name=name,
        players=f"bots.{name}.players",
        default_player=None,  # the gnd session picks the best player for the board size
        commands="bots.gnd.commands",
        session="bots.gnd.session",
        render="bots.gnd.display",
        start=begin,
        setups=("3", "4", "6"),
        fallback=fallback,
        notation=notation,
        practice="bots.gnd.practice",
        match="bots.gnd.match",
        bench="bots.gnd.bench",
        record="bots.gnd.record",
        summary=summary,
    )
