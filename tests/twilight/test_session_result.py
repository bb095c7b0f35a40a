"""The result a Twilight client reports at END (issues 11 and 28): END carries no result and no
score, so the session infers them from its last MOV: what our ply, the caps and the opponent's
unseen next ply could each have done."""

from __future__ import annotations

from bots.twilight.rules import State, Species
from bots.twilight.session import LIKELY, START_SLACK, Game, final_result
from protocol.twilight import Move

V, W = Species.VAMPIRES, Species.WEREWOLVES


def game_after(state: State, move: tuple | None, species: Species = V, **times) -> Game:
    return Game(rows=state.rows, cols=state.cols, state=state, species=species, sent=(state, move), **times)


def populations(ending, me=V):
    return ending.state.population(me), ending.state.population(me.other)


def test_our_sure_kill_is_a_certain_win():
    state = State(5, 5, (), ((1, 1, 9),), ((2, 2, 6),), V, ply=10)
    ending = final_result(game_after(state, (Move(1, 1, 9, 2, 2),)))
    assert (ending.result, ending.reason, ending.certain) == ("won", "elimination", True)
    assert populations(ending) == (9, 0)


def test_an_opponent_able_to_kill_us_ended_the_game_by_doing_so():
    # their 8 beat our 5 for sure (8 >= 1.5 * 5) and cannot lose a battle: END on their ply is our loss
    state = State(6, 6, ((5, 5, 2),), ((1, 1, 5),), ((3, 3, 8),), V, ply=10)
    ending = final_result(game_after(state, (Move(1, 1, 5, 2, 2),)))
    assert (ending.result, ending.reason, ending.certain) == ("lost", "elimination", False)
    assert populations(ending) == (0, 8)


def test_an_opponent_that_cannot_reach_all_our_groups_ended_the_game_by_losing():
    # map8 at 2 s against expecti: 86 werewolves attacked our 85 and lost their last units;
    # our 73 and 59 were out of their reach, so END on their ply is our win, not a loss
    state = State(8, 8, ((3, 7, 2),), ((0, 3, 77), (6, 2, 73), (7, 4, 59)), ((1, 1, 86),), V, ply=24)
    move = (Move(0, 3, 77, 0, 2), Move(6, 2, 73, 5, 1), Move(7, 4, 59, 6, 5))
    ending = final_result(game_after(state, move))
    assert (ending.result, ending.reason, ending.certain) == ("won", "elimination", False)
    assert populations(ending) == (209, 0)


def test_a_sure_kill_beats_a_gamble_on_humans_as_the_explanation():
    # issue 28: another client won by elimination and ours printed "unknown".  Their 10 next to
    # our 6 kill it for sure; losing their last units would take a lost gamble on the 12 humans.
    state = State(3, 3, ((2, 2, 12),), ((0, 0, 6),), ((1, 1, 10),), V, ply=30)
    ending = final_result(game_after(state, (Move(0, 0, 6, 1, 0),)))
    assert (ending.result, ending.reason) == ("lost", "elimination")
    assert populations(ending) == (0, 10)


def test_a_likelier_win_for_the_opponent_is_a_loss_and_a_coin_flip_is_unknown():
    likely = State(6, 6, (), ((1, 1, 6),), ((3, 3, 7),), V, ply=10)  # their 7 against our 6: P = 2/3
    assert final_result(game_after(likely, (Move(1, 1, 6, 2, 2),))).result == "lost"
    even = State(6, 6, (), ((1, 1, 6),), ((3, 3, 6),), V, ply=10)  # 6 against 6 either way: truly unknown
    ending = final_result(game_after(even, (Move(1, 1, 6, 2, 2),)))
    assert (ending.result, ending.certain) == ("unknown", False) and 0.5 < LIKELY
    assert populations(ending) == (6, 6)  # nobody emptied: the last known position


def test_out_of_reach_and_no_cap_is_a_forfeit_that_keeps_their_units():
    # issue 28: the client used to log "won" with the opponent at 0 whenever END came on their
    # ply out of reach; a forfeit takes no units away
    state = State(10, 10, (), ((0, 0, 210),), ((9, 9, 172),), V, ply=150)
    ending = final_result(game_after(state, (Move(0, 0, 210, 1, 1),)))
    assert (ending.result, ending.reason, ending.certain) == ("won", "forfeit", False)
    assert populations(ending) == (210, 172)


