"""The Go players (bots/go/players.py, mcts.py, alphabeta.py), the fallback move (fallback.py),
the opening book (book.py, bookmaker.py) and the vote merging of bots/decide.py.

Players are built through `bots.players.make_player` and asked for moves directly (no worker
processes), with small budgets: 0.05 s per move or a cap on MCTS iterations.
"""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from bots.go import book, bookmaker
from bots.go import kernel as K
from bots.go.alphabeta import BOOK_MOVES, AlphaBeta
from bots.go.board import (
    BLACK,
    PASS,
    WHITE,
    State,
    empty,
    from_diagram,
    from_moves,
    parse_point,
    point_name,
    setup,
)
from bots.decide import decide, merge
from bots.go.mcts import MCTS, padded, to_kernel, moves_between, unpadded
from bots.players import PlayerError, make_player
from bots.runner import MoveReport
from search.budget import Budget, SearchResult
from search.contracts import Context
from tests.go.oracle import Board
from tests.helpers import ScriptedRunner


def P(name: str, size: int = 9) -> int:
    return parse_point(name, size)


def play_game(black, white, state: State, budget_for, max_moves: int = 400, context=None) -> State:
    """Play to the end, asserting every move is legal under the full rules."""
    players = {BLACK: black, WHITE: white}
    for _ in range(max_moves):
        if state.is_terminal():
            break
        result = players[state.to_move].choose(state, context, budget_for(players[state.to_move]))
        assert isinstance(result, SearchResult)
        assert state.is_legal(result.move), (point_name(result.move, state.size), state)
        state = state.play(result.move)
    return state


# -- building players -----------------------------------------------------------------------

def test_make_player_builds_each_go_player_with_typed_options():
    rnd = make_player("go", "random", {"seed": "7"})
    assert rnd.seed == 7
    ab = make_player("go", "alphabeta", {"min_depth": "1", "max_depth": "3", "huge_capture": "4", "seed": "2"})
    assert isinstance(ab, AlphaBeta) and (ab.min_depth, ab.max_depth, ab.huge_capture) == (1, 3, 4)
    assert ab._depth == 1  # starts at the minimum depth
    mc = make_player("go", "mcts", {"playouts": "300", "heavy": "no", "use_book": "false", "reuse": "0",
                                    "early_stop": "off", "capacity": "20000", "seed": "5"})
    assert isinstance(mc, MCTS)
    assert (mc.playouts, mc.heavy, mc.use_book, mc.reuse, mc.early_stop, mc.capacity, mc.seed) == \
        (300, False, False, False, False, 20000, 5)
    assert make_player("go", "mcts", {"playouts": "none"}).playouts is None
    assert make_player("go", "mcts").parallel is True  # its workers vote
    assert not getattr(make_player("go", "alphabeta"), "parallel", False)


@pytest.mark.parametrize("name, params, words", [
    ("nobody", {}, ["nobody", "alphabeta", "mcts", "random"]),
    ("mcts", {"playout": "3"}, ["no option", "playout"]),
    ("mcts", {"playouts": "many"}, ["mcts.playouts", "many"]),
    ("mcts", {"heavy": "maybe"}, ["mcts.heavy", "true or false"]),
    ("mcts", {"capacity": "5"}, ["capacity", "10000"]),
    ("alphabeta", {"min_depth": "3", "max_depth": "2"}, ["min_depth <= max_depth"]),
    ("alphabeta", {"min_depth": "0"}, ["min_depth"]),
    ("alphabeta", {"max_depth": "2.5"}, ["alphabeta.max_depth"]),
    ("random", {"depth": "2"}, ["no option", "depth"]),
])
def test_bad_player_names_and_options_are_player_errors(name, params, words):
    with pytest.raises(PlayerError) as info:
        make_player("go", name, params)
    for word in words:
        assert word in str(info.value)


def test_random_player_is_reproducible_with_a_seed():
    a, b = make_player("go", "random", {"seed": "3"}), make_player("go", "random", {"seed": "3"})
    state = empty(9)
    for _ in range(30):
        ma = a.choose(state, None, Budget(0.05)).move
        assert b.choose(state, None, Budget(0.05)).move == ma
        state = state.play(ma)


