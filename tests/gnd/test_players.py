"""The Gopher and Dodo players (bots/gnd/players.py), as bots.players.make_player builds them."""

from __future__ import annotations

import random

import pytest

from bots.dodo import players as dodo_players
from bots.dodo import rules as dodo_rules
from bots.gnd.players import quick_move
from bots.gopher import players as gopher_players
from bots.gopher import rules as gopher_rules
from bots.players import PlayerError, make_player, player_table
from search.budget import Budget, SearchResult
from search.contracts import Context
from tests.helpers import Stopwatch

RULES = {"gopher": gopher_rules, "dodo": dodo_rules}
NAMES = ("random", "alphabeta", "mcts")


def positions(game: str, size: int, count: int, seed: int, max_plies: int = 30) -> list:
    rules = RULES[game]
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = rules.start(size)
        for _ in range(rng.randint(0, max_plies)):
            if s.is_terminal():
                break
            s = s.play(rng.choice(s.legal_moves()))
        if not s.is_terminal():
            out.append(s)
    return out


POSITIONS = {
    "gopher": positions("gopher", 3, 4, 1) + positions("gopher", 4, 5, 2) + positions("gopher", 5, 3, 3)
    + positions("gopher", 6, 2, 4),
    "dodo": positions("dodo", 3, 4, 5) + positions("dodo", 4, 5, 6) + positions("dodo", 5, 3, 7),
}


def test_the_player_tables():
    assert set(player_table("gopher")) == set(NAMES) | {"human"} == set(player_table("dodo"))
    assert gopher_players.PLAYERS["mcts"].rules is gopher_rules
    assert dodo_players.PLAYERS["alphabeta"].rules is dodo_rules


@pytest.mark.slow
@pytest.mark.parametrize("game", ["gopher", "dodo"])
@pytest.mark.parametrize("name", NAMES)
def test_every_player_returns_a_legal_move_within_budget(game, name):
    player = make_player(game, name)
    for state in POSITIONS[game]:
        budget = Budget(0.05)
        with Stopwatch() as took:
            result = player.choose(state, Context(), budget)
        assert isinstance(result, SearchResult)
        assert state.is_legal(result.move), (state, result.move)
        assert took.seconds < budget.seconds + 0.2, (state, took.wall)


