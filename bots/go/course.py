"""The course referee's player for 9x9 Go, backed by bots' players: a drop-in `myPlayer`.

The course kit (docs/protocols/go.md sections 3-5) runs `localGame.py` / `namedGame.py`, which
import a module `myPlayer` and call `myPlayer()`, then `newGame(colour)` (1 Black, 2 White),
`getPlayerMove()` for our move and `playOpponentMove(move)` for theirs; `endGame` is never
called.  To play with bots, write a `myPlayer.py` next to the referee's `localGame.py`:

    from bots.go.course import myPlayer

(with bots installed, or its checkout on PYTHONPATH).  The class implements the course's
`PlayerInterface` methods by duck typing; the referee needs nothing else.

Choices, and why:

* The player is `$BOTS_PLAYER` ("name" or "name:key=value,..."; default DEFAULT_PLAYER) and
  runs in this process (the referee is synchronous), one object per myPlayer so it can keep
  its tree between moves.  A bad name or option raises ValueError when myPlayer is built:
  that is the only place this module raises; everything later is logged and survived.
* Our State mirrors Goban.py: 9x9, no komi, superko="goban" (pass keys in the hash).
* A self-imposed clock of TOTAL_SECONDS ($BOTS_TOTAL_SECONDS) charged with the wall time of
  getPlayerMove only, as the referee measures it.  Per move `bots.clock.budget` from the
  start of getPlayerMove, with the modes of seed 001 as its caps (MODES): under CRITICAL_LEFT
  seconds left at most CRITICAL_SECONDS a move, under ULTRA_LEFT at most ULTRA_SECONDS.
* The referee stops the game (and we lose) on a move outside its `legal_moves()`, and crashes
  on a malformed string, so getPlayerMove returns only exact names ("E5", "PASS") that our
  rules accept, with a random legal move as the fallback.
* If the opponent's move is illegal by our rules, the referee (the authority) accepted it,
  so we put it on our board by force (`force_play`) to stay in step with its board.
* Logs go through structlog (set up on stderr if nobody did), never to stdout: the referee
  captures stdout during getPlayerMove.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Any

import structlog

from search.budget import Budget
from search.contracts import Context, Player

from .. import clock
from ..log import ensure_configured
from ..players import make_player, parse_spec
from .board import BLACK, PASS, WHITE, State, empty, geometry, parse_point, point_name
from .clock import moves_left
from .game import fallback
from .players import random_move, warm

log = structlog.get_logger("bots.go.course")

SIZE = 9  # Goban.py V2.4; the 2024 kit (V3) plays 8x8: the referee's own size wins


def referee_board_size() -> int:
    """The board size of the course referee's `Goban.Board` (`_BOARDSIZE`), when its Goban.py
    can be imported (it sits next to localGame.py and myPlayer.py); 9 otherwise."""
    try:
        import Goban  # type: ignore[import-not-found]  # the course kit's module, not ours
    except Exception:  # absent, or broken: the referee would not run either
        return SIZE
    size = getattr(getattr(Goban, "Board", None), "_BOARDSIZE", SIZE)
    return size if isinstance(size, int) and 2 <= size <= 19 else SIZE
DEFAULT_PLAYER = "mcts"
TOTAL_SECONDS = 1800.0  # the tournament's 30 minutes per player
CRITICAL_LEFT, CRITICAL_SECONDS = 60.0, 0.5  # seed 001's "critical mode"
ULTRA_LEFT, ULTRA_SECONDS = 10.0, 0.05  # and its "ultra critical mode"
NORMAL, CRITICAL, ULTRA = "normal", "critical", "ultra critical"
MODES = ((ULTRA_LEFT, ULTRA_SECONDS), (CRITICAL_LEFT, CRITICAL_SECONDS))  # bots.clock.budget's caps

_now = time.monotonic  # the clock getPlayerMove is charged by (tests replace it)


def _total_seconds() -> float:
    raw = os.environ.get("BOTS_TOTAL_SECONDS", "").strip()
    if not raw:
        return TOTAL_SECONDS
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"BOTS_TOTAL_SECONDS {raw!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise ValueError(f"BOTS_TOTAL_SECONDS {raw!r} must be a positive number of seconds")
    return value


def _string(board: bytearray, point: int, size: int) -> tuple[list[int], bool]:
    """The stones of the string at `point` and whether it has a liberty."""
    nbrs = geometry(size).neighbours
    colour = board[point]
    stones, todo, seen, free = [], [point], {point}, False
    while todo:
        x = todo.pop()
        stones.append(x)
        for y in nbrs[x]:
            if board[y] == colour and y not in seen:
                seen.add(y)
                todo.append(y)
            elif not board[y]:
                free = True
    return stones, free


def force_play(state: State, move: int, colour: int | None = None) -> State | None:
    """`state` after `colour` (default: the side to move) plays `move` whatever our rules say.

    A stone is put down, enemy strings left without liberties are removed, then the mover's
    own string if it has none (a suicide); the new position's hash joins the history, so
    superko keeps working from there.  A pass flips the turn (and its pass key, under
    "goban").  None when the point is occupied or off the board: that cannot be applied.
    """
    c = state.to_move if colour is None else colour
    o = 3 - c
    if move == PASS:
        offset = state.pass_offset
        if state.superko == "goban":
            offset ^= geometry(state.size).pass_keys[c]
        after = state._replace(to_move=o, passes=state.passes + 1, ko=PASS, pass_offset=offset)
        return after._replace(ko_history=state.ko_history | {after.position_hash()})
    if not 0 <= move < state.size * state.size or state.board[move]:
        return None
    board = bytearray(state.board)
    board[move] = c
    taken = {BLACK: 0, WHITE: 0}
    for y in geometry(state.size).neighbours[move]:
        if board[y] == o:
            stones, free = _string(board, y, state.size)
            if not free:
                for x in stones:
                    board[x] = 0
                taken[c] += len(stones)
    stones, free = _string(board, move, state.size)
    if not free:
        for x in stones:
            board[x] = 0
        taken[o] += len(stones)
    captures = (state.captures[0] + taken[BLACK], state.captures[1] + taken[WHITE])
    after = state._replace(board=bytes(board), to_move=o, passes=0, ko=PASS, captures=captures)
    return after._replace(ko_history=state.ko_history | {after.position_hash()})


class myPlayer:  # noqa: N801 - the name the course's referee imports
    """The course's PlayerInterface backed by the player named in $BOTS_PLAYER."""

    def __init__(self) -> None:
        ensure_configured()
        spec = os.environ.get("BOTS_PLAYER", "").strip() or DEFAULT_PLAYER
        self.player_name, self.params = parse_spec(spec)
        self.total_seconds = _total_seconds()
        self.size = referee_board_size()
        self._new_player()  # a bad name or option raises here, naming it
        # Compile (or load) the kernels in the background (a first compile takes 20-40 s, and
        # a referee may time the start); a move asked for before they are ready waits at most
        # half its time, then is the book's or a random one drawn without kernels (issue 28).
        self._warm = threading.Thread(target=warm, name="warm", daemon=True)
        self._warm.start()
        self._rng = random.Random()
        self.color: int | None = None
        self._reset()

    def _new_player(self) -> None:
        self.player: Player = make_player("go", self.player_name, self.params)

    def _reset(self) -> None:
        self.state: State = empty(self.size, komi=0, superko="goban")
        self.time_used = 0.0
        self.mode = NORMAL

    def time_left(self) -> float:
        return self.total_seconds - self.time_used

    # -- the course's PlayerInterface -------------------------------------------------------
    def getPlayerName(self) -> str:
        return f"bots {self.player_name}"

    def newGame(self, color: int) -> None:
        if color not in (BLACK, WHITE):
            log.error("newGame got an unknown colour; playing Black", color=repr(color))
            color = BLACK
        self.color = color
        self._reset()
        try:
            self._new_player()
        except ValueError:  # checked at construction; only a changed table could get here
            log.exception("cannot rebuild the player; keeping the previous one")
        log.info("new game", color="Black" if color == BLACK else "White", player=self.player_name,
                 params=self.params, clock=self.total_seconds)

    def getPlayerMove(self) -> str:
        start = _now()
        arrived = time.monotonic()  # the budget's clock (tests replace _now, never this one)
        try:
            return self._move(arrived)
        except Exception:  # a bug here must not cost the game: any legal move will do
            log.exception("choosing a move failed; sending a random legal move")
            return self._fallback()
        finally:
            self.time_used += _now() - start

    def playOpponentMove(self, move: str) -> None:
        try:
            self._opponent(move)
        except Exception:
            log.exception("could not record the opponent's move", move=repr(move))

    def endGame(self, winner: Any) -> None:
        outcome = "won" if winner == self.color else "lost" if winner in (BLACK, WHITE) else "no winner"
        log.info("game over", winner=repr(winner), us=self.color, outcome=outcome,
                 score=self.state.score_text(), time_used=round(self.time_used, 1))

    # -- internals --------------------------------------------------------------------------
    def _budget(self, state: State, time_left: float, arrived: float) -> Budget:
        """The move's budget (bots.clock.budget with the modes as caps); a change of mode is logged."""
        mode = ULTRA if time_left < ULTRA_LEFT else CRITICAL if time_left < CRITICAL_LEFT else NORMAL
        if mode != self.mode:
            log.warning("clock mode", mode=mode, was=self.mode, time_left=round(time_left, 2))
            self.mode = mode
        return clock.budget(arrived=arrived, time_left=time_left, moves_left=moves_left(state), caps=MODES)

    def _move(self, arrived: float) -> str:
        state = self.state
        if state.is_terminal():
            log.warning("asked to move after two passes (our rules); passing")
            return "PASS"
        us = self.color or state.to_move
        if state.to_move != us:
            log.error("our board has the other side to move; resynchronising",
                      to_move=state.to_move, us=us)
            state = self.state = state._replace(to_move=us, ko=PASS)
        time_left = self.time_left()
        budget = self._budget(state, time_left, arrived)
        seconds = budget.seconds
        t0 = _now()
        depth = nodes = 0
        move: Any = None
        failed = False
        try:
            self._warm.join(seconds / 2)
            if self._warm.is_alive():
                log.warning("kernels still compiling: sending the fallback move")
                move = fallback(state, Context())
            else:
                result = self.player.choose(state, Context(time_left=time_left), budget)
                move, depth, nodes = result.move, result.depth, result.nodes
        except Exception:
            log.exception("the player failed; sending a random legal move")
            failed = True
        if not failed and (move is None or not state.is_legal(move)):
            log.error("the player chose an illegal move; sending a random legal move", move=repr(move))
            failed = True
        if failed:
            move = random_move(state, self._rng)
        point = parse_point(move, self.size) if isinstance(move, str) else int(move)
        after = state.play(point)
        name = point_name(point, self.size)
        log.info("move", move=name, seconds=round(seconds, 3), used=round(_now() - t0, 3), depth=depth,
                 nodes=nodes, time_left=round(time_left, 1), mode=self.mode)
        self.state = after  # last: if anything above failed, the fallback starts from `state`
        return name

    def _fallback(self) -> str:
        try:
            moves = [m for m in self.state.legal_moves() if m != PASS]
            if moves:
                point = self._rng.choice(moves)
                self.state = self.state.play(point)
                return point_name(point, self.size)
        except Exception:
            log.exception("no fallback move either; passing")
        return "PASS"

    def _opponent(self, move: str) -> None:
        try:
            point = parse_point(move, self.size)
        except ValueError:
            log.error("unreadable opponent move; ignored", move=repr(move))
            return
        if move != point_name(point, self.size):
            log.warning("opponent move not in the referee's notation; accepted", move=repr(move))
        them = 3 - self.color if self.color else self.state.to_move
        if self.state.to_move == them and self.state.is_legal(point):
            self.state = self.state.play(point)
            return
        reason = "other side to move" if self.state.to_move != them else self._reason(point)
        forced = force_play(self.state, point, them)
        if forced is None:
            log.error("opponent move impossible on our board; ignored", move=repr(move), reason=reason)
            return
        log.error("opponent move illegal by our rules; applied by force", move=repr(move), reason=reason)
        self.state = forced

    def _reason(self, point: int) -> str:
        try:
            self.state.check(point)
        except ValueError as exc:
            return getattr(exc, "reason", str(exc))
        return "legal"