# -- legal moves over whole games ---------------------------------------------------------------

def budget_for(player):
    return Budget(0.05) if isinstance(player, AlphaBeta) else Budget(5.0, nodes=150)


@pytest.mark.slow
@pytest.mark.parametrize("superko", ["positional", "goban"])
def test_every_player_plays_legal_moves_over_whole_games(superko):
    rnd = make_player("go", "random", {"seed": "1"})
    ab = make_player("go", "alphabeta", {"seed": "1"})
    mc = make_player("go", "mcts", {"seed": "1", "capacity": "100000"})
    for black, white in ((ab, mc), (mc, rnd), (rnd, ab)):
        final = play_game(black, white, empty(7, superko=superko), budget_for)
        assert final.is_terminal()


def test_alphabeta_plays_depth_one_when_its_clock_is_almost_gone():
    ab = AlphaBeta(seed=1)
    state = from_moves(9, ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6", "C4", "D3", "C3",
                           "F7", "G3", "E7", "G6"])
    assert ab._ply(state) >= BOOK_MOVES + 1
    result = ab.choose(state, Context(time_left=5.0), Budget(1.0))
    assert state.is_legal(result.move) and result.depth == 1
    result = ab.choose(state, Context(time_left=30.0), Budget(2.0))
    assert state.is_legal(result.move) and result.depth <= 2


# A ko White could retake at C3 (capturing D3) as far as the board alone says (simple ko
# cleared, as after a pass), but the board after the retake is the position before Black took
# the ko: positional superko forbids it.  Everything else White could play is an own eye (E5,
# E1) or suicide (A5, A3, A1), so the only legal move is PASS.
BEFORE_KO = """
    . X X O .
    X X X O O
    . X O . O
    X X X O O
    . X X O .
"""


def superko_position() -> State:
    before = from_diagram(BEFORE_KO, to_move=BLACK)
    after = before.play(P("D3", 5))  # Black takes the ko
    assert after.ko == P("C3", 5)
    return after._replace(ko=PASS)  # the simple-ko mark is gone; the history still has `before`


def test_superko_position_is_what_it_claims():
    state = superko_position()
    board = Board(state)
    c3 = P("C3", 5)
    fast = [p for p in range(25) if board.is_legal(p) and not board.is_eye(p, WHITE)]
    assert fast == [c3]  # the fast test (and the kernel) would play the retake...
    B, S = to_kernel(state)
    out = np.empty(B.shape[1], np.int32)
    assert out[:K.moves(B, S, out)].tolist() == [padded(c3, 5)]
    assert not state.is_legal(c3)  # ...which superko forbids
    assert state.legal_moves() == [P("E1", 5), P("E5", 5), PASS]  # own eyes and the pass


@pytest.mark.parametrize("name, params", [
    ("random", {"seed": "1"}),
    ("alphabeta", {"seed": "1"}),
    ("mcts", {"seed": "1", "playouts": "300", "capacity": "20000"}),
    ("mcts", {"seed": "2", "playouts": "300", "capacity": "20000", "early_stop": "false"}),
])
def test_no_player_returns_a_superko_recapture(name, params):
    state = superko_position()
    for _ in range(3):
        player = make_player("go", name, params)
        move = player.choose(state, None, Budget(0.3, nodes=300)).move
        assert move == PASS, point_name(move, 5)
    # with the simple-ko mark in place too
    state = state._replace(ko=P("C3", 5))
    assert make_player("go", name, params).choose(state, None, Budget(0.3, nodes=300)).move == PASS


# -- mcts: passing, capturing, tree reuse -----------------------------------------------------------

# Black: column E and everything left of it (45 points of area); White: columns F-J, full of
# White stones but for three one-point eyes (36; Black cannot play inside).  B+1.5 with komi
# 7.5 -- unless a dead White stone sits in Black's area: A9 makes the whole left side neutral
# (W+35.5 on the bare board) until Black captures it, which is then the only way to win.
WALLS = ["....XOOOO", "....XOO.O", "....XOOOO", "....XOOOO", "....XOO.O",
         "....XOOOO", "....XOOOO", "....XOO.O", "....XOOOO"]


