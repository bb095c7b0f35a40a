"""search/negamax.py on Gopher and Dodo small boards, checked against a brute-force minimax."""

from __future__ import annotations

import random
import sys
import time

import pytest

from bots.dodo import rules as dodo_rules
from bots.gopher import rules as gopher_rules
from search import negamax
from search.budget import Budget
from search.negamax import WIN
from tests.helpers import Stopwatch

sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))

GAMES = {"gopher": gopher_rules, "dodo": dodo_rules}
STUCK_WINS = {"gopher": False, "dodo": True}  # Gopher: stuck loses; Dodo: stuck wins


class TooBig(Exception):
    pass


class Brute:
    """A memoised minimax over immutable States, written from the rules only (no search code)."""

    def __init__(self, game: str) -> None:
        self.stuck_wins = STUCK_WINS[game]
        self.memo: dict = {}

    def wins(self, state, cap: int = 10 ** 9) -> bool:
        """Does the side to move win with best play?  TooBig past `cap` new positions."""
        limit = len(self.memo) + cap

        def win(s) -> bool:
            known = self.memo.get(s)
            if known is not None:
                return known
            if len(self.memo) > limit:
                raise TooBig
            moves = s.legal_moves()
            value = self.stuck_wins if not moves else any(not win(s.play(m)) for m in moves)
            self.memo[s] = value
            return value

        return win(state)

    def winning_moves(self, state) -> list:
        return [m for m in state.legal_moves() if not self.wins(state.play(m))]


