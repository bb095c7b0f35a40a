"""The `mcts` Hex player (bots/hex/mcts.py): tactics, the solver, the search, tree reuse, votes.

It wins in one and blocks a loss in one (with the tactics, and by search alone), plays a
proven winning move when few cells are empty, never returns an illegal move (the swap
included, and moves the caller excludes), reuses its tree across our move and a reply (a swap
either way), and its votes are its root visits.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.hex import mcts as M
from bots.hex import solver as S
from bots.hex.board import BLACK, SWAP, WHITE, empty, from_moves, from_rows, parse_cell
from bots.hex.mcts import MCTS, moves_between
from search import uct
from search.budget import Budget
from search.contracts import Context

LONG = 60.0  # seconds: the iteration cap decides


def cell(name: str, size: int = 5) -> int:
    return parse_cell(name, size, size)


# Black to move: b1-b2-b3-b4 joins the bottom at b5 only, where White would join its edges
# too: b5 is the one move that does not lose
WIN_IN_ONE = from_rows(["-B---", "-B---", "-B---", "-B---", "W-WWW"], to_move=BLACK)
# Black to move: White a3-b3-c3-d3 joins the right edge at e3 (e2 is Black's)
LOSS_IN_ONE = from_rows(["-----", "-B--B", "WWWW-", "B----", "-B---"], to_move=BLACK)


def test_positions():
    assert M.win_cells(WIN_IN_ONE, BLACK) == [cell("b5")]
    assert M.win_cells(WIN_IN_ONE, WHITE) == [cell("b5")]
    assert M.win_cells(LOSS_IN_ONE, WHITE) == [cell("e3")]
    assert M.win_cells(LOSS_IN_ONE, BLACK) == []


@pytest.mark.parametrize("tactics", [True, False])
def test_wins_in_one(tactics):
    p = MCTS(seed=1, tactics=tactics, solver=False, playouts=4000)
    r = p.choose(WIN_IN_ONE, None, Budget(LONG))
    assert r.move == cell("b5")
    assert WIN_IN_ONE.play(r.move).winner() == BLACK
    if tactics:
        assert r.votes == ((r.move, M.SURE_VOTES),) and r.value == 1.0


@pytest.mark.parametrize("tactics", [True, False])
def test_blocks_a_loss_in_one(tactics):
    p = MCTS(seed=2, tactics=tactics, solver=False, playouts=6000)
    r = p.choose(LOSS_IN_ONE, None, Budget(LONG))
    assert r.move == cell("e3")


def test_plays_a_proven_win_with_few_empty_cells():
    rng = random.Random(3)
    found = 0
    while found < 4:
        s = empty(4)
        while s.board.count(0) > 10 and not s.is_terminal():
            s = s.play(rng.choice(s.legal_moves()))
        if s.is_terminal() or M.win_cells(s, s.to_move) or M.win_cells(s, 3 - s.to_move):
            continue
        wins = S.winning_moves(s)
        if not wins:
            continue
        r = MCTS(seed=1, tactics=False).choose(s, None, Budget(LONG, nodes=100))
        assert r.move in wins and r.votes == ((r.move, M.SURE_VOTES),)
        found += 1


def test_moves_are_legal_with_and_without_swap():
    rng = random.Random(4)
    for i in range(60):
        size = rng.randint(1, 7)
        s = empty(size, rng.randint(1, 7) if i % 4 == 0 else size, swap=i % 2 == 0)
        p = MCTS(seed=i, capacity=20_000, solver=i % 3 != 0)
        while not s.is_terminal():
            r = p.choose(s, None, Budget(LONG, nodes=rng.choice((1, 30, 200))))
            assert s.is_legal(r.move), (s, r)
            s = s.play(r.move)
        assert p.choose(s, None, Budget(1.0)).move is None  # the game is over


def test_a_tiny_budget_still_gives_a_legal_move():
    s = from_moves(7, ["d4"], swap=True)
    r = MCTS(seed=5).choose(s, None, Budget(0.0))
    assert s.is_legal(r.move) and r.nodes == 0


def test_excluded_moves_are_never_chosen():
    s = empty(3)
    best = MCTS(seed=6, playouts=2000).choose(s, None, Budget(LONG)).move
    r = MCTS(seed=6, playouts=2000).choose(s, Context(exclude=[best]), Budget(LONG))
    assert r.move != best and s.is_legal(r.move)
    assert best not in dict(r.votes)
    every = [m for m in s.legal_moves() if m != cell("c3", 3)]
    assert MCTS(seed=6).choose(s, Context(exclude=every), Budget(LONG, nodes=50)).move == cell("c3", 3)


def test_swap_is_searched_and_chosen_when_good():
    # 2x2: b1 and a2 win for the first player, so the second swaps them (and not a1, b2)
    for first, swap in (("b1", True), ("a2", True), ("a1", False), ("b2", False)):
        s = from_moves(2, [first], swap=True)
        r = MCTS(seed=7, tactics=False, solver=False, playouts=3000).choose(s, None, Budget(LONG))
        assert (r.move == SWAP) == swap, (first, r)


def test_votes_are_the_root_visits():
    s = from_moves(7, ["d4", "c5"])
    p = MCTS(seed=8, playouts=1500, early_stop=False)
    r = p.choose(s, None, Budget(LONG))
    assert r.nodes == 1500
    votes = dict(r.votes)
    assert sum(votes.values()) == 1500  # a fresh tree: every iteration goes through one root move
    assert r.move == max(r.votes, key=lambda mv: mv[1])[0]
    assert all(s.is_legal(m) for m in votes)
    assert 0.0 <= r.value <= 1.0


def test_a_full_tree_is_followed_by_a_fresh_one():
    s = from_moves(7, ["d4", "c5"])
    p = MCTS(seed=13, capacity=10_000, playouts=6000, early_stop=False)
    r = p.choose(s, None, Budget(LONG))
    assert r.nodes == 6000  # a 10,000-node tree holds fewer than 2,000 iterations here
    assert sum(dict(r.votes).values()) == 6000  # every tree's root votes count
    assert p._tree is not None and p._tree.meta[uct.NODES] < 10_000  # the last one, not full
    assert s.is_legal(r.move) and 0.0 <= r.value <= 1.0
    q = MCTS(seed=13, capacity=10_000, early_stop=False)
    r = q.choose(s, None, Budget(0.3))  # by the clock: the search goes on to the deadline
    assert r.nodes > 2000 and r.elapsed > 0.3 - M.SAFETY - M.RESTART_SECONDS - 0.01


def test_same_seed_same_move():
    s = from_moves(6, ["c3"])
    a = MCTS(seed=9, playouts=800).choose(s, None, Budget(LONG))
    b = MCTS(seed=9, playouts=800).choose(s, None, Budget(LONG))
    assert (a.move, a.votes) == (b.move, b.votes)


# -- tree reuse ---------------------------------------------------------------------------------

def test_moves_between():
    s0 = from_moves(5, ["c3"])
    assert moves_between(s0, s0.play("b2").play("d4")) == (cell("b2"), cell("d4"))
    assert moves_between(s0, s0.play("b2")) == (cell("b2"),)  # one move: a pondered position
    assert moves_between(s0, s0) == ()
    assert moves_between(s0.play("b2"), s0.play("d4")) is None  # another move, not one more
    assert moves_between(s0, s0.play("b2").play("d4").play("e5").play("a1")) is None
    assert moves_between(s0, from_moves(5, ["a1", "b2", "d4"])) is None
    sw = from_moves(5, ["b4"], swap=True)  # White swaps, Black replies
    assert moves_between(sw, sw.play(SWAP).play("c3")) == (SWAP, cell("c3"))
    e = empty(5, swap=True)  # Black opens, White swaps
    assert moves_between(e, e.play("b4").play(SWAP)) == (cell("b4"), SWAP)
    assert moves_between(sw, sw.play(SWAP)) == (SWAP,)


def reply_in_tree(p: MCTS, move: int, size: int) -> int:
    """The most visited reply to our `move` in p's tree."""
    tree = p._tree
    node = int(uct.child_of(tree.I, uct.root(tree), M.padded(move, size)))
    kids = list(uct.children(tree, node))
    best = max(kids, key=lambda ch: tree.V[uct.VN, ch])
    return M.unpadded(int(tree.I[uct.IMOVE, best]), size)