def walls(dead: bool) -> State:
    rows = list(WALLS)
    if dead:
        rows[0] = "O" + rows[0][1:]
    return from_diagram("\n".join(rows), to_move=WHITE).play(PASS)  # White passed; Black to move


def test_mcts_passes_after_a_pass_when_the_board_wins():
    state = walls(dead=False)
    assert state.passes == 1 and state.score() == 1.5
    result = MCTS(seed=1, use_book=False, capacity=20_000).choose(state, None, Budget(1.0, nodes=500))
    assert result.move == PASS and result.nodes == 0
    # and as White, when the board wins for White
    white = from_diagram("\n".join(WALLS), to_move=BLACK, komi=10.5).play(PASS)
    assert white.to_move == WHITE and white.score() < 0
    assert MCTS(seed=1, use_book=False, capacity=20_000).choose(white, None, Budget(1.0, nodes=500)).move == PASS


@pytest.mark.parametrize("seed", [1, 3])
def test_mcts_captures_a_dead_stone_instead_of_passing(seed):
    """White passes every time.  Black must not pass while the dead stone stands (that loses
    on the bare board); filling its own area first costs nothing under area scoring (and the
    search does that for a while: playouts kill the stone anyway), but it captures in the end
    and passes only once the board wins."""
    state = walls(dead=True)
    assert state.score() < 0  # passing now would lose on the bare board
    player = MCTS(seed=seed, use_book=False, capacity=200_000)
    for _ in range(60):
        move = player.choose(state, None, Budget(10.0, nodes=1000)).move
        if move == PASS:
            assert state.board[P("A9")] != WHITE and state.score() > 0
        state = state.play(move)
        if move == PASS:
            break
        state = state.play(PASS)  # White keeps passing
    assert state.is_terminal() and state.winner() == BLACK
    assert state.board[P("A9")] != WHITE and state.captures[0] >= 1


def test_mcts_player_captures_a_big_group_in_atari():
    state = from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . X X X X . . .
        . X O O O O X . .
        . X O O O O . . .
        . . X X X X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move=BLACK)
    result = MCTS(seed=4, use_book=False, capacity=200_000).choose(state, None, Budget(10.0, nodes=3000))
    assert result.move == P("G5")
    assert 0 < result.nodes <= 3000
    assert dict(result.votes)[P("G5")] == max(v for _, v in result.votes)


def test_mcts_without_a_single_playout_plays_what_its_priors_like_not_the_first_move():
    """A budget too small for one playout (the course clock's last seconds, issue 11): the
    capture the priors point at, and on an empty board anything but A1."""
    state = from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . X X X X . . .
        . X O O O O X . .
        . X O O O O . . .
        . . X X X X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move=BLACK)
    result = MCTS(seed=4, use_book=False, capacity=20_000).choose(state, None, Budget(0.0))
    assert result.nodes == 0 and result.move == P("G5")
    empty_board = MCTS(seed=4, use_book=False, capacity=20_000).choose(empty(9), None, Budget(0.0))
    assert empty_board.nodes == 0 and empty_board.move not in (P("A1"), PASS)
    assert empty(9).is_legal(empty_board.move)


def test_mcts_votes_are_legal_root_visits():
    state = from_moves(9, ["E5", "E4", "D4"])
    result = MCTS(seed=2, use_book=False, early_stop=False, capacity=50_000).choose(
        state, None, Budget(10.0, nodes=700))
    assert result.nodes == 700
    moves = [m for m, _ in result.votes]
    assert len(moves) == len(set(moves)) and all(state.is_legal(m) for m in moves)
    assert sum(v for _, v in result.votes) <= 700
    assert result.move == max(result.votes, key=lambda mv: mv[1])[0]
    assert 0.0 <= result.value <= 1.0


