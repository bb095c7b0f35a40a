"""The gnd client session: register, then start -> play ... for as many games as asked.

Follows the adapter checklist of docs/protocols/gnd.md (section 11).  aiohttp is the
HTTP client: one keep-alive connection pool per session, and separate connect and read
timeouts, which the long polls need (no read timeout: /start and /play block for as
long as the opponent thinks).  Every decision is made from the state in the server's
latest response, checked by our rules before it is sent; an HTTP 310 refusal makes us
decide again from the same state without the refused action.  The budget of a move is
our share of the chess clock (bots.clock: Clocktime over the moves we still expect to make)
minus what a move costs besides thinking, because our clock runs until our request reaches
the server: `overhead` at first, then as measured on the server's clock.

A game's summary (`_summary`) has the server's announced winner and FinalScore, our result
("won"/"lost", "unknown" if we left the game or no winner was announced) and why it ended
(`end_reason`: the rules or a clock; the server does not say, the final grid does).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import aiohttp
import structlog

from protocol import gnd
from search.contracts import Context

from .. import clock, fields, records, registry
from ..backoff import Backoff
from ..clock import Overhead
from ..decide import decide
from ..players import make_player
from ..runner import SearchRunner
from ..session import GAME_OVER, GAME_STARTS, Client, GarbageGuard, Refused
from .entry import rules as rules_of
from .record import SEATS, position

CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True)
class GndBot:
    """Everything one gnd bot needs: the server, the credentials and how to play."""

    game: str = "gopher"  # what we register for: "gopher" or "dodo"
    server: str = "http://localhost:8080/"
    group: int = 0
    members: str = "bots"
    password: str = field(default="", repr=False)
    player: str | None = None  # None: the default player (bots.registry) of the game the server sends
    params: tuple = ()  # sorted (key, value) pairs
    games: int = 1  # games to play; 0 plays forever
    overhead: float = 0.1  # seconds kept back per move for the network and JSON handling
    name: str = ""  # for the logs; defaults to members
    record: str | None = None  # a directory: each game saved there as JSON (bots.records), our moves timed by us

    def __post_init__(self) -> None:
        if self.game not in gnd.GAME_NAMES:
            raise ValueError(f"game {self.game!r} is not one of {', '.join(gnd.GAME_NAMES)}")
        url = urlsplit(self.server)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise ValueError(f"server {self.server!r} is not an http:// or https:// URL")
        if self.player is not None:
            make_player(self.game, self.player, dict(self.params))  # fail now on a bad option
        if self.overhead < 0:
            raise ValueError(f"overhead {self.overhead} is negative")
        if self.games < 0:
            raise ValueError(f"games {self.games} is negative")
        if not self.name:
            object.__setattr__(self, "name", self.members)

    def url(self, endpoint: str) -> str:
        return self.server.rstrip("/") + endpoint

    @property
    def address(self) -> str:
        return self.server


KEYS = {"name", "game", "server", "group", "members", "password", "password_env", "player", "params",
        "overhead", "games", "record"}


def bot_from_table(table: dict, where: str) -> GndBot:
    """A `[[bot]]` table of the daemon's config (bots.settings) as a GndBot."""
    game = fields.get(table, "game", str, where)
    fields.only(table, KEYS, where, game)
    player = fields.get(table, "player", str, where, None)
    params = fields.params(table, where)
    if params and player is None:
        raise fields.SettingsError(f"{where}: params need a player (they are its options)")
    return GndBot(
        game=game,
        name=fields.get(table, "name", str, where),
        server=fields.get(table, "server", str, where),
        group=fields.get(table, "group", int, where),
        members=fields.get(table, "members", str, where),
        password=fields.password(table, where),
        player=player,
        params=params,
        overhead=fields.seconds(table, "overhead", where, 0.1),
        games=fields.get(table, "games", int, where, 0, lambda v: v >= 0, "must be >= 0"),
        record=fields.record(table, where),
    )