def test_the_time_cap_after_their_ply_is_decided_by_population_both_ways():
    # issue 28: a game the server ended at its time cap, 210 against 172, was logged as won 210 to 0
    for ours, theirs, result in ((210, 172, "won"), (172, 210, "lost"), (190, 190, "draw")):
        state = State(10, 10, (), ((0, 0, ours),), ((9, 9, theirs),), V, ply=150)
        game = game_after(state, (Move(0, 0, ours, 1, 1),), started=0.0, sent_at=299.0, ended_at=300.5)
        ending = final_result(game, game_time=300.0, move_time=2.0)
        assert (ending.result, ending.reason, ending.certain) == (result, "time limit", False)
        assert populations(ending) == (ours, theirs)


def test_the_time_cap_after_our_ply_as_werewolves_is_certain():
    state = State(10, 10, (), ((9, 9, 172),), ((0, 0, 210),), W, ply=151)
    game = game_after(state, (Move(0, 0, 210, 1, 1),), W, started=1.0, sent_at=300.0, ended_at=300.1)
    ending = final_result(game, game_time=300.0, move_time=2.0)
    assert (ending.result, ending.reason, ending.certain) == ("won", "time limit", True)
    assert populations(ending, W) == (210, 172)


def test_the_time_cap_is_no_explanation_before_its_time():
    state = State(10, 10, (), ((0, 0, 172),), ((9, 9, 210),), V, ply=40)
    early = 300.0 - START_SLACK - 5.0  # the game clock cannot have run out yet
    game = game_after(state, (Move(0, 0, 172, 1, 1),), started=0.0, sent_at=early - 1, ended_at=early)
    assert final_result(game, game_time=300.0, move_time=2.0).reason == "forfeit"
    # the cap is checked after the werewolves' ply only: as werewolves, END after the vampires' ply is no cap
    game = game_after(state._replace(vampires=state.werewolves, werewolves=state.vampires, to_move=W, ply=41),
                      (Move(0, 0, 172, 1, 1),), W, started=0.0, sent_at=10.0, ended_at=400.0)
    assert final_result(game, game_time=300.0, move_time=2.0).reason == "forfeit"


def test_the_ply_limit_is_decided_by_population():
    state = State(6, 6, ((0, 0, 3),), ((1, 1, 5),), ((4, 4, 7),), V, ply=199, max_plies=200)
    ending = final_result(game_after(state, (Move(1, 1, 5, 0, 0),)))
    assert (ending.result, ending.reason, ending.certain) == ("won", "max plies", True)
    assert populations(ending) == (8, 7)


def test_the_ply_limit_after_their_ply_is_by_population_from_the_last_known_position():
    state = State(8, 8, (), ((0, 0, 5),), ((7, 7, 9),), V, ply=198, max_plies=200)
    ending = final_result(game_after(state, (Move(0, 0, 5, 1, 1),)))
    assert (ending.result, ending.reason, ending.certain) == ("lost", "max plies", False)
    assert populations(ending) == (5, 9)


def test_a_battle_that_decides_the_game_is_not_certain():
    state = State(5, 5, (), ((1, 1, 8),), ((2, 2, 7),), V, ply=20)
    ending = final_result(game_after(state, (Move(1, 1, 8, 2, 2),)))
    assert ending.result == "won" and not ending.certain  # P = 8/7 - 0.5: a win is the likelier outcome


def test_a_move_the_server_skipped_counts_as_no_move():
    # our MOV was late: the server skipped our ply, so our sure kill never happened; out of their
    # reach with no cap, END on their ply is their forfeit, and their 6 units are still there
    state = State(5, 5, (), ((0, 0, 9),), ((4, 4, 6),), V, ply=10)
    ending = final_result(game_after(state, None))
    assert (ending.result, ending.reason) == ("won", "forfeit") and populations(ending) == (9, 6)
    # and a skipped ply still counts towards the ply cap
    capped = final_result(game_after(state._replace(ply=199), None))
    assert (capped.result, capped.reason, capped.certain) == ("won", "max plies", True)


def test_end_before_our_first_move_is_the_first_movers_forfeit():
    state = State(5, 10, ((2, 2, 4),), ((4, 3, 4),), ((4, 1, 4),), W, ply=0)  # thetrap, we are werewolves
    ending = final_result(Game(rows=5, cols=10, state=state, species=W))
    assert (ending.result, ending.reason, ending.certain) == ("won", "forfeit", False)
    assert populations(ending, W) == (4, 4)
