"""Virtual connections (bots.hex.vc): the edge templates H-search must find, the must-play cells,
and, against the exact solver, that no winning move is ever left out of them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.hex import kernel as K
from bots.hex import solver as S
from bots.hex import vc as V
from bots.hex.board import BLACK, empty, from_moves
from bots.hex.mcts import MCTS, must_play, must_play_work
from search import uct
from search.budget import Budget


def carriers_to_top(state, cell):
    """The carriers (sets of State cells) of Black's VCs between the group at `cell` and its
    first edge (the top)."""
    pos = K.to_kernel(state)
    n, pid, _, vc, nvc, _, _ = V.hsearch(pos, BLACK, V.WORK, False)
    i = pid[K.padded(cell, state.width)]  # the edge is point 0
    space = K.space(pos)
    return [{K.unpadded(p, state.width) for p in range(space) if V._has(vc[i, k], p)} for k in range(nvc[i])]


def test_the_edge_templates_are_found():
    w = 9
    at = lambda row, col: row * w + col  # noqa: E731
    far = at(8, 0)  # White's stone, far away
    # the second row: the two cells between the stone and its edge (template II)
    assert {at(0, 4), at(0, 5)} in carriers_to_top(empty(w).play(at(1, 4)).play(far), at(1, 4))
    # the third row: the ziggurat, 8 empty cells, in both of its mirror images
    zig_left = {at(0, 3), at(0, 4), at(0, 5), at(0, 6), at(1, 3), at(1, 4), at(1, 5), at(2, 3)}
    zig_right = {at(0, 4), at(0, 5), at(0, 6), at(0, 7), at(1, 4), at(1, 5), at(1, 6), at(2, 5)}
    found = carriers_to_top(empty(w).play(at(2, 4)).play(far), at(2, 4))
    assert zig_left in found and zig_right in found
    # White's stone on a cell of both leaves no VC; on a cell of neither, both stay
    def blocked(cell):
        return carriers_to_top(empty(w).play(at(2, 4)).play(cell).play(far).play(at(8, 8)), at(2, 4))
    assert blocked(at(0, 4)) == []
    assert zig_left in blocked(at(0, 2)) and zig_right in blocked(at(0, 2))


def test_must_play_names_the_one_saving_cell():
    # 3x3, White's stone at c1 joins its right edge; it reaches the left edge through b1 or
    # b2, each then joined by a bridge-like pair, both of which need a2: Black must play a2
    s = empty(3).play(8).play(2)
    assert s.to_move == BLACK
    assert must_play(s) == [3]
    assert S.winning_moves(s) == [3]
    # and the player's tree holds no other move at the root, even without its tactics and solver
    for mustplay, moves in ((True, {3}), (False, set(range(9)) - {2, 8})):
        player = MCTS(seed=1, solver=False, tactics=False, capacity=10_000, mustplay=mustplay)
        assert player.choose(s, None, Budget(10.0, nodes=50)).move == 3
        tree = player._tree
        root = uct.children(tree, uct.root(tree))
        assert {K.unpadded(int(tree.I[uct.IMOVE, ch]), 3) for ch in root if tree.V[uct.PN, ch] < 1e9} == moves


# 29 moves of a game lost to MoHex 2.0 at 5 s a move (we were White; MoHex proved its win six
# plies later): Black's semi-connections between its edges show only to a longer H-search
THREATENED = ("j2 h5 g5 h4 g4 f7 e7 f6 g6 f9 g7 h8 e9 f8 e6 e8 d8 d9 c9 b11 a11 b10 a10 f5 e5 b9 a9 f4 "
              "e4").split()


def test_the_threat_is_found_within_the_default_work_when_and_never_joins_through_an_edge():
    s = from_moves(11, THREATENED)
    pos = K.to_kernel(s)
    assert V.hsearch(pos, BLACK, V.WORK, True)[6][1] == 0  # through the edges: no SC between them yet
    assert V.hsearch(pos, BLACK, V.WORK, False)[6][1] > 0
    must = must_play(s, V.WORK)
    assert 0 < len(must) < s.board.count(0) // 3
    assert must_play(s, must_play_work(2.0)) == must  # more work: the search had ended already
    assert must_play_work(0.0) == V.WORK and must_play_work(1e6) == 2_000_000
    assert must_play_work(1.0, 19, 19) < must_play_work(1.0, 13, 13) < must_play_work(1.0)
    # the player at 2 s a move searches those cells only
    votes = MCTS(seed=1, mustplay=True).choose(s, None, Budget(2.0, nodes=3000)).votes
    assert votes and {m for m, _ in votes} <= set(must)


def test_no_must_play_when_nothing_threatens():
    assert must_play(empty(11).play(60)) == []  # one Black stone, White to move: White has no SC
    assert must_play(empty(11)) == []


def random_position(rng, size):
    while True:
        s = empty(size)
        for _ in range(rng.randint(1, size * size - 3)):
            s = s.play(rng.choice(s.legal_moves()))
            if s.is_terminal():
                break
        if not s.is_terminal():
            return s


def test_no_winning_move_is_ever_left_out():
    """On random 3x3 to 5x5 positions, every move the exact solver says wins is among the
    must-play cells, and a position H-search calls lost has no winning move."""
    rng = random.Random(7)
    told = {V.NONE: 0, V.MUST: 0, V.LOST: 0}
    for size in (3, 4, 4, 5):
        for _ in range(60):
            s = random_position(rng, size)
            wins = S.winning_moves(s, nodes=2_000_000)
            if wins is None:
                continue
            pos = K.to_kernel(s)
            out = np.zeros(K.space(pos), np.int8)
            answer = V.must_play(pos, V.WORK, out)
            told[answer] += 1
            if answer == V.LOST:
                assert wins == [], (bytes(s.board), s.to_move)
            elif answer == V.MUST:
                must = {K.unpadded(int(p), size) for p in np.nonzero(out)[0]}
                assert set(wins) <= must, (bytes(s.board), s.to_move, sorted(must), wins)
            else:
                assert not out.any()
    assert told[V.MUST] >= 40 and told[V.LOST] >= 20  # the check was not empty



def test_the_trees_knowledge_is_the_must_play():
    """bots.hex.vc.knowledge, search.uct's hook (`mcts:know`): the must-play cells as the cells
    kept, a VC of the opponent's as a proven loss, nothing with no AND steps to spend."""
    params = MCTS(know=16, know_work=V.WORK)._params()
    s = empty(3).play(8).play(2)  # Black must play a2 (above)
    pos = K.to_kernel(s)
    keep = np.zeros(K.space(pos), np.int8)
    assert V.knowledge(pos, params, keep) == uct.KNOW_KEEP
    assert {K.unpadded(int(p), 3) for p in np.nonzero(keep)[0]} == {3}
    lost = empty(3).play(0).play(4)  # White's centre stone bridges to both its edges
    keep[:] = 0
    assert V.knowledge(K.to_kernel(lost), params, keep) == uct.KNOW_LOSS and not keep.any()
    assert S.solve(lost).winner == lost.to_move ^ 3
    assert V.knowledge(pos, params[:4] + (0,), keep) == uct.KNOW_NONE
    assert V.knowledge(K.to_kernel(empty(11).play(60)), params, keep) == uct.KNOW_NONE


