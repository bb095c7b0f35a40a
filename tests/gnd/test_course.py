"""bots/gnd/course.py called exactly as the official gndclient.py calls its callbacks.

The official client builds the state as a list of ((q, r), value) pairs from the server's
grid, calls initialize(game_name, state, player, hex_size, total_time) once, then
strategy(env, state, player, time_left) -> (env, action) every turn (again with the same
state after an HTTP 310), and final_result(state, score, winner) at the end.
"""

from __future__ import annotations

import ast
import json
import random

import pytest

from bots.dodo import rules as dodo_rules
from bots.gnd import course
from bots.gopher import players as gopher_players
from bots.gopher import rules as gopher_rules
from bots.players import PlayerError
from protocol import gnd

RULES = {"gopher": gopher_rules, "dodo": dodo_rules}
TIME_LEFT = 0.4  # what we tell strategy: small, so every search is short (budget ~ 0.03 s)


def official_state(state) -> list:
    """As gndclient.py does: the JSON grid's keys evaluated as Python tuples, in JSON order."""
    grid = json.loads(json.dumps(gnd.turn_json(gnd.Turn(0, 1, 1.0, state.size, gnd.grid_pairs(state.cells())),
                                               include_result=False)))["Grid"]["Grid"]
    items = list(grid.items())
    random.Random(len(items)).shuffle(items)  # the server's map order is arbitrary
    return [(ast.literal_eval(k), v) for k, v in items]


def check_action_type(game: str, action) -> None:
    if game == "gopher":
        assert type(action) is tuple and len(action) == 2 and all(type(v) is int for v in action)
        assert gnd.decode_action(gnd.GOPHER, [str(action)]) == action  # the client sends str(action)
    else:
        assert type(action) is tuple and len(action) == 2
        for cell in action:
            assert type(cell) is tuple and len(cell) == 2 and all(type(v) is int for v in cell)
        assert gnd.decode_action(gnd.DODO, [str(action[0]), str(action[1])]) == action


def play_game(game: str, size: int, us: int, seed: int) -> tuple[int, int]:
    """A whole game: our callbacks as `us`, a random opponent; (winner, our moves)."""
    rules = RULES[game]
    rng = random.Random(seed)
    state = rules.start(size)
    env = course.initialize(game, official_state(state), us, size, 18.0)
    moves = 0
    while not state.is_terminal():
        if state.to_move == us:
            env, action = course.strategy(env, official_state(state), us, TIME_LEFT)
            check_action_type(game, action)
            assert state.is_legal(action), (state, action)
            state = state.play(action)
            moves += 1
        else:
            state = state.play(rng.choice(state.legal_moves()))
    assert course.final_result(official_state(state), 1 if state.winner() == 1 else -1, state.winner()) is None
    return state.winner(), moves


@pytest.mark.parametrize(("game", "size", "us"), [
    ("gopher", 4, 1), ("gopher", 4, 2), ("gopher", 5, 1),
    pytest.param("dodo", 4, 1, marks=pytest.mark.slow), pytest.param("dodo", 4, 2, marks=pytest.mark.slow),
])
def test_whole_games_against_random(game, size, us):
    winner, moves = play_game(game, size, us, seed=size + us)
    assert moves > 0
    if game == "gopher" and us == 1:
        assert winner == 1  # size 4: the solved opening; size 5: Edwards


@pytest.mark.parametrize(("game", "size"), [("gopher", 4), ("dodo", 4)])
def test_same_state_again_after_a_310_gets_another_action(game, size):
    rules = RULES[game]
    state = rules.start(size)
    rng = random.Random(3)
    for _ in range(3):
        state = state.play(rng.choice(state.legal_moves()))
    us = state.to_move
    env = course.initialize(game, official_state(state), us, size, 18.0)
    seen = []
    for _ in range(3):  # refused twice: three different legal actions
        env, action = course.strategy(env, official_state(state), us, TIME_LEFT)
        assert state.is_legal(action) and action not in seen
        seen.append(action)


def test_the_refused_book_move_is_not_sent_again():
    state = gopher_rules.start(4)
    env = course.initialize("gopher", official_state(state), 1, 4, 18.0)
    env, first = course.strategy(env, official_state(state), 1, 18.0)
    assert first == (-3, -3)  # the solved opening, at once
    env, second = course.strategy(env, official_state(state), 1, TIME_LEFT)
    assert second != first and state.is_legal(second)


def test_refused_set_is_forgotten_on_a_new_state():
    state = gopher_rules.start(4)
    env = course.initialize("gopher", official_state(state), 1, 4, 18.0)
    env, first = course.strategy(env, official_state(state), 1, TIME_LEFT)
    env, second = course.strategy(env, official_state(state), 1, TIME_LEFT)  # as after a 310
    assert env.refused == {first}
    after = state.play(second)
    after = after.play(after.legal_moves()[0])
    env, third = course.strategy(env, official_state(after), 1, TIME_LEFT)  # the game went on
    assert env.refused == set() and after.is_legal(third)


def test_final_result_returns_none():
    state = official_state(gopher_rules.start(3).play((0, 0)))
    assert course.final_result(state, 1, 2) is None


def test_bots_player_environment_variable(monkeypatch):
    state = official_state(gopher_rules.start(4))
    monkeypatch.delenv("BOTS_PLAYER", raising=False)
    assert isinstance(course.initialize("gopher", state, 1, 4, 18.0).player, gopher_players.AlphaBeta)
    monkeypatch.setenv("BOTS_PLAYER", "mcts")
    env = course.initialize("gopher", state, 1, 4, 18.0)
    assert isinstance(env.player, gopher_players.MCTS)
    mid = gopher_rules.start(4).play((0, 0)).play((1, 0))
    env, action = course.strategy(env, official_state(mid), 1, TIME_LEFT)
    assert mid.is_legal(action)
    monkeypatch.setenv("BOTS_PLAYER", "alphabeta:max_depth=3,solve_share=0")
    env = course.initialize("gopher", state, 1, 4, 18.0)
    assert (env.player.max_depth, env.player.solve_share) == (3, 0.0)
    monkeypatch.setenv("BOTS_PLAYER", "nosuchplayer")
    with pytest.raises(PlayerError, match="nosuchplayer"):
        course.initialize("gopher", state, 1, 4, 18.0)


@pytest.mark.parametrize("name", ["chess", "go", ""])
def test_unknown_game_names_the_known_ones(name):
    with pytest.raises(ValueError) as info:
        course.initialize(name, [], 1, 4, 18.0)
    assert "gopher" in str(info.value) and "dodo" in str(info.value)


def test_game_name_is_case_insensitive():
    env = course.initialize("Dodo", official_state(dodo_rules.start(4)), 2, 4, 18.0)
    assert env.game == "dodo" and env.us == 2


@pytest.mark.e2e
def test_the_drop_in_logs_to_stderr_never_to_stdout(tmp_path):
    """The course client owns stdout (issue 11): an unconfigured process gets logs on stderr."""
    import subprocess
    import sys

    script = tmp_path / "client.py"
    script.write_text(
        "from bots.gnd import course\n"
        f"state = {official_state(gopher_rules.start(3))!r}\n"
        "env = course.initialize('gopher', state, 1, 3, 10.0)\n"
        "env, action = course.strategy(env, state, 1, 10.0)\n"
        "print('ACTION', action)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ACTION") and len(done.stdout.splitlines()) == 1, done.stdout
    assert "game starts" in done.stderr
