"""A local gnd server (Gopher and Dodo) compatible with the official one (docs/protocols/gnd.md).

- POST /register, /start and /play with the six-field JSON envelope
  (docs/protocols/gnd.md sections 2.2-2.3).
  /register answers {"Token": <50 alphanumerics>}; the same Id with the same password gets
  the same token again, with another password 403 "bad password".  Passwords are kept
  only as salted scrypt hashes.
- /start is a long poll with FIFO pairing: the first queued client plays Red, the second
  Blue (or, with `random`, the client is paired at once with the virtual random player).
  Red's /start answers as soon as the match exists, Blue's after Red's first move (or
  with the final state if the game ended before Blue ever had the turn).  A token stays
  valid across games: /start again after a finished game queues it again.
- /play is a long poll: an illegal action, an unreadable one or one sent out of turn is
  answered 310 with a text body, leaves the state alone, keeps the clock running and
  costs `penalty` seconds; a legal one is applied and the answer comes when the player
  has the turn again or the game is over (with Finished, Winner and FinalScore = +1 if
  Red won else -1, i.e. Red's view).  /play after the end answers the final state, 200.
- Chess clocks: the mover's clock runs from when the server hands it the turn until its
  /play request arrives; a timer ends the game the moment a flag falls, so the
  opponent's pending long poll returns at once.
- Status codes other than 200/310 (the official ones are undocumented): 400 for a body
  that is not the envelope or a request that makes no sense now (text says why), 401
  for an unknown token, 403 for a bad password, 503 once `games` games were paired or
  the server is closing.
- One JSON-ready record per finished game goes to `on_game` and `records`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import random
import secrets
import string
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import structlog
from aiohttp import web

from protocol.errors import IllegalMove
from protocol.gnd import (
    BLUE, GAME_NAMES, ILLEGAL_ACTION, RED, ProtocolError, Request, Turn, decode_action,
    encode_action, game_number, grid_pairs, turn_json,
)

from .. import records
from .entry import rules
from .record import position

log = structlog.get_logger("bots.gnd.server")

VIRTUAL_ID = -1
VIRTUAL_NAME = "Virtual"
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}  # cost of the password hash (tests may lower it)
_ALPHANUM = string.ascii_letters + string.digits
_COLOUR = {RED: "red", BLUE: "blue"}


@dataclass(frozen=True)
class ServerConfig:
    game: str  # "gopher" | "dodo"
    size: int
    time: float  # each player's chess clock, seconds
    random: bool = False  # pair every client with the built-in random player
    rcolor: str | None = None  # the random player's colour; None alternates, blue first
    layout: str = "gnd"  # the starting layout, for a game whose rules have LAYOUTS (Dodo)
    seed: int | None = None
    penalty: float = 0.0  # seconds taken from the offender's clock per illegal action
    games: int = 0  # 0 = unlimited; else no pairing after that many games
    clocks: tuple[float, float] | None = None  # (Red's, Blue's) clock instead of `time` for both

    def __post_init__(self) -> None:
        game_number(self.game)
        if self.rcolor not in (None, "red", "blue"):
            raise ValueError(f"rcolor must be red, blue or None, got {self.rcolor!r}")
        if self.time <= 0 or self.penalty < 0 or self.games < 0 or min(self.clocks or (1,)) <= 0:
            raise ValueError("time and clocks must be > 0, penalty and games >= 0")
        self.initial()  # checks size and layout

    def initial(self):
        """The starting State of every game."""
        return rules(self.game).start(self.size, self.layout)


def _random_token(length: int) -> str:
    return "".join(secrets.choice(_ALPHANUM) for _ in range(length))


def _hash(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=salt, **SCRYPT)


@dataclass(eq=False)
class _Group:
    """A registered client."""

    token: str
    id: int
    members: str
    salt: bytes = field(repr=False)
    digest: bytes = field(repr=False)
    games: tuple[int, ...] = ()
    match: _Match | None = None
    queued: bool = False


@dataclass(eq=False)
class _Match:
    token: str
    seats: dict[int, _Group | None]  # None: the virtual random player
    state: Any
    remaining: dict[int, float]
    deadline: float = 0.0  # when the side to move flags
    turn_started: float = 0.0
    finished: bool = False
    winner: int = 0
    reason: str = ""
    plies: int = 0
    illegal: dict[str, int] = field(default_factory=lambda: {"red": 0, "blue": 0})
    latencies: dict[str, list] = field(default_factory=lambda: {"red": [], "blue": []})
    moves: list[list[str]] = field(default_factory=list)
    turns: list[dict] = field(default_factory=list)  # bots.records turns: each move with its think time
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    timer: asyncio.TimerHandle | None = None

    def name(self, player: int) -> str:
        seat = self.seats[player]
        return VIRTUAL_NAME if seat is None else seat.members

    def colour_of(self, group: _Group) -> int:
        return RED if self.seats[RED] is group else BLUE

    def notify(self) -> None:
        event, self.changed = self.changed, asyncio.Event()
        event.set()


@dataclass(eq=False)
class _Waiter:
    group: _Group
    future: asyncio.Future


class _Reply(Exception):
    """Answer the current request with this status and text."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class GndServer:
    """The server; `start()` listens, `records` collects one record per finished game."""

    def __init__(self, config: ServerConfig, on_game: Callable[[dict], None] | None = None,
                 on_ply: Callable[[Any], None] | None = None) -> None:
        self.config = config
        self.game = game_number(config.game)
        self.on_game = on_game or (lambda record: None)
        self.on_ply = on_ply or (lambda state: None)
        self.records: list[dict] = []
        self.rng = random.Random(config.seed)
        self._initial = config.initial()
        self._by_id: dict[int, _Group] = {}
        self._by_token: dict[str, _Group] = {}
        self._queue: deque[_Waiter] = deque()
        self._live: set[_Match] = set()
        self._formed = 0
        self._closing = False
        self._register_lock = asyncio.Lock()
        self._recorded = asyncio.Event()
        self._queued = asyncio.Event()  # set when a client joins the /start queue
        self._runner: web.AppRunner | None = None
        self.port = 0

    # --- life cycle ----------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen; returns the bound port (pass 0 for a free one)."""
        app = web.Application()
        app.add_routes([web.post("/register", self._register), web.post("/start", self._start),
                        web.post("/play", self._play)])
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0,
                                     access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self.port = self._runner.addresses[-1][1]
        log.info("gnd server listening", host=host, port=self.port, game=self.config.game,
                 size=self.config.size, time=self.config.time, random=self.config.random)
        return self.port

    async def close(self) -> None:
        """Stop: pending long polls are answered 503, then the listener closes."""
        self._closing = True
        for match in list(self._live):
            if match.timer:
                match.timer.cancel()
            match.notify()
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.future.done():
                waiter.future.set_exception(_Reply(503, "server closing"))
        if self._runner:
            await self._runner.cleanup()
            self._runner = None

    def waiting(self) -> int:
        """Clients currently queued in /start."""
        return len(self._queue)

    async def wait_queued(self, count: int = 1) -> None:
        """Wait until at least `count` clients are queued in /start.  Pairing is FIFO (the first
        queued plays Red), so whoever wants a player to be Red starts its /start, awaits this, and
        only then lets the other one queue."""
        while len(self._queue) < count:
            self._queued.clear()
            await self._queued.wait()

    async def wait_games(self, count: int) -> list[dict]:
        """Wait until at least `count` games have finished; returns `records`."""
        while len(self.records) < count:
            self._recorded.clear()
            await self._recorded.wait()
        return self.records

    # --- HTTP plumbing -------------------------------------------------------------------

    async def _envelope(self, request: web.Request) -> Request:
        raw = await request.read()
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise _Reply(400, f"the body is not JSON: {exc}") from None
        try:
            return Request.from_json(obj)
        except ProtocolError as exc:
            raise _Reply(400, f"bad request: {exc}") from None

    def _group(self, req: Request) -> _Group:
        group = self._by_token.get(req.token)
        if group is None:
            raise _Reply(401, "unknown token: call /register first")
        return group

    @staticmethod
    def _text(reply: _Reply, path: str) -> web.Response:
        if reply.status >= 500:
            log.info("request refused", path=path, status=reply.status, reason=reply.text)
        elif reply.status != ILLEGAL_ACTION:  # illegal actions are logged with their details
            log.warning("request refused", path=path, status=reply.status, reason=reply.text)
        return web.Response(status=reply.status, text=reply.text + "\n",
                            reason="Illegal Action" if reply.status == ILLEGAL_ACTION else None)

    async def _register(self, request: web.Request) -> web.Response:
        try:
            req = await self._envelope(request)
            async with self._register_lock:
                group = self._by_id.get(req.id)
                if group is None:
                    salt = os.urandom(16)
                    digest = await asyncio.to_thread(_hash, req.password, salt)
                    token = _random_token(50)
                    while token in self._by_token:
                        token = _random_token(50)
                    group = _Group(token, req.id, req.members, salt, digest, req.possible_games)
                    self._by_id[req.id] = group
                    self._by_token[token] = group
                    log.info("registered", id=req.id, members=req.members, games=list(req.possible_games))
                else:
                    digest = await asyncio.to_thread(_hash, req.password, group.salt)
                    if not hmac.compare_digest(digest, group.digest):
                        raise _Reply(403, "bad password")
                    group.members, group.games = req.members, req.possible_games
                    log.info("registered again", id=req.id, members=req.members)
            return web.json_response({"Token": group.token})
        except _Reply as reply:
            return self._text(reply, "/register")

    async def _start(self, request: web.Request) -> web.Response:
        try:
            req = await self._envelope(request)
            group = self._group(req)
            if group.match is not None and not group.match.finished:
                raise _Reply(400, "already in a match: /play it to the end")
            if group.queued:
                raise _Reply(400, "already waiting for a match")
            if group.games and self.game not in group.games:
                raise _Reply(400, f"this server plays {self.config.game} only, you registered for "
                                  f"{[GAME_NAMES[g] if g in (0, 1) else g for g in group.games]}")
            if self._closing:
                raise _Reply(503, "server closing")
            if self.config.games and self._formed >= self.config.games:
                raise _Reply(503, f"game limit reached ({self.config.games} games)")
            match = await self._pair(group)
            player = match.colour_of(group)
            await self._wait_turn(match, player)
            return web.json_response(turn_json(self._turn(match, player), include_result=match.finished))
        except _Reply as reply:
            return self._text(reply, "/start")

    async def _play(self, request: web.Request) -> web.Response:
        try:
            req = await self._envelope(request)
            group = self._group(req)
            match = group.match
            if match is None or group.queued:
                raise _Reply(400, "not in a match: call /start first")
            player = match.colour_of(group)
            if not match.finished:
                self._move(match, player, req.action)
                await self._wait_turn(match, player)
            return web.json_response(turn_json(self._turn(match, player), include_result=True))
        except _Reply as reply:
            return self._text(reply, "/play")

    # --- matches -------------------------------------------------------------------------

    async def _pair(self, group: _Group) -> _Match:
        cfg = self.config
        if cfg.random:
            virtual = cfg.rcolor or ("blue" if self._formed % 2 == 0 else "red")
            return self._form(group, None) if virtual == "blue" else self._form(None, group)
        while self._queue:
            waiter = self._queue.popleft()
            if waiter.future.done():  # its client went away; its handler has not run its cleanup yet
                continue
            match = self._form(waiter.group, group)
            waiter.future.set_result(match)
            return match
        waiter = _Waiter(group, asyncio.get_running_loop().create_future())
        self._queue.append(waiter)
        group.queued = True
        self._queued.set()
        log.info("waiting for an opponent", members=group.members)
        try:
            return await waiter.future
        finally:
            group.queued = False
            if waiter in self._queue:  # the client went away before it was paired
                self._queue.remove(waiter)
                log.info("left the queue", members=group.members)

    def _form(self, red: _Group | None, blue: _Group | None) -> _Match:
        token = _random_token(10)
        t = float(self.config.time)
        red_clock, blue_clock = self.config.clocks or (t, t)
        match = _Match(token, {RED: red, BLUE: blue}, self._initial, {RED: float(red_clock), BLUE: float(blue_clock)})
        for g in (red, blue):
            if g is not None:
                g.match = match
        self._formed += 1
        self._live.add(match)
        log.info("match formed", match=token, game=self.config.game, size=self.config.size,
                 red=match.name(RED), blue=match.name(BLUE))
        self._ply(match.state)
        self._hand_turn(match, time.monotonic())
        return match

    def _turn(self, match: _Match, player: int) -> Turn:
        if not match.finished and match.state.to_move == player:
            clock = max(0.0, match.deadline - time.monotonic())
        else:
            clock = match.remaining[player]
        return Turn(game=self.game, player=player, clocktime=clock, size=match.state.size,
                    grid=grid_pairs(match.state.cells()), match_token=match.token,
                    finished=match.finished, winner=match.winner,
                    final_score=(1 if match.winner == RED else -1) if match.finished else 0)

    async def _wait_turn(self, match: _Match, player: int) -> None:
        while not (match.finished or match.state.to_move == player):
            if self._closing:
                raise _Reply(503, "server closing")
            await match.changed.wait()

    def _move(self, match: _Match, player: int, action_strings: tuple[str, ...]) -> None:
        """Check and apply `player`'s action; raises _Reply(310) when it is refused."""
        now = time.monotonic()
        if match.state.to_move != player:
            self._illegal(match, player, action_strings, "not your turn", now)
        if now >= match.deadline:
            self._finish(match, 3 - player, "time")
            return
        try:
            action = decode_action(self.game, action_strings)
            match.state.check(action)
        except (ProtocolError, IllegalMove) as exc:
            self._illegal(match, player, action_strings, str(exc), now)
        match.state = match.state.play(action)
        match.plies += 1
        self._note(match, player, action, now - match.turn_started)
        match.remaining[player] = max(0.0, match.deadline - now)
        self._ply(match.state)
        self._hand_turn(match, now)

    def _note(self, match: _Match, player: int, action: Any, think: float) -> None:
        """A move played, into the game's record (the state is already the one after it)."""
        side = _COLOUR[player]
        move = list(encode_action(self.game, action))
        match.moves.append(move)
        match.latencies[side].append(round(think, 4))
        match.turns.append(records.turn(len(match.turns) + 1, side, match.name(player), move, think))

    def _illegal(self, match: _Match, player: int, action: tuple[str, ...], why: str, now: float):
        side = _COLOUR[player]
        match.illegal[side] += 1
        penalty = self.config.penalty
        log.warning("illegal action", match=match.token, player=match.name(player), colour=side,
                    action=list(action), reason=why, ply=match.plies, penalty=penalty)
        if penalty:
            if match.state.to_move == player:
                match.deadline -= penalty
                self._schedule(match)
            else:
                match.remaining[player] = max(0.0, match.remaining[player] - penalty)
        raise _Reply(ILLEGAL_ACTION, f"illegal action {list(action)!r}: {why}")

    def _hand_turn(self, match: _Match, now: float) -> None:
        """After a state change: end the game, let the virtual player move, or start a clock."""
        while True:
            if match.timer:
                match.timer.cancel()
                match.timer = None
            state = match.state
            if state.is_terminal():
                self._finish(match, state.winner(), "no move")
                return
            mover = state.to_move
            match.turn_started = now
            match.deadline = now + match.remaining[mover]
            if match.seats[mover] is not None:
                break
            action = self.rng.choice(state.legal_moves())  # the virtual player: instantly
            match.state = state.play(action)
            match.plies += 1
            self._note(match, mover, action, 0.0)
            self._ply(match.state)
        self._schedule(match)
        match.notify()

    def _ply(self, state: Any) -> None:
        try:
            self.on_ply(state)
        except Exception:  # a callback bug must not wedge a match
            log.exception("on_ply callback failed")

    def _schedule(self, match: _Match) -> None:
        if match.timer:
            match.timer.cancel()
        delay = max(0.0, match.deadline - time.monotonic())
        match.timer = asyncio.get_running_loop().call_later(delay, self._on_timer, match, match.plies)

    def _on_timer(self, match: _Match, plies: int) -> None:
        match.timer = None
        if match.finished or match.plies != plies or self._closing:
            return
        if time.monotonic() < match.deadline:
            self._schedule(match)
            return
        self._finish(match, 3 - match.state.to_move, "time")

    def _finish(self, match: _Match, winner: int, reason: str) -> None:
        if match.timer:
            match.timer.cancel()
            match.timer = None
        if reason == "time":
            match.remaining[3 - winner] = 0.0
        match.finished, match.winner, match.reason = True, winner, reason
        self._live.discard(match)
        record = {
            "match": match.token, "game": self.config.game, "size": match.state.size,
            "red": match.name(RED), "blue": match.name(BLUE),
            "winner": winner, "winner_name": match.name(winner), "reason": reason,
            "plies": match.plies, "illegal": dict(match.illegal),
            "clock": {"red": round(match.remaining[RED], 4), "blue": round(match.remaining[BLUE], 4)},
            "latencies": {k: list(v) for k, v in match.latencies.items()},
            "moves": [list(m) for m in match.moves],
            "players": {"red": match.name(RED), "blue": match.name(BLUE)},
        }
        layouts = rules(self.config.game).LAYOUTS
        setup = {"name": str(self.config.size) + (f"-{self.config.layout}" if layouts else ""),
                 "size": self.config.size, "layout": self.config.layout}
        record = records.stamp(record, self.config.game, setup, position(self._initial), match.turns, records.SERVER)
        log.info("game over", match=match.token, winner=_COLOUR[winner], winner_name=record["winner_name"],
                 reason=reason, plies=match.plies, red=record["red"], blue=record["blue"])
        self.records.append(record)
        self._recorded.set()
        match.notify()
        try:
            self.on_game(record)
        except Exception:  # a callback bug must not break the server
            log.exception("on_game callback failed")
