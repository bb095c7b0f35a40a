"""A small CGOS server on asyncio, for local practice (`bots serve cgos`) and for tests.

It follows docs/protocols/cgos.md sections 2-4, the Python server's behaviour:

* Login: `protocol genmove_analyze` -> `e1 ...`, `username`, `password`.  Accounts live in
  memory; the first login registers the name, a wrong password gets `Error: Sorry,
  password doesn't match` and a close, `<old> <new>` changes the password, and a second
  login with the right password kicks the first connection.
* Pairing: clients waiting (after login or `ready`) are paired two by two, `pair_delay`
  seconds after the first of them started waiting, in the order they came; a pair's
  colours alternate from game to game.  (The real server pairs in rounds, by rating; for
  practice a short delay is better.)  With `random_opponent`, a client left alone plays
  the server's own random player.
* A game: `setup <gid> <size> <komi> <ms> <white>(<rating>) <black>(<rating>)` to both,
  then `genmove` to the side to move and `play` (the mover's clock) to the other.
  Sudden death: each move costs max(0, elapsed - time_gift); a clock below zero loses
  (`B+Time`/`W+Time`), checked when the move arrives and by a tick.  Our rules with
  positional superko: an illegal or unreadable move loses at once (`X+Illegal`, with the
  reason in the comment), `resign` gives `X+Resign`, two passes are scored by area minus
  komi (`B+n`/`W+n` with one decimal, or `Draw`), as is a game reaching `max_moves`.
  `gameover <date> <result> <comment>` goes to both; `ready` puts a client back in the
  queue, any other answer leaves it unpaired, as on CGOS.
* A disconnect mid-game does not stop the game or the clock; logging in again gets
  `setup` with the moves so far (each with the mover's time left) and, on its turn,
  `genmove` with what is left of its clock.

Every finished game is a record (dict) in `records` and is passed to `on_game`.
"""

from __future__ import annotations

import asyncio
import datetime
import hmac
import random
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import structlog

from protocol import cgos

from .board import BLACK, PASS, WHITE, IllegalMove, State, empty, point_name
from .players import random_move

RANDOM_NAME = "server-random"  # the server's own player; no client may log in with this name
INITIAL_RATING = 1500.0
PROVISIONAL_GAMES = 20  # a rating shows "?" until this many games
ELO_K = 32.0

_ACCOUNT = re.compile(r"[A-Za-z0-9_.-]+", re.ASCII)
_LETTERS = {BLACK: "b", WHITE: "w"}
_REASONS = {"occupied": "move to occupied point", "suicide": "suicide attempted", "superko": "KO attempted",
            "off board": "do not understand syntax", "game over": "game is over"}


@dataclass(eq=False)
class _Conn:
    """One client connection."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    peer: str
    name: str | None = None
    analyze: bool = False  # opted in to genmove_analyze
    status: str = "login"  # login, waiting, playing, gameover, idle, closed
    expects: deque = field(default_factory=deque)  # (prompt, gid) awaiting an answer, oldest first

    def send(self, data: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(data)

    def close(self) -> None:
        self.status = "closed"
        self.writer.close()

    async def readline(self) -> str | None:
        """The next line without its end of line; None at EOF or on a broken or over-long line."""
        try:
            raw = await self.reader.readline()
        except (OSError, ValueError):  # ValueError: a line over the stream's limit
            return None
        if not raw or not raw.endswith(b"\n"):
            return None
        return raw.decode("utf-8", errors="replace").rstrip("\r\n")


@dataclass(eq=False)
class _Game:
    gid: int
    names: dict[int, str]  # BLACK/WHITE -> player name
    state: State
    clocks: dict[int, float]  # seconds left; for the side to move, at the start of its turn
    turn_start: float  # when the side to move was (or would have been) sent genmove
    moves: list[tuple[str, float]] = field(default_factory=list)  # (as typed, mover's time left)
    thinks: list[float] = field(default_factory=list)  # each move's time from genmove to the answer
    over: bool = False

    def left(self, colour: int, now: float, gift: float) -> float:
        """What `colour`'s clock shows at `now` (below zero: the flag has fallen)."""
        if colour != self.state.to_move:
            return self.clocks[colour]
        return self.clocks[colour] - max(0.0, now - self.turn_start - gift)