def test_mcts_reuses_the_subtree_after_our_move_and_the_reply():
    """What is checked: the player's private `_tree` (V, I, meta arrays) is the same object
    after the second search, its root index `meta[1]` is the grandchild reached by our move
    and the reply, and that node's visit count went on from its old value (old visits + the
    second search's iterations)."""
    player = MCTS(seed=1, use_book=False, early_stop=False, capacity=200_000)
    s0 = from_moves(9, ["E5", "E4"])
    r1 = player.choose(s0, None, Budget(10.0, nodes=800))
    tree = player._tree
    V, I, meta = tree
    assert int(meta[1]) == 0
    mine = int(K.child_of(I, 0, padded(r1.move, 9)))
    assert mine > 0 and I[K.INCHILD, mine] > 0
    first, n = int(I[K.ICHILD, mine]), int(I[K.INCHILD, mine])
    grand = max(range(first, first + n), key=lambda ch: (V[K.VN, ch], -ch))
    reply = int(I[K.IMOVE, grand])
    old_visits = float(V[K.VN, grand])
    assert reply != PASS and old_visits > 0
    s1 = s0.play(r1.move).play(unpadded(reply, 9))
    r2 = player.choose(s1, None, Budget(10.0, nodes=500))
    assert player._tree is tree
    assert int(meta[1]) == grand
    assert V[K.VN, grand] == old_visits + r2.nodes == old_visits + 500
    assert s1.is_legal(r2.move)
    # a position that does not follow from the old root: a fresh tree
    r3 = player.choose(from_moves(9, ["C3"]), None, Budget(10.0, nodes=300))
    assert player._tree is not tree and int(player._tree[2][1]) == 0
    assert player._tree[0][K.VN, 0] == r3.nodes == 300


def test_mcts_without_reuse_starts_every_search_afresh():
    player = MCTS(seed=1, use_book=False, early_stop=False, reuse=False, capacity=100_000)
    s0 = from_moves(9, ["E5", "E4"])
    r1 = player.choose(s0, None, Budget(10.0, nodes=400))
    s1 = s0.play(r1.move).play(P("C7"))
    player.choose(s1, None, Budget(10.0, nodes=400))
    V, _, meta = player._tree
    assert int(meta[1]) == 0 and V[K.VN, 0] == 400


def test_moves_between():
    s0 = from_moves(9, ["E5", "E4"])
    assert moves_between(s0, s0.play("C3").play("G7")) == (P("C3"), P("G7"))
    assert moves_between(s0, s0.play(PASS).play("G7")) == (PASS, P("G7"))
    assert moves_between(s0, s0.play("C3").play(PASS)) == (P("C3"), PASS)
    assert moves_between(s0, s0.play("C3")) == (P("C3"),)  # one move: a pondered position
    assert moves_between(s0, s0.play(PASS)) == (PASS,)
    assert moves_between(s0, s0) == ()
    assert moves_between(s0.play("C3"), s0.play("D3")) is None  # another move, not one more
    assert moves_between(s0, s0.play("C3").play("G7").play("C7").play("G3")) is None
    assert moves_between(s0, from_moves(9, ["C3", "G7"])) is None  # not reachable from s0
    assert moves_between(empty(9), empty(7)) is None
    # our move captures, their reply
    cap = from_diagram("""
        . . . . .
        . . . . .
        . X . . .
        X O . . .
        . X . . .
    """, to_move=BLACK)
    after = cap.play("C2").play("E5")
    assert moves_between(cap, after) == (P("C2", 5), P("E5", 5))
    # their reply captures our stone: some pair leading to the same board is found
    mouth = from_diagram("""
        . . . . .
        . . . . .
        . O . . .
        O . O . .
        . . . . .
    """, to_move=BLACK)
    after = mouth.play("B2").play("B1")
    pair = moves_between(mouth, after)
    assert pair is not None
    replay = mouth.play(pair[0]).play(pair[1])
    assert (replay.board, replay.to_move, replay.ko, replay.passes) == \
        (after.board, after.to_move, after.ko, after.passes)


# -- merging worker votes ----------------------------------------------------------------------

def report(move, votes=(), nodes=100, used=0.5, late=0.0, fallback=None) -> MoveReport:
    return MoveReport(move, 1.0, used, 0, nodes, late, fallback, tuple(votes))


def test_merge_sums_the_votes_of_the_workers():
    a = report(10, [(10, 50), (20, 40), (30, 5)], nodes=95, used=0.9)
    b = report(20, [(20, 30), (10, 10), (40, 7)], nodes=47, used=0.95, late=0.02)
    merged = merge([a, b])
    assert merged.move == 20  # 70 visits against 60
    assert merged.votes == ((10, 60), (20, 70), (30, 5), (40, 7))
    assert merged.nodes == 142 and merged.used == 0.95 and merged.late_by == 0.02
    assert merged.fallback is None


