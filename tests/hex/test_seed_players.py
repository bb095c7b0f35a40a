"""The seed's four computer players (bots.hex.seed): legality, Path's rule, MindPath's plan,
Bruteforce's costs against a brute-force enumeration, wins and blocks."""

from __future__ import annotations

import random

import pytest

from protocol.errors import UsageError
from search.budget import Budget

from bots.hex import board as B
from bots.hex.seed import (INF, PLAYERS, Bruteforce, MindPath, Path, Random, costs_after, edges,
                           path_cost, shortest_path, step_weight, winning_cells)

BUDGET = Budget(5.0)


class Swapper:
    """An opponent that swaps whenever it can, else plays a random cell."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, state, context, budget):
        if state.swap_allowed():
            return type("R", (), {"move": B.SWAP})()
        return Random(seed=self.rng.random()).choose(state, context, budget)


def play_game(black, white, width, height, swap=False):
    s = B.empty(width, height, swap=swap)
    players = {B.BLACK: black, B.WHITE: white}
    while not s.is_terminal():
        p = players[s.to_move]
        move = p.choose(s, None, BUDGET).move
        if not isinstance(p, Swapper):
            assert move != B.SWAP, f"{type(p).__name__} swapped"
        assert s.is_legal(move), f"{type(p).__name__} played illegal {move!r} on\n{B.render(s)}"
        s = s.play(move)
    return s


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_legal_moves_in_many_games(name):
    cls = PLAYERS[name]
    sizes = [(1, 1), (2, 2), (3, 3), (5, 5), (4, 7), (7, 4), (6, 6), (9, 9)]
    for i, (w, h) in enumerate(sizes):
        for g in range(6):
            swap = g % 2 == 1
            me = cls(seed=100 * i + g)  # one player object for all its games: memory resets
            other = [Random(seed=g), Swapper(g), Path(seed=g), Bruteforce(seed=g)][g % 4]
            s = play_game(me, other, w, h, swap) if g % 3 else play_game(other, me, w, h, swap)
            assert s.winner() in (B.BLACK, B.WHITE)


def test_no_move_on_a_finished_game():
    s = B.from_rows(["B-", "B-"], to_move=B.WHITE)
    assert s.is_terminal()
    for cls in PLAYERS.values():
        with pytest.raises(UsageError):
            cls(seed=1).choose(s, None, BUDGET)


@pytest.mark.parametrize("w,h", [(7, 7), (5, 8), (8, 5), (3, 3)])
def test_path_first_move_is_on_its_edge_never_at_an_end(w, h):
    seen_black, seen_white = set(), set()
    for seed in range(40):
        s = B.empty(w, h)
        m = Path(seed=seed).choose(s, None, BUDGET).move
        row, col = divmod(m, w)
        assert row == 0 and 1 <= col <= w - 2
        seen_black.add(col)
        s = s.play(B.from_seed(h - 1, w - 1, w) if m != B.from_seed(h - 1, w - 1, w) else 0)
        m = Path(seed=seed).choose(s, None, BUDGET).move
        row, col = divmod(m, w)
        assert col == 0 and 1 <= row <= h - 2
        seen_white.add(row)
    assert seen_black == set(range(1, w - 1))  # every inner cell comes up: it is random
    assert seen_white == set(range(1, h - 1))


def test_path_first_move_on_tiny_or_taken_edges():
    # 2 wide: no inner cell, any free cell of the edge
    for seed in range(10):
        m = Path(seed=seed).choose(B.empty(2, 3), None, BUDGET).move
        assert m in (0, 1)
    # inner edge cells all taken: a free end cell of the edge
    s = B.from_rows(["-WWW-", "-----", "-----", "-----", "----W"], to_move=B.BLACK)
    for seed in range(10):
        assert Path(seed=seed).choose(s, None, BUDGET).move in (0, 4)
    # the whole edge taken: some empty cell
    s = B.from_rows(["WBWBW", "-----", "-----", "-----", "-----"], to_move=B.BLACK)
    for seed in range(10):
        assert s.at(Path(seed=seed).choose(s, None, BUDGET).move) == B.EMPTY


@pytest.mark.parametrize("colour", [B.BLACK, B.WHITE])
def test_path_follows_the_best_weight_from_its_last_stone(colour):
    checked = {1: 0, 0: 0, -1: 0, None: 0}
    for g in range(30):
        w, h = (7, 7) if g % 2 else (6, 8)
        path, other = Path(seed=g), Random(seed=1000 + g)
        s = B.empty(w, h)
        while not s.is_terminal():
            if s.to_move != colour:
                s = s.play(other.choose(s, None, BUDGET).move)
                continue
            prev = path.last
            move = path.choose(s, None, BUDGET).move
            assert path.last == move
            if prev is not None:  # not our first move: the rule from our last stone
                free = [n for n in B.neighbours(w, h)[prev] if s.at(n) == B.EMPTY]
                if free:
                    best = max(step_weight(prev, n, w, colour) for n in free)
                    assert move in free and step_weight(prev, move, w, colour) == best
                    checked[best] += 1
                else:
                    checked[None] += 1
            s = s.play(move)
    assert checked[1] > 50 and checked[0] > 0  # forward steps dominate, sideways happen


def test_path_forward_means_down_for_black_and_right_for_white():
    w = 5
    centre = B.from_seed(2, 2, w)
    down = {B.from_seed(3, 1, w), B.from_seed(3, 2, w)}
    right = {B.from_seed(1, 3, w), B.from_seed(2, 3, w)}
    for n in B.neighbours(w, w)[centre]:
        assert (step_weight(centre, n, w, B.BLACK) == 1) == (n in down)
        assert (step_weight(centre, n, w, B.WHITE) == 1) == (n in right)


def test_path_starts_over_in_a_new_game_or_after_a_swap():
    p = Path(seed=5)
    first = p.choose(B.empty(6), None, BUDGET).move
    assert divmod(first, 6)[0] == 0
    again = p.choose(B.empty(6), None, BUDGET).move  # a new game: a first move again
    assert divmod(again, 6)[0] == 0
    s = B.empty(6, swap=True)
    first = p.choose(s, None, BUDGET).move
    s = s.play(first).play(B.SWAP)  # our stone became White's: Black starts over
    m = p.choose(s, None, BUDGET).move
    assert divmod(m, 6)[0] == 0 and s.is_legal(m)
    # a state that does not follow (another size; a board without our last stone)
    assert divmod(p.choose(B.empty(5, 7), None, BUDGET).move, 5)[0] == 0
    p.choose(B.empty(6), None, BUDGET)
    last = p.last
    s = B.from_rows(["------", "------", "------", "------", "------", "-----W"], to_move=B.BLACK)
    assert s.at(last) == B.EMPTY and divmod(p.choose(s, None, BUDGET).move, 6)[0] == 0


def is_chain(cells, w, h, colour, board):
    start, goal = edges(w, h, colour)
    nb = B.neighbours(w, h)
    return (cells[0] in start and cells[-1] in goal
            and all(b in nb[a] for a, b in zip(cells, cells[1:], strict=False))
            and all(board[c] in (B.EMPTY, colour) for c in cells))


def test_mind_path_plans_then_fills_its_plan():
    for seed in range(10):
        mp = MindPath(seed=seed)
        s = B.empty(7)
        move = mp.choose(s, None, BUDGET).move
        plan = mp.plan
        assert is_chain(plan, 7, 7, B.BLACK, s.board) and move == plan[0]
        assert 1 <= plan[0] <= 5  # Path's first-move rule
        s = s.play(move)
        far = next(c for c in reversed(range(49)) if c not in plan and s.at(c) == B.EMPTY)
        s = s.play(far)  # White plays off the plan: the plan stands
        move = mp.choose(s, None, BUDGET).move
        assert mp.plan == plan and move == plan[1]


def test_mind_path_replans_after_a_block():
    for seed in range(10):
        mp = MindPath(seed=seed)
        s = B.empty(7)
        for turn in range(2):  # two stones of the plan; White answers off the plan once
            s = s.play(mp.choose(s, None, BUDGET).move)
            if turn == 0:
                plan = mp.plan
                s = s.play(next(c for c in range(48, -1, -1) if c not in plan and s.at(c) == B.EMPTY))
        assert s.to_move == B.WHITE
        plan = mp.plan
        last = mp._memory.last
        block = next(c for c in plan if s.at(c) == B.EMPTY)
        s = s.play(block)  # White lands on the plan's next cell
        move = mp.choose(s, None, BUDGET).move
        new = mp.plan
        assert new != plan and block not in new and last in new
        assert is_chain(new, 7, 7, B.BLACK, s.board)
        assert move == next(c for c in new if s.at(c) == B.EMPTY)
        # a shortest re-plan: as few empty cells as any chain through the last stone
        assert sum(s.at(c) == B.EMPTY for c in new) == len(
            [c for c in shortest_path(s.board, 7, 7, B.BLACK, via=last) if s.at(c) == B.EMPTY])


def test_shortest_path_is_a_cheapest_chain():
    rng = random.Random(7)
    for _ in range(200):
        w, h = rng.randint(2, 6), rng.randint(2, 6)
        s = random_board(rng, w, h)
        for colour in (B.BLACK, B.WHITE):
            chain = shortest_path(s.board, w, h, colour)
            cost = path_cost(s.board, w, h, colour)
            if cost >= INF:
                assert chain is None
            else:
                assert is_chain(chain, w, h, colour, s.board)
                assert sum(s.at(c) == B.EMPTY for c in chain) == cost


# -- Bruteforce ------------------------------------------------------------------------------

def brute_cost(board, w, h, colour):
    """The seed's idea done by enumeration: every simple chain from the start edge to the goal
    edge (opponent stones excluded), the least number of empty cells on one."""
    start, goal = edges(w, h, colour)
    goal = set(goal)
    nb = B.neighbours(w, h)
    best = [INF]

    def dfs(cell, seen, cost):
        cost += board[cell] == B.EMPTY
        if cost >= best[0]:
            return
        if cell in goal:
            best[0] = cost
            return
        for n in nb[cell]:
            if n not in seen and board[n] != 3 - colour:
                seen.add(n)
                dfs(n, seen, cost)
                seen.discard(n)

    for c in start:
        if board[c] != 3 - colour:
            dfs(c, {c}, 0)
    return best[0]


def random_board(rng, w, h):
    cells = bytes(rng.choice((0, 0, 0, 1, 2)) for _ in range(w * h))
    return B.State(w, h, cells, rng.choice((B.BLACK, B.WHITE)), plies=w * h - cells.count(0))


def test_bfs_costs_equal_brute_force_enumeration():
    rng = random.Random(2015)
    for _ in range(120):
        w, h = rng.randint(1, 4), rng.randint(1, 4)
        s = random_board(rng, w, h)
        for colour in (B.BLACK, B.WHITE):
            assert path_cost(s.board, w, h, colour) == brute_cost(s.board, w, h, colour)
            for cell, cost in costs_after(s.board, w, h, colour).items():
                after = bytearray(s.board)
                after[cell] = colour
                assert cost == brute_cost(bytes(after), w, h, colour), (w, h, s.board, colour, cell)


def test_bruteforce_scores_equal_brute_force_enumeration():
    rng = random.Random(4)
    checked = 0
    for _ in range(80):
        w, h = rng.randint(2, 4), rng.randint(2, 4)
        s = random_board(rng, w, h)
        if s.is_terminal():
            continue
        me, you = s.to_move, 3 - s.to_move
        scores = Bruteforce(seed=1).scores(s)
        own = {}
        for cell in range(w * h):
            if s.at(cell) == B.EMPTY:
                after = bytearray(s.board)
                after[cell] = me
                own[cell] = (brute_cost(bytes(after), w, h, me), brute_cost(bytes(after), w, h, you))
        least = min(k[0] for k in own.values())
        assert scores == {c: k for c, k in own.items() if k[0] == least}
        checked += 1
    assert checked > 40


def test_bruteforce_plays_its_best_cell():
    rng = random.Random(9)
    for _ in range(30):
        s = random_board(rng, 4, 4)
        if s.is_terminal():
            continue
        scores = Bruteforce(seed=2).scores(s)
        move = Bruteforce(seed=3).choose(s, None, BUDGET).move
        assert scores[move] == min(scores.values(), key=lambda k: (k[0], -k[1]))


WIN_FOR_BLACK = ["-B---",
                 "-B---",
                 "--W--",
                 "B-W--",
                 "B-W-W"]  # Black to move: a3 or b3 joins b1-b2 to a4-a5


def test_bruteforce_wins_in_one():
    s = B.from_rows(WIN_FOR_BLACK, to_move=B.BLACK)
    assert sorted(winning_cells(s.board, 5, 5, B.BLACK)) == [B.parse_cell("a3", 5, 5), B.parse_cell("b3", 5, 5)]
    for seed in range(5):
        move = Bruteforce(seed=seed).choose(s, None, BUDGET).move
        assert s.play(move).winner() == B.BLACK


def test_bruteforce_blocks_a_win_in_one():
    # White joins left to right along row 3 with d3, its only winning cell
    s = B.from_rows(["B----",
                     "-----",
                     "WWW-W",
                     "B----",
                     "-B---"], to_move=B.BLACK)
    d3 = B.parse_cell("d3", 5, 5)
    assert winning_cells(s.board, 5, 5, B.WHITE) == [d3] and not winning_cells(s.board, 5, 5, B.BLACK)
    for seed in range(5):
        assert Bruteforce(seed=seed).choose(s, None, BUDGET).move == d3
    # and as White, blocking Black's column
    s = B.from_rows(["-B---",
                     "-B--W",
                     "-----",
                     "-B---",
                     "WB--W"], to_move=B.WHITE)
    b3 = B.parse_cell("b3", 5, 5)
    assert winning_cells(s.board, 5, 5, B.BLACK) == [b3] and not winning_cells(s.board, 5, 5, B.WHITE)
    for seed in range(5):
        assert Bruteforce(seed=seed).choose(s, None, BUDGET).move == b3
