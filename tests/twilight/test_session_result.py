"""The result a Twilight client reports at END (issue 11): END carries no result, so the session
infers it from its last MOV; a game lost on the opponent's ply must not read as a lead."""

from __future__ import annotations

from bots.twilight.rules import State, Species
from bots.twilight.session import Game, final_result
from protocol.twilight import Move

V, W = Species.VAMPIRES, Species.WEREWOLVES


def game_after(state: State, move: tuple, species: Species = V) -> Game:
    return Game(rows=state.rows, cols=state.cols, state=state, species=species, sent=(state, move))


def test_our_sure_kill_is_a_certain_win():
    state = State(5, 5, (), ((1, 1, 9),), ((2, 2, 6),), V, ply=10)
    final, result, certain = final_result(game_after(state, (Move(1, 1, 9, 2, 2),)))
    assert (result, certain) == ("won", True) and final.population(W) == 0


def test_a_game_ended_on_the_opponents_ply_is_a_loss_even_when_we_were_ahead():
    state = State(6, 6, ((5, 5, 2),), ((1, 1, 5),), ((3, 3, 8),), V, ply=10)
    final, result, certain = final_result(game_after(state, (Move(1, 1, 5, 2, 2),)))
    assert (result, certain) == ("lost", False)
    assert final.population(V) == 0


def test_an_opponent_that_cannot_reach_all_our_groups_ended_the_game_by_losing():
    # map8 at 2 s against expecti: 86 werewolves attacked our 85 and lost their last units;
    # our 73 and 59 were out of their reach, so END on their ply is our win, not a loss
    state = State(8, 8, ((3, 7, 2),), ((0, 3, 77), (6, 2, 73), (7, 4, 59)), ((1, 1, 86),), V, ply=24)
    move = (Move(0, 3, 77, 0, 2), Move(6, 2, 73, 5, 1), Move(7, 4, 59, 6, 5))
    final, result, certain = final_result(game_after(state, move))
    assert (result, certain) == ("won", False)
    assert final.population(W) == 0 and final.population(V) == 209


def test_an_opponent_next_to_all_our_groups_and_they_to_it_may_have_ended_it_either_way():
    state = State(6, 6, (), ((1, 1, 6),), ((3, 3, 7),), V, ply=10)
    _, result, certain = final_result(game_after(state, (Move(1, 1, 6, 2, 2),)))
    assert (result, certain) == ("unknown", False)


def test_the_ply_limit_is_decided_by_population():
    state = State(6, 6, ((0, 0, 3),), ((1, 1, 5),), ((4, 4, 7),), V, ply=199, max_plies=200)
    final, result, certain = final_result(game_after(state, (Move(1, 1, 5, 0, 0),)))
    assert (result, certain) == ("won", True)
    assert final.population(V) == 8 and final.population(W) == 7


def test_a_battle_that_decides_the_game_is_not_certain():
    state = State(5, 5, (), ((1, 1, 8),), ((2, 2, 7),), V, ply=20)
    _, result, certain = final_result(game_after(state, (Move(1, 1, 8, 2, 2),)))
    assert result == "won" and not certain  # P = 8/7 - 0.5: a win is the likelier outcome