class _Http:
    """The three endpoints, with retries: network errors, 5xx and garbage back off and resend."""

    def __init__(self, bot: GndBot, http: aiohttp.ClientSession, log: Any) -> None:
        self.bot, self.http, self.log = bot, http, log
        self.token = ""

    async def _post(self, endpoint: str, request: gnd.Request, parse: Callable[[Any], Any]) -> tuple[int, Any, float]:
        """(status, the parsed 200 answer or the text of any other, monotonic arrival time).

        Network errors, 5xx and 200 answers that `parse` rejects (not JSON, or not the
        documented shape) back off and send again; bots.session.GARBAGE_LIMIT bad answers in a
        row raise ProtocolError.  Before we are registered a network error raises
        ConnectionError instead: nothing is in progress, and retrying a server that cannot be
        reached is the caller's policy (`bots play --retries`, the daemon's backoff).
        """
        backoff = Backoff(first=0.5, cap=30.0)
        garbage = GarbageGuard(None, what=f"answers from {endpoint}", error=gnd.ProtocolError)
        while True:
            try:
                async with self.http.post(self.bot.url(endpoint), json=request.to_json()) as resp:
                    raw = await resp.read()
                    status = resp.status
                text = raw.decode("utf-8", errors="replace")
                arrived = time.monotonic()
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
                if not self.token:
                    raise ConnectionError(f"cannot reach {self.bot.url(endpoint)}: {exc or type(exc).__name__}") \
                        from None
                problem = {"error": str(exc) or type(exc).__name__}
            else:
                if status != 200 and status < 500:
                    return status, text, arrived
                if status == 200:
                    try:
                        return status, parse(gnd.loads(raw)), arrived
                    except gnd.ProtocolError as exc:
                        garbage.bad(f"not the documented JSON ({exc}): {text[:120]!r}")
                        problem = {"error": f"not the documented JSON: {exc}", "body": text[:200]}
                else:
                    problem = {"status": status, "body": text[:200]}
            delay = backoff.next()
            self.log.warning("bad answer or no answer; retrying", endpoint=endpoint, retry_in=round(delay, 2),
                             **problem)
            await asyncio.sleep(delay)

    async def register(self) -> str:
        bot = self.bot
        request = gnd.register(bot.group, bot.members, bot.password, [bot.game])
        t0 = time.monotonic()
        status, body, arrived = await self._post("/register", request, gnd.parse_token)
        if status != 200:
            raise Refused(f"/register answered {status}: {str(body)[:200]}")
        self.token = body
        self.log.info("registered", group=bot.group, members=bot.members, round_trip=round(arrived - t0, 4))
        return self.token

    async def turn(self, endpoint: str, request_of: Callable[[str], gnd.Request]) -> tuple[int, gnd.Turn | None, float]:
        """POST /start or /play; (status, turn or None if refused, arrival time).

        A 4xx other than 310 (e.g. an unknown token after a server restart) registers again
        and sends again, once.
        """
        reregistered = False
        while True:
            status, body, arrived = await self._post(endpoint, request_of(self.token), gnd.parse_turn)
            if status == gnd.ILLEGAL_ACTION:
                return status, None, arrived
            if status == 200:
                return status, body, arrived
            if reregistered:
                raise Refused(f"{endpoint} answered {status} twice, even after registering again: {str(body)[:200]}")
            self.log.warning("request refused; registering again", endpoint=endpoint, status=status,
                             body=str(body)[:200])
            await self.register()
            reregistered = True


async def play(bot: GndBot, runner: SearchRunner, on_state: Callable[[Any], None] | None = None,
               log: Any = None, stop: asyncio.Event | None = None) -> list[dict]:
    """Register and play `bot.games` games (forever if 0), or until a game ends once `stop` is
    set; a summary per finished game.

    Raises Refused if the server refuses us for good, ProtocolError if it keeps sending
    garbage.  Network errors and 5xx are retried here with backoff.
    """
    log = (log or structlog.get_logger("bots.gnd")).bind(bot=bot.name, game=bot.game, server=bot.server)
    return await _Gnd(bot, runner, log, on_state, stop).play()


class _Gnd(Client):
    label = "gnd"

    async def games(self) -> None:
        bot, log, summaries = self.bot, self.log, self.summaries
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT, sock_read=None)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            client = _Http(bot, http, log)
            await client.register()
            while (not bot.games or len(summaries) < bot.games) and not self.stopping:
                log.info("waiting for a match", games_played=len(summaries))
                _, turn, arrived = await client.turn("/start", gnd.start)
                summary = await _game(bot, client, self.runner, turn, arrived, self.on_state, log)
                summaries.append(summary)
                log.info(GAME_OVER, **summary)


