"""Learned priors for Hex: the move features (bots.hex.kernel), the table loader
(bots.hex.gammas), the search's use of them and the tool that learns them (tools/hex_gammas.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bots.hex import gammas as G, kernel as K
from bots.hex.board import BLACK, WHITE, State, empty, from_moves, parse_cell, transpose
from bots.hex.mcts import MCTS
from bots.hex.sgf import game_sgf
from search.budget import Budget

ROOT = Path(__file__).resolve().parents[2]
F = K.FEATURE_OFFSETS


def features(state: State, cell: int) -> list[int]:
    pos = K.to_kernel(state)
    out = np.empty(K.WORK, np.int64)
    K.move_features(pos[K.OFF:], np.int64(pos[K.PW]), np.int64(pos[K.PH]), np.int64(pos[K.LAST]),
                    np.int64(K.padded(cell, state.width)), np.int64(state.to_move), out)
    return [int(x) for x in out[:K.NGROUPS]]


def at(state: State, name: str) -> list[int]:
    return features(state, parse_cell(name, state.width, state.height))


def random_position(rng: random.Random, w: int, h: int) -> State:
    board = bytes(rng.choice((0, 0, BLACK, WHITE)) for _ in range(w * h))
    last = rng.choice([c for c in range(w * h) if board[c]] or [None])
    mover = BLACK if last is None else 3 - board[last]
    return State(w, h, board, mover, plies=w * h - board.count(0), last=last)


def mirrored(state: State) -> State:
    """The same position with the colours exchanged on the transposed board (the other side's view)."""
    w, h = state.width, state.height
    board = bytearray(w * h)
    for c, v in enumerate(state.board):
        board[transpose(c, w, h)] = 3 - v if v else 0
    last = None if state.last is None else transpose(state.last, w, h)
    return state._replace(width=h, height=w, board=bytes(board), to_move=3 - state.to_move, last=last)


def turned(state: State) -> State:
    """The position turned by 180 degrees."""
    n = state.width * state.height
    board = bytes(reversed(state.board))
    return state._replace(board=board, last=None if state.last is None else n - 1 - state.last)


@pytest.mark.parametrize("w,h", [(5, 5), (7, 4), (11, 11)])
def test_features_are_the_same_from_either_side_and_turned(w, h):
    rng = random.Random(w * 100 + h)
    for _ in range(40):
        state = random_position(rng, w, h)
        other, half = mirrored(state), turned(state)
        n = w * h
        for c in range(n):
            if state.board[c] == 0:
                mine = features(state, c)
                assert features(other, transpose(c, w, h)) == mine
                assert features(half, n - 1 - c) == mine
                assert all(F[g] <= mine[g] < F[g] + K.FEATURE_SIZES[g] for g in range(K.NGROUPS))


def test_bridges_made_cut_and_saved():
    # Black c3 and d4 are a bridge (carriers d3, c4); White intrudes at d3.
    state = from_moves(7, ["c3", "a7", "d4", "d3"])
    assert state.to_move == BLACK
    assert at(state, "c4")[K.SAVE] == F[K.SAVE] + 1  # restores the bridge just cut
    assert at(state, "e5")[K.MADE] == F[K.MADE] + 1  # a bridge with d4
    assert at(state, "e2")[K.SAVE] == F[K.SAVE]
    white = from_moves(7, ["c3", "a7", "d4"])  # White to move: c4 and d3 intrude into Black's bridge
    assert at(white, "c4")[K.CUT] == F[K.CUT] + 1
    assert at(white, "f6")[K.CUT] == F[K.CUT]
    older = from_moves(7, ["c3", "a7", "d4", "d3", "g1", "g7"])  # the intrusion is not the last move
    assert at(older, "c4")[K.SAVE] == F[K.SAVE] + 2


def test_edge_templates_count_as_bridges_for_the_owner_only():
    state = empty(7)  # Black to move: the second row bridges to its own edge (top and bottom)
    assert at(state, "d2")[K.MADE] == F[K.MADE] + 1
    assert at(state, "d6")[K.MADE] == F[K.MADE] + 1
    assert at(state, "d4")[K.MADE] == F[K.MADE]
    assert at(state, "b4")[K.MADE] == F[K.MADE]  # White's second column
    assert at(state, "d2")[K.EDGE] == F[K.EDGE] + 4 * 1 + 3
    white = from_moves(7, ["g7"])
    assert at(white, "b4")[K.MADE] == F[K.MADE] + 1
    assert at(white, "d2")[K.MADE] == F[K.MADE]


def test_distance_to_the_last_move():
    state = from_moves(9, ["e5"])  # White to move, Black's e5 the last move
    near = {name: at(state, name)[K.NEAR] - F[K.NEAR] for name in ("f5", "f4", "d6", "f6", "c5", "g3", "e2", "a1")}
    assert near == {"f5": 1, "f4": 1, "d6": 1, "f6": 2, "c5": 3, "g3": 3, "e2": 4, "a1": 5}
    assert at(empty(9), "e5")[K.NEAR] == F[K.NEAR]


def test_the_far_cells_a_bridge_away():
    # Cyclic order from the cell above: d1 is c3's far cell 0, its 180-degree turn far cell 3.
    state = from_moves(5, ["d1", "a5"])  # Black to move
    assert at(state, "c3")[K.FAR] == F[K.FAR] + 1  # own stone at far cell 0: code 1 (its turn: 64)
    assert at(empty(5), "c3")[K.FAR] == F[K.FAR]
    white = from_moves(5, ["d1"])  # White reads the transposed board: d1 is c3's far cell 4, Black's
    assert at(white, "c3")[K.FAR] == F[K.FAR] + min(2 << 8, 2 << 2)
    # On the top row, far cells 0, 1 and 5 are on or beyond the padding: they read as Black's edge.
    edge = at(empty(5), "c1")[K.FAR] - F[K.FAR]
    assert edge == min(1 | 1 << 2 | 1 << 10, 1 << 4 | 1 << 6 | 1 << 8) == 336


def test_a_table_for_other_features_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sizes": [1, 2], "gammas": [1.0, 1.0, 1.0]}))
    with pytest.raises(ValueError, match="bad.json"):
        G.load(bad)
    sizes = list(K.FEATURE_SIZES)
    for gammas in ([1.0] * (K.NFEATURES - 1), [1.0] * (K.NFEATURES - 1) + [0.0]):
        with pytest.raises(ValueError, match="positive"):
            G.check({"sizes": sizes, "gammas": gammas})
    with pytest.raises(ValueError, match="prior_weight"):
        MCTS(prior_weight=-1)


def test_learning_finds_the_feature_the_games_follow_and_the_player_uses_it(tmp_path):
    """Games in which every move is a random empty cell next to the last move: the learned gamma of
    a neighbour of the last move must beat every other distance, and the search's priors follow it."""
    for g in range(12):
        rng = random.Random(g)
        state = empty(7)
        moves = []
        for _ in range(24):
            free = [c for c in range(49) if state.board[c] == 0]
            near = [c for c in free if state.last is not None and features(state, c)[K.NEAR] == F[K.NEAR] + 1]
            m = rng.choice(near or free)
            moves.append(m)
            state = state.play(m)
        (tmp_path / f"g{g}.sgf").write_text(game_sgf(7, 7, "a", "b", moves, "?"))
    out = tmp_path / "gammas.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "hex_gammas.py"), str(out), str(tmp_path),
                           "--sweeps", "10", "--source", "test"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "held out" in done.stdout
    gammas = G.load(out)
    assert all(gammas[F[K.NEAR] + 1] > 5 * gammas[F[K.NEAR] + d] for d in range(2, 6))
    state = from_moves(7, ["d4"])
    pos = K.to_kernel(state)
    moves = np.empty(K.space(pos) + 1, np.int64)
    prior = np.empty((2, K.space(pos) + 1))
    n = K.children(pos, (K.PRIORS, True, gammas, 20.0), np.zeros(0, np.uint8), moves, prior)
    rate = {K.unpadded(int(moves[i]), 7): prior[1, i] / prior[0, i] for i in range(n)}
    neighbours = [c for c in rate if features(state, c)[K.NEAR] == F[K.NEAR] + 1]
    others = [v for c, v in rate.items() if c not in neighbours]
    assert len(neighbours) == 6 and min(rate[c] for c in neighbours) > max(others)
    assert all(prior[0, i] == K.PRIOR_EVEN + 20.0 for i in range(n))
    player = MCTS(learned=True, gammas_file=str(out), seed=3, playouts=200)
    r = player.choose(state, None, Budget(5.0))
    assert state.is_legal(r.move)


def test_the_player_uses_the_shipped_table():
    """The package's table loads, the default player searches with it, and it has learned what
    MoHex plays: restore a bridge just cut, answer next to the last move."""
    gammas = G.shipped()
    assert np.array_equal(MCTS()._params()[2], gammas)
    assert MCTS(learned=False)._params()[2].shape == (0,)
    assert gammas[F[K.SAVE] + 1] > 5 * gammas[F[K.SAVE]]
    assert gammas[F[K.NEAR] + 1] > gammas[F[K.NEAR] + 5]
