"""Ladder reading in the Go kernels (bots/go/kernel.py: ladder_caught, ladder_after), against
textbook ladders and a plain recursive reader over the rules of `State` on random positions,
and what the search does with it: the tree's priors and the heavy playouts."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.go import kernel as K
from bots.go.board import BLACK, PASS, WHITE, State, from_diagram, parse_point, point_name, setup
from bots.go.mcts import MCTS
from search.budget import Budget

# White's E5 is in atari (its liberty F5); Black's E4 and F4 wait on its way up and right.
LADDER = """
.........
.........
.........
....X....
...XO....
....XX...
.........
.........
.........
"""
# the same with a white stone on the ladder's path (G8 or H7): running now gets out
BREAKERS = {"G8": (1, 6), "H7": (2, 7)}
# Black's E5 stone with two liberties: an atari on either liberty starts a ladder that works
ATARI = """
.........
.........
.........
....O....
...OX....
.....O...
.........
.........
.........
"""


def with_stone(diagram: str, row: int, col: int, ch: str) -> str:
    rows = [line for line in diagram.strip("\n").splitlines()]
    rows[row] = rows[row][:col] + ch + rows[row][col + 1:]
    return "\n".join(rows)


def kernel_at(state: State, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    B, S = K.to_kernel(state)
    return B, S, K.padded(parse_point(name, state.size), state.size)


def test_a_textbook_ladder_is_caught_and_a_breaker_on_its_path_lets_it_out():
    B, S, p = kernel_at(from_diagram(LADDER, to_move=WHITE), "E5")
    assert K.in_atari(B, B[K.ROOT, p]) and K.ladder_caught(B, S, p, 1000)
    for name, (row, col) in BREAKERS.items():
        B, S, p = kernel_at(from_diagram(with_stone(LADDER, row, col, "O"), to_move=WHITE), "E5")
        assert not K.ladder_caught(B, S, p, 1000), name
    # a black stone on the path helps the ladder: still caught
    B, S, p = kernel_at(from_diagram(with_stone(LADDER, 1, 6, "X"), to_move=WHITE), "E5")
    assert K.ladder_caught(B, S, p, 1000)


def test_an_unread_ladder_counts_as_a_way_out():
    B, S, p = kernel_at(from_diagram(LADDER, to_move=WHITE), "E5")
    assert not K.ladder_caught(B, S, p, 3)


def test_running_into_a_ladder_and_starting_one_are_told_apart_from_ordinary_moves():
    state = from_diagram(LADDER, to_move=WHITE)
    B, S, _ = kernel_at(state, "E5")
    assert K.ladder_after(B, S, K.padded(parse_point("F5", 9), 9), WHITE, 1000) == 1  # the useless run
    state = from_diagram(ATARI, to_move=WHITE)
    B, S, _ = kernel_at(state, "E5")
    assert K.ladder_after(B, S, K.padded(parse_point("E4", 9), 9), WHITE, 1000) == 2  # the atari that works
    assert K.ladder_after(B, S, K.padded(parse_point("F5", 9), 9), WHITE, 1000) == 2  # down and left: works too
    B, S, _ = kernel_at(from_diagram(with_stone(ATARI, 6, 2, "X"), to_move=WHITE), "E5")  # a breaker on C3
    assert K.ladder_after(B, S, K.padded(parse_point("F5", 9), 9), WHITE, 1000) == 0
    assert K.ladder_after(B, S, K.padded(parse_point("E4", 9), 9), WHITE, 1000) == 2
    assert K.ladder_after(B, S, K.padded(parse_point("B2", 9), 9), WHITE, 1000) == 0


# -- a plain reader over State's rules, the reference ----------------------------------------

def _with_turn(state: State, colour: int) -> State:
    return setup(state.size, state.stones(BLACK), state.stones(WHITE), to_move=colour, komi=state.komi)


def _reads_out(state: State, p: int, attacking: bool, depth: int) -> bool:
    """As kernel._gets_out, by recursion over State.play (the string at p; `depth` plies left)."""
    c = state.at(p)
    if attacking:
        tries = sorted(state.liberties(p))
    else:
        tries = []
        for q in _string(state, p):
            for n in _neighbours(state, q):
                if state.at(n) == 3 - c and len(state.liberties(n)) == 1:
                    lib = next(iter(state.liberties(n)))
                    if lib not in tries:
                        tries.append(lib)
        tries += list(state.liberties(p))
    for q in tries:
        if not state.is_legal(q):
            continue
        if depth < 1:
            child = True
        else:
            nxt = _with_turn(state.play(q), c if attacking else 3 - c)
            libs = len(nxt.liberties(p)) if nxt.at(p) == c else 0
            if attacking:
                child = libs != 1 or _reads_out(nxt, p, False, depth - 1)
            else:
                child = libs >= 3 or libs == 2 and _reads_out(nxt, p, True, depth - 1)
        if child != attacking:
            return child
    return attacking


def _neighbours(state: State, p: int) -> list[int]:
    n, (r, c) = state.size, divmod(p, state.size)
    return [rr * n + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= rr < n and 0 <= cc < n]


def _string(state: State, p: int) -> list[int]:
    colour, seen, todo = state.at(p), {p}, [p]
    while todo:
        for n in _neighbours(state, todo.pop()):
            if n not in seen and state.at(n) == colour:
                seen.add(n)
                todo.append(n)
    return sorted(seen)


def _random_position(rng: random.Random, size: int, moves: int) -> State:
    state = setup(size, (), ())
    for _ in range(moves):
        legal = [m for m in state.legal_moves() if m != PASS]
        if not legal or state.is_terminal():
            break
        state = state.play(rng.choice(legal))
    return state


@pytest.mark.parametrize("seed", range(6))
def test_the_kernel_reads_every_atari_as_the_plain_reader_does(seed):
    rng = random.Random(seed)
    checked = caught = 0
    for _ in range(30):
        state = _random_position(rng, 9, rng.randrange(20, 70))
        depth = 2 * state.size + 4
        for p in range(state.size ** 2):
            colour = state.at(p)
            if colour == 0 or p != min(_string(state, p)) or len(state.liberties(p)) != 1:
                continue
            turn = _with_turn(state, colour)
            B, S = K.to_kernel(turn)
            expected = not _reads_out(turn, p, False, depth)
            assert K.ladder_caught(B, S, K.padded(p, 9), 1 << 30) == expected, (seed, p, turn.board)
            checked += 1
            caught += expected
    assert checked > 20 and 0 < caught < checked


def test_the_tree_frowns_on_the_run_into_a_ladder_and_likes_the_atari_that_works():
    def priors(diagram: str, ladders: bool) -> dict[str, tuple[float, float]]:
        B, S = K.to_kernel(from_diagram(diagram, to_move=WHITE))
        moves = np.empty(100, np.int64)
        prior = np.empty((2, 100))
        n = K.children((B, S), (7.5, True, ladders, K.NO_GAMMAS, 0.0, K.NO_SHAPES), np.zeros(0, np.uint8), moves, prior)
        return {("pass" if moves[i] == K.PASS else point_name(K.unpadded(int(moves[i]), 9), 9)):
                (prior[0, i], prior[1, i]) for i in range(n)}

    plain, read = priors(LADDER, False), priors(LADDER, True)
    def rate(n: float, w: float) -> float:
        return (w + 1) / (n + 2)

    assert read["F5"][1] == plain["F5"][1] - K.PRIOR_ESCAPE
    assert rate(*read["F5"]) < rate(K.PRIOR_EVEN, K.PRIOR_EVEN / 2) < rate(*plain["F5"])
    broken = with_stone(ATARI, 6, 2, "X")  # the ladder down and left is broken
    plain, read = priors(broken, False), priors(broken, True)
    assert read["E4"][1] == plain["E4"][1] + K.PRIOR_CAPTURE_ONE
    assert read["F5"] == plain["F5"]


def test_mcts_with_ladders_does_not_run_out_of_a_working_ladder():
    state = from_diagram(LADDER, to_move=WHITE)
    player = MCTS(seed=3, use_book=False, ladders=True, playouts=3000)
    result = player.choose(state, None, Budget(5.0))
    assert result.move != parse_point("F5", 9)


def test_heavy_playouts_answer_the_atari_with_a_run_only_where_the_ladder_lets_it_out():
    for diagram, runs in ((LADDER, False), (with_stone(LADDER, 1, 6, "O"), True)):
        B, S, _ = kernel_at(from_diagram(diagram, to_move=WHITE), "E5")
        S[K.LAST] = K.padded(parse_point("E4", 9), 9)  # Black's atari
        run = K.padded(parse_point("F5", 9), 9)
        assert K._answer_last(B, S, WHITE, False) == run
        assert (K._answer_last(B, S, WHITE, True) == run) == runs
