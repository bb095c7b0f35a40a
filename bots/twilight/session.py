"""The Twilight client session: one connection to a server, one or more games.

Follows the client checklist of docs/protocols/twilight.md (section 13): NME on
connect; species from the HME cell in MAP; every UPD is our turn and gets exactly one
MOV, computed by the SearchRunner under the move's budget and checked by our rules
before it is sent; if a newer UPD is already waiting, only the newest is answered;
END is followed by SET (a new game on this socket) or BYE/EOF (done).

END carries no result and no score, and no UPD shows the last ply, so the summary of a
game is inferred (`final_result`): from the position after our last MOV, what the ply
cap, the server's game clock (`game_time`, its MaxGameDuration) and the opponent's next
ply could each have done.  The score is that last known position's, labelled so; see
docs/protocols/game-ends.md.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import structlog

from protocol.twilight import (SERVER_FRAMES, Bye, Decoder, End, Hme, Map, Mov, Move, Nme, ProtocolError, Set, Upd,
                               encode)
from search.contracts import Context

from .. import clock, fields, records
from ..decide import decide
from ..players import make_player
from ..runner import SearchRunner
from ..session import CONNECTED, GAME_OVER, GAME_STARTS, INTERRUPTED, Client, GarbageGuard, SessionClosed
from ..streams import Closed, Garbage, pump
from .record import position
from .rules import (
    HUMAN_RATIO, MONSTER_RATIO, Species, State, apply_update, distance, state_from_cells, win_probability,
)


@dataclass(frozen=True)
class TwilightBot:
    """Everything one Twilight bot needs: where to connect and how to play."""

    name: str = "bots"
    host: str = "127.0.0.1"
    port: int = 5555
    player: str = "planner"
    params: tuple = ()  # sorted (key, value) pairs
    move_time: float = 2.0  # the server's limit per move
    overhead: float = 0.3  # kept back for the network and the event loop
    max_plies: int = 200  # the server's MaxPlays
    game_time: float = 300.0  # the server's MaxGameDuration in seconds (official default 5 min); 0: no time cap
    record: str | None = None  # a directory: each game saved there as JSON (bots.records), our moves timed by us

    def __post_init__(self) -> None:
        """One validation path for the command line and the config file (ValueError names it)."""
        make_player("twilight", self.player, dict(self.params))  # fail now on a bad option
        if len(self.name.encode("utf-8")) > 255:
            raise ValueError(f"name is {len(self.name.encode('utf-8'))} bytes; NME carries at most 255")
        if not (math.isfinite(self.move_time) and self.move_time > 0):
            raise ValueError(f"move_time {self.move_time} must be a positive number of seconds")
        if not (math.isfinite(self.overhead) and self.overhead >= 0):
            raise ValueError(f"overhead {self.overhead} must be 0 or more seconds")
        if self.move_time - self.overhead <= 0:
            raise ValueError(f"move_time {self.move_time} leaves nothing after overhead {self.overhead}")
        if not (math.isfinite(self.game_time) and self.game_time >= 0):
            raise ValueError(f"game_time {self.game_time} must be 0 (no time cap) or more seconds")

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


KEYS = {"name", "game", "host", "port", "player", "params", "move_time", "overhead", "games", "max_plies", "game_time",
        "record"}


def bot_from_table(table: dict, where: str) -> TwilightBot:
    """A `[[bot]]` table of the daemon's config (bots.settings) as a TwilightBot."""
    fields.only(table, KEYS, where, "twilight")
    return TwilightBot(
        name=fields.get(table, "name", str, where),
        host=fields.get(table, "host", str, where),
        port=fields.port(table, where),
        player=fields.get(table, "player", str, where, "planner"),
        params=fields.params(table, where),
        move_time=fields.seconds(table, "move_time", where, 2.0, positive=True),
        overhead=fields.seconds(table, "overhead", where, 0.3),
        max_plies=fields.get(table, "max_plies", int, where, 200, lambda v: v > 0, "must be positive"),
        game_time=fields.seconds(table, "game_time", where, 300.0),
        record=fields.record(table, where),
    )