@pytest.mark.parametrize("game", ["gopher", "dodo"])
@pytest.mark.parametrize("name", NAMES)
def test_excluded_moves_are_never_chosen(game, name):
    player = make_player(game, name)
    for state in POSITIONS[game]:
        moves = state.legal_moves()
        if len(moves) < 2:
            continue
        first = player.choose(state, Context(), Budget(0.03)).move
        again = player.choose(state, Context(exclude={first}), Budget(0.03)).move
        assert again != first and state.is_legal(again)
        keep = moves[len(moves) // 2]  # every move but one refused: that one it must be
        only = player.choose(state, Context(exclude=frozenset(m for m in moves if m != keep)), Budget(0.03)).move
        assert only == keep
        everything = player.choose(state, Context(exclude=frozenset(moves)), Budget(0.03)).move
        assert state.is_legal(everything)  # nothing left to avoid: still a legal move


def test_quick_move_is_legal_and_respects_exclude():
    for game, states in POSITIONS.items():
        rules = RULES[game]
        for state in states:
            move = quick_move(rules, state)
            assert state.is_legal(move)
            if len(state.legal_moves()) > 1:
                other = quick_move(rules, state, Context(exclude={move}))
                assert other != move and state.is_legal(other)


# --- the Gopher book ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["alphabeta", "mcts"])
def test_gopher_book_openings(name):
    player = make_player("gopher", name)
    r = player.choose(gopher_rules.start(4), Context(), Budget(1.0))
    assert r.move == (-3, -3) and r.value == 1.0 and r.elapsed < 0.5
    assert player.choose(gopher_rules.start(3), Context(), Budget(1.0)).move == (0, 0)
    assert player.choose(gopher_rules.start(5), Context(), Budget(1.0)).move == (0, 0)  # Edwards: the centre
    # the book move refused by the server: something else, still legal
    other = player.choose(gopher_rules.start(4), Context(exclude={(-3, -3)}), Budget(0.1)).move
    assert other != (-3, -3) and gopher_rules.start(4).is_legal(other)
    # book=False: the player searches instead of reading the table
    plain = make_player("gopher", name, {"book": "false"})
    searched = plain.choose(gopher_rules.start(5), Context(), Budget(0.05))
    assert searched.nodes > 0 and gopher_rules.start(5).is_legal(searched.move)


def test_book_move_table():
    assert gopher_rules.book_move(gopher_rules.start(4)) == (-3, -3)
    assert gopher_rules.book_move(gopher_rules.start(3)) == (0, 0)
    assert gopher_rules.book_move(gopher_rules.start(5)) == (0, 0)
    assert gopher_rules.book_move(gopher_rules.start(6)) is None  # even and unsolved: no book
    blue_to_move = gopher_rules.start(5).play((0, 0))
    assert gopher_rules.book_move(blue_to_move) is None  # Edwards is Red's strategy
    assert dodo_rules.book_move(dodo_rules.start(4)) is None


@pytest.mark.parametrize("size", [3, 5, 7])
def test_edwards_wins_every_game_against_random_blue(size):
    for seed in range(6 if size < 7 else 2):
        rng = random.Random(seed)
        s, previous = gopher_rules.start(size), None
        while not s.is_terminal():
            if s.to_move == gopher_rules.RED:
                with_previous = gopher_rules.edwards(s, previous)
                without = gopher_rules.edwards(s)
                assert with_previous is not None and s.is_legal(with_previous), (size, seed, s)
                assert without == with_previous
                if s.red:  # the extension of Blue's last stone through its red neighbour
                    b = gopher_rules.bits(s.blue & ~previous.blue)
                    (i,) = list(b)
                    bq, br = s.grid.cell_at[i]
                    assert with_previous in {(2 * bq - q, 2 * br - r) for q, r in
                                             (s.grid.cell_at[n] for n in s.grid.neighbours[i] if s.red >> n & 1)}
                s = s.play(with_previous)
                previous = s
            else:
                s = s.play(rng.choice(s.legal_moves()))
        assert s.winner() == gopher_rules.RED, (size, seed)


def test_players_follow_edwards_with_and_without_previous():
    player = make_player("gopher", "alphabeta")
    rng = random.Random(8)
    s = gopher_rules.start(5)
    previous = None
    while not s.is_terminal():
        if s.to_move == gopher_rules.RED:
            expected = gopher_rules.edwards(s, previous)
            assert player.choose(s, Context(previous=previous), Budget(0.5)).move == expected
            assert player.choose(s, Context(), Budget(0.5)).move == expected
            s = s.play(expected)
            previous = s
        else:
            s = s.play(rng.choice(s.legal_moves()))
    assert s.winner() == gopher_rules.RED


# --- options --------------------------------------------------------------------------------

def test_options_via_make_player():
    ab = make_player("gopher", "alphabeta", {"max_depth": "3", "solve_share": "0.5", "book": "no"})
    assert (ab.max_depth, ab.solve_share, ab.book) == (3, 0.5, False)
    m = make_player("dodo", "mcts", {"c": 1.5, "early_stop": False, "solve_share": 0})
    assert (m.c, m.early_stop, m.solve_share) == (1.5, False, 0.0)
    assert make_player("dodo", "alphabeta", {"max_depth": 2}).max_depth == 2
    shallow = make_player("gopher", "alphabeta", {"max_depth": 1, "solve_share": 0, "book": False})
    assert shallow.choose(POSITIONS["gopher"][-1], Context(), Budget(1.0)).depth == 1


@pytest.mark.parametrize(("game", "name", "params", "words"), [
    ("gopher", "minimax", Context(), ["minimax", "alphabeta", "mcts", "random"]),
    ("gopher", "alphabeta", {"depth": 3}, ["depth", "max_depth"]),
    ("gopher", "alphabeta", {"max_depth": "deep"}, ["max_depth", "deep"]),
    ("dodo", "mcts", {"c": "x"}, ["c"]),
    ("dodo", "mcts", {"early_stop": "maybe"}, ["early_stop"]),
    ("gopher", "mcts", {"solve_share": 2}, ["solve_share"]),
    ("gopher", "alphabeta", {"max_depth": 2.5}, ["max_depth"]),
    ("dodo", "random", {"c": 1}, ["c"]),
    ("chess", "random", Context(), ["chess", "gopher"]),
])
def test_bad_options_raise_player_error(game, name, params, words):
    with pytest.raises(PlayerError) as info:
        make_player(game, name, params)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(("game", "name"), [("gopher", "mcts"), ("dodo", "random")])
def test_seed_option_is_an_int(game, name):
    assert make_player(game, name, {"seed": "5"}).seed == 5
    with pytest.raises(PlayerError):
        make_player(game, name, {"seed": "not a number"})


def test_mcts_player_across_board_sizes():
    player = make_player("gopher", "mcts", {"book": False})
    for size in (4, 6):
        state = gopher_rules.start(size)
        assert state.is_legal(player.choose(state, Context(), Budget(0.05)).move)
