"""The resistance evaluation and the `Resistance` alpha-beta player (bots.hex.resistance)."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from protocol.errors import UsageError
from search.budget import Budget

from bots.hex import board as B
from bots.hex.resistance import Resistance, analyse, evaluate
from bots.hex.seed import PLAYERS, winning_cells


def random_state(rng, w, h, fill):
    cells = bytes(rng.choices((0, 1, 2), weights=(1 - fill, fill / 2, fill / 2))[0] for _ in range(w * h))
    return B.State(w, h, cells, rng.choice((B.BLACK, B.WHITE)), plies=w * h - cells.count(0))


def rotate(s):
    """The position turned 180 degrees: the same game for both sides."""
    return s._replace(board=s.board[::-1])


def transpose_swap(s):
    """Mirrored across the a1 diagonal with the colours exchanged: the roles change sides."""
    board = bytearray(s.cells)
    for c, v in enumerate(s.board):
        board[B.transpose(c, s.width, s.height)] = (0, 2, 1)[v]
    return B.State(s.height, s.width, bytes(board), 3 - s.to_move, plies=s.plies)


@pytest.mark.parametrize("bridges", [True, False])
def test_evaluation_symmetries(bridges):
    rng = random.Random(11)
    for _ in range(60):
        w, h = rng.randint(1, 8), rng.randint(1, 8)
        s = random_state(rng, w, h, rng.random() * 0.6)
        v = evaluate(s, bridges)
        assert evaluate(rotate(s), bridges) == pytest.approx(v, rel=1e-5, abs=1e-5)
        assert evaluate(transpose_swap(s), bridges) == pytest.approx(-v, rel=1e-5, abs=1e-5)
        # the move ordering maps the same way
        imp = analyse([s.board], w, h, bridges)[1][0]
        assert np.allclose(analyse([rotate(s).board], w, h, bridges)[1][0], imp[::-1], atol=1e-5)
        t = analyse([transpose_swap(s).board], h, w, bridges)[1][0]
        assert np.allclose([t[B.transpose(c, w, h)] for c in range(w * h)], imp, atol=1e-5)


def test_evaluation_sees_who_is_ahead():
    assert evaluate(B.empty(7)) == pytest.approx(0.0, abs=1e-9)  # the empty rhombus is fair
    black_wall = B.from_rows(["---B---"] * 6 + ["-------"])  # one cell short of a win
    assert evaluate(black_wall) > 2.0
    assert evaluate(transpose_swap(black_wall)) < -2.0
    s = B.from_moves(7, ["d4"])
    assert evaluate(s) > 0.0  # a stone helps its owner


def test_batches_agree_with_single_evaluations():
    rng = random.Random(3)
    states = [random_state(rng, 6, 5, 0.4) for _ in range(7)]
    scores, imp = analyse([s.board for s in states], 6, 5)
    for i, s in enumerate(states):
        one, one_imp = analyse([s.board], 6, 5)
        assert scores[i] == pytest.approx(one[0]) and np.allclose(imp[i], one_imp[0])


def test_wins_in_one():
    s = B.from_rows(["-B---",
                     "-B---",
                     "--W--",
                     "B-W--",
                     "B-W-W"], to_move=B.BLACK)
    for seed in range(3):
        r = Resistance(seed=seed).choose(s, None, Budget(1.0))
        assert s.play(r.move).winner() == B.BLACK


def test_blocks_a_loss_in_one():
    s = B.from_rows(["B----",
                     "-----",
                     "WWW-W",
                     "B----",
                     "-B---"], to_move=B.BLACK)
    assert winning_cells(s.board, 5, 5, B.WHITE) == [B.parse_cell("d3", 5, 5)]
    assert Resistance(seed=1).choose(s, None, Budget(1.0)).move == B.parse_cell("d3", 5, 5)
    # White blocks too, on a non-square board
    s = B.from_rows(["-B----",
                     "-B---W",
                     "------",
                     "-B----"], to_move=B.WHITE)
    assert winning_cells(s.board, 6, 4, B.BLACK) == [B.parse_cell("b3", 6, 4)]
    assert Resistance(seed=1).choose(s, None, Budget(1.0)).move == B.parse_cell("b3", 6, 4)


def test_search_sees_a_double_threat():
    """Black to move, two cells short: b4 makes two winning cells (a5, b5) that White cannot
    both block; the search proves the win (a value above the win threshold)."""
    s = B.from_rows(["-B--W",
                     "-B--W",
                     "-B-W-",
                     "-----",
                     "-----"], to_move=B.BLACK)
    assert not winning_cells(s.board, 5, 5, B.BLACK) and not winning_cells(s.board, 5, 5, B.WHITE)
    for seed in range(3):
        r = Resistance(seed=seed, max_depth=3).choose(s, None, Budget(5.0))
        after = s.play(r.move)
        assert len(winning_cells(after.board, 5, 5, B.BLACK)) >= 2 and r.value > 1000


def test_respects_the_deadline_and_returns_legal_moves():
    rng = random.Random(5)
    for size, seconds in ((11, 0.05), (13, 0.1), (9, 0.0)):
        s = B.empty(size)
        for _ in range(size):
            s = s.play(rng.choice(s.legal_moves()))
        t = time.monotonic()
        r = Resistance(seed=1, max_depth=6).choose(s, None, Budget(seconds))
        took = time.monotonic() - t
        assert s.is_legal(r.move)
        assert took < seconds + 0.05, (size, seconds, took)


def test_legal_with_swap_and_on_odd_boards():
    rng = random.Random(8)
    for w, h, swap in ((5, 5, True), (1, 1, False), (2, 3, False), (6, 4, False), (3, 3, True)):
        for g in range(3):
            s = B.empty(w, h, swap=swap)
            me = Resistance(seed=g, max_depth=2)
            while not s.is_terminal():
                if (s.plies + g) % 2:
                    move = me.choose(s, None, Budget(1.0)).move
                else:
                    move = rng.choice(s.legal_moves())
                assert s.is_legal(move)
                s = s.play(move)
    with pytest.raises(UsageError):
        Resistance().choose(B.from_moves(2, ["a1", "b1", "a2"]), None, Budget(1.0))


def test_swaps_a_strong_opening_only():
    centre = B.from_moves(5, ["c3"], swap=True)
    assert Resistance(seed=1).choose(centre, None, Budget(2.0)).move == B.SWAP
    corner = B.from_moves(5, ["a1"], swap=True)  # the acute corner: a weak first move
    assert Resistance(seed=1).choose(corner, None, Budget(2.0)).move != B.SWAP
    assert Resistance(seed=1).choose(B.from_moves(5, ["c3"]), None, Budget(2.0)).move != B.SWAP


def test_options_are_checked():
    with pytest.raises(ValueError):
        Resistance(max_depth=0)
    with pytest.raises(ValueError):
        Resistance(width=0)


@pytest.mark.parametrize("opponent", ["random", "path"])
def test_beats_weak_seed_players_on_5x5(opponent):
    wins = 0
    for g in range(10):
        me, them = Resistance(seed=g, max_depth=2), PLAYERS[opponent](seed=g)
        s = B.empty(5)
        black = g % 2 == 0
        while not s.is_terminal():
            p = me if (s.to_move == B.BLACK) == black else them
            s = s.play(p.choose(s, None, Budget(0.05)).move)
        wins += (s.winner() == B.BLACK) == black
    assert wins == 10