def grandchild(p: MCTS, moves, size: int) -> int:
    node = uct.root(p._tree)
    for m in moves:
        node = int(uct.child_of(p._tree.I, node, M.padded(m, size)))
    return node


@pytest.mark.parametrize("start", [
    ("plain", 6, [], False),
    ("after our swap", 5, ["b4"], True),
    ("before their swap", 5, [], True),
])
def test_tree_reuse_across_two_moves(start):
    _, size, moves, swap = start
    s = from_moves(size, moves, swap=swap)
    p = MCTS(seed=10, playouts=3000, tactics=False, solver=False, early_stop=False)
    r = p.choose(s, None, Budget(LONG))
    mine = SWAP if start[0] == "after our swap" else r.move  # we may play the swap, a searched root move
    if start[0] == "before their swap":
        assert s.play(mine).swap_allowed()
    reply = SWAP if start[0] == "before their swap" else reply_in_tree(p, mine, size)
    tree = p._tree
    node = grandchild(p, [mine, reply], size)
    assert node > 0
    before = float(tree.V[uct.VN, node])
    nxt = s.play(mine).play(reply)
    r2 = p.choose(nxt, None, Budget(LONG))
    assert p._tree is tree and uct.root(tree) == node  # re-rooted, not rebuilt
    assert tree.V[uct.VN, node] == before + r2.nodes
    assert nxt.is_legal(r2.move)


