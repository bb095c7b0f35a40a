"""The fallback move (bots/go/fallback.py) on the kernel: legal under the full rules, never an
own eye, PASS only when nothing else is left, reproducible from the caller's rng without
reseeding the kernel's stream for anyone else, and the full-rules draw when the kernel's fast
pick is a superko retake; against the oracle Board (tests/go/oracle.py) along random games."""

from __future__ import annotations

import random
import threading

import pytest

from bots.go import fallback, players
from bots.go import kernel as K
from bots.go.board import BLACK, PASS, WHITE, empty, from_diagram, geometry, parse_point
from tests.go.oracle import Board


def P(name: str, size: int = 9) -> int:
    return parse_point(name, size)


# Black owns everything but two eyes: nothing left for Black, and White may not play in.
TWO_EYES = from_diagram("""
    .XXXX
    XXXXX
    XXX.X
    XXXXX
    XXXXX
""")


@pytest.fixture(autouse=True, scope="module")
def kernels_loaded():
    """These tests are of the kernel's draw: load it (the rules-only draw is tested below)."""
    fallback.warm()
    assert fallback.LOADED.is_set()


def without_kernels(monkeypatch) -> None:
    """As before warm() has run in this process: any kernel called fails the test."""
    monkeypatch.setattr(fallback, "LOADED", threading.Event())
    monkeypatch.setattr(fallback, "PRIORS", threading.Event())
    for name in ("_by_the_kernels", "best_by_priors"):
        monkeypatch.setattr(fallback, name, lambda *a: pytest.fail("a kernel was called"))


@pytest.mark.parametrize("pick", ["random_move", "prior_move"])
@pytest.mark.parametrize("seed", range(3))
def test_before_the_kernels_load_the_move_is_drawn_by_the_rules_alone(monkeypatch, pick, seed):
    """Issue 28: until warm() has run in this process, no kernel is called (a first compile
    takes 20-40 s); the move is still legal, never fills an own eye, and PASS only at the end."""
    without_kernels(monkeypatch)
    full = TWO_EYES
    assert getattr(fallback, pick)(full, random.Random(seed)) == PASS
    rng = random.Random(seed)
    state = empty(9)
    for _ in range(120):
        move = getattr(fallback, pick)(state, rng)
        if move == PASS:
            break
        assert state.is_legal(move)
        assert not all(state.board[n] == state.to_move for n in geometry(9).neighbours[move])
        state = state.play(move)
    assert state.board.count(0) < 81 - 40  # it played a long way, not a pass at once


def test_players_and_the_fallback_module_give_the_same_function():
    assert players.random_move is fallback.random_move


def test_never_fills_own_eyes_and_passes_when_done():
    full = TWO_EYES
    for colour in (BLACK, WHITE):
        assert fallback.random_move(full._replace(to_move=colour), random.Random(1)) == PASS
    corner = from_diagram("""
        .X...
        XX...
        .....
        .....
        .....
    """)
    moves = {fallback.random_move(corner, random.Random(seed)) for seed in range(300)}
    assert P("A5", 5) not in moves and len(moves) == 25 - 4  # every other empty point turns up


def test_the_same_rng_gives_the_same_move():
    state = empty(9).play("E5").play("C3")
    a, b = random.Random(5), random.Random(5)
    picks = [fallback.random_move(state, a) for _ in range(20)]
    assert picks == [fallback.random_move(state, b) for _ in range(20)]
    assert len(set(picks)) > 5  # the rng moves on: not the same move every time


def test_the_kernel_stream_of_a_search_is_not_reseeded_by_the_callers_rng():
    """A worker's MCTS seeds the kernel's generator once; a fallback move in between reseeds
    it for its picks only (kernel.seeded), so what follows depends on the search's seed and
    not on the fallback's rng."""
    state = empty(9)

    def draws():
        B, S = K.to_kernel(state)
        return [int(K.random_move(B, S, BLACK, False, False)) for _ in range(4)]

    after = []
    for fallback_seed in (1, 2, 3):
        K.seed(11)
        before = draws()
        fallback.random_move(state, random.Random(fallback_seed))
        after.append(draws())
    assert after[0] == after[1] == after[2]
    K.seed(11)
    assert draws() == before and draws() != after[0]  # the stream resumed from a draw of it


def test_a_finished_game_gets_a_pass():
    state = empty(5).play(PASS).play(PASS)
    assert fallback.random_move(state, random.Random(0)) == PASS


