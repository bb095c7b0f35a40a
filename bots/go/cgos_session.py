"""The CGOS client session: one TCP connection to a CGOS server, as many games as it brings.

Follows the client checklist of docs/protocols/cgos.md (section 7).  The server speaks first
and we answer exactly one line to `protocol`, `username`, `password`, `genmove` and
`gameover`, and nothing else.  Every `setup` rebuilds the position from its move tail (it
may be a resume after a reconnect); `genmove` gets a move from `decide` (budget from the
milliseconds on our clock, our rules check), and since the server never echoes our own
move, we apply it ourselves.  An opponent move our rules reject (cgos-lite checks only
simple ko) is logged and applied as best we can, so a bad server never crashes the bot.

Both real CGOS and cgos-lite are handled: `username` is answered whenever it comes
(cgos-lite polls idle clients), and a new `setup` while a game is open ends that game
(cgos-lite never sends `gameover`).  `Error:` lines raise `Refused` (a wrong password: a
retry cannot help); EOF or a broken socket raises `SessionClosed`, a ConnectionError that
carries the games finished on this connection, so the daemon backs off, reconnects, and
a game in progress resumes through `setup`.  The password is never logged: server text
that is logged has it masked, in case a server ever echoes it.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import structlog

from protocol import cgos
from search.contracts import Context

from .. import __version__, clock, fields, records
from ..clock import Overhead
from ..players import make_player
from ..runner import SearchRunner
from ..session import CONNECTED, GAME_OVER, GAME_STARTS, Client, GarbageGuard, Refused, SessionClosed
from ..decide import decide
from . import fallback
from .board import BLACK, PASS, WHITE, IllegalMove, State, empty, point_name
from .clock import moves_left
from .sgf import game_sgf

DEFAULT_PORT = 6809  # yss-aya.com, 9x9 (docs/protocols/cgos.md section 1)
CONNECT_TIMEOUT = 30.0  # seconds; a TimeoutError is an OSError, which the daemon retries
LOG_TEXT = 200  # characters of server text kept in a log line

_ACCOUNT = re.compile(r"[A-Za-z0-9_.-]+", re.ASCII)
_COLOURS = {"b": BLACK, "w": WHITE}
_LETTERS = {BLACK: "b", WHITE: "w"}


def _check_account(value: object, what: str, low: int, high: int, secret: bool) -> None:
    if isinstance(value, str) and low <= len(value) <= high and _ACCOUNT.fullmatch(value):
        return
    shown = "" if secret else f", got {value!r:.40}"
    raise ValueError(f"{what} must be {low}-{high} characters from [A-Za-z0-9_.-]{shown}")


@dataclass(frozen=True)
class CgosBot:
    """Everything one CGOS bot needs: the server, the account and how to play."""

    name: str
    host: str
    port: int
    password: str = field(repr=False)
    player: str = "mcts"
    params: tuple = ()  # sorted (key, value) pairs
    overhead: float = 0.2  # seconds per move besides thinking, at the first move; then learned from the clock
    games: int = 0  # games to finish on this connection before `quit`; 0 plays forever
    record: str | None = None  # a directory: each game saved there as SGF (bots.records), our moves timed by us

    def __post_init__(self) -> None:
        _check_account(self.name, "name", 3, 18, secret=False)
        _check_account(self.password, "password", 3, 16, secret=True)
        if not isinstance(self.host, str) or not self.host:
            raise ValueError(f"host must be a non-empty string, got {self.host!r:.60}")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise ValueError(f"port {self.port!r} is not a TCP port")
        make_player("go", self.player, dict(self.params))  # fail now on a bad player or option
        if self.overhead < 0:
            raise ValueError(f"overhead {self.overhead} is negative")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise ValueError(f"games {self.games!r} must be an int >= 0")

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


KEYS = {"name", "game", "host", "port", "password", "password_env", "player", "params", "overhead", "games",
        "record"}


def bot_from_table(table: dict, where: str) -> CgosBot:
    """A `[[bot]]` table of the daemon's config (bots.settings) as a CgosBot."""
    fields.only(table, KEYS, where, "go")
    return CgosBot(
        name=fields.get(table, "name", str, where),
        host=fields.get(table, "host", str, where, check=bool, explain="must not be empty"),
        port=fields.port(table, where, DEFAULT_PORT),
        password=fields.password(table, where),
        player=fields.get(table, "player", str, where, "mcts"),
        params=fields.params(table, where),
        overhead=fields.seconds(table, "overhead", where, 0.2),
        games=fields.get(table, "games", int, where, 0, lambda v: v >= 0, "must be >= 0"),
        record=fields.record(table, where),
    )