def test_no_reuse_after_an_unrelated_position():
    p = MCTS(seed=11, playouts=500)
    p.choose(from_moves(5, ["c3"]), None, Budget(LONG))
    tree = p._tree
    p.choose(from_moves(5, ["a1", "e5", "b2"]), None, Budget(LONG))
    assert p._tree is not tree and uct.root(p._tree) == 0
    off = MCTS(seed=11, playouts=500, reuse=False)
    s = from_moves(5, ["c3"])
    r = off.choose(s, None, Budget(LONG))
    tree = off._tree
    off.choose(s.play(r.move).play(next(m for m in s.play(r.move).legal_moves())), None, Budget(LONG))
    assert off._tree is not tree


def test_priors_off_and_bridges_off_still_play():
    s = from_moves(7, ["d4"])
    for kw in ({"priors": False}, {"bridges": False}, {"priors": False, "bridges": False}):
        r = MCTS(seed=12, playouts=300, **kw).choose(s, None, Budget(LONG))
        assert s.is_legal(r.move) and r.nodes == 300


def test_warm():
    M.warm()
    assert np.isfinite(MCTS(seed=1, playouts=10).choose(empty(3), None, Budget(LONG)).value)


def test_the_tree_policy_options_reach_the_search():
    s = from_moves(7, ["d4", "c5"])
    root_only = MCTS(seed=5, playouts=500, early_stop=False, expand_visits=1000)
    root_only.choose(s, None, Budget(LONG))
    assert root_only._tree is not None
    assert root_only._tree.meta[uct.NODES] == 1 + 7 * 7 - 2  # no root child reached 1000 visits
    grown = MCTS(seed=5, playouts=500, early_stop=False)
    grown.choose(s, None, Budget(LONG))
    assert grown._tree is not None and grown._tree.meta[uct.NODES] > 1 + 7 * 7 - 2
    votes = {k: MCTS(seed=5, playouts=500, early_stop=False, rave_equiv=k).choose(s, None, Budget(LONG)).votes
             for k in (1.0, uct.RAVE_EQUIV)}
    assert votes[1.0] != votes[uct.RAVE_EQUIV]  # RAVE all but off against michi's weight
    for bad in ({"rave_equiv": 0}, {"expand_visits": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            MCTS(**bad)


def test_pondering_grows_the_tree_the_next_move_searches():
    """A search of the opponent's turn (ponder) is kept: the next move's root starts with the
    visits the reply got while pondering, on top of the move's own."""
    s0 = from_moves(9, ["e5"])
    player = MCTS(seed=1, early_stop=False, capacity=100_000)
    ours = player.choose(s0, None, Budget(LONG, nodes=300)).move
    s1 = s0.play(ours)
    pondered = player.ponder(s1, Budget(LONG, nodes=2_000))
    assert pondered.nodes == 2_000 and s1.is_legal(pondered.move)
    reply = pondered.move
    kept = dict(pondered.votes)[reply]
    r = player.choose(s1.play(reply), None, Budget(LONG, nodes=100))
    assert player._tree.V[uct.VN, uct.root(player._tree)] == kept + r.nodes == kept + 100
    cold = MCTS(seed=1, early_stop=False, capacity=100_000)
    cold.choose(s1.play(reply), None, Budget(LONG, nodes=100))
    assert cold._tree.V[uct.VN, uct.root(cold._tree)] == 100
    # pondering the same position again goes on with the same tree
    tree, s2 = player._tree, s1.play(reply).play(r.move)
    player.ponder(s2, Budget(LONG, nodes=50))
    player.ponder(s2, Budget(LONG, nodes=50))
    assert player._tree is tree and tree.V[uct.VN, uct.root(tree)] >= 100

