"""Learned priors: the move features (bots.go.kernel.move_features), the shipped gammas
(bots.go.gammas) and the tool that learns them (tools/go_gammas.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bots.go import gammas as G, kernel as K
from bots.go.board import BLACK, empty, from_diagram, from_moves, parse_point, point_name
from bots.go.mcts import MCTS
from bots.go.sgf import game_sgf
from search import uct
from search.budget import Budget

ROOT = Path(__file__).resolve().parents[2]
F = K.FEATURE_OFFSETS

POSITION = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . X O X . . .
. . . X O X . . .
. . . . X . . . .
. . . . . . . . .
. . . . . . . . .
"""


def features(state, name: str, before: int | None = None) -> list[int]:
    B, S = K.to_kernel(state, before)
    out = np.empty(K.NGROUPS, np.int64)
    K.move_features(B, S, np.int64(K.padded(parse_point(name, 9), 9)), S[K.TOMOVE], True, K.NO_SHAPES, out)
    return [int(v) for v in out]


def test_each_feature_falls_in_its_group():
    state = from_diagram(POSITION, to_move=BLACK)
    B, S = K.to_kernel(state)
    out = np.empty(400, np.int64)
    for p in out[:K.moves(B, S, out)]:
        f = features(state, point_name(K.unpadded(int(p), 9), 9))
        for g, v in enumerate(f[:-1]):
            assert F[g] <= v < F[g] + K.FEATURE_SIZES[g]
        assert f[-1] == K.NFEATURES  # no large patterns known: slot 0


def test_capture_atari_self_atari_and_distance():
    state = from_diagram(POSITION, to_move=BLACK)  # the white string E4-E5 has one liberty: E6
    capture = features(state, "E6")
    assert capture[1] == F[1] + 2  # two stones
    assert features(state, "A1")[1] == F[1]  # no capture
    assert features(state, "A1")[9] == F[9] + 1  # nothing within distance 3
    assert features(state, "E6")[9] == F[9]
    assert features(state, "A1")[8] == F[8] and features(state, "E6")[8] == F[8] + 3  # lines 1 and 4
    white = from_diagram(POSITION, to_move=2)
    assert features(white, "E6")[2] == F[2] + 1  # saves E4-E5 with three liberties (D6, E7, F6)
    assert features(white, "A1")[2] == F[2]
    last = white.play(parse_point("A9", 9)).play(parse_point("B9", 9))  # Black's last move B9
    assert features(last, "C9")[6] == F[6] + 1 and features(last, "E9")[6] == F[6] + 3
    assert features(last, "B8", parse_point("A9", 9))[7] == F[7] + 1  # next to White's move before, A9
    assert features(last, "B8")[7] == F[7]  # not known


def test_self_atari_of_one_stone():
    state = from_diagram("""
. O . . .
. . . . .
. . . . .
. . . . .
. . . . .
""", to_move=BLACK)
    B, S = K.to_kernel(state)
    out = np.empty(K.NGROUPS, np.int64)
    K.move_features(B, S, np.int64(K.padded(parse_point("A5", 5), 5)), np.int64(BLACK), True, K.NO_SHAPES, out)
    assert out[3] == F[3] + 1


def orientations(stones: dict[tuple[int, int], str]) -> list:
    """The 9x9 positions (Black to move) of `stones` (row, col from the top) in each of the 8
    rotations and mirrors about E5."""
    states = []
    for k in range(4):
        for mirror in (False, True):
            rows = [["."] * 9 for _ in range(9)]
            for (r, c), v in stones.items():
                for _ in range(k):
                    r, c = c, 8 - r
                if mirror:
                    c = 8 - c
                rows[r][c] = v
            states.append(from_diagram("\n".join(" ".join(r) for r in rows), to_move=BLACK))
    return states


def test_a_pattern_class_is_the_same_in_every_orientation():
    stones = {(3, 4): "X", (4, 5): "O", (5, 3): "X"}  # around E5 on 9x9 (row, col from the top)
    classes = {features(state, "E5")[0] for state in orientations(stones)}
    assert len(classes) == 1
    assert K.PATTERN_CLASS.max() == K.NPATTERN_CLASSES - 1 < 65536 // 7  # the classes are few


def test_shipped_gammas_fit_the_kernel():
    gammas, shapes = G.shipped()
    assert gammas.shape == (K.NFEATURES + 1 + len(shapes),) and np.all(gammas > 0)
    table = json.loads((ROOT / "bots" / "go" / "data" / "gammas.json").read_text())
    assert table["source"] and table["moves"] > 1000
    with pytest.raises(ValueError, match="feature groups"):
        G.check({**table, "sizes": [1, 2]})
    with pytest.raises(ValueError, match="positive"):
        G.check({**table, "gammas": [0.0] * len(gammas)})


def root_priors(size: int, learned: bool) -> list[tuple[int, float, float]]:
    player = MCTS(learned=learned, use_book=False, seed=3, playouts=1)
    player.choose(from_moves(size, ["C3", "D4"]), None, Budget(5.0))
    tree = player._tree
    assert tree is not None
    return [(int(tree.I[uct.IMOVE, ch]), float(tree.V[uct.PN, ch]), float(tree.V[uct.PW, ch]))
            for ch in uct.children(tree, uct.root(tree))]


def test_learned_priors_only_on_the_board_they_were_learned_on():
    assert root_priors(9, True) != root_priors(9, False)
    assert root_priors(13, True) == root_priors(13, False)  # 13x13 keeps michi's priors


