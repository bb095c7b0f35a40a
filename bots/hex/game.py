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
    """A cheap sensible move (computed while the search runs, played if it fails): a cell that
    wins at once, else the one cell that stops the opponent winning at once, else under the
    swap rule the swap table's opening or swap (bots.hex.swap), else the empty cell nearest
    the centre."""
    from .board import SWAP
    from .seed import winning_cells
    from .swap import table_move

    allowed = [m for m in state.legal_moves() if m not in context.exclude]
    moves = [m for m in allowed if m != SWAP]
    me = state.to_move
    for colour in (me, 3 - me):
        urgent = [c for c in winning_cells(state.board, state.width, state.height, colour) if c in moves]
        if urgent and (colour == me or len(urgent) == 1):
            return urgent[0]
    decided = table_move(state, allowed)
    if decided is not None:
        return decided[0]
    centre_row, centre_col = (state.height - 1) / 2, (state.width - 1) / 2
    return min(moves, key=lambda c: (abs(c // state.width - centre_row) + abs(c % state.width - centre_col), c))


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
    match="bots.hex.match",
    bench="bots.hex.bench",
    record="bots.hex.record",
    setups=("2", "5", "6x4", "7+swap", "11"),
    summary="Hex (any size to 19x19, swap rule): HTP engine for HexGui and MoHex, play in the terminal",
)