@dataclass
class Game:
    """What the session knows of the game in progress."""

    rows: int = 0
    cols: int = 0
    home: tuple[int, int] | None = None
    state: State | None = None
    species: Species | None = None
    turns: int = 0
    opponent_max_groups: int = 1
    moves: list[dict] = field(default_factory=list)
    sent: tuple[State, tuple | None] | None = None  # the state of our last MOV, and that MOV (None: not applied)
    started: float | None = None  # monotonic time of our first UPD, which bounds the server's game clock
    sent_at: float | None = None  # monotonic time our last MOV was sent
    ended_at: float | None = None  # monotonic time END (or BYE) was read
    initial: State | None = None  # the position of the MAP
    recorded: list[dict] = field(default_factory=list)  # bots.records turns: the position we saw, our move


async def play(bot: TwilightBot, runner: SearchRunner, on_state: Callable[[State], None] | None = None,
               log: Any = None, stop: asyncio.Event | None = None) -> list[dict]:
    """Connect, play until the server says BYE or closes, or until a game ends once `stop` is
    set; a summary per finished game.

    Raises SessionClosed if the connection ends in the middle of a game, ProtocolError if
    the server sends garbage, OSError if it cannot be reached.
    """
    log = (log or structlog.get_logger("bots.twilight")).bind(bot=bot.name, game="twilight",
                                                               server=f"{bot.host}:{bot.port}", player=bot.player)
    return await _Twilight(bot, runner, log, on_state, stop).play()


class _Twilight(Client):
    label = "twilight"

    async def games(self) -> None:
        bot = self.bot
        reader, writer = await asyncio.open_connection(bot.host, bot.port)
        try:
            await self._connection(reader, writer)
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        bot, runner, log, on_state, summaries = self.bot, self.runner, self.log, self.on_state, self.summaries
        queue: asyncio.Queue = asyncio.Queue()
        reading = asyncio.get_running_loop().create_task(pump(reader, Decoder(SERVER_FRAMES), queue))
        garbage = GarbageGuard(log, limit=1, error=ProtocolError)  # a binary stream cannot find its next frame
        game: Game | None = None
        try:
            writer.write(encode(Nme(bot.name)))
            await writer.drain()
            log.info(CONNECTED)
            while True:
                event = await queue.get()
                if isinstance(event, Garbage):
                    garbage.bad(event.error)
                if isinstance(event, (Closed, Bye)):
                    why = "said BYE" if isinstance(event, Bye) else f"closed the connection ({event.reason})"
                    if isinstance(event, Bye) and game is not None and game.state is not None:
                        game.ended_at = time.monotonic()
                        summaries.append(_summary(game, bot, log))  # BYE without END ends the game (Go servers)
                        return
                    if game is not None and game.state is not None:
                        # no END: nobody decided the game, and it cannot go on (the official server plays
                        # one game per connection), so its summary says "unknown"
                        raise SessionClosed(f"server {why} mid-game", summaries,
                                            interrupted=_interrupted(game, bot, log, why))
                    if game is not None:
                        raise SessionClosed(f"server {why} before the game started (no MAP)")
                    if not summaries:
                        raise SessionClosed(f"server {why} before any game started")
                    return
                # HUM needs no handling: MAP carries the same cells with their counts.
                if isinstance(event, Set):
                    game = Game(rows=event.rows, cols=event.cols)
                elif isinstance(event, Hme):
                    game = _need(game, event)
                    game.home = (event.x, event.y)
                elif isinstance(event, Map):
                    game = _need(game, event)
                    _start(game, event, bot, log)
                elif isinstance(event, Upd):
                    game = _need(game, event)
                    if game.state is None:
                        raise ProtocolError("UPD before MAP")
                    await _turn(game, event, queue, bot, runner, writer, log, on_state)
                elif isinstance(event, End):
                    if game is not None and game.state is not None:
                        game.ended_at = time.monotonic()
                        summaries.append(_summary(game, bot, log))
                    game = None
                    if self.stopping:
                        return
        finally:
            reading.cancel()


def _need(game: Game | None, event: Any) -> Game:
    if game is None:
        raise ProtocolError(f"{type(event).__name__} before SET")
    return game


def _start(game: Game, event: Map, bot: TwilightBot, log: Any) -> None:
    if game.home is None:
        raise ProtocolError("MAP before HME")
    try:
        state = state_from_cells(game.rows, game.cols, event.cells, max_plies=bot.max_plies)
    except ValueError as exc:
        raise ProtocolError(f"bad MAP: {exc}") from None
    home = state.cell(*game.home)
    if home.vampires:
        game.species = Species.VAMPIRES
    elif home.werewolves:
        game.species = Species.WEREWOLVES
    else:
        raise ProtocolError(f"the HME cell {game.home} holds no vampires and no werewolves")
    game.state = game.initial = state._replace(to_move=game.species)
    log.info(GAME_STARTS, species=game.species.name.lower(), rows=game.rows, cols=game.cols)


