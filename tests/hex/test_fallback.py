"""Hex's fallback move (bots.hex.game.fallback, played when a search fails): cheap and sensible,
never just the first legal move."""

import random

from bots.hex.board import empty, from_moves, parse_cell
from bots.hex.game import fallback
from bots.hex.seed import winning_cells
from search.contracts import Context


def cell(name: str, size: int) -> int:
    return parse_cell(name, size, size)


def test_it_wins_at_once_when_it_can():
    s = from_moves(3, ["a1", "b1", "a2", "c1"])  # Black a1 a2, Black to move: a3 joins the edges
    assert fallback(s, Context()) == cell("a3", 3)


def test_it_wins_at_once_else_blocks_a_lone_threat_in_random_positions():
    rng = random.Random(7)
    wins = blocks = 0
    for _ in range(400):
        s = empty(rng.choice([3, 4, 5]))
        while not s.is_terminal() and rng.random() < 0.9:
            s = s.play(rng.choice(s.legal_moves()))
        if s.is_terminal():
            continue
        me = s.to_move
        mine = winning_cells(s.board, s.width, s.height, me)
        theirs = winning_cells(s.board, s.width, s.height, 3 - me)
        move = fallback(s, Context())
        if mine:
            assert s.play(move).winner() == me
            wins += 1
        elif len(theirs) == 1:
            assert move == theirs[0]
            blocks += 1
    assert wins >= 10 and blocks >= 10, (wins, blocks)


def test_otherwise_the_empty_cell_nearest_the_centre_and_never_an_excluded_one():
    assert fallback(empty(11), Context()) == cell("f6", 11)
    taken = from_moves(11, ["f6"])
    assert fallback(taken, Context()) in {cell(n, 11) for n in ("e6", "g6", "f5", "f7")}
    assert fallback(empty(3), Context(exclude=[cell("b2", 3)])) != cell("b2", 3)
