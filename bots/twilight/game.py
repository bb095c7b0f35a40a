"""Twilight in the game registry (bots.registry)."""

from ..registry import Game

GAME = Game(
    name="twilight",
    players="bots.twilight.players",
    default_player="planner",
    commands="bots.twilight.commands",
    session="bots.twilight.session",
    render="bots.twilight.display",
    summary="Vampires vs Werewolves, the official binary TCP protocol",
)