async def _turn(game: Game, update: Upd, queue: asyncio.Queue, bot: TwilightBot, runner: SearchRunner,
                writer: asyncio.StreamWriter, log: Any, on_state) -> None:
    """Answer an UPD (or the newest of several waiting) with exactly one MOV."""
    received = time.monotonic()
    if game.started is None:
        game.started = received
    _apply(game, update)
    while True:
        state = game.state
        if on_state:
            on_state(state)
        # the server's limit per move less the configured overhead (TwilightBot checks that something is left: no floor)
        budget = clock.budget(arrived=received, per_move=bot.move_time, overhead=bot.overhead, floor=0.0)
        context = Context(opponent_max_groups=game.opponent_max_groups)
        move, report = await decide(runner, "twilight", bot.player, bot.params, state, budget, context,
                                    log=log, ply=state.ply)
        newer = _take_updates(queue)
        if not newer:
            break
        log.warning("a newer UPD arrived while searching; answering only the newest", skipped=len(newer))
        received = time.monotonic()
        for upd in newer:
            _apply(game, upd)
    move = tuple(Move(*m) for m in move)
    if _game_over_queued(queue):  # the server ended the game during our ply: it skipped our move (too late)
        log.warning("the game ended while we were searching; our move is not sent", ply=state.ply)
        game.sent, game.sent_at = (state, None), time.monotonic()
        return
    writer.write(encode(Mov(move)))
    await writer.drain()
    if bot.record:
        game.recorded.append(records.turn(len(game.recorded) + 1, game.species.name.lower(), bot.name,
                                       [list(m) for m in move], time.monotonic() - received, position=position(state)))
    game.moves.append({"ply": state.ply, "budget": round(report.budget, 3),
                       "used": round(time.monotonic() - received, 4), "depth": report.depth,
                       "nodes": report.nodes, "late_by": round(report.late_by, 4)})
    game.sent_at = time.monotonic()
    # a MOV later than the server's limit is not played: the server skipped our ply
    game.sent = (state, move if game.sent_at - received <= bot.move_time else None)


def _apply(game: Game, update: Upd) -> None:
    ply = 2 * game.turns + (0 if game.species == Species.VAMPIRES else 1)
    try:
        game.state = apply_update(game.state, update.cells, game.species, ply)
    except ValueError as exc:
        raise ProtocolError(f"bad UPD: {exc}") from None
    game.turns += 1
    game.opponent_max_groups = max(game.opponent_max_groups, len(game.state.groups(game.species.other)))


def _take_updates(queue: asyncio.Queue) -> list[Upd]:
    """Take the UPDs already queued; other events stay queued, in order."""
    held, updates = [], []
    while not queue.empty():
        event = queue.get_nowait()
        (updates if isinstance(event, Upd) else held).append(event)
    for event in held:
        queue.put_nowait(event)
    return updates


def _game_over_queued(queue: asyncio.Queue) -> bool:
    """Whether END, BYE or the end of the connection is already waiting; nothing is taken."""
    held = []
    while not queue.empty():
        held.append(queue.get_nowait())
    for event in held:
        queue.put_nowait(event)
    return any(isinstance(e, (End, Bye, Closed)) for e in held)


FORFEIT = 0.02
"""The weight of "the opponent forfeited" (an illegal MOV, garbage or a closed socket) against the
battles of its last ply: the explanation left for END after a ply that could end nothing."""
LIKELY = 0.55
"""A result is reported when the explanations that give it weigh at least this share; below, the
end was a coin flip between results and the result is "unknown"."""
START_SLACK = 6.0
"""Seconds the server's game clock may have run before our first UPD says (the 2020 build pauses
about 5 s before the first ply, and counts the game time with a 1 s timer)."""
SCORE_FROM = "last known state"
"""What a Twilight summary's score is: END carries none, so it is our last known position's."""


