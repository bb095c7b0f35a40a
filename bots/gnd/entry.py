"""The registry entry of a gnd game, and the way back from a game's name to its rules.

Gopher and Dodo are played the same way (the gnd server, its session and commands), so their
`game.py` are one line each.  bots/gnd imports neither: it reaches a game's rules through the
registry (`Game.rules`, the module `rules(name)` returns), and a gnd game's rules module has

    State        the immutable state: State.from_cells(size, cells, to_move), play, legal_moves...
    Position     the mutable position a search plays on (make/undo, keys, playout)
    start(size, layout="gnd")   the position our server starts a game from
    LAYOUTS      the starting layouts `start` knows (none: the game has one start)
    book_move(state, previous=None)   a known winning move, or None
"""

from __future__ import annotations

from .. import registry
from ..hooks import RulesModule

SESSION = __package__ + ".session"  # what makes a registered game a gnd game


def entry(name: str, summary: str, player: str) -> registry.Game:
    """The Game of gnd game `name` (its rules: bots.<name>.rules), whose default player is `player`."""

    def begin(setup: str):
        """The hexagon's side (the gnd server's starting position)."""
        return rules(name).start(int(setup))

    def fallback(state, context):
        """The best move one ply deep by the search's evaluation (moves the server refused excluded)."""
        from .players import quick_move

        return quick_move(rules(name), state, context)

    def notation(state, move):
        from protocol import gnd

        return list(gnd.encode_action(gnd.game_number(name), move))

    return registry.Game(
        name=name,
        players=f"bots.{name}.players",
        default_player=player,
        commands="bots.gnd.commands",
        session=SESSION,
        render="bots.gnd.display",
        start=begin,
        setups=("3", "4", "6"),
        fallback=fallback,
        notation=notation,
        practice="bots.gnd.practice",
        match="bots.gnd.match",
        bench="bots.gnd.bench",
        record="bots.gnd.record",
        rules=f"bots.{name}.rules",
        summary=summary,
    )


def names() -> tuple[str, ...]:
    """The gnd games, in the registry's order."""
    return tuple(name for name, game in registry.games().items() if game.session == SESSION)


def rules(name: str) -> RulesModule:
    """The rules module of gnd game `name`; ValueError naming the gnd games for any other name."""
    game = registry.games().get(name)
    if game is None or game.session != SESSION:
        raise ValueError(f"unknown gnd game {name!r} (known: {', '.join(names())})")
    return game.module("rules")
