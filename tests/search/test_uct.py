"""The shared numba tree (search/uct.py) driven by a second game: a toy 3x3 Hex in numba
(tests/search/hex3.py), checked against its exact solution; the tree's bookkeeping (visits add
up, AMAF, the root mask, tree reuse, a full tree, the early stop); and numba's disk cache of a
game's specialised search across processes.  Go's use of the tree: tests/go/test_shared_tree.py.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from search import uct
from tests.search import hex3
from tests.search.hex3 import PARAMS, SEARCH, position, solve

ROOT = Path(__file__).resolve().parents[2]
NO_MASK = np.zeros(0, np.uint8)
FAR = 1e9  # a deadline that never comes: iteration caps decide


def search(cells: str, iterations: int, seed: int = 1, tree=None, mask=NO_MASK, **kw):
    pos = position(cells)
    tree = uct.new_tree(20_000) if tree is None else tree
    hex3.seed(seed)
    done, full = SEARCH.search(tree, pos, PARAMS, mask, SEARCH.scratch(hex3.CELLS), time.monotonic() + FAR,
                               iterations, kw.pop("early_stop", False), **kw)
    return tree, done, full


def best(tree) -> int:
    return max(uct.root_votes(tree), key=lambda mv: mv[1])[0]


def positions(empties: int):
    """Every legal, undecided 3x3 position with `empties` empty cells (stones balanced)."""
    out = []
    stones = hex3.CELLS - empties
    for filled in itertools.combinations(range(hex3.CELLS), stones):
        for ones in itertools.combinations(filled, (stones + 1) // 2):
            cells = ["."] * hex3.CELLS
            for m in filled:
                cells[m] = "1" if m in ones else "2"
            text = "".join(cells)
            if not hex3.winner(np.array([".12".index(ch) for ch in text], np.int8)):
                out.append(text)
    return out


@pytest.mark.parametrize("empties", [3, 4, 5])
def test_the_search_finds_a_winning_move_whenever_there_is_one(empties):
    """Against the exact solution: in every won position (a sample, seeded), the most visited
    move wins."""
    sample = positions(empties)
    sample = [sample[i] for i in np.random.default_rng(empties).choice(len(sample), 25, replace=False)]
    checked = 0
    for cells in sample:
        player = 1 if cells.count(".") % 2 == hex3.CELLS % 2 else 2
        if not solve(cells, player):
            continue
        tree, done, full = search(cells, 2000)
        assert (done, full) == (2000, False)
        move = best(tree)
        after = cells[:move] + str(player) + cells[move + 1:]
        assert cells[move] == "." and not solve(after, 3 - player), (cells, move)
        checked += 1
    assert checked >= 5


def test_the_empty_board_opens_with_a_winning_move():
    winning = {m for m in range(9) if not solve("." * m + "1" + "." * (8 - m), 2)}
    assert winning == {2, 3, 4, 5, 6}  # the short diagonal and the middle row
    for seed in (1, 2, 3):
        tree, done, _ = search("." * 9, 4000, seed=seed)
        assert done == 4000 and best(tree) in winning


def test_visits_wins_and_amaf_add_up():
    tree, done, _ = search("." * 9, 3000, seed=5)
    V, I, meta = tree
    root = uct.root(tree)
    kids = list(uct.children(tree, root))
    assert root == 0 and V[uct.VN, root] == 3000
    assert sorted(int(I[uct.IMOVE, ch]) for ch in kids) == list(range(9))
    assert V[uct.VN, kids].sum() == 3000  # every iteration went through one root move
    assert (V[uct.VW, :meta[0]] <= V[uct.VN, :meta[0]]).all()
    assert (V[uct.VW, :meta[0]] == np.floor(V[uct.VW, :meta[0]])).all()  # no draws: no half wins
    assert (V[uct.RW, :meta[0]] <= V[uct.RN, :meta[0]]).all()
    # AMAF: a root move is counted whenever player 1 played it in the iteration, so every
    # iteration counts for the five cells player 1 fills (the board always fills up, or wins)
    assert (V[uct.RN, kids] >= V[uct.VN, kids]).all()
    assert (V[uct.PN, kids] == PARAMS[0]).all() and (V[uct.PW, kids] == PARAMS[1]).all()
    assert uct.value(tree, kids[4]) == pytest.approx(V[uct.VW, kids[4]] / V[uct.VN, kids[4]])
    assert sum(v for _, v in uct.root_votes(tree)) == 3000


@pytest.mark.parametrize("distance, counted", [(0.0, [1.0, 1.0, 0.0, 1.0]), (3.0, [3.5, 1.5, 0.0, 1.0])])
def test_amaf_weighs_a_move_by_how_soon_it_was_played(distance, counted):
    V, I, meta = uct.new_tree(100)
    moves = np.arange(4, dtype=np.int32)
    assert uct.attach(V, I, meta, 0, moves, np.zeros((2, 4), np.float32), 4)
    amaf = np.zeros(4, np.int32)
    amaf[0] = 1 + 4 * 1  # player 1's first playout move (ply 0 of 5)
    amaf[1] = 1 + 4 * 5  # player 1's fifth, the iteration's last
    amaf[2] = 2 + 4 * 2  # player 2's: not player 1's move, not counted at the root
    amaf[3] = 1  # player 1's, with no time given: counted once
    uct.backup(V, I, np.zeros(1, np.int32), 0, 1, 1.0, amaf, distance)
    # Pachi's weight 1 + distance * (L - ply) / (L - i + 1), L = 5 plies, the root's turn i = 0
    assert list(V[uct.RN, 1:5]) == pytest.approx(counted) and list(V[uct.RW, 1:5]) == pytest.approx(counted)


def test_the_same_seed_gives_the_same_tree():
    a, _, _ = search("1.2......", 1500, seed=9)
    b, _, _ = search("1.2......", 1500, seed=9)
    c, _, _ = search("1.2......", 1500, seed=10)
    assert uct.root_votes(a) == uct.root_votes(b) and (a.V == b.V).all()
    assert uct.root_votes(a) != uct.root_votes(c)


def test_the_root_mask_filters_only_the_root():
    mask = np.zeros(9, np.uint8)
    mask[[0, 8]] = 1
    tree, done, _ = search("." * 9, 500, mask=mask)
    assert done == 500
    assert {int(tree.I[uct.IMOVE, ch]) for ch in uct.children(tree, 0)} == {0, 8}
    deeper = [ch for ch in uct.children(tree, 0) if tree.I[uct.INCHILD, ch]]
    assert deeper and all(tree.I[uct.INCHILD, ch] == 8 for ch in deeper)  # all 8 empty cells


def test_restrict_root_keeps_the_search_off_masked_moves():
    tree, _, _ = search("." * 9, 300)
    before = {int(tree.I[uct.IMOVE, ch]): float(tree.V[uct.VN, ch]) for ch in uct.children(tree, 0)}
    mask = np.ones(9, np.uint8)
    mask[4] = 0
    uct.restrict_root(tree, mask)
    search("." * 9, 600, tree=tree, seed=2)
    after = {int(tree.I[uct.IMOVE, ch]): float(tree.V[uct.VN, ch]) for ch in uct.children(tree, 0)}
    assert after[4] == before[4]  # the centre got no visit more
    assert sum(after.values()) == sum(before.values()) + 600


def test_reroot_reuses_the_subtree_of_two_moves():
    tree, _, _ = search("." * 9, 3000, seed=4)
    mine = best(tree)
    node = int(uct.child_of(tree.I, 0, mine))
    reply = max(uct.children(tree, node), key=lambda ch: tree.V[uct.VN, ch])
    theirs = int(tree.I[uct.IMOVE, reply])
    old = float(tree.V[uct.VN, reply])
    assert not uct.reroot(tree, [mine, 99])  # no such child: nothing changes
    assert uct.root(tree) == 0
    assert uct.reroot(tree, [mine, theirs]) and uct.root(tree) == reply
    cells = ["."] * 9
    cells[mine], cells[theirs] = "1", "2"
    search("".join(cells), 400, tree=tree)
    assert tree.V[uct.VN, reply] == old + 400
    assert {m for m, _ in uct.root_votes(tree)} <= set(range(9)) - {mine, theirs}
    assert not uct.reroot(tree, [], max_fill=0.0)  # too full to reuse
    nodes = int(tree.meta[uct.NODES])
    assert not uct.reroot(tree, [], max_nodes=nodes)  # too many nodes to keep between moves
    assert uct.reroot(tree, [], max_nodes=nodes + 1)


def walk(tree, node=0, cells="." * 9, player=1):
    """(node, its diagram, the player to move there) for every node of the tree below `node`."""
    yield node, cells, player
    for ch in uct.children(tree, node):
        m = int(tree.I[uct.IMOVE, ch])
        yield from walk(tree, ch, cells[:m] + str(player) + cells[m + 1:], 3 - player)


def knowing_search(cells: str, iterations: int, seed: int = 1, tree=None):
    pos = position(cells)
    tree = uct.new_tree(50_000) if tree is None else tree
    hex3.seed(seed)
    done, _ = hex3.KNOWING.search(tree, pos, hex3.knowing_params(), NO_MASK, hex3.KNOWING.scratch(hex3.CELLS),
                                  time.monotonic() + FAR, iterations, False)
    return tree, done


def test_knowledge_proves_and_prunes_only_what_is_true():
    """With exact knowledge at 16 visits: every node the tree marks proven is lost for the
    player to move (the toy proves only losses), every child ruled out loses for its mover,
    the visits after a proof all go the proven way, and the search still plays a winning
    move from every won position."""
    proven = ruled_out = 0
    for cells in ["." * 9] + positions(6)[::7] + positions(5)[::5]:
        start = 1 if cells.count("1") == cells.count("2") else 2
        tree, _ = knowing_search(cells, 1500)
        V, I = tree.V, tree.I
        for node, at, player in walk(tree, 0, cells, start):
            if I[uct.ICHILD, node] <= uct.PROVEN_WIN:
                proven += 1
                assert I[uct.ICHILD, node] == uct.PROVEN_LOSS and not solve(at, player)
                assert V[uct.PN, node] >= uct.SURE_VISITS and V[uct.PW, node] >= uct.SURE_VISITS  # a sure win
                # its mover won every visit since the proof (at most KNOW_VISITS came before it)
                assert V[uct.VN, node] - V[uct.VW, node] <= hex3.KNOW_VISITS
            for ch in uct.children(tree, node):
                if V[uct.PN, ch] >= uct.SURE_VISITS and V[uct.PW, ch] < uct.SURE_VISITS / 2:  # (not a proven win)
                    ruled_out += 1
                    m = int(I[uct.IMOVE, ch])
                    assert solve(at[:m] + str(player) + at[m + 1:], 3 - player)  # the reply wins
        if solve(cells, start):
            m = best(tree)
            assert not solve(cells[:m] + str(start) + cells[m + 1:], 3 - start), cells
    assert proven > 10 and ruled_out > 10


def test_knowledge_off_changes_nothing():
    """A kernel with knowledge at 0 visits searches exactly as one without it."""
    a, _, _ = search("1.2......", 1500, seed=9)
    b, _, _ = search("1.2......", 1500, seed=9, policy=(uct.EXPAND_VISITS, uct.RAVE_EQUIV, 0, 0))
    assert (a.V == b.V).all() and (a.I == b.I).all()


def test_reroot_onto_a_proven_node_lists_its_moves_again():
    root = "....1...."  # lost for 2, to move: after each move of 2, 1's winning reply is proven
    tree, _ = knowing_search(root, 3000)
    I = tree.I
    proven = [(node, at) for node, at, _ in walk(tree, 0, root, 2)
              if I[uct.ICHILD, node] == uct.PROVEN_LOSS and at.count(".") == 6]
    assert proven
    node, at = proven[0]
    moves = [m for m in range(9) if at[m] != root[m]]
    moves.sort(key=lambda m: at[m] != "2")  # 2's move first, then 1's
    assert uct.reroot(tree, moves) and uct.root(tree) == node
    assert I[uct.ICHILD, node] == -1 and I[uct.INCHILD, node] == 0
    knowing_search(at, 300, tree=tree)
    assert uct.root_votes(tree)  # the new root was expanded and searched


def resident_mb() -> float:
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the resident memory from /proc")
def test_a_tree_takes_memory_only_as_it_fills():
    before = resident_mb()
    tree = uct.new_tree(uct.CAPACITY)  # room for 8 million nodes: 288 MB if it were all touched
    assert resident_mb() - before < 20
    search("." * 9, 2000, tree=tree)
    assert resident_mb() - before < 20
    del tree


def test_a_full_tree_stops_the_search():
    pos = position("." * 9)
    tree = uct.new_tree(60)  # the root's 9 children and a few expansions
    hex3.seed(1)
    done, full = SEARCH.search(tree, pos, PARAMS, NO_MASK, SEARCH.scratch(9), time.monotonic() + FAR, 5000)
    assert full and 0 < done < 5000
    assert tree.meta[0] <= 60 and tree.V[uct.VN, 0] == done


def test_the_early_stop_ends_a_search_whose_move_is_forced():
    """One empty cell: one root move, so the choice is made after the first four chunks."""
    tree, done, full = search("11122122.", 10_000, early_stop=True, chunk=64)
    assert (done, full) == (4 * 64, False)
    tree, done, _ = search("." * 9, 2000, early_stop=True, chunk=64)
    assert done == 2000  # a real choice and time to spare: no early stop before the cap


def test_the_deadline_stops_the_search():
    tree = uct.new_tree(200_000)
    t = time.monotonic()
    done, full = SEARCH.search(tree, position("." * 9), PARAMS, NO_MASK, SEARCH.scratch(9), t + 0.05,
                               early_stop=False)
    assert 0 < done and not full
    assert time.monotonic() - t < 1.0


def test_no_chunk_starts_that_could_end_past_the_deadline():
    """Iterations of about 3 ms in chunks of 16: a chunk takes about 50 ms, and the search
    stops by the deadline (20 ms allowed for a loaded machine) instead of running up to a
    chunk past it."""
    tree = uct.new_tree(20_000)
    params = PARAMS + (3e6,)  # xorshift steps a playout (about 3 ms)
    scratch = hex3.SLOW.scratch(hex3.CELLS)
    hex3.SLOW.search(tree, position("." * 9), params, NO_MASK, scratch, time.monotonic() + FAR, 1)  # compiled
    for budget in (0.4, 0.45, 0.5, 0.55):
        tree = uct.new_tree(20_000)
        deadline = time.monotonic() + budget
        done, _ = hex3.SLOW.search(tree, position("." * 9), params, NO_MASK, scratch, deadline,
                                   early_stop=False, chunk=16)
        assert done >= 16 and time.monotonic() <= deadline + 0.02, (budget, done, time.monotonic() - deadline)


def test_expand_lists_the_children_without_iterating():
    tree = uct.new_tree(100)
    assert SEARCH.expand(tree, 0, position("1.2......"), PARAMS, NO_MASK, SEARCH.scratch(9))
    assert [int(tree.I[uct.IMOVE, ch]) for ch in uct.children(tree, 0)] == [1, 3, 4, 5, 6, 7, 8]
    assert tree.V[uct.VN, 0] == 0 and not uct.root_votes(tree)
    assert not SEARCH.expand(uct.new_tree(100), 0, position("121212121"), PARAMS, NO_MASK, SEARCH.scratch(9))


def test_kernel_names_must_be_identifiers():
    with pytest.raises(ValueError):
        uct.Kernel(SEARCH.game, "hex 3")


@pytest.mark.slow
def test_a_second_process_loads_the_specialised_search_from_the_disk_cache(tmp_path):
    """The first process compiles the toy's search and saves it in NUMBA_CACHE_DIR; the second
    loads it (a hit, no compilation), and nothing is written next to the sources."""
    code = ("import time, numpy as np; from tests.search import hex3; from search import uct; "
            "tree = uct.new_tree(1000); "
            "hex3.SEARCH.search(tree, hex3.position('.' * 9), hex3.PARAMS, np.zeros(0, np.uint8), "
            "hex3.SEARCH.scratch(9), time.monotonic() + 60, 50); s = hex3.SEARCH.run.stats; "
            "print(sum(s.cache_hits.values()), sum(s.cache_misses.values()), uct.CACHE)")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr[-2000:] + runs[1].stderr[-2000:]
    assert runs[0].stdout.split() == ["0", "1", "True"]  # compiled, saved
    assert runs[1].stdout.split() == ["1", "0", "True"]  # loaded
    saved = [p.name for p in tmp_path.rglob("*.nbi")]
    assert any(name.startswith("uct.run_hex3_toy_") for name in saved)
    assert not list((ROOT / "search").rglob("*.nb[ic]")) and not list((ROOT / "tests").rglob("*.nb[ic]"))


def test_the_search_is_named_for_the_game_and_its_sources():
    """A game's kernel file changing gives its search a new cache name (numba checks this file)."""
    name = SEARCH.run.py_func.__qualname__
    assert name.startswith("run_hex3_toy_") and name == uct.specialise(SEARCH.game, "hex3_toy").py_func.__qualname__
    assert uct._digest(SEARCH.game) != uct._digest(uct.GameKernels(*([uct.select] * 6)))