@dataclass(frozen=True)
class Ending:
    """How a game ended, as far as the client can tell (END carries neither a result nor a score)."""

    result: str  # ours: "won", "lost", "draw" or "unknown"
    reason: str  # "elimination", "max plies", "time limit", "forfeit" (the opponent's) or "disconnect"
    certain: bool  # decided by what we saw (our own ply, its battles known), not by the opponent's unseen ply
    state: State  # the last known position; a side the ending wiped out is emptied


@dataclass(frozen=True)
class _Why:
    """One explanation of END: what it gives, how likely it is, and whether we saw the ply."""

    result: str
    reason: str
    weight: float
    state: State
    seen: bool


def final_result(game: Game, game_time: float = 0.0, move_time: float = 0.0) -> Ending:
    """How the game ended, inferred at END (or BYE) from the position of our last MOV.

    The server checks after every ply: a species wiped out loses; the ply cap (`max_plies`)
    or, after the second player's ply only, the game clock (`game_time` seconds; 0: none)
    ends the game, the larger population winning (equal: a draw, the 2020 build's "no
    winner"); an illegal MOV or a closed socket loses at once; a time-out only skips the
    ply.  So either our ply ended it (each outcome of its battles weighed by its
    probability) or the opponent's next one did, which we never see: it wiped us out or
    lost its last units (weighed by the battles it could fight), reached a cap, or forfeited.
    The result whose explanations weigh the most is reported if it is likely enough
    (`LIKELY`); the reason and position are those of its likeliest explanation.
    """
    me = game.species
    whys: list[_Why] = []
    for q, after, ours in _after_our_ply(game):
        if ours:  # the server's checks after our ply
            winner = after.survivor()
            if winner is not None:
                whys.append(_Why(_side_result(winner, me), "elimination", q, after, True))
                continue
            if after.ply >= after.max_plies:
                whys.append(_Why(_side_result(after.leader(), me), "max plies", q, after, True))
                continue
            if me == Species.WEREWOLVES and _time_up(game, game.sent_at, game_time, move_time):
                whys.append(_Why(_side_result(after.leader(), me), "time limit", q, after, True))
                continue
        whys += _their_ply(game, after, q, game_time, move_time)
    totals: dict[str, float] = defaultdict(float)
    for why in whys:
        totals[why.result] += why.weight
    best = max(totals, key=totals.__getitem__)
    possible = [w for w in whys if w.weight > 0]
    certain = len({w.result for w in possible}) == 1 and all(w.seen for w in possible)
    if totals[best] < LIKELY * sum(totals.values()):
        top = max(whys, key=lambda w: w.weight)
        return Ending("unknown", top.reason, False, max(_after_our_ply(game), key=lambda o: o[0])[1])
    top = max((w for w in whys if w.result == best), key=lambda w: w.weight)
    return Ending(best, top.reason, certain, top.state)


def _after_our_ply(game: Game) -> list[tuple[float, State, bool]]:
    """(probability, position after our last ply, whether that ply was played) for each outcome."""
    if game.sent is None:  # END before our first MOV: the opponent's first ply (or nothing) ended it
        return [(1.0, game.state._replace(to_move=game.species.other), False)]
    before, move = game.sent
    if move is None:  # our MOV was too late: the server skipped our ply
        return [(1.0, before.skip(), True)]
    return [(q, after, True) for q, after in before.outcomes(move)]


def _their_ply(game: Game, after: State, q: float, game_time: float, move_time: float) -> list[_Why]:
    """The explanations of END on the opponent's ply after `after` (which has probability q)."""
    me, them = game.species, game.species.other
    ours, theirs = after.groups(me), after.groups(them)
    kill = _p_wiped(ours, theirs)
    die = _p_all_lost(theirs, ours, after.humans)
    whys = [_Why("lost", "elimination", q * kill, after._replace(**{me.name.lower(): ()}), False),
            _Why("won", "elimination", q * die, after._replace(**{them.name.lower(): ()}), False)]
    if after.ply + 1 >= after.max_plies:
        cap = "max plies"
    elif them == Species.WEREWOLVES and _time_up(game, game.ended_at, game_time, move_time):
        cap = "time limit"
    else:
        cap = None
    if cap:  # the game ended there anyway: by population, unless its battles wiped a side out
        whys.append(_Why(_side_result(after.leader(), me), cap, q * max(0.0, 1.0 - kill - die), after, False))
    else:
        whys.append(_Why("won", "forfeit", q * FORFEIT, after, False))
    return whys