def gopher_positions(size: int, lo: int, hi: int, count: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = gopher_rules.start(size)
        for _ in range(rng.randint(lo, hi)):
            if s.is_terminal():
                break
            s = s.play(rng.choice(s.legal_moves()))
        out.append(s)
    return out


def dodo_endgames(size: int, count: int, seed: int, brute: Brute, cap: int = 3000) -> list:
    """Random games played to the end, then a position a few plies before it; kept if the
    brute force can solve it cheaply."""
    rng = random.Random(seed)
    out = []
    for _ in range(count * 20):
        if len(out) == count:
            break
        s = dodo_rules.start(size)
        history = [s]
        while not s.is_terminal():
            s = s.play(rng.choice(s.legal_moves()))
            history.append(s)
        candidate = history[max(0, len(history) - 1 - rng.randint(2, 8))]
        try:
            brute.wins(candidate, cap)
        except TooBig:
            continue
        out.append(candidate)
    assert len(out) == count
    return out


def cases():
    """(game, positions, brute) with every position already solved by the brute force."""
    out = []
    g = Brute("gopher")
    for size, lo, hi, n, seed in ((3, 1, 9, 40, 1), (4, 8, 16, 40, 2)):
        positions = gopher_positions(size, lo, hi, n, seed)
        for s in positions:
            g.wins(s)
        out.append(("gopher", size, positions, g))
    d = Brute("dodo")
    for size, n, seed in ((3, 25, 3), (4, 25, 4)):
        out.append(("dodo", size, dodo_endgames(size, n, seed, d), d))
    return out


CASES = cases()
IDS = [f"{game}{size}" for game, size, _, _ in CASES]


@pytest.mark.parametrize(("game", "size", "positions", "brute"), CASES, ids=IDS)
def test_solve_agrees_with_brute_force(game, size, positions, brute):
    rules = GAMES[game]
    shared: dict = {}  # one table for every position: entries must stay exact across positions
    wins = losses = 0
    for s in positions:
        expected = brute.wins(s)
        wins += expected
        losses += not expected
        for table in ({}, shared):
            pos = rules.Position(s)
            result = negamax.solve(pos, time.monotonic() + 20, table)
            assert result is not None, s
            value, move, _ = result
            assert value == (1 if expected else -1), (s, table is shared)
            assert pos.state() == s  # make/undo left the position as it was
            if expected and s.legal_moves():
                played = pos.move_of(move)
                assert s.is_legal(played)
                assert not brute.wins(s.play(played)), (s, played)  # the move returned really wins
    assert wins and losses  # both outcomes were exercised


@pytest.mark.parametrize(("game", "size", "positions", "brute"), CASES, ids=IDS)
def test_solve_root_moves_restricts_the_root(game, size, positions, brute):
    rules = GAMES[game]
    checked = 0
    for s in positions:
        moves = s.legal_moves()
        if not moves or not brute.wins(s):
            continue
        winning = brute.winning_moves(s)
        losing = [m for m in moves if m not in winning]
        if not losing:
            continue
        pos = rules.Position(s)
        only_losing = [pos.index_of(m) for m in losing]
        value, move, _ = negamax.solve(pos, time.monotonic() + 20, {}, root_moves=only_losing)
        assert value == -1 and move in only_losing
        one_winner = [pos.index_of(winning[-1])]
        value, move, _ = negamax.solve(pos, time.monotonic() + 20, {}, root_moves=one_winner)
        assert value == 1 and pos.move_of(move) == winning[-1]
        checked += 1
    assert checked >= 1


def test_solve_terminal_positions():
    rng = random.Random(5)
    g = gopher_rules.start(3)
    while not g.is_terminal():
        g = g.play(rng.choice(g.legal_moves()))
    assert negamax.solve(gopher_rules.Position(g), time.monotonic() + 1, {})[0] == -1
    d = dodo_rules.start(3)
    while not d.is_terminal():
        d = d.play(rng.choice(d.legal_moves()))
    assert negamax.solve(dodo_rules.Position(d), time.monotonic() + 1, {})[0] == 1


def test_solve_gives_up_at_the_deadline_or_node_cap():
    s = gopher_positions(6, 2, 2, 1, 7)[0]
    pos = gopher_rules.Position(s)
    t0 = time.monotonic()
    assert negamax.solve(pos, time.monotonic() + 0.1, {}) is None
    assert time.monotonic() - t0 < 0.4
    assert negamax.solve(pos, time.monotonic() + 30, {}, node_cap=1000) is None
    assert pos.state() == s


# --- the opening tables of docs/protocols/gnd.md (section 10.2) ---------------------------

N4_OPENINGS = {  # Red's first stone -> does Red win?  With symmetric images of each class.
    (-3, -3): True, (3, 0): True,        # corners
    (-3, -2): True, (2, 3): True,        # edge next to a corner
    (-2, -1): True,                      # ring 2, edge middle
    (-1, -1): True, (1, 0): True,        # ring 1
    (-2, -2): False, (2, 2): False,      # ring 2, corner diagonal
    (0, 0): False,                       # centre
}


@pytest.mark.parametrize("cell", list(N4_OPENINGS))
def test_gopher_4_opening_table(cell):
    after = gopher_rules.start(4).play(cell)
    result = negamax.solve(gopher_rules.Position(after), time.monotonic() + 20, {})
    assert result is not None
    red_wins = result[0] == -1  # Blue to move loses
    assert red_wins == N4_OPENINGS[cell]


N3_OPENINGS = {(0, 0): True, (-2, -2): True, (2, 0): True, (-2, -1): True, (-1, -1): False, (1, 0): False}


@pytest.mark.parametrize("cell", list(N3_OPENINGS))
def test_gopher_3_opening_table_by_brute_force_and_solver(cell):
    after = gopher_rules.start(3).play(cell)
    assert (not Brute("gopher").wins(after)) == N3_OPENINGS[cell]
    assert (negamax.solve(gopher_rules.Position(after), time.monotonic() + 20, {})[0] == -1) == N3_OPENINGS[cell]


def test_book_openings_are_proven_wins():
    for size, cell in gopher_rules.OPENINGS.items():
        after = gopher_rules.start(size).play(cell)
        assert negamax.solve(gopher_rules.Position(after), time.monotonic() + 20, {})[0] == -1, size


# --- iterative deepening search ---------------------------------------------------------

@pytest.mark.parametrize(("game", "size", "positions", "brute"), CASES, ids=IDS)
def test_search_proves_wins_and_losses(game, size, positions, brute):
    rules = GAMES[game]
    for s in positions[:15]:
        if not s.legal_moves():
            continue
        pos = rules.Position(s)
        r = negamax.search(pos, Budget(3.0), table={}, history={})
        assert pos.state() == s
        played = pos.move_of(r.move)
        assert s.is_legal(played)
        if brute.wins(s):
            assert r.value == WIN, s
            assert not brute.wins(s.play(played)), (s, played)
        else:
            assert r.value == -WIN, s


@pytest.mark.parametrize(("game", "state"), [
    ("gopher", gopher_positions(6, 4, 4, 1, 11)[0]),
    ("gopher", gopher_positions(7, 1, 1, 1, 12)[0]),
    ("dodo", dodo_rules.start(6)),
    ("dodo", dodo_rules.start(5)),
])
def test_search_returns_a_legal_move_within_budget(game, state):
    rules = GAMES[game]
    pos = rules.Position(state)
    budget = Budget(0.3)
    with Stopwatch() as took:
        r = negamax.search(pos, budget)
    assert took.seconds < budget.seconds + 0.2, took.wall
    assert r.depth >= 1 and r.nodes > 0
    assert state.is_legal(pos.move_of(r.move))
    assert -1 < r.value < 1  # too big to prove: a heuristic value
    assert pos.state() == state


def test_search_node_cap_stops_it():
    state = gopher_positions(6, 4, 4, 1, 11)[0]
    pos = gopher_rules.Position(state)
    r = negamax.search(pos, Budget(30.0, nodes=2000))
    assert r.elapsed < 5 and r.nodes <= 2000 + negamax.CHECK_EVERY + 1
    assert state.is_legal(pos.move_of(r.move))


@pytest.mark.parametrize(("game", "size", "positions", "brute"), CASES, ids=IDS)
def test_search_root_moves_restrict_the_root(game, size, positions, brute):
    rules = GAMES[game]
    checked = 0
    for s in positions:
        if not s.legal_moves() or not brute.wins(s):
            continue
        winning = brute.winning_moves(s)
        losing = [m for m in s.legal_moves() if m not in winning]
        if not losing:
            continue
        pos = rules.Position(s)
        root = [pos.index_of(m) for m in losing]
        r = negamax.search(pos, Budget(3.0), root_moves=root)
        assert r.move in root and r.value == -WIN
        r = negamax.search(pos, Budget(3.0), root_moves=root[-1:])
        assert r.move == root[-1]
        checked += 1
        if checked == 5:
            break
    assert checked >= 1


def test_search_on_a_terminal_position():
    rng = random.Random(9)
    s = gopher_rules.start(3)
    while not s.is_terminal():
        s = s.play(rng.choice(s.legal_moves()))
    r = negamax.search(gopher_rules.Position(s), Budget(1.0))
    assert r.move is None and r.value == -WIN
    d = dodo_rules.start(3)
    while not d.is_terminal():
        d = d.play(rng.choice(d.legal_moves()))
    r = negamax.search(dodo_rules.Position(d), Budget(1.0))
    assert r.move is None and r.value == WIN