def _account_error(value: str, what: str, low: int, high: int) -> str | None:
    if len(value) < low:
        return f"{what} must be {low} characters or more."
    if len(value) > high:
        return f"{what} must be {high} characters or less."
    if not _ACCOUNT.fullmatch(value):
        return f"{what} may contain only letters, digits, '_', '.' and '-'."
    return None


class CgosServer:
    """A CGOS server for local games; `await start()`, then clients connect to `port`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, size: int = 9, komi: float = 7.0,
                 main_time: float = 300.0, time_gift: float = 0.25, pair_delay: float = 0.5,
                 max_moves: int = 400, log: Any = None, on_game: Callable[[dict], Any] | None = None,
                 random_opponent: bool = False, tick: float = 1.0, info_every: float = 60.0,
                 seed: int | None = None) -> None:
        empty(size, komi)  # ValueError now for an impossible board
        if main_time <= 0 or time_gift < 0 or pair_delay < 0 or max_moves < 1 or tick <= 0:
            raise ValueError("main_time and tick must be positive, time_gift and pair_delay >= 0, "
                             "max_moves >= 1")
        self.host, self._port, self.size, self.komi = host, port, size, float(komi)
        self.main_time, self.time_gift, self.pair_delay = float(main_time), float(time_gift), pair_delay
        self.max_moves, self.tick, self.info_every = max_moves, tick, info_every
        self.random_opponent = random_opponent
        self.on_game = on_game
        self.log = log or structlog.get_logger("bots.go.cgos_server")
        self.rng = random.Random(seed)
        self.records: list[dict] = []
        self._passwords: dict[str, str] = {}
        self._ratings: dict[str, float] = {}
        self._played: dict[str, int] = {}
        self._online: dict[str, _Conn] = {}
        self._conns: set[_Conn] = set()
        self._waiting: dict[str, _Conn] = {}  # insertion order = queue order
        self._games: dict[int, _Game] = {}  # running games
        self._game_of: dict[str, _Game] = {}
        self._last_black: dict[frozenset, str] = {}
        self._next_gid = 1
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self._handlers: set[asyncio.Task] = set()  # one per connection
        self._pairing: asyncio.Task | None = None
        self._changed = asyncio.Event()  # set (and replaced) when the queue or the logins change

    # -- life cycle -----------------------------------------------------------------------

    async def start(self) -> int:
        """Listen; the port (chosen by the OS when 0 was asked)."""
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, self.host, self._port)
            self._port = self._server.sockets[0].getsockname()[1]
            self._spawn(self._ticker())
            if self.info_every > 0:
                self._spawn(self._info_loop())
            self.log.info("cgos server listening", host=self.host, port=self._port, size=self.size,
                          komi=self.komi, main_time=self.main_time, random_opponent=self.random_opponent)
        return self._port

    @property
    def port(self) -> int:
        return self._port

    async def serve_forever(self) -> None:
        await self.start()
        assert self._server is not None
        await self._server.serve_forever()

    async def close(self) -> None:
        """Stop listening, drop every client, stop the timers (running games are abandoned)."""
        timers = list(self._tasks) + ([self._pairing] if self._pairing else [])
        for task in timers:
            task.cancel()
        await asyncio.gather(*timers, return_exceptions=True)
        if self._server is not None:
            self._server.close()
        for conn in list(self._conns):
            conn.close()
        if self._handlers:  # they end at once: their sockets are closed
            await asyncio.wait(list(self._handlers), timeout=2.0)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
        self._conns.clear()
        self._online.clear()
        self._waiting.clear()
        self._notify()

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def waiting(self) -> list[str]:
        """Names waiting to be paired, in queue order."""
        return list(self._waiting)

    def running(self) -> list[int]:
        """Game ids in progress."""
        return list(self._games)

    async def wait_waiting(self, names: list[str]) -> None:
        """Wait until the names waiting to be paired are `names`, in this order.  A new pair
        gives Black to whoever waited first, so whoever wants a player to be Black logs it in,
        awaits this, and only then logs in the other."""
        while self.waiting() != list(names):
            await self._changed.wait()

    async def wait_offline(self, name: str) -> None:
        """Wait until the server has seen `name` disconnect (it has no connection logged in)."""
        while name in self._online:
            await self._changed.wait()

    def _notify(self) -> None:
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    # -- connections and login ------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        conn = _Conn(reader, writer, f"{peer[0]}:{peer[1]}" if peer else "?")
        self._conns.add(conn)
        handler = asyncio.current_task()
        if handler is not None:
            self._handlers.add(handler)
        try:
            if not await self._login(conn):
                return
            self._enter(conn)
            while (line := await conn.readline()) is not None:
                self._on_line(conn, line, time.monotonic())
                if conn.status == "closed":
                    break
        finally:
            self._drop(conn)
            conn.close()
            self._handlers.discard(handler)

    async def _refuse(self, conn: _Conn, text: str) -> bool:
        self.log.info("login refused", peer=conn.peer, reason=text)
        conn.send(cgos.encode(cgos.Error(text)))
        try:
            await conn.writer.drain()
        except OSError:
            pass
        return False

    async def _login(self, conn: _Conn) -> bool:
        conn.send(cgos.encode(cgos.Protocol((cgos.GENMOVE_ANALYZE,))))
        line = await conn.readline()
        if line is None:
            return False
        try:
            e1 = cgos.parse_reply("protocol", line)
        except cgos.ProtocolError:
            return await self._refuse(conn, "invalid response")
        if isinstance(e1, cgos.Quit):
            return False
        conn.analyze = e1.genmove_analyze
        conn.send(cgos.encode(cgos.Username()))
        line = await conn.readline()
        if line is None:
            return False
        name = line.strip()
        problem = _account_error(name, "User name", 3, 18)
        if problem is None and name == RANDOM_NAME:
            problem = "User name is reserved."
        if problem:
            return await self._refuse(conn, problem)
        conn.send(cgos.encode(cgos.Password()))
        line = await conn.readline()
        if line is None:
            return False
        try:
            reply = cgos.parse_reply("password", line)
        except cgos.ProtocolError:
            return await self._refuse(conn, "send <password> or <old_password new_password>")
        for secret in (reply.password, reply.new_password):
            if secret is not None and (problem := _account_error(secret, "Password", 3, 16)):
                return await self._refuse(conn, problem)
        known = self._passwords.get(name)
        if known is None:
            self._passwords[name] = reply.new_password or reply.password
            self.log.info("registered", name=name, peer=conn.peer)
        elif not hmac.compare_digest(known.encode(), reply.password.encode()):
            return await self._refuse(conn, "Sorry, password doesn't match")
        elif reply.new_password is not None:
            self._passwords[name] = reply.new_password
            self.log.info("password changed", name=name)
        old = self._online.get(name)
        if old is not None:
            old.send(cgos.encode(cgos.Info("another login is being attempted using this user name")))
            self._drop(old)
            old.close()
        conn.name = name
        self._online[name] = conn
        self._notify()
        self.log.info("logged in", name=name, peer=conn.peer)
        return True

    def _enter(self, conn: _Conn) -> None:
        """After login: back into a running game (resume), else into the queue."""
        assert conn.name is not None
        game = self._game_of.get(conn.name)
        if game is None:
            self._wait(conn)
            return
        conn.status = "playing"
        now = time.monotonic()
        conn.send(self._setup_line(game, with_moves=True))
        colour = game.state.to_move
        if game.names[colour] == conn.name:
            self._send_genmove(conn, game, now)
        self.log.info("game resumed", gid=game.gid, name=conn.name, moves=len(game.moves))

    def _wait(self, conn: _Conn) -> None:
        conn.status = "waiting"
        assert conn.name is not None
        self._waiting[conn.name] = conn
        self._notify()
        if self._pairing is None or self._pairing.done():
            self._pairing = asyncio.get_running_loop().create_task(self._pair_later())

    def _drop(self, conn: _Conn) -> None:
        self._conns.discard(conn)
        if conn.name is not None and self._online.get(conn.name) is conn:
            del self._online[conn.name]
            self._waiting.pop(conn.name, None)
            self._notify()
            self.log.info("disconnected", name=conn.name, in_game=conn.name in self._game_of)
        conn.status = "closed"

    def _on_line(self, conn: _Conn, line: str, now: float) -> None:
        if not conn.expects:
            if line.strip() == "quit":
                conn.close()
            elif line.strip():
                self.log.info("unprompted line ignored", name=conn.name, line=line[:80])
            return
        prompt, gid = conn.expects.popleft()
        if prompt == "gameover":
            text = line.strip()
            if text == "ready":
                self._wait(conn)
            elif text == "quit":
                conn.close()
            else:
                conn.status = "idle"
                self.log.info("improper response to gameover; not paired again", name=conn.name, line=text[:80])
            return
        game = self._games.get(gid)
        try:
            reply = cgos.parse_reply("genmove", line, genmove_analyze=conn.analyze)
        except cgos.ProtocolError:
            reply = cgos.MoveReply(line.strip() or "(empty)")
        if isinstance(reply, cgos.Quit):
            conn.close()
            return
        if game is None or game.names[game.state.to_move] != conn.name:
            self.log.info("move after the game ended; ignored", name=conn.name, gid=gid)
            return
        self._move(game, reply.move, now)

    # -- pairing --------------------------------------------------------------------------

    async def _pair_later(self) -> None:
        await asyncio.sleep(self.pair_delay)
        self._pair()

    def _pair(self) -> None:
        names = list(self._waiting)
        while len(names) >= 2:
            a, b = names.pop(0), names.pop(0)
            self._start(*self._colours(a, b))
        if names and self.random_opponent:
            self._start(*self._colours(names[0], RANDOM_NAME))

    def _colours(self, first: str, second: str) -> tuple[str, str]:
        """(black, white): a new pair gives Black to whoever waited first, then they alternate."""
        key = frozenset((first, second))
        black = second if self._last_black.get(key) == first else first
        self._last_black[key] = black
        return black, second if black == first else first

    def _rating(self, name: str) -> str:
        r = round(self._ratings.get(name, INITIAL_RATING))
        return f"{r}?" if self._played.get(name, 0) < PROVISIONAL_GAMES else str(r)

    def _start(self, black: str, white: str) -> None:
        gid = self._next_gid
        self._next_gid += 1
        game = _Game(gid, {BLACK: black, WHITE: white}, empty(self.size, self.komi, "positional"),
                     {BLACK: self.main_time, WHITE: self.main_time}, time.monotonic())
        self._games[gid] = game
        setup = self._setup_line(game, with_moves=False)
        for name in (black, white):
            self._game_of[name] = game
            self._waiting.pop(name, None)
            conn = self._online.get(name)
            if conn is not None:
                conn.status = "playing"
                conn.send(setup)
        self._notify()
        self.log.info("game started", gid=gid, black=black, white=white)
        self._prompt(game, game.turn_start)

    def _setup_line(self, game: _Game, with_moves: bool) -> bytes:
        players = {c: cgos.Player(game.names[c], self._rating(game.names[c])) for c in (BLACK, WHITE)}
        moves = tuple(game.moves) if with_moves else ()
        return cgos.encode(cgos.Setup(game.gid, self.size, self.komi, self.main_time, players[WHITE],
                                      players[BLACK], moves))

    # -- playing --------------------------------------------------------------------------

    def _send_genmove(self, conn: _Conn, game: _Game, now: float) -> None:
        colour = game.state.to_move
        left = max(0.0, game.clocks[colour] - (now - game.turn_start))
        conn.expects.append(("genmove", game.gid))
        conn.send(cgos.encode(cgos.Genmove(_LETTERS[colour], left)))

    def _prompt(self, game: _Game, now: float) -> None:
        """The side to move's turn has started at `now`: ask it (absent players are not asked)."""
        game.turn_start = now
        name = game.names[game.state.to_move]
        if name == RANDOM_NAME:
            asyncio.get_running_loop().call_soon(self._random_move, game)
            return
        conn = self._online.get(name)
        if conn is not None:
            self._send_genmove(conn, game, now)

    def _random_move(self, game: _Game) -> None:
        if game.over:
            return
        move = random_move(game.state, self.rng)
        self._move(game, point_name(move, self.size).lower(), time.monotonic())

    def _move(self, game: _Game, text: str, now: float) -> None:
        """The side to move answered `text` at `now`: clock, rules, then the next turn or the end."""
        colour = game.state.to_move
        other = _LETTERS[3 - colour].upper()
        left = game.left(colour, now, self.time_gift)
        if left < 0:
            self._end(game, f"{other}+Time", "")
            return
        word = text.strip()
        if word.lower() == "resign":
            self._end(game, f"{other}+Resign", "Resignation")
            return
        try:
            point = PASS if word.lower().startswith("pa") else self._point(word)
            game.state.check(point)
        except (cgos.ProtocolError, ValueError) as exc:
            reason = (_REASONS.get(exc.reason, exc.reason) if isinstance(exc, IllegalMove)
                      else "do not understand syntax")
            self.log.info("illegal move", gid=game.gid, player=game.names[colour], move=word[:20], reason=reason)
            self._end(game, f"{other}+Illegal", f"Illegal move error:{reason} move:{word[:40]}")
            return
        game.state = game.state.play(point)
        game.clocks[colour] = left
        game.moves.append((word, left))
        game.thinks.append(round(now - game.turn_start, 4))
        opponent = self._online.get(game.names[3 - colour])
        if opponent is not None:
            opponent.send(cgos.encode(cgos.Play(_LETTERS[colour], word, left)))
        if game.state.is_terminal():
            self._end(game, self._score(game.state), "")
        elif len(game.moves) >= self.max_moves:
            self._end(game, self._score(game.state), f"move limit {self.max_moves}")
        else:
            self._prompt(game, now)

    def _point(self, word: str) -> int:
        vertex = cgos.parse_move(word, self.size)
        if vertex is None:
            return PASS
        col, row = vertex
        return row * self.size + col

    @staticmethod
    def _score(state: State) -> str:
        score = state.score()
        if score == 0:
            return "Draw"
        return f"{'B' if score > 0 else 'W'}+{abs(score):.1f}"

    def _end(self, game: _Game, result: str, comment: str) -> None:
        game.over = True
        self._games.pop(game.gid, None)
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        line = cgos.encode(cgos.Gameover(date, result, comment))
        for name in game.names.values():
            if self._game_of.get(name) is game:
                del self._game_of[name]
            conn = self._online.get(name)
            if conn is not None:
                conn.status = "gameover"
                conn.expects.append(("gameover", game.gid))
                conn.send(line)
        winner = {"B": game.names[BLACK], "W": game.names[WHITE]}.get(result[:1]) if result[1:2] == "+" else None
        self._update_ratings(game, winner)
        record = {"gid": game.gid, "date": date, "size": self.size, "komi": self.komi,
                  "players": {"black": game.names[BLACK], "white": game.names[WHITE]},
                  "result": result, "comment": comment, "winner": winner,
                  "moves": [m for m, _ in game.moves], "times": [round(t, 3) for _, t in game.moves],
                  "thinks": list(game.thinks)}
        self.records.append(record)
        self.log.info("game over", gid=game.gid, result=result, comment=comment, moves=len(game.moves),
                      black=game.names[BLACK], white=game.names[WHITE])
        if self.on_game is not None:
            try:
                self.on_game(record)
            except Exception:  # a broken callback must not break the server
                self.log.exception("on_game callback failed", gid=game.gid)

    def _update_ratings(self, game: _Game, winner: str | None) -> None:
        b, w = game.names[BLACK], game.names[WHITE]
        rb, rw = self._ratings.get(b, INITIAL_RATING), self._ratings.get(w, INITIAL_RATING)
        expected = 1.0 / (1.0 + 10 ** ((rw - rb) / 400.0))
        score = 0.5 if winner is None else float(winner == b)
        self._ratings[b] = rb + ELO_K * (score - expected)
        self._ratings[w] = rw - ELO_K * (score - expected)
        for name in (b, w):
            self._played[name] = self._played.get(name, 0) + 1

    # -- timers ---------------------------------------------------------------------------

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            now = time.monotonic()
            for game in list(self._games.values()):
                colour = game.state.to_move
                if game.left(colour, now, self.time_gift) < 0:
                    self._end(game, f"{_LETTERS[3 - colour].upper()}+Time", "")

    async def _info_loop(self) -> None:
        while True:
            await asyncio.sleep(self.info_every)
            line = cgos.encode(cgos.Info(f"Games in progress: {len(self._games)} Players:{len(self._online)}"))
            for conn in list(self._online.values()):
                conn.send(line)
