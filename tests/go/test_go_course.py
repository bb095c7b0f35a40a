"""bots/go/course.py driven exactly as the course referee localGame.py drives a myPlayer.

The referee here follows docs/protocols/go.md section 3: its own board (our State with
superko="goban" and komi 0 stands in for Goban.py), newGame(1) then newGame(2), then until
two passes: legal_moves(), stdout redirected during the mover's getPlayerMove(), wall time
measured, a strict dictionary lookup of the returned string (uppercase names and "PASS"
only, as Goban.name_to_flat), the move must be in legal_moves(), push, then the opponent's
playOpponentMove(move).  endGame is never called.
"""

from __future__ import annotations

import contextlib
import io
import random
import threading
import time
from dataclasses import dataclass, field

import pytest
import structlog
from structlog.testing import capture_logs

from bots.go import course
from tests.helpers import info_logs as capture_info_logs
from bots.players import parse_spec
from bots.go import players as go_players
from bots.go.board import BLACK, PASS, WHITE, State, empty, from_moves, parse_point, point_name, setup
from bots.clock import budget
from bots.go.clock import moves_left
from search.budget import SearchResult

NAMES = {point_name(p, 9): p for p in range(81)} | {"PASS": PASS}


def name_to_flat(name: str) -> int:
    """As Goban.name_to_flat: a dictionary lookup, so "pass", "e5", "I5" fail."""
    return NAMES[name]


def referee_board() -> State:
    return empty(9, komi=0, superko="goban")


def result_notation(board: State) -> str:
    """Goban.result(): "1-0" when White wins, "0-1" when Black wins (area, no komi)."""
    score = board.score()
    return "1-0" if score < 0 else "0-1" if score > 0 else "1/2-1/2"


class RefereeRandom:
    """The course's randomPlayer.py: its own board, a random choice among legal_moves()."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.board = referee_board()

    def newGame(self, color: int) -> None:
        self.board = referee_board()

    def getPlayerMove(self) -> str:
        moves = self.board.legal_moves()
        stones = [m for m in moves if m != PASS]
        # mostly stones, so the game ends within a test's time; a pass now and then
        move = PASS if not stones or self.rng.random() < 0.03 else self.rng.choice(stones)
        self.board = self.board.play(move)
        return point_name(move, 9)

    def playOpponentMove(self, move: str) -> None:
        self.board = self.board.play(name_to_flat(move))


@dataclass
class Game:
    board: State
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=lambda: [0.0, 0.0])
    printed: list[str] = field(default_factory=list)


def run_game(black, white, board: State | None = None, deliver=None, after=None, new_game=True,
             max_plies: int = 1500) -> Game:
    """localGame.py's loop.  `deliver(ply, move, board)` -> the strings handed to the
    opponent's playOpponentMove (default: just the move); `after(ply, board)` runs after."""
    players = [black, white]
    if new_game:
        black.newGame(BLACK)
        white.newGame(WHITE)
    game = Game(board if board is not None else referee_board())
    ply = 0
    while not game.board.is_terminal():
        assert ply < max_plies, "the game does not end"
        i = 0 if game.board.to_move == BLACK else 1
        mover, other = players[i], players[1 - i]
        legals = game.board.legal_moves()
        out = io.StringIO()
        t0 = time.time()
        with contextlib.redirect_stdout(out):
            move = mover.getPlayerMove()
        game.times[i] += time.time() - t0
        game.printed.append(out.getvalue())
        assert type(move) is str and move in NAMES, f"ply {ply}: {move!r} would crash the referee"
        assert name_to_flat(move) in legals, f"ply {ply}: illegal {move!r}"
        game.board = game.board.play(name_to_flat(move))
        game.moves.append(move)
        for text in (deliver(ply, move, game.board) if deliver else [move]):
            other.playOpponentMove(text)
        if after:
            after(ply, game.board)
        ply += 1
    return game


def in_step(ours: course.myPlayer, board: State) -> bool:
    s = ours.state
    return (s.board, s.to_move, s.passes, s.position_hash()) == \
        (board.board, board.to_move, board.passes, board.position_hash())