def test_merge_ignores_fallbacks_and_passes_single_reports_through():
    good = report(10, [(10, 5), (20, 4)])
    late = report(33, [(20, 1000)], fallback="worker late", late=0.5, used=1.5)
    merged = merge([late, good])
    assert merged.move == 10  # the late worker's votes do not count
    single = report(7, [(7, 3), (8, 9)])
    assert merge([single]) is single  # one report: as it is, even if its votes disagree
    assert merge([late]) is late
    both_late = [report(1, fallback="worker died"), report(2, fallback="worker late")]
    assert merge(both_late) is both_late[0]
    unvoted = [report(5, nodes=3), report(6, nodes=4)]  # e.g. alphabeta: no votes
    assert merge(unvoted) is unvoted[0]
    assert merge([late, unvoted[1]]) is unvoted[1]


async def test_decide_merges_votes_for_mcts_and_checks_legality():
    state = from_moves(9, ["E5"])
    runner = ScriptedRunner(report(P("C3"), [(P("C3"), 10), (P("D4"), 8)]),
                            report(P("D4"), [(P("D4"), 9), (P("C3"), 1)]), workers=2)
    move, rep = await decide(runner, "go", "mcts", (), state, Budget(1.0))
    assert len(runner.calls) == 2 and move == P("D4") and rep.nodes == 200
    runner = ScriptedRunner(report(P("C3")), workers=2)
    move, _ = await decide(runner, "go", "alphabeta", (), state, Budget(1.0))
    assert len(runner.calls) == 1 and move == P("C3")  # one worker for a player that does not vote
    runner = ScriptedRunner(report(P("E5")))  # occupied: the search's move is not sent
    move, rep = await decide(runner, "go", "random", (), state, Budget(1.0))
    assert state.is_legal(move) and move != P("E5") and "illegal move from the search (occupied)" == rep.fallback


# -- alphabeta: the seed's depth rules, the capture cap, the opening line ------------------------

def test_target_depth_critical_modes():
    ab = AlphaBeta()
    ab._depth = 5
    assert ab._target_depth(None) == 5
    assert ab._target_depth(600.0) == 5
    assert ab._target_depth(60.0) == 5
    assert ab._target_depth(59.9) == 2  # critical mode
    assert ab._target_depth(10.0) == 2
    assert ab._target_depth(9.9) == 1  # ultra critical mode
    assert ab._target_depth(0.5) == 1
    shallow = AlphaBeta(min_depth=1, max_depth=1)
    assert shallow._target_depth(30.0) == 1


