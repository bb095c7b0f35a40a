"""Dynamic komi (`mcts:dynkomi`): the extra points the search counts for us, and that they reach
the playouts."""

from __future__ import annotations

import pytest

from bots.go import kernel as K
from bots.go.board import WHITE, empty, setup
from bots.go.mcts import MCTS, bonus_ceiling, komi_cap, komi_step, next_bonus
from search.budget import Budget


@pytest.mark.parametrize("bonus, value, expected", [
    (0, 0.9, -3),     # winning big: ask for three more points
    (-3, 0.8, -6),    # still winning big: more
    (-6, 0.6, -6),    # inside the band: keep
    (-6, 0.45, -3),   # the demand made us lose: take a step back
    (0, 0.1, 3),      # losing big: count three points as ours
    (3, 0.4, 3),      # inside the band: keep
    (3, 0.55, 0),     # the help made us win: take it back
    (0, 0.5, 0),
    (-12, 0.95, -13),  # never more than the cap
    (12, 0.05, 13),
])
def test_next_bonus_keeps_the_root_inside_the_band(bonus, value, expected):
    assert next_bonus(bonus, value, komi_step(9), komi_cap(9)) == expected


def test_step_and_cap_grow_with_the_board():
    assert [komi_step(n) for n in (9, 13, 19)] == [3, 6, 13]
    assert [komi_cap(n) for n in (9, 13, 19)] == [13, 28, 60]


def test_a_side_behind_may_count_points_only_in_the_first_half_of_the_game():
    cap = komi_cap(9)
    assert bonus_ceiling(empty(9), cap) == cap
    quarter = setup(9, black=range(0, 18), white=range(27, 29))  # 20 stones, 61 points empty
    assert bonus_ceiling(quarter, cap) == 6  # 13 * (2 * 61 / 81 - 1)
    half = setup(9, black=range(0, 27), white=range(36, 50))  # 41 stones
    assert bonus_ceiling(half, cap) == 0


def _spy(monkeypatch) -> list[float]:
    """The komi of every search the kernels run."""
    seen: list[float] = []
    real = K.SEARCH.search

    def search(tree, pos, params, *rest, **options):
        seen.append(params[0])
        return real(tree, pos, params, *rest, **options)

    monkeypatch.setattr(K.SEARCH, "search", search)
    return seen


def _player() -> MCTS:
    return MCTS(dynkomi=True, use_book=False, early_stop=False, playouts=1500, seed=3)


def test_winning_big_the_search_asks_for_more_points_next_move(monkeypatch):
    seen = _spy(monkeypatch)
    black = _player()
    state = empty(9, komi=-40.5)  # Black wins by far whatever happens
    first = black.choose(state, None, Budget(30.0))
    assert first.value > 0.7 and black._bonus == -3
    reply = next(p for p in state.play(first.move).legal_moves() if p >= 0)
    black.choose(state.play(first.move).play(reply), None, Budget(30.0))
    assert seen == [-40.5, -37.5]  # Black counts three points less: komi 3 higher


def test_losing_big_the_search_counts_points_as_its_own_and_a_new_game_starts_at_zero(monkeypatch):
    seen = _spy(monkeypatch)
    white = _player()
    state = empty(9, komi=-40.5).play(40)
    assert state.to_move == WHITE
    first = white.choose(state, None, Budget(30.0))
    assert first.value < 0.3 and white._bonus == 3
    reply = next(p for p in state.play(first.move).legal_moves() if p >= 0)
    white.choose(state.play(first.move).play(reply), None, Budget(30.0))
    white.choose(empty(9, komi=-40.5).play(30), None, Budget(30.0))  # another game
    assert seen == [-40.5, -37.5, -40.5]  # White counts three points more: komi 3 higher


def test_without_dynkomi_the_komi_is_the_games(monkeypatch):
    seen = _spy(monkeypatch)
    player = MCTS(use_book=False, early_stop=False, playouts=1500, seed=3)
    state = empty(9, komi=-40.5)
    first = player.choose(state, None, Budget(30.0))
    reply = next(p for p in state.play(first.move).legal_moves() if p >= 0)
    player.choose(state.play(first.move).play(reply), None, Budget(30.0))
    assert seen == [-40.5, -40.5] and player._bonus == 0
