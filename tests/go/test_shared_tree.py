"""The Go player on the shared tree (search.uct) plays exactly as it did before the tree moved
out of bots/go/kernel.py: with a fixed seed and an iteration cap, the same move, the same root
visit counts and the same value, on ten positions (9x9 from the empty board to a fight, a
pass, small boards, 13x13) with two seeds, three moves in a row with tree reuse, and light
playouts.  The expected values were recorded from the fused kernel (commit 4e58724) before the
change; the budget is so large that the early stop (on for seed 1) never fires, so the
iteration cap alone decides.  The ladder reading (mcts:ladders, priors and playouts of its
own), the learned priors (mcts:learned), throw-ins (mcts:throwins) and AMAF weighted by
distance (mcts:amaf_distance) came after, and all are off here.
And Go's search caches per user whatever was imported first.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots.go.board import PASS, from_moves, parse_point, point_name
from bots.go.mcts import MCTS
from search.budget import Budget

MIDDLE = ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6", "C4", "D3", "C3", "F7", "G3", "E7"]
POSITIONS = {
    "empty9": (9, []),
    "opening": (9, ["E5", "E4", "D4"]),
    "middle": (9, MIDDLE),
    "fight": (9, MIDDLE + ["G4", "G5", "H4", "H5", "E3", "D2", "C2", "E2", "F3", "F2"]),
    "atari": (9, ["C3", "D3", "D4", "C4", "B4", "D2", "C5", "E3"]),
    "after_pass": (9, ["E5", "D5", "C3", "PASS"]),  # Black behind on the board: PASS is a move
    "small5": (5, ["C3", "B3", "C2"]),
    "small7": (7, ["D4", "C3", "C5", "E3"]),
    "edge": (9, ["A1", "B2", "J9", "H8", "A9", "J1"]),
    "thirteen": (13, ["G7", "D4", "K10"]),
}
ROOT = Path(__file__).resolve().parents[2]
ITERATIONS = 1200
BEFORE = {"ladders": False, "learned": False, "throwins": False, "amaf_distance": 0.0}  # the knowledge added since
HUGE = 1e5  # seconds: the early stop cannot fire, the iteration cap decides

EXPECTED = {  # (position, seed): (move, iterations, value, root votes 'move:visits')
    ('empty9', 1): ('C7', 1200, 0.4644351601600647,
        'A9:1 B5:22 B7:1 B8:14 C3:45 C4:12 C5:135 C6:2 C7:239 D3:91 D7:33 E2:10 E3:171 E5:165 E8:2 F5:34 '
        'F7:186 G4:1 G6:8 G7:21 H4:7'),
    ('empty9', 7): ('G5', 1200, 0.48494982719421387,
        'C3:106 C4:159 C5:176 C6:1 C7:2 D5:130 D7:51 E3:16 E4:18 E5:58 E7:23 F3:31 F7:10 G3:3 G4:20 '
        'G5:299 G6:19 G7:35 H4:1 H5:42'),
    ('opening', 1): ('D3', 1200, 0.5436137318611145,
        'B4:1 C3:113 C4:37 C5:62 D2:17 D3:642 D5:264 E3:39 F5:25'),
    ('opening', 7): ('D3', 1200, 0.47852760553359985,
        'B4:83 C3:109 C4:51 D2:12 D3:326 D5:114 D6:5 E3:3 F4:112 F5:230 G7:155'),
    ('middle', 1): ('D8', 1200, 0.4430379867553711,
        'C7:85 C8:24 D2:179 D7:57 D8:316 E2:15 E3:46 E8:2 E9:10 F2:3 F8:66 G2:43 G7:65 H4:58 H5:189 H6:10 '
        'H7:1 J1:31'),
    ('middle', 7): ('H2', 1200, 0.39361703395843506,
        'B6:18 B7:2 C2:6 C8:1 D2:180 D7:70 D8:20 E3:133 E8:21 E9:6 F2:143 F8:68 G2:3 G7:34 H2:188 H4:128 '
        'H5:97 H6:24 H7:55 J3:3'),
    ('fight', 1): ('H2', 1200, 0.6201680898666382,
        'B7:52 C7:8 D1:114 E1:75 F1:26 G1:21 G2:240 H2:595 J4:4 J5:65'),
    ('fight', 7): ('G2', 1200, 0.6152940988540649,
        'B6:26 B7:59 E1:92 F1:34 G1:14 G2:850 H2:125'),
    ('atari', 1): ('F2', 1200, 0.5906432867050171,
        'C2:98 D1:6 E1:2 E2:76 E4:156 E5:11 F2:342 F3:14 F4:2 F6:5 F7:4 F8:61 G3:2 G4:149 G5:144 G7:5 '
        'H7:123'),
    ('atari', 7): ('E5', 1200, 0.6209150552749634,
        'C8:133 E1:18 E2:23 E4:79 E5:306 F2:15 F3:49 F4:7 F5:185 G3:28 G4:27 G6:151 G7:51 G8:61 H6:17 '
        'H8:49 J9:1'),
    ('after_pass', 1): ('G7', 1200, 0.618534505367279,
        'B1:31 B2:1 C5:1 C6:39 C7:8 D2:1 D4:22 D6:67 D7:14 E2:4 E4:2 E6:6 E7:1 E8:57 F4:19 F6:13 G3:16 '
        'G5:47 G6:387 G7:464'),
    ('after_pass', 7): ('C7', 1200, 0.6333333253860474,
        'A4:22 B2:13 B3:19 C7:420 D2:27 D4:3 D6:10 D7:2 E2:35 E4:158 E6:7 E7:329 F4:3 G3:16 G4:4 G6:10 '
        'G7:97 H6:25'),
    ('small5', 1): ('C4', 1200, 0.4115044176578522,
        'B1:16 B2:187 B4:420 C1:4 C4:452 D1:16 D2:8 D3:9 D4:88'),
    ('small5', 7): ('C4', 1200, 0.3821510374546051,
        'A2:12 A5:12 B1:3 B2:286 B4:320 C1:7 C4:437 D1:3 D2:23 D3:17 D4:80'),
    ('small7', 1): ('D3', 1200, 0.4616695046424866,
        'A1:12 B3:20 D2:200 D3:587 E2:45 E4:13 E5:1 F2:90 F3:105 F4:98 F5:29'),
    ('small7', 7): ('D3', 1200, 0.4241803288459778,
        'A1:4 B3:136 D2:218 D3:488 E2:4 E4:24 E5:2 F2:102 F3:160 F4:40 F6:5 G3:17'),
    ('edge', 1): ('E3', 1200, 0.29145729541778564,
        'A2:7 B1:3 B3:2 C2:31 C5:2 C7:71 D2:63 D5:63 D7:8 E3:398 E8:3 F8:29 G1:9 G3:119 G4:194 H1:44 '
        'H2:76 H7:28 H9:17 J2:20 J3:6 J8:7'),
    ('edge', 7): ('G8', 1200, 0.35791757702827454,
        'A2:7 B1:5 B3:39 B8:1 C2:22 C6:14 C7:12 C8:180 E7:48 F3:66 G1:7 G3:42 G8:461 H1:24 H2:106 H6:70 '
        'H9:3 J2:87 J3:3 J8:3'),
    ('thirteen', 1): ('J3', 1200, 0.546875,
        'A12:3 C7:1 C8:58 C9:14 D2:35 E10:7 E8:9 G10:61 H10:37 H11:22 H3:1 J11:17 J3:256 J5:11 J9:9 K11:3 '
        'K3:14 K5:200 K8:7 K9:57 L10:160 L11:4 L9:23 M10:191'),
    ('thirteen', 7): ('F10', 1200, 0.5400843620300293,
        'B5:28 D11:23 D2:1 E11:1 F10:237 F7:191 H10:1 H3:37 J10:7 J11:46 J9:11 K11:203 K12:5 K8:3 K9:77 '
        'L10:151 L11:64 L3:11 L4:34 L6:1 L9:13 M10:52 M8:3'),
}
# three moves in a row by one player (seed 3), the tree kept: (move, iterations, root votes)
REUSE = [
    ('F4', 500,
     'C4:3 D3:51 D4:39 D5:46 E2:1 E3:28 E6:1 F3:33 F4:251 F5:36 G4:11'),
    ('E3', 500,
     'A3:7 B2:9 B3:59 B4:9 C2:98 C4:8 C6:2 C7:5 D2:3 D3:1 D4:99 E3:189 G7:11'),
    ('C7', 500,
     'B5:4 C7:119 D4:42 E7:23 F6:1 F7:36 F8:68 G5:18 G6:82 G8:10 G9:2 H6:2 H7:71 H8:4 J7:18'),
]
# light playouts, playouts=400, seed 5, from MIDDLE
LIGHT = ('D7', 400, 0.40375587344169617,
         'C2:7 C7:52 D7:213 D8:51 E3:11 E8:22 E9:9 F8:6 G7:29')


def outcome(result, size: int) -> tuple:
    """(move, iterations, value, root votes as 'move:visits' sorted by the move's name)."""
    votes = sorted((point_name(m, size), v) for m, v in result.votes)
    return point_name(result.move, size), result.nodes, result.value, " ".join(f"{m}:{v}" for m, v in votes)


@pytest.mark.parametrize("name, seed", sorted(EXPECTED))
def test_the_same_moves_visits_and_values_as_the_fused_kernel(name, seed):
    size, moves = POSITIONS[name]
    player = MCTS(seed=seed, use_book=False, early_stop=seed == 1, capacity=200_000, **BEFORE)
    result = player.choose(from_moves(size, moves), None, Budget(HUGE, nodes=ITERATIONS))
    assert outcome(result, size) == EXPECTED[name, seed]


def test_the_same_moves_with_tree_reuse():
    player = MCTS(seed=3, use_book=False, early_stop=False, capacity=200_000, **BEFORE)
    state = from_moves(9, ["E5", "E4"])
    for (move, nodes, votes), reply in zip(REUSE, ("C3", "G7", "C7"), strict=True):
        result = player.choose(state, None, Budget(HUGE, nodes=500))
        name, iterations, _, root_votes = outcome(result, 9)
        assert (name, iterations, root_votes) == (move, nodes, votes)
        state = state.play(result.move)
        reply = parse_point(reply, 9)
        state = state.play(reply if state.is_legal(reply) else PASS)
    assert int(player._tree.meta[1]) > 0  # the last two searches went on in the kept tree


def test_the_same_moves_with_light_playouts_and_a_playout_cap():
    player = MCTS(seed=5, use_book=False, heavy=False, playouts=400, capacity=50_000, **BEFORE)
    assert outcome(player.choose(from_moves(9, MIDDLE), None, Budget(HUGE)), 9) == LIGHT


@pytest.mark.parametrize("first", ["", "import numba; from search import uct; "])
def test_go_caches_its_search_per_user_whatever_was_imported_first(tmp_path, first):
    """bots.go sets numba's cache directory when it is imported; if numba (or search.uct) came
    first, numba is made to read it then.  Go's kernels and its specialised search cache there,
    never next to the sources; the tree's own kernels, defined before, are not cached at all."""
    code = (first + "import bots.go.mcts; from bots.go import kernel as K; from search import uct; "
            "print(uct.CACHE, K.children._cache._cache_path, K.SEARCH.run._cache._cache_path, "
            "type(uct.select._cache).__name__)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["BOTS_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    cached, kernel_dir, search_dir, tree_cache = out.stdout.split()
    assert kernel_dir.startswith(str(tmp_path / "numba")) and search_dir.startswith(str(tmp_path / "numba"))
    assert (cached, tree_cache) == (("True", "FunctionCache") if not first else ("False", "NullCache"))