def test_adapt_follows_the_seed_rules():
    state = empty(9)  # 81 empty points
    ab = AlphaBeta()
    assert ab._depth == 2
    ab._adapt(1.0, state, None)  # 2 * 1 * 81 <= 1800 - 1: deeper
    assert ab._depth == 3
    ab._adapt(5.0, state, None)  # 2 * 5 * 81 = 810 <= 1795
    assert ab._depth == 4
    ab._adapt(20.0, state, None)  # 3240 > 1780 (no deeper); 1620 <= 1.5 * 1780 (no shallower)
    assert ab._depth == 4
    ab._adapt(40.0, state, None)  # 40 * 81 = 3240 > 1.5 * 1760 = 2640: shallower
    assert ab._depth == 3
    # with 300 s left: deeper iff 163 * used <= 300, shallower iff 82.5 * used > 450
    ab._adapt(1.8, state, 300.0)
    assert ab._depth == 4
    ab._adapt(1.9, state, 300.0)
    assert ab._depth == 4
    ab._adapt(5.4, state, 300.0)
    assert ab._depth == 4
    ab._adapt(5.5, state, 300.0)
    assert ab._depth == 3
    # bounds: never above max_depth, never below min_depth
    ab._depth = 6
    ab._adapt(0.001, state, None)
    assert ab._depth == 6
    ab._depth = 2
    ab._adapt(500.0, state, None)
    assert ab._depth == 2
    # fewer empty points make the same time cheaper
    crowded = from_moves(9, ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6"])
    ab._depth = 3
    ab._adapt(2.0, crowded, 330.0)  # 2 * 2 * 71 = 284 <= 328
    assert ab._depth == 4


HUGE = """
    . X X X X
    X X O O X
    X O O O X
    X X O O X
    . X X . X
"""


def test_a_huge_first_ply_capture_caps_the_depth_at_three():
    state = from_diagram(HUGE, to_move=BLACK)
    B, S = to_kernel(state)
    assert K.captures_by(B, S, padded(P("D1", 5), 5), BLACK) == 7
    deadline = time.monotonic() + 30
    move, _, reached, _ = AlphaBeta(huge_capture=6)._search(state, 6, deadline)
    assert move == P("D1", 5) and reached == 3
    move, _, reached, _ = AlphaBeta(huge_capture=8)._search(state, 6, deadline)  # 7 is not huge
    assert move == P("D1", 5) and reached == 6
    move, _, reached, _ = AlphaBeta(huge_capture=6)._search(state, 3, deadline)
    assert reached == 3
    move, _, reached, _ = AlphaBeta(huge_capture=6)._search(state, 2, deadline)  # below the cap
    assert reached == 2


def test_alphabeta_search_stops_at_its_deadline():
    state = from_moves(9, ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6", "C4", "D3"])
    ab = AlphaBeta(seed=1)
    start = time.monotonic()
    move, _, reached, nodes = ab._search(state, 6, start + 0.1)
    assert time.monotonic() - start < 0.5
    assert state.is_legal(move) and 1 <= reached < 6 and nodes > 0


def test_alphabeta_node_budget_caps_the_search_and_repeats_its_move(monkeypatch):
    monkeypatch.setattr(book, "lines", lambda: [])
    state = from_moves(9, ["E5", "E4", "D4", "D5", "C5", "F4", "D6", "F5", "E6", "F6", "C4", "D3"])
    small = [AlphaBeta(seed=1).choose(state, None, Budget(60.0, nodes=500)) for _ in range(2)]
    big = AlphaBeta(seed=1).choose(state, None, Budget(60.0, nodes=5000))
    assert small[0].nodes == small[1].nodes == 500 and small[0].move == small[1].move
    assert 1 <= small[0].depth < big.depth and big.nodes == 5000


LINE = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "C5", "G5", "D4", "F6", "D6", "F4", "B5", "H5", "B3"]


def test_alphabeta_follows_its_book_line(monkeypatch):
    monkeypatch.setattr(book, "lines", lambda: [list(LINE)])
    black = AlphaBeta(seed=1)
    white = AlphaBeta(seed=2)
    state = empty(9)
    for ply in range(BOOK_MOVES):
        player = black if state.to_move == BLACK else white
        result = player.choose(state, None, Budget(0.05))
        assert result.move == P(LINE[ply]) and result.depth == 0 and result.nodes == 0
        state = state.play(result.move)
    assert not black._disturbed and not white._disturbed
    result = white.choose(state, None, Budget(0.05))  # ply 15: the line is over, the search starts
    assert result.depth >= 1 and state.is_legal(result.move)


def test_alphabeta_disturbed_opening_plays_random_until_move_sixteen(monkeypatch):
    monkeypatch.setattr(book, "lines", lambda: [list(LINE)])
    ab = AlphaBeta(seed=5)
    state = empty(9)
    assert ab.choose(state, None, Budget(0.05)).move == P("E5")
    state = state.play("E5").play("G7")  # White takes Black's next book point
    result = ab.choose(state, None, Budget(0.05))
    assert ab._disturbed
    assert state.is_legal(result.move) and result.depth == 0 and result.nodes == 0
    rng = random.Random(9)
    off_line = 0
    while ab._ply(state) < BOOK_MOVES + 1:
        result = ab.choose(state, None, Budget(0.05))
        ply = ab._ply(state)
        assert result.depth == 0 and result.nodes == 0 and state.is_legal(result.move)
        off_line += ply < len(LINE) and result.move != P(LINE[ply])
        state = state.play(result.move)
        reply = Board(state).legal_random_move(rng)
        state = state.play(reply if state.is_legal(reply) else PASS)
    assert off_line >= 3  # random moves, not the line
    assert ab._ply(state) >= BOOK_MOVES + 1
    result = ab.choose(state, None, Budget(0.05))  # from move 16 on: the search
    assert result.depth >= 1 and state.is_legal(result.move)
    # a new game leaves the disturbed mode
    assert ab.choose(empty(9), None, Budget(0.05)).move == P("E5") and not ab._disturbed


def test_alphabeta_without_a_book_searches_from_the_first_move(monkeypatch):
    monkeypatch.setattr(book, "lines", list)
    result = AlphaBeta(seed=1).choose(empty(9), None, Budget(0.05))
    assert result.depth >= 1 and empty(9).is_legal(result.move)


# -- the opening book --------------------------------------------------------------------------

def images(state: State) -> list[tuple[list[int], State]]:
    """(permutation, image state) for the 8 symmetries."""
    out = []
    for perm in book._transforms(state.size):
        black = [perm[p] for p in state.stones(BLACK)]
        white = [perm[p] for p in state.stones(WHITE)]
        out.append((perm, setup(state.size, black, white, to_move=state.to_move, komi=state.komi)))
    return out


def test_the_eight_symmetries_are_distinct_permutations():
    perms = book._transforms(9)
    assert len({tuple(p) for p in perms}) == 8
    assert all(sorted(p) == list(range(81)) for p in perms)
    assert list(range(81)) in perms
    # closed under composition: a group
    as_set = {tuple(p) for p in perms}
    for a in perms:
        for b in perms:
            assert tuple(a[b[p]] for p in range(81)) in as_set


def test_canonical_key_is_the_same_for_all_symmetric_images():
    rng = random.Random(4)
    for _ in range(6):
        state = empty(9)
        for _ in range(rng.randint(1, 12)):
            state = state.play(Board(state).legal_random_move(rng))
        key, perm = book.canonical(state)
        assert len(key) == 82 and set(key) <= set(".XO")
        assert key[-1] == ".XO"[state.to_move]
        for _, image in images(state):
            assert book.canonical(image)[0] == key
        # the permutation maps the position onto its key
        mapped = [0] * 81
        for p, k in enumerate(state.board):
            mapped[perm[p]] = k
        assert "".join(".XO"[k] for k in mapped) == key[:-1]
    # the side to move is part of the key
    assert book.canonical(setup(9, ["E5"], to_move=BLACK))[0] != book.canonical(setup(9, ["E5"], to_move=WHITE))[0]


def test_lookup_maps_the_book_move_back_under_every_symmetry(monkeypatch):
    state = from_moves(9, ["C3", "D7", "G6"])  # no symmetry of its own
    move = P("F3")
    key, perm = book.canonical(state)
    monkeypatch.setattr(book, "_load", lambda: {"positions": {key: point_name(perm[move])}, "lines": []})
    seen = set()
    for t, image in images(state):
        assert book.lookup(image) == t[move]
        seen.add(t[move])
    assert len(seen) == 8
    assert book.lookup(state) == move
    assert book.lookup(state.play("F3")) is None  # not in the book
    assert book.lookup(state._replace(passes=1)) is None  # no book after a pass


def test_lookup_never_returns_an_illegal_move(monkeypatch):
    rng = random.Random(8)
    positions = {}
    states = []
    for _ in range(30):
        state = empty(9)
        for _ in range(rng.randint(0, 10)):
            state = state.play(Board(state).legal_random_move(rng))
        key, _ = book.canonical(state)
        positions[key] = point_name(rng.randrange(81))  # often occupied
        states.append(state)
    monkeypatch.setattr(book, "_load", lambda: {"positions": positions, "lines": []})
    found = 0
    for state in states:
        move = book.lookup(state)
        if move is not None:
            assert state.is_legal(move)
            found += 1
        else:  # None only when the stored point is not legal here
            key, perm = book.canonical(state)
            assert not state.is_legal(perm.index(P(positions[key])))
    assert found > 0
    # an occupied book point is refused
    state = from_moves(9, ["C3", "D7"])
    key, perm = book.canonical(state)
    positions[key] = point_name(perm[P("C3")])
    assert book.lookup(state) is None


def test_lookup_ignores_other_board_sizes(monkeypatch):
    state = empty(7)
    key, _ = book.canonical(state)
    monkeypatch.setattr(book, "_load", lambda: {"positions": {key: "D4"}, "lines": []})
    assert book.lookup(state) is None


def test_mcts_plays_the_book_move(monkeypatch):
    state = from_moves(9, ["C3", "D7", "G6"])
    key, perm = book.canonical(state)
    monkeypatch.setattr(book, "_load", lambda: {"positions": {key: point_name(perm[P("F3")])}, "lines": []})
    result = MCTS(seed=1, capacity=10_000).choose(state, None, Budget(1.0, nodes=100))
    assert result.move == P("F3") and result.nodes == 0 and result.votes == ((P("F3"), 1),)
    result = MCTS(seed=1, capacity=10_000, use_book=False).choose(state, None, Budget(1.0, nodes=100))
    assert result.nodes == 100


def test_shipped_book_moves_are_legal():
    data = book._load()
    assert set(data) >= {"positions", "lines"}
    for line in book.lines():
        state = empty(9)
        for name in line:
            move = book.lookup(state)
            assert move is None or state.is_legal(move)
            state = state.play(name)


def test_build_produces_a_consistent_book():
    logged = []
    data = bookmaker.build(1, 2, 0.05, log=logged.append)
    assert set(data) == {"komi", "seconds", "built", "positions", "lines"}
    assert data["komi"] == 7.5 and data["seconds"] == 0.05
    assert len(data["lines"]) == 1
    line = data["lines"][0]
    assert 1 <= len(line) <= 2 and len(logged) == len(line)
    state = empty(9)
    for name in line:
        key, perm = book.canonical(state)
        assert key in data["positions"]
        assert perm.index(P(data["positions"][key])) == P(name)  # the stored move, mapped back
        state = state.play(name)
    for key, name in data["positions"].items():
        assert len(key) == 82 and set(key) <= set(".XO")
        assert 0 <= P(name) < 81


# -- strength smoke test -----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name, params, budget", [
    ("alphabeta", {"seed": "3"}, Budget(30.0, nodes=600)),
    ("mcts", {"seed": "3", "capacity": "100000"}, Budget(5.0, nodes=300)),
])
def test_strong_players_beat_random(name, params, budget):
    for colour in (BLACK, WHITE):
        ours = make_player("go", name, params)
        rnd = make_player("go", "random", {"seed": "4"})
        black, white = (ours, rnd) if colour == BLACK else (rnd, ours)
        final = play_game(black, white, empty(9), lambda p: Budget(budget.seconds, budget.nodes))
        assert final.is_terminal() and final.winner() == colour, final.score()


