"""The game API, checked for every game in the registry (bots.registry) against search.contracts.

For each registered game and each of its `setups`, seeded random games are played to the end
(or to a ply cap) and every position is checked:

1. it satisfies `search.contracts.State`, and `ChanceState` exactly when the game has chance
   moves (its start state has `outcomes`);
2. `play` returns a new value and leaves the old one unchanged (equality, key, pickled bytes);
3. it pickles to an equal value of the same type, key and side to move;
4. `key()` is hashable and stable, equal states have equal keys, and (for NamedTuple states)
   the key changes when only the side to move does;
5. two move orders reaching the same position (m1 m2 m3 against m3 m2 m1, same players)
   give equal keys; Gopher, Go and Hex must show some such transpositions;
6. running: legal moves exist, no winner, 0.5 each; finished: results in {0, 0.5, 1} summing
   to 1, the winner's is 1; every legal move plays; the move the opponent just played,
   replayed now (not in legal_moves), raises protocol.errors.IllegalMove with a reason;
7. chance moves: outcome probabilities are positive and sum to 1, outcome states pass the
   checks, and the sampled `play(move, rng)` is one of the outcome states (the only one when
   there is one; with several, in a test of its own, so that a game failing it still gets
   every other check).

The players are uniformly random over legal_moves(), each with its own seeded Random; the
two players are read off the states (who moves first, who moves next).

Twilight's own properties (populations, ply counter, the 255 limit) stay in test_conformance.py;
the registry's other hooks (the modules a game names, its fallback, its players) are checked
in test_registry.py.
A new game in the registry is covered with no change here (DEFAULT_GAMES, DEFAULT_PLIES).
"""

from __future__ import annotations

import copy
import inspect
import math
import pickle
import random
from dataclasses import dataclass
from typing import Any

import pytest

from bots import registry
from protocol.errors import IllegalMove
from search.contracts import ChanceState, State

# Games per setup and ply cap per game (a random game longer than the cap is checked up to it).
# Twilight's maps end at 200 plies by themselves; random Go ends by two passes in ~35 (5x5) and
# ~125 (9x9) plies.  The whole module takes about 5 s on one core.
GAMES = {"twilight": 6, "gopher": 8, "dodo": 4, "go": 6}
PLIES = {"go": 200}
DEFAULT_GAMES, DEFAULT_PLIES = 3, 300
TRANSPOSITION_TRIES = 2  # random (m1, m2, m3) triples tried from each position
MUST_TRANSPOSE = {"gopher", "go", "hex"}  # placement games: their random games must show transpositions

# the games that take more than a second (pytest -m "not slow" leaves them out)
SLOW_CASES = {"go-9", "hex-11", "dodo-6", "twilight-testmap2", "twilight-humans_everywhere", "twilight-thetrap"}
CASES = [pytest.param(name, setup, id=f"{name}-{setup}",
                      marks=pytest.mark.slow if f"{name}-{setup}" in SLOW_CASES else ())
         for name in registry.names() for setup in registry.get(name).setups]


@dataclass
class Ctx:
    """What the checks know about the game being played."""

    game: registry.Game
    players: tuple[Any, Any]
    chance: bool
    transpositions: int = 0  # positions reached by two move orders and compared
    illegal_checked: int = 0  # replayed moves refused with IllegalMove
    finished: int = 0  # games played to a terminal state

    def other(self, player):
        a, b = self.players
        assert player in self.players, f"{player!r} is not one of the players {self.players}"
        return b if player == a else a


def context(game: registry.Game, setup: str) -> Ctx:
    """The two players, found from the states: who moves first, and who moves after that."""
    s = game.start(setup)
    assert not s.is_terminal(), f"{game.name} {setup}: the start state is already over"
    first = s.to_move
    second = s.play(s.legal_moves()[0]).to_move
    assert first != second, f"{game.name}: the side to move does not change after a move"
    return Ctx(game, (first, second), hasattr(s, "outcomes"))


def accepts(function, *args) -> bool:
    try:
        inspect.signature(function).bind(*args)
    except TypeError:
        return False
    return True


# -- checks on one position -----------------------------------------------------------------