def test_the_tree_with_knowledge_plays_winning_moves():
    """`mcts:know`: on random 4x4 and 5x5 positions the side to move wins, the player without
    its tactics and solver plays a winning move, and its tree holds proofs and pruned moves."""
    rng = random.Random(11)
    proven = pruned = tried = 0
    while tried < 30:
        s = random_position(rng, rng.choice((4, 5)))
        wins = S.winning_moves(s, nodes=2_000_000)
        if not wins or len(wins) == len(s.legal_moves()):
            continue
        tried += 1
        player = MCTS(seed=1, solver=False, tactics=False, capacity=50_000, know=16, know_work=V.WORK)
        assert player.choose(s, None, Budget(10.0, nodes=3000)).move in wins, (bytes(s.board), s.to_move)
        tree = player._tree
        used = int(tree.meta[uct.NODES])
        proven += int((tree.I[uct.ICHILD, :used] <= uct.PROVEN_WIN).sum())
        pruned += int(((tree.V[uct.PN, :used] >= uct.SURE_VISITS) & (tree.V[uct.PW, :used] < 1e6)).sum())
    assert proven >= 10 and pruned >= 10


@pytest.mark.parametrize("bad", [{"know": 8}, {"know": -1}, {"know_work": 10}])
def test_knowledge_options_are_checked(bad):
    with pytest.raises(ValueError, match="know"):
        MCTS(**bad)