# White took the ko at D5 (capturing E5); with the simple-ko mark cleared (as after a pass) the
# kernel sees Black's retake at E5 as legal, but it repeats the position before the take.
KO_BEFORE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X O . . . .
    . . X . X O . . .
    . . . X O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def superko_retake_position():
    before = from_diagram(KO_BEFORE, to_move=WHITE)
    state = before.play("D5")._replace(ko=PASS)
    assert not state.is_legal("E5") and state.to_move == BLACK
    return state


def test_a_fast_pick_refused_by_superko_falls_back_on_the_full_rules(monkeypatch):
    state = superko_retake_position()
    retake = K.padded(P("E5"), 9)
    calls = []

    def always_the_retake(B, S, c, heavy, throwins):
        calls.append(c)
        return retake

    monkeypatch.setattr(K, "random_move", always_the_retake)
    moves = {fallback.random_move(state, random.Random(seed)) for seed in range(40)}
    assert len(calls) == 40 * fallback.TRIES and set(calls) == {BLACK}
    assert P("E5") not in moves and PASS not in moves and len(moves) > 10
    assert all(state.is_legal(m) for m in moves)


def test_the_superko_retake_is_never_returned():
    state = superko_retake_position()
    for seed in range(200):
        move = fallback.random_move(state, random.Random(seed))
        assert move != P("E5") and state.is_legal(move)


@pytest.mark.parametrize("pick", ["random_move", "prior_move"])
@pytest.mark.parametrize("size, seed", [(5, 1), (7, 2), (9, 3)])
def test_moves_along_random_games_are_what_the_oracle_allows(pick, size, seed):
    """Every fallback move is legal (superko included), no own eye for the oracle Board, and a
    pass comes only when the oracle finds no legal non-eye move under the full rules; the
    games go on with a random move every other turn."""
    rng = random.Random(seed)
    state = empty(size)
    for turn in range(4 * size * size):
        if state.is_terminal():
            break
        move = getattr(fallback, pick)(state, rng)
        oracle = Board(state)
        allowed = [m for m in state.legal_moves() if m != PASS and not oracle.is_eye(m, state.to_move)]
        assert move in allowed if allowed else move == PASS
        state = state.play(move if turn % 2 else fallback.random_move(state, rng))
    assert state.is_terminal()


# -- the priors' move: what a session sends when its search is late or fails ---------------------

@pytest.mark.parametrize("kernels", [True, False])
def test_the_priors_move_captures_and_saves_where_random_would_not(monkeypatch, kernels):
    """Black to move: White's G3 stone is in atari (captured at H3); then Black's E5 is in
    atari, and extending at E4 gives it three liberties.  The same before the kernels load
    (simple tactics by the rules alone)."""
    if not kernels:
        without_kernels(monkeypatch)
    capture = from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . X . .
        . . . . . X O . .
        . . . . . . X . .
        . . . . . . . . .
    """, to_move=BLACK)
    assert fallback.prior_move(capture, random.Random(0)) == P("H3")
    randoms = {fallback.random_move(capture, random.Random(seed)) for seed in range(20)}
    assert len(randoms) > 10  # the random move is anywhere
    if not kernels:  # and no self-atari: White at A3 or C3 would have one liberty
        corner = from_diagram("""
            . X .
            . . .
            . . .
        """, to_move=WHITE)
        moves = {fallback.prior_move(corner, random.Random(seed)) for seed in range(30)}
        assert not moves & {P("A3", 3), P("C3", 3)} and len(moves) > 3
    escape = from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . O . . . .
        . . . O X O . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move=BLACK)
    assert fallback.prior_move(escape, random.Random(0)) == P("E4")  # out of atari, to three liberties


def test_the_priors_move_passes_only_when_nothing_else_is_left():
    assert fallback.prior_move(TWO_EYES, random.Random(0)) == PASS


def test_the_go_fallback_is_the_book_then_the_priors_move():
    from bots.go.book import lookup
    from bots.go.game import fallback as game_fallback
    from search.contracts import Context

    assert lookup(empty(9)) is not None and game_fallback(empty(9), Context()) == lookup(empty(9))
    state = empty(9).play("E5").play("G3").play("F3").play("F2").play("G4").play("H3").play("H2")
    assert lookup(state) is None
    assert game_fallback(state, Context()) == fallback.prior_move(state, random.Random(0))