@pytest.fixture
def env(monkeypatch):
    """$BOTS_PLAYER set to a seeded random player; the default clock."""
    monkeypatch.setenv("BOTS_PLAYER", "random:seed=1")
    monkeypatch.delenv("BOTS_TOTAL_SECONDS", raising=False)
    return monkeypatch


@pytest.fixture
def info_logs():
    """Every log entry, info level included (the session's set-up keeps warnings only)."""
    with capture_info_logs() as logs:
        yield logs


# -- whole games --------------------------------------------------------------------------

def check_finished(game: Game) -> None:
    assert game.moves[-2:] == ["PASS", "PASS"]
    assert result_notation(game.board) == {WHITE: "1-0", BLACK: "0-1", None: "1/2-1/2"}[game.board.winner()]


def test_ours_against_ours(env, info_logs):
    env.setenv("BOTS_PLAYER", "random:seed=5")
    black = course.myPlayer()
    env.setenv("BOTS_PLAYER", "random:seed=6")
    white = course.myPlayer()
    game = run_game(black, white)
    check_finished(game)
    assert in_step(black, game.board) and in_step(white, game.board)
    assert not any(game.printed), "nothing may be printed inside getPlayerMove"
    moves = [e for e in info_logs if e["event"] == "move"]
    assert len(moves) == len(game.moves)  # one info line per move
    assert {"move", "seconds", "time_left", "mode"} <= set(moves[0])
    assert not [e for e in info_logs if e["log_level"] in ("warning", "error")]
    assert len(game.moves) > 40


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_ours_against_the_referee_random_player(env, colour):
    ours = course.myPlayer()
    theirs = RefereeRandom(seed=colour)
    game = run_game(*((ours, theirs) if colour == BLACK else (theirs, ours)))
    check_finished(game)
    assert in_step(ours, game.board)
    assert ours.time_used <= game.times[colour - 1] + 1e-3  # charged as the referee measures, no more


def test_result_notation_one_nil_means_white_wins():
    white_wins = setup(9, black=["A1"], white=["J9", "H9"], komi=0, superko="goban")
    assert white_wins.score() < 0 and result_notation(white_wins) == "1-0"
    black_wins = setup(9, black=["A1", "B1"], white=["J9"], komi=0, superko="goban")
    assert result_notation(black_wins) == "0-1"
    assert result_notation(referee_board()) == "1/2-1/2"


# -- what the opponent sends ----------------------------------------------------------------

