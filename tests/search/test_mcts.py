"""search/mcts.py on Gopher and Dodo: legal moves on time, immediate wins, proofs, tree reuse, root_moves."""

from __future__ import annotations

import random

import pytest

from bots.dodo import rules as dodo_rules
from bots.gopher import rules as gopher_rules
from search import mcts
from search.budget import Budget
from tests.helpers import Stopwatch

GAMES = {"gopher": gopher_rules, "dodo": dodo_rules}


class TooBig(Exception):
    pass


def brute_wins(state, stuck_wins: bool, memo: dict, cap: int = 10 ** 9) -> bool:
    known = memo.get(state)
    if known is None:
        if len(memo) > cap:
            raise TooBig
        moves = state.legal_moves()
        known = stuck_wins if not moves else any(not brute_wins(state.play(m), stuck_wins, memo, cap) for m in moves)
        memo[state] = known
    return known


def random_positions(game: str, size: int, lo: int, hi: int, count: int, seed: int) -> list:
    rules = GAMES[game]
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = rules.start(size)
        for _ in range(rng.randint(lo, hi)):
            if s.is_terminal():
                break
            s = s.play(rng.choice(s.legal_moves()))
        if not s.is_terminal():
            out.append(s)
    return out


def endgames(game: str, size: int, count: int, seed: int) -> list:
    """Random games played to the end, then the position 2 to 8 plies before it."""
    rules = GAMES[game]
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = rules.start(size)
        history = [s]
        while not s.is_terminal():
            s = s.play(rng.choice(s.legal_moves()))
            history.append(s)
        if len(history) > 3:
            out.append(history[max(0, len(history) - 1 - rng.randint(2, 8))])
    return out


def immediate_win_positions(count: int) -> list:
    """Gopher positions where some move leaves the opponent without a move, and some does not."""
    rng = random.Random(21)
    out = []
    while len(out) < count:
        s = gopher_rules.start(rng.choice((3, 4)))
        while not s.is_terminal():
            moves = s.legal_moves()
            killers = [m for m in moves if s.play(m).is_terminal()]
            if killers and len(killers) < len(moves):
                out.append((s, killers))
                break
            s = s.play(rng.choice(moves))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("game", "size", "lo", "hi"), [
    ("gopher", 3, 1, 6), ("gopher", 4, 2, 14), ("gopher", 6, 1, 20),
    ("dodo", 3, 0, 6), ("dodo", 4, 0, 20), ("dodo", 5, 0, 10),
])
def test_returns_a_legal_move_within_budget(game, size, lo, hi):
    rules = GAMES[game]
    for s in random_positions(game, size, lo, hi, 4, seed=size * 7 + lo):
        pos = rules.Position(s)
        budget = Budget(0.05)
        with Stopwatch() as took:
            r = mcts.search(pos, budget, {}, seed=1)
        assert took.seconds < budget.seconds + 0.2, took.wall
        assert s.is_legal(pos.move_of(r.move)), s
        assert 0.0 <= r.value <= 1.0 and r.nodes >= 1
        assert pos.state() == s  # every play was undone


def test_prefers_a_move_that_wins_at_once():
    for s, killers in immediate_win_positions(12):
        pos = gopher_rules.Position(s)
        r = mcts.search(pos, Budget(0.5), {}, seed=3)
        assert pos.move_of(r.move) in killers, (s, killers)
        assert r.value == 1.0  # a child with no move for its mover: proven


def test_root_moves_are_respected():
    for s, killers in immediate_win_positions(8):
        pos = gopher_rules.Position(s)
        others = [pos.index_of(m) for m in s.legal_moves() if m not in killers]
        table: dict = {}
        r = mcts.search(pos, Budget(0.1), table, seed=3, root_moves=others)
        assert r.move in others  # the winning moves were not offered
        assert table == {}  # a restricted root searches in a private table
        r = mcts.search(pos, Budget(0.1), {}, seed=3, root_moves=others[:1])
        assert r.move == others[0]


@pytest.mark.parametrize(("game", "size"), [("gopher", 3), ("gopher", 4), ("dodo", 3), ("dodo", 4)])
def test_proves_small_positions(game, size):
    rules = GAMES[game]
    memo: dict = {}
    stuck_wins = game == "dodo"
    won = lost = 0
    positions = []
    for s in endgames(game, size, 60, seed=size):
        try:  # a small tree (at most 300 positions): UCT with proven values settles it quickly
            brute_wins(s, stuck_wins, {}, cap=300)
        except TooBig:
            continue
        positions.append(s)
        if len(positions) == 12:
            break
    assert len(positions) == 12
    for s in positions:
        pos = rules.Position(s)
        r = mcts.search(pos, Budget(2.0), {}, seed=5, early_stop=False)
        move = pos.move_of(r.move)
        assert s.is_legal(move)
        if brute_wins(s, stuck_wins, memo):
            won += 1
            assert r.value == 1.0, s
            assert not brute_wins(s.play(move), stuck_wins, memo), (s, move)
        else:
            lost += 1
            assert r.value == 0.0, s
        assert r.elapsed < 1.5  # stopped once proven, well before the budget
    assert won and lost


def test_table_is_reused_between_calls():
    s = random_positions("gopher", 5, 3, 3, 1, seed=4)[0]
    pos = gopher_rules.Position(s)
    table: dict = {}
    mcts.search(pos, Budget(0.1), table, seed=1, early_stop=False)
    root = table[pos.exact_key()]
    size1, visits1 = len(table), root.visits
    assert size1 > 1 and visits1 > 0
    mcts.search(pos, Budget(0.1), table, seed=2, early_stop=False)
    assert table[pos.exact_key()] is root  # the root node was kept
    assert root.visits > visits1 and len(table) > size1
    # the next position (after the chosen move) finds its subtree in the table
    child_move = root.moves[max(range(len(root.moves)), key=root.n.__getitem__)]
    pos.play(child_move)
    child = table[pos.exact_key()]
    before = child.visits
    mcts.search(pos, Budget(0.05), table, seed=3, early_stop=False)
    assert table[pos.exact_key()] is child and child.visits > before > 0


def test_terminal_root():
    rng = random.Random(2)
    s = gopher_rules.start(3)
    while not s.is_terminal():
        s = s.play(rng.choice(s.legal_moves()))
    r = mcts.search(gopher_rules.Position(s), Budget(0.1))
    assert r.move is None and r.value == 0.0
    d = dodo_rules.start(3)
    while not d.is_terminal():
        d = d.play(rng.choice(d.legal_moves()))
    r = mcts.search(dodo_rules.Position(d), Budget(0.1))
    assert r.move is None and r.value == 1.0


def test_a_table_reused_across_board_sizes():
    table: dict = {}
    mcts.search(gopher_rules.Position(gopher_rules.start(4)), Budget(0.05), table, seed=1)
    pos = gopher_rules.Position(gopher_rules.start(6))
    r = mcts.search(pos, Budget(0.05), table, seed=1)
    assert gopher_rules.start(6).is_legal(pos.move_of(r.move))