def check_state(ctx: Ctx, s) -> None:
    # 1. The contract.
    assert isinstance(s, State), f"{type(s).__name__} does not satisfy search.contracts.State"
    assert isinstance(s, ChanceState) == ctx.chance, \
        f"{type(s).__name__}: ChanceState is {isinstance(s, ChanceState)}, the game's start state says {ctx.chance}"
    if ctx.chance:
        assert accepts(s.play, "move", random.Random(0)), "a ChanceState's play() takes no rng"
    assert s.to_move in ctx.players, f"to_move {s.to_move!r} is not one of {ctx.players}"
    assert isinstance(s.is_terminal(), bool), f"is_terminal() returned {s.is_terminal()!r}"
    # 3. Pickling round-trips (workers receive states this way).
    k = s.key()
    back = pickle.loads(pickle.dumps(s))
    assert back == s, "pickle round trip changed the state"
    assert type(back) is type(s) and type(back.to_move) is type(s.to_move), "pickle round trip changed a type"
    assert back.to_move == s.to_move, "pickle round trip changed to_move"
    assert back.key() == k and hash(back.key()) == hash(k), "pickle round trip changed the key"
    # 4. The key: hashable, stable, equal for equal states, sensitive to the side to move.
    h = hash(k)
    assert s.key() == k and hash(s.key()) == h, "key() is not stable"
    twin = copy.deepcopy(s)
    assert twin == s and twin.key() == k, "a deep copy has another key"
    if hasattr(type(s), "_make"):  # a NamedTuple: rebuild it from its fields
        rebuilt = type(s)._make(tuple(s))
        assert rebuilt == s and rebuilt.key() == k, "the state rebuilt from its fields has another key"
    if hasattr(s, "_replace"):
        flipped = s._replace(to_move=ctx.other(s.to_move))
        assert flipped.key() != k, "the key ignores the side to move"
    # 6. Status.
    if s.is_terminal():
        check_finished(ctx, s)
    else:
        assert s.legal_moves(), "legal_moves() is empty while the game runs"
        assert s.winner() is None, f"winner() is {s.winner()!r} while the game runs"
        for p in ctx.players:
            assert s.result(p) == 0.5, f"result({p!r}) is {s.result(p)!r} while the game runs"


def check_finished(ctx: Ctx, s) -> None:
    assert s.is_terminal()
    w = s.winner()
    results = {p: s.result(p) for p in ctx.players}
    assert set(results.values()) <= {0.0, 0.5, 1.0}, results
    assert sum(results.values()) == 1, results
    if w is None:
        assert set(results.values()) == {0.5}, f"no winner but results {results}"
    else:
        assert w in ctx.players, f"winner {w!r} is not a player"
        assert results[w] == 1 and results[ctx.other(w)] == 0, f"winner {w!r}, results {results}"


def check_outcomes(ctx: Ctx, s, move, deep: bool) -> list:
    """7. A chance move's outcomes: positive probabilities summing to 1, states that conform."""
    outs = s.outcomes(move)
    assert outs, f"outcomes({move!r}) is empty"
    assert math.isclose(sum(p for p, _ in outs), 1.0, abs_tol=1e-9), [p for p, _ in outs]
    for p, child in outs:
        assert 0.0 < p <= 1.0, f"outcome probability {p!r} for {move!r}"
        if deep:
            check_state(ctx, child)
    return outs


def check_moves(ctx: Ctx, s, replay) -> None:
    """6. Every legal move plays; the opponent's last move, replayed now, is refused."""
    for m in s.legal_moves():
        child = s.play(m)
        assert isinstance(child, State) and type(child) is type(s), type(child)
        assert child.to_move in ctx.players
        if ctx.chance:
            check_outcomes(ctx, s, m, deep=False)
    if replay is not None and replay not in s.legal_moves():
        with pytest.raises(IllegalMove) as info:
            s.play(replay)
        assert isinstance(info.value.reason, str) and info.value.reason.strip(), \
            f"IllegalMove for {replay!r} has no reason"
        ctx.illegal_checked += 1


def check_play(ctx: Ctx, s, move, rng: random.Random):
    """2. Play `move` (sampled with `rng` for a chance game): a new value, the old one untouched."""
    before, key, snapshot = pickle.dumps(s), s.key(), copy.deepcopy(s)
    if ctx.chance:
        outs = check_outcomes(ctx, s, move, deep=True)
        after = s.play(move, rng)
        if len(outs) == 1:  # nothing random about it: the sample is the outcome
            assert after == outs[0][1], f"play({move!r}, rng) differs from its only outcome"
        # (with several outcomes: test_sampled_play_is_one_of_the_outcomes)
    else:
        after = s.play(move)
    assert after is not s and after != s, f"play({move!r}) returned the same state"
    assert s == snapshot and s.key() == key and pickle.dumps(s) == before, f"play({move!r}) changed the old state"
    return after