def test_garbage_and_lowercase_opponent_moves_are_survived(env):
    ours = course.myPlayer()
    theirs = RefereeRandom(seed=9)
    fed = []

    def deliver(ply, move, board):
        if ply % 2:  # odd plies are ours (White): those go to the referee-side player
            return [move]
        occupied = [point_name(p, 9) for p in range(81) if board.board[p]]
        garbage = ["Z9", "I5", "A10", "", "E", None, 42, "PASSS"]
        extra = [garbage[(ply // 2) % len(garbage)]]
        if occupied and move != "PASS":
            extra.append(occupied[ply % len(occupied)])  # onto a stone: ignored
        fed.extend(extra)
        return [*extra, move.lower()]  # the real move, in lowercase ("pass" too)

    def after(ply, board):
        assert in_step(ours, board), f"ply {ply}: our board drifted"

    with capture_logs() as logs:
        game = run_game(theirs, ours, deliver=deliver, after=after)
    check_finished(game)
    errors = [e for e in logs if e["log_level"] == "error"]
    assert len(errors) == len(fed)  # each bad string logged once, and nothing else went wrong
    assert {e["event"] for e in errors} == {"unreadable opponent move; ignored",
                                          "opponent move impossible on our board; ignored"}
    assert any(e["event"] == "opponent move not in the referee's notation; accepted" for e in logs)


def test_a_suicide_the_referee_accepted_is_applied_by_force(env):
    # White B1 and A2 surround the corner: Black A1 is a suicide by our rules.
    position = from_moves(9, ["E5", "B1", "E6", "A2"], komi=0, superko="goban")
    ours = course.myPlayer()
    ours.newGame(WHITE)
    ours.state = position
    with capture_logs() as logs:
        ours.playOpponentMove("A1")
    assert [(e["event"], e["reason"]) for e in logs] == [
        ("opponent move illegal by our rules; applied by force", "suicide")]
    assert ours.state.board == position.board and ours.state.to_move == WHITE
    assert ours.state.captures == (0, 1)
    referee = position._replace(to_move=WHITE)  # a referee whose rules allow suicide
    for _ in range(5):
        move = ours.getPlayerMove()
        assert referee.is_legal(name_to_flat(move))
        referee = referee.play(name_to_flat(move))
        reply = random.Random(len(move)).choice([m for m in referee.legal_moves() if m != PASS])
        referee = referee.play(reply)
        ours.playOpponentMove(point_name(reply, 9))
        assert in_step(ours, referee)


SCENARIOS = {
    "plain": (["E5", "C3", "G7"], "D4"),
    "capture": (["A2", "A1", "C3", "G7"], "B1"),  # White A1 is captured by Black B1
    "after a pass": (["PASS", "E5", "C3"], "D6"),  # the pass key is in the hashes ("goban")
    "their pass": (["E5", "C3"], "PASS"),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_resync_by_force_when_the_referee_accepts_what_we_reject(env, scenario):
    moves, theirs = SCENARIOS[scenario]
    referee = from_moves(9, moves, komi=0, superko="goban")
    mover = referee.to_move
    ours = course.myPlayer()
    ours.newGame(3 - mover)
    m = parse_point(theirs)
    after = referee.play(m)
    # our state differs: a (wrong) history in which the position after `m` already occurred
    ours.state = referee._replace(ko_history=referee.ko_history | {after.position_hash()})
    if m != PASS:
        assert not ours.state.is_legal(m) and referee.is_legal(m)
    with capture_logs() as logs:
        ours.playOpponentMove(theirs)
    if m != PASS:
        assert [(e["event"], e["reason"]) for e in logs] == [
            ("opponent move illegal by our rules; applied by force", "superko")]
    assert in_step(ours, after) and ours.state.captures == after.captures
    assert after.position_hash() in ours.state.ko_history
    # the game goes on from there, and every move we make is legal for the referee
    other = RefereeRandom(1)
    other.board = after
    pair = (other, ours) if mover == BLACK else (ours, other)
    game = run_game(*pair, board=after, new_game=False)
    check_finished(game)


def test_a_move_for_the_wrong_side_is_forced_for_the_opponent(env):
    ours = course.myPlayer()
    ours.newGame(BLACK)
    ours.playOpponentMove("E5")  # White plays before we moved (the referee disagrees with us)
    assert ours.state.board[parse_point("E5")] == WHITE and ours.state.to_move == BLACK
    move = ours.getPlayerMove()
    assert move != "E5" and ours.state.board[name_to_flat(move)] == BLACK


def test_force_play_equals_play_on_legal_moves():
    rng = random.Random(4)
    state = empty(9, komi=0, superko="goban")
    checked = 0
    while not state.is_terminal():
        legal = state.legal_moves()
        for m in rng.sample(legal, min(3, len(legal))) + [PASS]:
            want, got = state.play(m), course.force_play(state, m)
            assert (got.board, got.to_move, got.passes, got.captures, got.ko_history, got.pass_offset) == \
                (want.board, want.to_move, want.passes, want.captures, want.ko_history, want.pass_offset)
            checked += 1
        stones = [m for m in legal if m != PASS]
        state = state.play(rng.choice(stones) if stones and rng.random() > 0.02 else PASS)
    assert checked > 100


def test_force_play_suicide_occupied_and_off_board():
    state = setup(9, black=["A1"], white=["A2", "B2", "C1"], komi=0, superko="goban")
    after = course.force_play(state, parse_point("B1"))  # Black's A1-B1 string has no liberty
    assert after.board[0] == after.board[1] == 0 and after.captures == (0, 2) and after.to_move == WHITE
    assert course.force_play(state, parse_point("A2")) is None
    assert course.force_play(state, 81) is None and course.force_play(state, -5) is None
    white = course.force_play(state, parse_point("E5"), WHITE)  # a colour other than the side to move
    assert white.board[parse_point("E5")] == WHITE and white.to_move == BLACK


# -- our own moves ----------------------------------------------------------------------------

@dataclass
class Faulty:
    """A player that raises or answers nonsense on every `every`-th call."""

    mode: str = "raise"
    every: int = 1

    def __post_init__(self) -> None:
        self.calls = 0
        self.rng = random.Random(0)

    def choose(self, state, context, budget) -> SearchResult:
        self.calls += 1
        if self.calls % self.every == 0:
            if self.mode == "raise":
                raise RuntimeError("search bug")
            occupied = [p for p in range(81) if state.board[p]]
            bad = {"occupied": occupied[0] if occupied else 81, "off": 81, "name": "I5", "none": None,
                   "lower": "e5"}[self.mode]
            return SearchResult(bad)
        return SearchResult(go_players.random_move(state, self.rng))


@pytest.mark.parametrize("mode", ["raise", "occupied", "off", "name", "none", "lower"])
def test_a_failing_player_never_costs_an_illegal_move(env, mode):
    env.setitem(go_players.PLAYERS, "faulty", Faulty)
    env.setenv("BOTS_PLAYER", f"faulty:mode={mode},every=2")
    ours = course.myPlayer()
    with capture_logs() as logs:
        game = run_game(ours, RefereeRandom(3))
    check_finished(game)
    assert in_step(ours, game.board)
    if mode != "lower":  # "e5" is a legal name when E5 is empty: accepted as it is
        assert any(e["log_level"] == "error" for e in logs)


def test_game_over_by_our_rules_means_pass(env):
    ours = course.myPlayer()
    ours.newGame(BLACK)
    ours.state = from_moves(9, ["E5", "PASS", "PASS"], komi=0, superko="goban")
    assert ours.getPlayerMove() == "PASS"


def test_new_game_resets_state_clock_and_player(env, info_logs):
    ours = course.myPlayer()
    run_game(ours, RefereeRandom(2))
    assert ours.time_used > 0
    first = ours.player
    ours.newGame(WHITE)
    assert ours.state == referee_board() and ours.time_used == 0 and ours.mode == course.NORMAL
    assert ours.player is not first and ours.color == WHITE
    assert ours.endGame(WHITE) is None
    assert info_logs[-1]["event"] == "game over" and info_logs[-1]["outcome"] == "won"


def test_logs_go_to_stderr_when_nobody_set_logging_up(env, capsys):
    saved = structlog.get_config()
    structlog.reset_defaults()
    try:
        ours = course.myPlayer()
        assert structlog.is_configured()
        ours.newGame(BLACK)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            move = ours.getPlayerMove()
        assert out.getvalue() == ""
        err = capsys.readouterr().err
        assert move in err and '"mode": "normal"' in err
    finally:
        structlog.configure(**{k: saved[k] for k in ("processors", "wrapper_class", "logger_factory",
                                                     "context_class", "cache_logger_on_first_use")})


# -- the clock -------------------------------------------------------------------------------

def move_seconds(state, time_left: float) -> float:
    """What bots.clock.budget plans with `time_left` on the clock in `state`, before the modes."""
    return budget(arrived=0.0, time_left=time_left, moves_left=moves_left(state)).seconds


class FakeClock:
    def __init__(self, step: float = 0.0) -> None:
        self.t = 1000.0
        self.step = step  # added at every reading

    def __call__(self) -> float:
        self.t += self.step
        return self.t


@dataclass
class Spender:
    """Records every budget and spends `overrun` times it on the fake clock."""

    overrun: float = 1.0
    clock = None  # class attributes, set by the fixture
    seen = []

    def choose(self, state, context, budget) -> SearchResult:
        Spender.seen.append((state, context.time_left, budget.seconds))
        Spender.clock.t += budget.seconds * self.overrun
        return SearchResult(go_players.random_move(state, random.Random(len(Spender.seen))))


@pytest.fixture
def spender(env):
    clock = FakeClock()
    env.setattr(course, "_now", clock)
    env.setattr(Spender, "clock", clock)
    env.setattr(Spender, "seen", [])
    env.setitem(go_players.PLAYERS, "spender", Spender)
    return clock


def test_critical_modes_cap_the_budgets(env, spender):
    env.setenv("BOTS_TOTAL_SECONDS", "200")
    env.setenv("BOTS_PLAYER", "spender:overrun=8")
    ours = course.myPlayer()
    assert ours.total_seconds == 200
    with capture_logs() as logs:
        game = run_game(ours, RefereeRandom(5))
    check_finished(game)
    modes = []
    for state, left, seconds in Spender.seen:
        full = move_seconds(state, time_left=left)
        if left >= course.CRITICAL_LEFT:
            assert seconds == full
            modes.append(course.NORMAL)
        elif left >= course.ULTRA_LEFT:
            assert seconds == min(full, course.CRITICAL_SECONDS)
            modes.append(course.CRITICAL)
        else:
            assert seconds == min(full, course.ULTRA_SECONDS)
            modes.append(course.ULTRA)
    assert sorted(set(modes), key=modes.index) == [course.NORMAL, course.CRITICAL, course.ULTRA]
    changes = [e["mode"] for e in logs if e["event"] == "clock mode"]
    assert changes == [course.CRITICAL, course.ULTRA]
    # charged exactly what the player spent (the fake clock moves only inside choose)
    assert ours.time_used == pytest.approx(sum(s for _, _, s in Spender.seen) * 8)
    ultra_moves = modes.count(course.ULTRA)
    assert ours.time_used <= 200 - course.ULTRA_LEFT + 8 * course.CRITICAL_SECONDS + \
        ultra_moves * 8 * course.ULTRA_SECONDS + 1e-6


def test_tiny_total_real_time_stays_within_bounds(env, monkeypatch):
    @dataclass
    class Sleeper:
        def choose(self, state, context, budget) -> SearchResult:
            budgets.append(budget.seconds)
            time.sleep(budget.seconds)
            return SearchResult(go_players.random_move(state, random.Random(len(budgets))))

    budgets: list[float] = []
    monkeypatch.setitem(go_players.PLAYERS, "sleeper", Sleeper)
    env.setenv("BOTS_PLAYER", "sleeper")
    env.setenv("BOTS_TOTAL_SECONDS", "2")
    ours = course.myPlayer()
    referee = RefereeRandom(8)
    ours.newGame(BLACK)
    measured = 0.0
    for _ in range(12):
        t0 = time.time()
        move = ours.getPlayerMove()
        measured += time.time() - t0
        referee.playOpponentMove(move)
        ours.playOpponentMove(referee.getPlayerMove())
    assert ours.mode == course.ULTRA and budgets and max(budgets) <= course.ULTRA_SECONDS
    assert sum(budgets) <= ours.time_used <= measured + 1e-3
    assert ours.time_used <= len(budgets) * (course.ULTRA_SECONDS + 0.03)


def test_time_outside_get_player_move_is_not_charged(env, monkeypatch):
    clock = FakeClock(step=1.0)  # every reading moves time on: any measurement would show
    monkeypatch.setattr(course, "_now", clock)
    ours = course.myPlayer()
    ours.newGame(WHITE)
    for text in ("E5", "Z9", "E5", "pass"):  # legal, garbage, occupied, a pass
        before = ours.time_used
        clock.t += 100  # the opponent thinks
        ours.playOpponentMove(text)
        assert ours.time_used == before
        move = ours.getPlayerMove()
        assert 0 < ours.time_used - before < 10 and move in NAMES


# -- $BOTS_PLAYER and $BOTS_TOTAL_SECONDS --------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("random", ("random", {})),
    (" random : seed = 3 , ", ("random", {"seed": "3"})),
    ("mcts:a=1,b=x=y", ("mcts", {"a": "1", "b": "x=y"})),
])
def test_parse_spec(text, expected):
    assert parse_spec(text) == expected


@pytest.mark.parametrize(("text", "named"), [(":seed=1", "names no player"), ("random:seed", "'seed'"),
                                             ("random:=3", "'=3'")])
def test_parse_spec_errors(text, named):
    with pytest.raises(ValueError, match=named):
        parse_spec(text)


@pytest.mark.parametrize(("spec", "named"), [("nosuch", "nosuch"), ("random:depth=3", "depth"),
                                             ("random:seed=abc", "seed"), ("random:seed", "seed")])
def test_bad_player_raises_at_construction(env, spec, named):
    env.setenv("BOTS_PLAYER", spec)
    with pytest.raises(ValueError, match=named):
        course.myPlayer()


@pytest.mark.parametrize("raw", ["abc", "-1", "0", "inf", "nan"])
def test_bad_total_seconds_raises_at_construction(env, raw):
    env.setenv("BOTS_TOTAL_SECONDS", raw)
    with pytest.raises(ValueError, match="BOTS_TOTAL_SECONDS"):
        course.myPlayer()


def test_options_reach_the_player(env):
    env.setenv("BOTS_PLAYER", "random:seed=7")
    a, b = course.myPlayer(), course.myPlayer()
    assert a.player.seed == 7 and a.getPlayerName() == "bots random"
    a.newGame(BLACK)
    b.newGame(BLACK)
    for reply in ("PASS", "J9", "A9"):
        assert a.getPlayerMove() == b.getPlayerMove()  # same seed, same game: same moves
        if a.state.is_legal(reply):
            a.playOpponentMove(reply)
            b.playOpponentMove(reply)


@pytest.mark.parametrize("value", [None, "", "  "])
def test_default_player_is_mcts(env, value):
    assert course.DEFAULT_PLAYER == "mcts"
    if value is None:
        env.delenv("BOTS_PLAYER")
    else:
        env.setenv("BOTS_PLAYER", value)
    env.setitem(go_players.PLAYERS, "mcts", Faulty)  # whatever mcts is, the name is what counts
    ours = course.myPlayer()
    assert ours.player_name == "mcts" and isinstance(ours.player, Faulty)
    assert course.TOTAL_SECONDS == 1800 and ours.total_seconds == 1800


@pytest.mark.slow
def test_the_board_size_comes_from_the_referees_goban(env):
    """The 2024 kit's Goban.py plays 8x8 (issue 11): every move we send exists on that board."""
    import sys
    import types

    goban = types.ModuleType("Goban")
    goban.Board = type("Board", (), {"_BOARDSIZE": 8})
    env.setitem(sys.modules, "Goban", goban)
    env.setenv("BOTS_PLAYER", "mcts")
    env.setenv("BOTS_TOTAL_SECONDS", "20")
    ours = course.myPlayer()
    assert ours.size == 8
    ours.newGame(BLACK)
    for _ in range(6):
        move = ours.getPlayerMove()
        assert move == "PASS" or (move[0] in "ABCDEFGH" and 1 <= int(move[1:]) <= 8), move
        reply = next(m for m in ours.state.legal_moves() if m != PASS)
        ours.playOpponentMove(point_name(reply, 8))


def test_the_kernels_are_warm_before_the_referee_times_a_move(env):
    """Construction compiles (or loads) the kernels (issue 11): the first move is not slowed."""
    env.setenv("BOTS_PLAYER", "mcts")
    env.setenv("BOTS_TOTAL_SECONDS", "60")
    ours = course.myPlayer()
    ours.newGame(BLACK)
    t0 = time.monotonic()
    ours.getPlayerMove()
    assert time.monotonic() - t0 < 3.0  # a 60 s clock gives about 1 s per move; compiling takes 15+ s


def test_a_move_asked_for_while_the_kernels_compile_is_still_in_time(env, monkeypatch, info_logs):
    """Issue 28: myPlayer() returns at once and compiles in the background; a move asked for
    before that is done waits at most half its time, then is the fallback (legal, logged)."""
    release = threading.Event()
    monkeypatch.setattr(course, "warm", lambda: release.wait(30))
    monkeypatch.setenv("BOTS_TOTAL_SECONDS", "40")  # a move's share of it is about a second
    t0 = time.monotonic()
    ours = course.myPlayer()
    assert time.monotonic() - t0 < 1.0
    ours.newGame(BLACK)
    t0 = time.monotonic()
    move = ours.getPlayerMove()
    took = time.monotonic() - t0
    release.set()
    assert empty(9, komi=0, superko="goban").is_legal(parse_point(move, 9))
    assert took < move_seconds(empty(9), time_left=40.0)
    assert any("kernels still compiling" in entry["event"] for entry in info_logs)