@dataclass
class _Game:
    """What we know of the game in progress."""

    gid: int
    colour: int | None  # ours; None if neither name in `setup` is ours
    white: str
    black: str
    state: State
    moves: int  # moves played so far, the setup tail included
    log: Any
    overhead: Overhead = field(default_factory=Overhead)  # learned from the server's clock
    before: tuple[float, float] | None = None  # (our clock, our thinking) at our last move
    played: list[str] = field(default_factory=list)  # every move's name, for the record
    thinks: list[float | None] = field(default_factory=list)  # our moves' think times (None: theirs)

    @property
    def opponent(self) -> str | None:
        if self.colour is None:
            return None
        return self.white if self.colour == BLACK else self.black


def _point(text: str, size: int) -> int:
    """A move as the server wrote it -> our point or PASS; cgos.ProtocolError for garbage."""
    vertex = cgos.parse_move(text, size)
    if vertex is None:
        return PASS
    col, row = vertex
    return row * size + col


def apply_move(state: State, colour: int, text: str, log: Any) -> State:
    """`state` after `colour` plays `text` (a move from the server), never raising.

    A move our rules reject is logged, then followed as far as it can be: a repetition
    (superko, or a move after two passes) is played with the history ignored; a move that
    cannot be played at all (occupied, suicide, off the board, garbage) becomes a null
    move that only hands the turn over, keeping the board as we know it.
    """
    if state.to_move != colour:
        log.error("move out of turn; following the server", move=text[:20], colour=_LETTERS[colour])
        state = state._replace(to_move=colour, ko=PASS)
    try:
        point = _point(text, state.size)
    except cgos.ProtocolError as exc:
        log.error("unreadable move from the server; skipping it", move=text[:20], error=str(exc))
        return state._replace(to_move=3 - colour, ko=PASS, passes=0)
    try:
        return state.play(point)
    except IllegalMove as exc:
        reason = exc.reason
    if reason in ("superko", "game over"):
        relaxed = state._replace(passes=0, ko=PASS, ko_history=frozenset())
        after = relaxed.play(point)  # legal now: only the history was in the way
        log.error("illegal move from the server by our rules; played it anyway", move=text[:20],
                  reason=reason, colour=_LETTERS[colour])
        return after._replace(ko_history=after.ko_history | state.ko_history)
    log.error("impossible move from the server; skipping it", move=text[:20], reason=reason,
              colour=_LETTERS[colour])
    return state._replace(to_move=3 - colour, ko=PASS, passes=0)


def read_result(result: str | None) -> tuple[str | None, str, float | None]:
    """(the winner's colour letter or None, why the game ended, the winning margin or None) of a
    `gameover` result (docs/protocols/cgos.md section 4): "B+12.5" -> ("b", "score", 12.5);
    "B+0.0" (the Tcl server's draw) and "Draw" -> (None, "score", 0.0);
    "W+Resign" -> ("w", "resign", None), likewise "Time" -> "time" and "Illegal" ->
    "illegal move" (the loser's); anything else ("Abort", an admin's text, None: no
    gameover) -> (None, "unknown" or "abort", None)."""
    if result is None:
        return None, "unknown", None
    text = result.strip()
    if text.lower() == "draw":
        return None, "score", 0.0
    if len(text) > 2 and text[0] in "BW" and text[1] == "+":
        letter, rest = text[0].lower(), text[2:]
        try:
            margin = float(rest)
        except ValueError:
            word = rest.lower()
            return letter, {"resign": "resign", "time": "time", "illegal": "illegal move"}.get(word, word), None
        if margin != margin or margin in (float("inf"), float("-inf")):
            return None, "unknown", None
        return (letter if margin else None), "score", margin
    return None, "abort" if text.lower() == "abort" else "unknown", None


def _cgos_result(state: State) -> str:
    """The result CGOS would give a finished board (area score, one decimal, or Draw)."""
    score = state.score()
    if score == 0:
        return "Draw"
    return f"{'B' if score > 0 else 'W'}+{abs(score):.1f}"


