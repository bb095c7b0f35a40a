"""The Twilight client session: one connection to a server, one or more games.

Follows the spec's client checklist (shared/specs/twilight.md section 15): NME on
connect; species from the HME cell in MAP; every UPD is our turn and gets exactly one
MOV, computed by the SearchRunner under the move's budget and checked by our rules
before it is sent; if a newer UPD is already waiting, only the newest is answered;
END is followed by SET (a new game on this socket) or BYE/EOF (done).
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import structlog

from protocol.twilight import SERVER_FRAMES, Bye, Decoder, End, Hme, Map, Mov, Move, Nme, ProtocolError, Set, Upd, encode
from search.budget import Budget

from .. import fields, records
from ..decide import decide
from ..players import make_player
from ..runner import SearchRunner
from ..session import Client, GarbageGuard, SessionClosed
from ..streams import Closed, Garbage, pump
from .record import position
from .rules import HUMAN_RATIO, MONSTER_RATIO, Species, State, apply_update, distance, state_from_cells


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
    max_plies: int = 200
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

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


KEYS = {"name", "game", "host", "port", "player", "params", "move_time", "overhead", "games", "max_plies", "record"}


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
    sent: tuple[State, tuple] | None = None  # the state of our last MOV, and that MOV
    initial: State | None = None  # the position of the MAP
    recorded: list[dict] = field(default_factory=list)  # bots.records turns: the position we saw, our move


async def play(bot: TwilightBot, runner: SearchRunner, on_state: Callable[[State], None] | None = None,
               log: Any = None) -> list[dict]:
    """Connect, play until the server says BYE or closes; a summary per finished game.

    Raises SessionClosed if the connection ends in the middle of a game, ProtocolError if
    the server sends garbage, OSError if it cannot be reached.
    """
    log = (log or structlog.get_logger("bots.twilight")).bind(bot=bot.name, game="twilight",
                                                               server=f"{bot.host}:{bot.port}", player=bot.player)
    return await _Twilight(bot, runner, log, on_state).play()


class _Twilight(Client):
    label = "twilight"

    async def games(self) -> None:
        bot, log = self.bot, self.log
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
            log.info("connected")
            while True:
                event = await queue.get()
                if isinstance(event, Garbage):
                    garbage.bad(event.error)
                if isinstance(event, (Closed, Bye)):
                    why = "said BYE" if isinstance(event, Bye) else f"closed the connection ({event.reason})"
                    if isinstance(event, Bye) and game is not None and game.state is not None:
                        summaries.append(_summary(game, bot, log))  # BYE without END ends the game (Go servers)
                        return
                    if game is not None:
                        stage = "mid-game" if game.state is not None else "before the game started (no MAP)"
                        raise SessionClosed(f"server {why} {stage}")
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
                        summaries.append(_summary(game, bot, log))
                    game = None
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
    log.info("game starts", species=game.species.name.lower(), rows=game.rows, cols=game.cols)


async def _turn(game: Game, update: Upd, queue: asyncio.Queue, bot: TwilightBot, runner: SearchRunner,
                writer: asyncio.StreamWriter, log: Any, on_state) -> None:
    """Answer an UPD (or the newest of several waiting) with exactly one MOV."""
    received = time.monotonic()
    _apply(game, update)
    while True:
        state = game.state
        if on_state:
            on_state(state)
        budget = Budget(bot.move_time - bot.overhead, start=received)
        context = {"opponent_max_groups": game.opponent_max_groups}
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
    writer.write(encode(Mov(move)))
    await writer.drain()
    if bot.record:
        game.recorded.append(records.turn(len(game.recorded) + 1, game.species.name.lower(), bot.name,
                                       [list(m) for m in move], time.monotonic() - received, position=position(state)))
    game.moves.append({"ply": state.ply, "budget": round(report.budget, 3),
                       "used": round(time.monotonic() - received, 4), "depth": report.depth,
                       "nodes": report.nodes, "late_by": round(report.late_by, 4)})
    game.sent = (state, move)


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


def final_result(game: Game) -> tuple[State, str, bool]:
    """(the position after our last MOV, "won"/"lost"/"draw"/"unknown", whether that is certain).

    END carries no result and no final UPD, so the client infers it: after our last MOV
    either our ply ended the game (an elimination, or the ply limit) or the opponent's next
    ply did (it wiped us out, lost its last units, forfeited, or reached the limit).  A game
    the opponent could not have won on that ply is ours; one it could have ended either way is
    "unknown".  Our move's most probable outcome is taken where a random battle decides it.
    """
    if game.sent is None:
        state, certain = game.state, False
    else:
        before, move = game.sent
        outcomes = before.outcomes(move)
        state = max(outcomes, key=lambda o: o[0])[1]
        certain = len(outcomes) == 1
    me = game.species
    if not state.is_terminal() and state.ply + 1 < state.max_plies:
        # the opponent's ply ended it: it wiped us out, it lost its last units in random battles
        # (against us or humans), or it forfeited; one ply reaches only adjacent cells
        ours, theirs = state.groups(me), state.groups(me.other)
        wiped = all(any(distance(x, y, ex, ey) <= 1 for ex, ey, _ in theirs) for x, y, _ in ours)
        if not wiped:
            return state._replace(**{me.other.name.lower(): ()}), "won", False
        if all(_may_lose_a_battle(group, ours, state.humans) for group in theirs):
            return state, "unknown", False
        return state._replace(**{me.name.lower(): ()}), "lost", False
    ours, theirs = state.population(me), state.population(me.other)
    result = "won" if ours > theirs else "lost" if ours < theirs else "draw"
    return state, result, certain and state.is_terminal()


def _may_lose_a_battle(group, monsters, humans) -> bool:
    """Whether `group` is next to monsters or humans it could attack and lose to (no sure win)."""
    gx, gy, n = group
    return any(distance(gx, gy, x, y) <= 1 and n < ratio * m
               for targets, ratio in ((monsters, MONSTER_RATIO), (humans, HUMAN_RATIO)) for x, y, m in targets)


def _save(game: Game, bot: TwilightBot, result: str, certain: bool) -> None:
    """The game as a client saw it, into bot.record (bots.records): each of our moves with the
    position the server showed and the time from its UPD to our MOV, as we measured it."""
    me, them = game.species.name.lower(), game.species.other.name.lower()
    players = {me: bot.name, them: "opponent"}
    winner = {"won": me, "lost": them}.get(result)
    record = {"map": f"{game.rows}x{game.cols} from {bot.address}", "players": players, "winner": winner,
              "winner_name": players.get(winner), "reason": "as the client saw it" + ("" if certain else " (inferred)"),
              "plies": game.state.ply, "moves": game.moves}
    setup = {"name": f"{game.rows}x{game.cols}", "server": bot.address}
    records.keep(bot.record, records.stamp(record, "twilight", setup, position(game.initial), game.recorded,
                                           records.CLIENT), game.state.ply)


def _summary(game: Game, bot: TwilightBot, log: Any) -> dict:
    state, result, certain = final_result(game)
    if bot.record:
        _save(game, bot, result, certain)
    used = sorted(m["used"] for m in game.moves)
    summary = {
        "species": game.species.name.lower(), "result": result, "certain": certain, "moves": len(game.moves),
        "ours": state.population(game.species), "theirs": state.population(game.species.other),
        "max_used": used[-1] if used else 0.0,
    }
    log.info("game over", **summary)
    return summary
