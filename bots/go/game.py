"""Go in the game registry (bots.registry)."""

from ..registry import Game


def start(setup: str):
    """The board's side (komi 7.5, positional superko)."""
    from .board import empty

    return empty(int(setup))


def fallback(state, context):
    """The opening book's move when it knows the position (a first move asked for while the
    kernels still compile is a good one), else the move the search's priors like best, or the
    one simple tactics like best while their kernels are not loaded (the same one for the same
    position: bots.go.fallback.prior_move); never one of `context.exclude`."""
    import random

    from .book import lookup
    from .fallback import prior_move

    move = lookup(state)
    if move is not None and move not in context.exclude:
        return move
    rng = random.Random(state.key())
    move = prior_move(state, rng)
    if move in context.exclude:  # (no Go server refuses a move yet; the contract says so)
        allowed = [m for m in state.legal_moves() if m not in context.exclude]
        move = rng.choice(allowed) if allowed else move
    return move


def notation(state, move):
    from .board import point_name

    return point_name(move, state.size)


GAME = Game(
    name="go",
    players="bots.go.players",
    default_player="mcts",
    commands="bots.go.commands",
    session="bots.go.cgos_session",
    render="bots.go.board",
    start=start,
    fallback=fallback,
    notation=notation,
    practice="bots.go.practice",
    match="bots.go.match",
    bench="bots.go.bench",
    record="bots.go.record",
    setups=("5", "9"),
    summary="9x9 Go: GTP engine, CGOS client, the course referee's drop-in",
)
