"""Twilight in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """A shipped map's name or a map file (official XML)."""
    from .maps import load_map

    return load_map(setup)


def fallback(state, context):
    """The greedy action: every group heads for its best prize now."""
    from .players import greedy_action

    return greedy_action(state)


def notation(state, move):
    return [list(m) for m in move]


GAME = Game(
    name="twilight",
    players="bots.twilight.players",
    default_player="planner",
    commands="bots.twilight.commands",
    session="bots.twilight.session",
    render="bots.twilight.display",
    start=start,
    fallback=fallback,
    notation=notation,
    practice="bots.twilight.practice",
    match="bots.twilight.match",
    bench="bots.twilight.bench",
    record="bots.twilight.record",
    setups=("map8", "thetrap", "testmap2", "splitiskey", "humans_everywhere", "all_in"),
    summary="Vampires vs Werewolves, the official binary TCP protocol",
)