def check_transpositions(ctx: Ctx, s, rng: random.Random) -> None:
    """5. m1 m2 m3 and m3 m2 m1 (the same players) reach the same position: equal keys."""
    for _ in range(TRANSPOSITION_TRIES):
        line, t = [], s
        for _ in range(3):
            moves = t.legal_moves()
            if t.is_terminal() or not moves:  # (an empty list while running: check_state says so)
                break
            m = rng.choice(moves)
            line.append(m)
            t = t.play(m)
        if len(line) < 3 or line[0] == line[2]:
            continue
        u = s
        for m in reversed(line):
            if u.is_terminal() or m not in u.legal_moves():
                break
            u = u.play(m)
        else:
            if u.to_move == t.to_move and ctx.game.draw(u) == ctx.game.draw(t):
                assert u.key() == t.key(), \
                    f"the same position by {line} and by {line[::-1]} has two keys:\n{ctx.game.draw(t)}"
                ctx.transpositions += 1
            if u == t:
                assert u.key() == t.key(), f"equal states by {line} and by {line[::-1]} have two keys"


# -- the games --------------------------------------------------------------------------------

def play_game(ctx: Ctx, setup: str, seed: int, max_plies: int) -> None:
    movers = {p: random.Random(f"{ctx.game.name}-{setup}-{seed}-{i}") for i, p in enumerate(ctx.players)}
    chance = random.Random(f"chance-{seed}")
    probe = random.Random(f"probe-{seed}")
    s = ctx.game.start(setup)
    last = None
    for _ in range(max_plies):
        check_state(ctx, s)
        if s.is_terminal():
            ctx.finished += 1
            return
        check_moves(ctx, s, last)
        check_transpositions(ctx, s, probe)
        last = movers[s.to_move].choice(s.legal_moves())
        s = check_play(ctx, s, last, chance)
    check_state(ctx, s)
    ctx.finished += s.is_terminal()


@pytest.mark.parametrize("name, setup", CASES)
def test_random_games_conform(name, setup):
    game = registry.get(name)
    ctx = context(game, setup)
    check_state(ctx, game.start(setup))
    for seed in range(GAMES.get(name, DEFAULT_GAMES)):
        play_game(ctx, setup, seed, PLIES.get(name, DEFAULT_PLIES))
    assert ctx.finished, f"no {name} {setup} game reached its end: the terminal checks never ran"
    assert ctx.illegal_checked, f"no illegal move was tried on {name} {setup}"
    if name in MUST_TRANSPOSE:
        assert ctx.transpositions, f"no transposition found on {name} {setup}"


@pytest.mark.parametrize("name", registry.names())
def test_sampled_play_is_one_of_the_outcomes(name):
    """7. ChanceState: `play(move, rng)` draws the rules' randomness; where `outcomes(move)` is
    exact (no random battle) the draw is one of them, and every draw has the outcomes' side to
    move (the contract lets outcomes summarise: Twilight's give expected survivors)."""
    game = registry.get(name)
    tried = 0
    for setup in game.setups:
        ctx = context(game, setup)
        if not ctx.chance:
            pytest.skip(f"{name} has no chance moves")
        for seed in range(GAMES.get(name, DEFAULT_GAMES)):
            rng, chance = random.Random(seed), random.Random(f"chance-{seed}")
            s = game.start(setup)
            for _ in range(PLIES.get(name, DEFAULT_PLIES)):
                if s.is_terminal():
                    break
                move = rng.choice(s.legal_moves())
                outs = s.outcomes(move)
                after = s.play(move, chance)
                tried += len(outs) > 1
                assert {child.to_move for _, child in outs} == {after.to_move}
                if len(outs) == 1 and after not in [child for _, child in outs]:
                    pytest.fail(
                        f"{name} {setup} seed {seed}: play({move!r}, rng) is none of its {len(outs)} outcomes "
                        f"(probabilities {[round(p, 4) for p, _ in outs]}):\n{game.draw(s)}\n-- sampled:\n"
                        f"{game.draw(after)}\n" + "\n".join(f"-- outcome p={p:.4g}:\n{game.draw(o)}" for p, o in outs))
                s = after
    assert tried, f"no {name} move had more than one outcome"


# -- the checks are live: two breakages they must catch (every check was shown to fail so) ----

def test_the_checks_catch_a_winner_while_the_game_runs(monkeypatch):
    """Go's winner() once returned 0 (not None) while the game ran."""
    from bots.go import board

    real = board.State.winner
    monkeypatch.setattr(board.State, "winner", lambda self: real(self) if self.is_terminal() else 0)
    with pytest.raises(AssertionError, match=r"winner\(\) is 0 while the game runs"):
        test_random_games_conform("go", "5")


def test_the_checks_catch_a_key_that_depends_on_the_move_order(monkeypatch):
    """A key that includes the last move played gives one position two keys."""
    from bots.go import board

    real = board.State.key
    monkeypatch.setattr(board.State, "key", lambda self: (real(self), self.last))
    with pytest.raises(AssertionError, match="has two keys"):
        test_random_games_conform("go", "5")