class _Session(Client):
    label = "go"

    def __init__(self, bot: CgosBot, runner: SearchRunner, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, log: Any, on_state: Callable[[State], None] | None = None,
                 stop: asyncio.Event | None = None) -> None:
        super().__init__(bot, runner, log, on_state, stop)
        self.reader, self.writer = reader, writer
        self.decoder = cgos.Decoder()
        self.arrived = time.monotonic()
        self.garbage = GarbageGuard(log, what="lines", error=cgos.ProtocolError)
        self.game: _Game | None = None

    def _mask(self, text: str) -> str:
        return text.replace(self.bot.password, "***")[:LOG_TEXT]

    async def _next(self) -> tuple[cgos.Event, float]:
        """The next event and the monotonic time its bytes arrived; SessionClosed at EOF."""
        while True:
            try:
                event = self.decoder.next_event()
            except cgos.ProtocolError as exc:
                self.garbage.bad(self._mask(str(exc)))
                continue
            if event is not None:
                self.garbage.good()
                return event, self.arrived
            try:
                data = await self.reader.read(65536)
            except OSError as exc:
                raise SessionClosed(f"connection broken: {exc}", self.summaries) from exc
            if not data:
                where = "mid-game" if self.game is not None else "between games"
                raise SessionClosed(f"server closed the connection {where}", self.summaries)
            self.arrived = time.monotonic()
            self.decoder.feed(data)

    async def _send(self, data: bytes) -> None:
        try:
            self.writer.write(data)
            await self.writer.drain()
        except OSError as exc:
            raise SessionClosed(f"connection broken: {exc}", self.summaries) from exc

    async def games(self) -> None:
        bot = self.bot
        while True:
            event, arrived = await self._next()
            if isinstance(event, cgos.Protocol):
                await self._send(cgos.encode_e1(f"bots {__version__}"))
            elif isinstance(event, cgos.Username):
                await self._send(cgos.encode_username(bot.name))
            elif isinstance(event, cgos.Password):
                await self._send(cgos.encode_password(bot.password))
            elif isinstance(event, cgos.Setup):
                if self._close_open_game("a new setup arrived (cgos-lite: no gameover)"):
                    await self._send(cgos.encode_quit())
                    return
                self._setup(event)
            elif isinstance(event, cgos.Genmove):
                await self._genmove(event, arrived)
            elif isinstance(event, cgos.Play):
                self._play(event)
            elif isinstance(event, cgos.Gameover):
                if self._gameover(event):
                    await self._send(cgos.encode_quit())
                    self.log.info("played every game asked; quitting", games=len(self.summaries))
                    return
                await self._send(cgos.encode_ready())
            elif isinstance(event, cgos.Info):
                if "another login" in event.text:
                    self.log.warning("server says another login uses our name", info=self._mask(event.text))
                else:
                    self.log.debug("info", text=self._mask(event.text))
            elif isinstance(event, cgos.Error):
                raise Refused(f"server refused us: {self._mask(event.text)}")
            else:
                self.log.warning("unknown line from the server; ignored", line=self._mask(event.line))

    def _done(self) -> bool:
        return self.stopping or (bool(self.bot.games) and len(self.summaries) >= self.bot.games)

    # -- events ---------------------------------------------------------------------------

    def _setup(self, event: cgos.Setup) -> None:
        letter = event.color_of(self.bot.name)
        colour = _COLOURS.get(letter) if letter else None
        try:
            state = empty(event.size, event.komi, "positional")
        except ValueError as exc:
            raise cgos.ProtocolError(f"setup: {exc}") from None
        glog = self.log.bind(gid=event.game_id, colour=letter)
        if colour is None:
            glog.error("setup names neither player as us", white=event.white.name, black=event.black.name)
        for text, _ in event.moves:
            state = apply_move(state, state.to_move, text, glog)
        self.game = _Game(event.game_id, colour, event.white.name, event.black.name, state, len(event.moves), glog,
                          played=[text for text, _ in event.moves], thinks=[None] * len(event.moves))
        glog.info(GAME_STARTS, opponent=self.game.opponent, size=event.size, komi=event.komi,
                  main_time=event.time, resumed_moves=len(event.moves), to_move=_LETTERS[state.to_move])

    async def _genmove(self, event: cgos.Genmove, arrived: float) -> None:
        game = self.game
        colour = _COLOURS[event.color]
        if game is None:
            self.log.error("genmove without a game; passing", colour=event.color)
            await self._send(cgos.encode_move("pass"))
            return
        if game.colour != colour:
            game.log.warning("genmove for a colour that is not ours by setup; playing it", asked=event.color)
            game.colour = colour
            game.log = game.log.bind(colour=event.color)
        state = game.state
        if state.to_move != colour or state.is_terminal():
            game.log.error("our position is out of step with the server; following the server",
                           to_move=_LETTERS[state.to_move], passes=state.passes)
            state = state._replace(to_move=colour, ko=PASS, passes=0)
        if self.on_state is not None:
            self.on_state(state)
        if game.before is None:
            game.overhead.value = self.bot.overhead
        else:  # what our last move cost on the server's clock besides thinking
            game.overhead.observe(game.before[0], event.time_left, game.before[1])
        budget = clock.budget(arrived=arrived, time_left=event.time_left, moves_left=moves_left(state),
                              overhead=game.overhead.value)
        move, _ = await decide(self.runner, "go", self.bot.player, self.bot.params, state, budget,
                               Context(time_left=event.time_left), log=game.log,
                               overhead=round(game.overhead.value, 3), clock=round(event.time_left, 3))
        await self._send(cgos.encode_move(point_name(move, state.size).lower()))
        game.before = (event.time_left, time.monotonic() - arrived)
        game.state = state.play(move)  # the server never echoes our own move
        game.moves += 1
        game.played.append(point_name(move, state.size))
        game.thinks.append(game.before[1])

    def _play(self, event: cgos.Play) -> None:
        game = self.game
        if game is None:
            self.log.warning("play without a game; ignored", colour=event.color, move=event.move[:20])
            return
        colour = _COLOURS[event.color]
        if colour == game.colour:
            game.log.warning("play for our own colour (the server does not echo our moves); ignored",
                             move=event.move[:20])
            return
        game.state = apply_move(game.state, colour, event.move, game.log)
        game.moves += 1
        game.played.append(event.move)
        game.thinks.append(None)

    def _gameover(self, event: cgos.Gameover) -> bool:
        """Record the result; True when every game asked is done (quit instead of ready)."""
        game, self.game = self.game, None
        if game is None:
            self.log.warning("gameover without a game; not counted", result=event.result)
            return False
        self._record(game, event.result, event.comment, "server")
        return self._done()

    def _close_open_game(self, why: str) -> bool:
        """cgos-lite: a new setup ends the open game; True when every game asked is done."""
        game, self.game = self.game, None
        if game is None:
            return False
        state = game.state
        result = _cgos_result(state) if state.is_terminal() else None  # two passes: score it ourselves
        game.log.info("previous game closed without a gameover", why=why)
        self._record(game, result, "", "our board" if result else None)
        return self._done()

    def _record(self, game: _Game, result: str | None, comment: str, score_from: str | None) -> None:
        """The summary of a game: the server's result string (`result`, None if unknown), the
        winner's name, and from our side the `outcome` (won/lost/draw/unknown), the `reason` and
        the winning margin `score` of a scored game, with where it comes from (`score_from`)."""
        letter, reason, margin = read_result(result)
        winner = {"b": game.black, "w": game.white}.get(letter or "")
        ours = _LETTERS.get(game.colour)
        if letter is None:
            outcome = "draw" if margin == 0.0 else "unknown"
        else:
            outcome = "unknown" if ours is None else "won" if letter == ours else "lost"
        summary = {"gid": game.gid, "colour": ours, "opponent": game.opponent,
                   "result": result, "winner": winner, "moves": game.moves, "outcome": outcome,
                   "reason": reason, "score": margin, "score_from": score_from if margin is not None else None}
        path = self._save(game, result) if self.bot.record else None
        if path is not None:
            summary["record"] = str(path)
        self.summaries.append(summary)
        game.log.info(GAME_OVER, comment=self._mask(comment), won=winner == self.bot.name, **summary)

    def _save(self, game: _Game, result: str | None) -> Path | None:
        """The game as SGF into bot.record: every move, and the think time of ours as we
        measured it (from genmove to our answer); the root comment says so."""
        size = game.state.size
        try:
            text = game_sgf(size, game.state.komi, game.black, game.white, game.played, result or "?",
                            comment=f"CGOS game {game.gid} on {self.bot.address}; think times: ours only, "
                                    "measured by the client", thinks=game.thinks)
        except ValueError as exc:  # a move the server sent that is no point of ours
            game.log.error("cannot write the game record", error=str(exc))
            return None
        return records.keep_text(self.bot.record, records.file_name("go", f"{size}x{size}", game.black, game.white,
                                                             game.gid, "sgf"), text)