async def _game(bot: GndBot, client: _Http, runner: SearchRunner, turn: gnd.Turn,
                arrived: float, on_state: Callable | None, log: Any) -> dict:
    name = gnd.game_name(turn.game)
    rules = rules_of(name)
    us = turn.player
    player = bot.player if bot.player and name == bot.game else registry.get(name).default_player
    params = bot.params if player == bot.player else ()
    glog = log.bind(match=turn.match_token, colour="red" if us == gnd.RED else "blue", size=turn.size, player=player)
    glog.info(GAME_STARTS, clock=round(turn.clocktime, 3))
    previous = None
    exclude: set = set()
    moves = refused = 0
    overhead = Overhead(bot.overhead)
    before: tuple[float, float] | None = None  # (our clock, our thinking) at our last move
    turns: list[dict] = []  # bots.records turns, when the bot records its games
    first = None
    while not turn.finished:
        state = rules.State.from_cells(turn.size, turn.cells(), us)
        first = state if first is None else first
        if on_state:
            on_state(state)
        legal = state.legal_moves()
        if not legal or set(legal) <= exclude:
            why = "no legal move" if not legal else "the server refused every legal action"
            glog.error("cannot move; leaving this game", reason=why, refused=sorted(map(str, exclude)))
            return _summary(turn, us, moves, refused, abandoned=why, bot=bot, first=first, turns=turns)
        context = Context(time_left=turn.clocktime, exclude=frozenset(exclude), previous=previous)
        if before is not None:  # what our last move cost on the server's clock besides thinking
            overhead.observe(before[0], turn.clocktime, before[1])
        budget = clock.budget(arrived=arrived, time_left=turn.clocktime, moves_left=state.expected_moves(),
                              overhead=overhead.value)
        move, _ = await decide(runner, name, player, params, state, budget, context, log=glog,
                               clock=round(turn.clocktime, 3), overhead=round(overhead.value, 3))
        action = gnd.encode_action(turn.game, move)
        before = (turn.clocktime, time.monotonic() - arrived)
        status, reply, arrived = await client.turn("/play", lambda token, action=action: gnd.play(token, action))
        if status == gnd.ILLEGAL_ACTION:
            refused += 1
            before = None  # the server's clock for this turn is not new: nothing to learn
            exclude.add(move)
            glog.warning("server refused our action (310); deciding again without it", move=list(action))
            continue
        moves += 1
        if bot.record:
            turns.append(records.turn(len(turns) + 1, SEATS[us], bot.name, list(action), before[1],
                                      position=position(state)))
        exclude.clear()
        previous = state.play(move)
        turn = reply
    return _summary(turn, us, moves, refused, bot=bot, first=first, turns=turns,
                    why=end_reason(name, turn, us, previous))


def _save(bot: GndBot, summary: dict, us: int, first: Any, turns: list[dict]) -> Path | None:
    """The game as a client saw it, into bot.record (bots.records): each of our actions with the
    position the server sent and the time from its answer to our request, as we measured it."""
    players = {SEATS[us]: bot.name, SEATS[3 - us]: "opponent"}
    winner = SEATS.get(summary["winner"])
    record = {**summary, "players": players, "winner_name": players.get(winner),
              "reason": summary.get("abandoned", summary["reason"])}
    setup = {"name": str(summary["size"]), "size": summary["size"], "server": bot.server}
    return records.keep(bot.record, records.stamp(record, summary["game"], setup, position(first), turns,
                                                  records.CLIENT), len(turns))


def end_reason(game: str, turn: gnd.Turn, us: int, previous: Any) -> str:
    """Why a finished game ended, from the server's last answer (it announces only the winner):
    "no legal move" when the rules ended it (the side to move has none: in Gopher it lost, in
    Dodo it won), "time" when the loser's clock ran out (the server's other end: an illegal action
    is refused with 310, never the end), "unknown" with no winner announced.

    The side to move is the opponent if the grid is still the one our last action made, else us
    (the opponent moved since, or our late action was never applied); with no action of ours yet,
    either side that fits the rule."""
    if not turn.finished or turn.winner not in (gnd.RED, gnd.BLUE):
        return "unknown"
    stuck = turn.winner if game == "dodo" else 3 - turn.winner  # who the rule leaves without a move
    cells = turn.cells()
    if previous is not None:
        to_move = 3 - us if previous.cells() == cells else us
        if to_move != stuck:
            return "time"
    try:
        final = rules_of(game).State.from_cells(turn.size, cells, stuck)
    except ValueError:
        return "unknown"
    return "no legal move" if final.is_terminal() else "time"


def _summary(turn: gnd.Turn, us: int, moves: int, refused: int, abandoned: str | None = None,
             bot: GndBot | None = None, first: Any = None, turns: list[dict] = (), why: str = "unknown") -> dict:
    """The summary of a game: the server announces the winner and FinalScore (+1 or -1; whose view
    is not documented, so it is reported as sent); we work out why it ended (`end_reason`)."""
    won = turn.finished and turn.winner == us
    result = "unknown" if abandoned or turn.winner not in (gnd.RED, gnd.BLUE) else "won" if won else "lost"
    out = {"match": turn.match_token, "game": gnd.game_name(turn.game), "size": turn.size,
           "colour": "red" if us == gnd.RED else "blue", "winner": turn.winner,
           "won": won, "result": result, "reason": "abandoned" if abandoned else why,
           "score": turn.final_score if turn.finished else None, "score_from": "server",
           "moves": moves, "refused": refused, "clock_left": round(turn.clocktime, 3)}
    if abandoned:
        out["abandoned"] = abandoned
    if bot is not None and bot.record and first is not None:
        path = _save(bot, out, us, first, list(turns))
        if path is not None:
            out["record"] = str(path)
    return out