def _time_up(game: Game, at: float | None, game_time: float, move_time: float) -> bool:
    """Whether the server's game clock may have run out by `at` (its clock started at most a
    ply before our first UPD if we move second, plus START_SLACK)."""
    if not game_time or game.started is None or at is None:
        return False
    start = game.started - (move_time if game.species == Species.WEREWOLVES else 0.0) - START_SLACK
    return at - start >= game_time


def _side_result(winner: Species | None, me: Species) -> str:
    return "draw" if winner is None else "won" if winner == me else "lost"


def _p_falls(attackers: int, defenders: int) -> float:
    """P(a group of monsters is wiped out when `attackers` monsters attack it)."""
    if attackers == 0:
        return 0.0
    if attackers >= MONSTER_RATIO * defenders:
        return 1.0
    p = win_probability(attackers, defenders)
    return p + (1 - p) * p ** defenders  # the attackers win, or lose and each defender dies with P


def _p_wiped(defenders, attackers) -> float:
    """P(one ply of `attackers` wipes out every group of `defenders`), each group attacked by every
    enemy group next to it (an upper bound: one group cannot attack two cells whole)."""
    p = 1.0
    for x, y, n in defenders:
        p *= _p_falls(sum(m for ax, ay, m in attackers if distance(x, y, ax, ay) <= 1), n)
    return p


def _p_all_lost(groups, monsters, humans) -> float:
    """P(every one of `groups` dies on its own ply), each in the battle next to it it is likeliest
    to lose (none: the group is safe, and so is the side)."""
    p = 1.0
    for x, y, n in groups:
        worst = 0.0
        for targets, ratio, converts in ((monsters, MONSTER_RATIO, False), (humans, HUMAN_RATIO, True)):
            for tx, ty, m in targets:
                if distance(x, y, tx, ty) <= 1 and n < ratio * m:
                    w = win_probability(n, m)  # lost, or won with no survivor (converted humans included)
                    worst = max(worst, 1 - w + w * (1 - w) ** (n + (m if converts else 0)))
        p *= worst
    return p


def _save(game: Game, bot: TwilightBot, ending: Ending) -> Path | None:
    """The game as a client saw it, into bot.record (bots.records): each of our moves with the
    position the server showed and the time from its UPD to our MOV, as we measured it."""
    me, them = game.species.name.lower(), game.species.other.name.lower()
    players = {me: bot.name, them: "opponent"}
    winner = {"won": me, "lost": them}.get(ending.result)
    record = {"map": f"{game.rows}x{game.cols} from {bot.address}", "players": players, "winner": winner,
              "winner_name": players.get(winner),
              "reason": f"{ending.reason}, as the client saw it" + ("" if ending.certain else " (inferred)"),
              "plies": game.state.ply, "moves": game.moves}
    setup = {"name": f"{game.rows}x{game.cols}", "server": bot.address}
    return records.keep(bot.record, records.stamp(record, "twilight", setup, position(game.initial), game.recorded,
                                                  records.CLIENT), game.state.ply)


def _summary(game: Game, bot: TwilightBot, log: Any, ending: Ending | None = None) -> dict:
    """The summary of a finished game (logged as "game over"): our result and why, and the
    populations of the last known position (`score_from`: the server announces no score)."""
    ending = ending or final_result(game, bot.game_time, bot.move_time)
    path = _save(game, bot, ending) if bot.record else None
    used = sorted(m["used"] for m in game.moves)
    summary = {
        "species": game.species.name.lower(), "result": ending.result, "reason": ending.reason,
        "certain": ending.certain, "moves": len(game.moves),
        "ours": ending.state.population(game.species), "theirs": ending.state.population(game.species.other),
        "score_from": SCORE_FROM, "max_used": used[-1] if used else 0.0,
    }
    if path is not None:
        summary["record"] = str(path)
    log.info(GAME_OVER, **summary)
    return summary


def _interrupted(game: Game, bot: TwilightBot, log: Any, why: str) -> dict:
    """The summary of a game the connection lost before END: nobody decided it, so "unknown"."""
    state = max(_after_our_ply(game), key=lambda o: o[0])[1]
    summary = _summary(game, bot, log, Ending("unknown", "disconnect", False, state))
    log.warning(INTERRUPTED, detail=why)
    return summary