async def play(bot: CgosBot, runner: SearchRunner, on_state: Callable[[State], None] | None = None,
               log: Any = None, stop: asyncio.Event | None = None) -> list[dict]:
    """Connect, log in and play until `bot.games` games are done, or a game ends once `stop` is
    set (then `quit`); a summary per game.

    Each summary: gid, colour ("b"/"w"), opponent, result (the server's string, e.g.
    "W+6.0", "B+Resign", "Draw"; None if unknown), winner (a name or None), moves, and from
    our side: outcome (won/lost/draw/unknown), reason (score, resign, time, illegal move,
    abort, unknown) and the winning margin score (a scored game only) with score_from.
    `on_state` sees each position we move in.
    Raises Refused when the server refuses us, SessionClosed (a ConnectionError) when the
    connection ends, a ProtocolError after bots.session.GARBAGE_LIMIT malformed lines in a row, and
    OSError (TimeoutError included) when the server cannot be reached.  With games=0 it returns only by raising.
    """
    log = (log or structlog.get_logger("bots.go.cgos")).bind(bot=bot.name, game="go",
                                                             server=f"{bot.host}:{bot.port}")
    loading = runner.when_ready(fallback.warm)  # the fallback runs here, not in a worker (bots.go.fallback)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(bot.host, bot.port), CONNECT_TIMEOUT)
        log.info(CONNECTED, player=bot.player)
        try:
            return await _Session(bot, runner, reader, writer, log, on_state, stop).play()
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass
    finally:
        loading.cancel()
