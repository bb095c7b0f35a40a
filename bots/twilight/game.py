"""Twilight in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """A shipped map's name or a map file (official XML)."""
    from .maps import load_map

    return load_map(setup)


def fallback(state, context):
    """The greedy action: every group heads for its best prize now (another legal move if
    that one is in `context.exclude`; the Twilight server never refuses one, but the contract
    of every game's fallback says so)."""
    from .players import greedy_action

    move = greedy_action(state)
    if move in context.exclude:
        move = next((m for m in state.legal_moves() if m not in context.exclude), move)
    return move


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