def test_amaf_distance_reaches_the_search():
    plain = MCTS(use_book=False, seed=3, playouts=300, amaf_distance=0.0)
    weighted = MCTS(use_book=False, seed=3, playouts=300)  # the default, 3
    state = from_moves(9, ["C3", "D4"])
    plain.choose(state, None, Budget(5.0))
    weighted.choose(state, None, Budget(5.0))
    assert plain._tree is not None and weighted._tree is not None
    kids = list(uct.children(plain._tree, 0))
    assert (weighted._tree.V[uct.RN, kids] > plain._tree.V[uct.RN, kids]).any()  # weights above 1
    with pytest.raises(ValueError, match="amaf_distance"):
        MCTS(amaf_distance=-1)


def test_learned_priors_rank_a_capture_first():
    state = from_diagram(POSITION, to_move=BLACK)
    r = MCTS(learned=True, use_book=False, seed=3, playouts=1).choose(state, None, Budget(5.0))
    assert point_name(r.move, 9) == "E6"


def test_learning_finds_the_feature_the_games_follow(tmp_path):
    """Games in which every move is the first legal point next to the last move: the learned
    gamma of distance 1 to the last move must beat every other distance."""
    for g in range(10):
        rng = np.random.default_rng(g)
        state = empty(9)
        moves = []
        for _ in range(30):
            last = state.last
            legal = [m for m in state.legal_moves() if m >= 0]
            near = [m for m in legal if last is not None and last >= 0
                    and max(abs(m // 9 - last // 9), abs(m % 9 - last % 9)) == 1]
            m = int(rng.choice(near or legal))
            moves.append(m)
            state = state.play(m)
        (tmp_path / f"g{g}.sgf").write_text(game_sgf(9, 7.5, "a", "b", moves, "?"))
    out = tmp_path / "gammas.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "go_gammas.py"), str(out), str(tmp_path),
                           "--sweeps", "10", "--shapes", "3", "--source", "test"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "held out" in done.stdout
    table = G.check(json.loads(out.read_text()))
    gammas = table.gammas
    near = gammas[F[6] + 1]
    assert all(near > 5 * gammas[F[6] + d] for d in range(2, 7))
    assert len(table.shapes) > 0  # diamonds played 3 times or more got gammas of their own
    player = MCTS(gammas_file=str(out), use_book=False, seed=3, playouts=50)
    r = player.choose(from_moves(9, ["C3", "D4"]), None, Budget(5.0))
    assert from_moves(9, ["C3", "D4"]).is_legal(r.move)


def diamond_codes(stones: dict[tuple[int, int], str]) -> set[tuple[int, int]]:
    """The large_codes of Black playing E5 in every rotation and mirror of `stones`."""
    seen = set()
    for state in orientations(stones):
        B, S = K.to_kernel(state)
        small, large = K.large_codes(B, S, np.int64(K.padded(parse_point("E5", 9), 9)), np.int64(BLACK))
        seen.add((int(small), int(large)))
    return seen


def test_a_large_pattern_is_the_same_in_every_orientation_and_sees_distance_three():
    near = {(3, 4): "X", (4, 6): "O", (6, 4): "X"}  # distance 1 and 2 from E5
    codes = diamond_codes(near)
    assert len(codes) == 1
    far = diamond_codes({**near, (1, 4): "O"})  # and one at distance 3
    assert len(far) == 1
    (small, large), = codes
    (small_far, large_far), = far
    assert small_far == small and large_far != large
    assert large & K.LARGE_TAG and not small & K.LARGE_TAG
    state = from_moves(9, ["E6", "A9", "E3"])  # White to move; E5 and E2 each have a black stone above
    B, S = K.to_kernel(state)
    centre, edge = (K.large_codes(B, S, np.int64(K.padded(parse_point(n, 9), 9)), np.int64(2)) for n in ("E5", "E2"))
    assert edge[0] != centre[0]  # points off the board are not empty ones


def test_the_largest_known_diamond_names_the_slot():
    (small, large), = diamond_codes({(3, 4): "X", (1, 4): "O"})
    other = int(K.LARGE_TAG) + 5
    one = sorted([small, other])
    assert K.shape_slot(np.array(one, np.int64), small, large) == 1 + one.index(small)
    both = np.array(sorted([small, large]), np.int64)
    assert K.shape_slot(both, small, large) == 1 + list(both).index(large)
    assert K.shape_slot(np.array([other], np.int64), small, large) == 0
    assert K.shape_slot(K.NO_SHAPES, small, large) == 0
    state = from_diagram(POSITION, to_move=BLACK)
    B, S = K.to_kernel(state)
    p = np.int64(K.padded(parse_point("E6", 9), 9))
    codes = K.large_codes(B, S, p, np.int64(BLACK))
    out = np.empty(K.NGROUPS, np.int64)
    K.move_features(B, S, p, np.int64(BLACK), True, np.array([codes[1]], np.int64), out)
    assert out[-1] == K.NFEATURES + 1


def test_a_gammas_file_that_is_not_a_table_is_named(tmp_path):
    with pytest.raises(ValueError, match="missing.json"):
        G.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        MCTS(gammas_file=str(bad))
    table = json.loads((ROOT / "bots" / "go" / "data" / "gammas.json").read_text())
    unsorted = tmp_path / "unsorted.json"
    unsorted.write_text(json.dumps({**table, "shapes": [5, 3], "gammas": table["gammas"][:K.NFEATURES] + [1.0] * 3}))
    with pytest.raises(ValueError, match="increasing order"):
        G.load(unsorted)
    old = tmp_path / "old.json"  # a table written before the large patterns: still read
    old.write_text(json.dumps({**table, "shapes": [], "gammas": table["gammas"][:K.NFEATURES]}))
    assert G.load(old).gammas.shape == (K.NFEATURES + 1,)