def test_pondering_grows_the_tree_the_next_move_searches():
    """A search of the opponent's turn (ponder) is kept: the next move's root starts with the
    visits the reply got while pondering, on top of the move's own."""
    s0 = from_moves(9, ["E5", "E4"])
    player = MCTS(seed=1, use_book=False, early_stop=False, capacity=100_000)
    ours = player.choose(s0, None, Budget(10.0, nodes=300)).move
    s1 = s0.play(ours)
    pondered = player.ponder(s1, Budget(10.0, nodes=2_000))
    assert pondered.nodes == 2_000 and s1.is_legal(pondered.move)
    reply = pondered.move  # the reply it searched most
    kept = dict(pondered.votes)[reply]
    r = player.choose(s1.play(reply), None, Budget(10.0, nodes=100))
    V, _, meta = player._tree
    assert V[K.VN, int(meta[1])] == kept + r.nodes == kept + 100  # the new root holds both searches
    cold = MCTS(seed=1, use_book=False, early_stop=False, capacity=100_000)
    assert sum(v for _, v in cold.choose(s1.play(reply), None, Budget(10.0, nodes=100)).votes) <= 100
    # pondering the same position again goes on with the same tree
    tree = player._tree
    player.ponder(s1.play(reply).play(r.move), Budget(10.0, nodes=50))
    player.ponder(s1.play(reply).play(r.move), Budget(10.0, nodes=50))
    assert player._tree is tree and player._tree.V[K.VN, int(player._tree[2][1])] >= 100
