"""A local Twilight referee with the official server's semantics.

- Two connections make a match; the first plays vampires and moves first.
- Each player sends NME; it gets SET+HUM+HME in one write, then MAP in a second.
- Every ply: bytes waiting on the mover's socket are discarded, then it gets an UPD
  with the cells both players touched on their last plies, and has `move_timeout`
  seconds to send its whole MOV.  A time-out skips the ply.  An illegal MOV, any other
  frame, garbage or a closed socket loses the game.
- The game ends when a species is wiped out, after `max_plies` plies, or, with a
  `game_time`, when the game has lasted that many seconds, which is checked after the
  second player's (werewolves') ply only, so both sides get as many plies (the official
  MaxPlays and MaxGameDuration, defaults 200 plies and 5 min; off here unless set).  At
  either cap the larger population wins, equal is a draw (the 2020 build's "no winner").
  Both players get END, which carries no result: the record has the reason and populations.
- A match of several games stays on the same sockets: END then SET for the next game,
  with species swapped each game so both sides play both; END then BYE after the last.
- A JSON-ready record per game: players, winner, plies, violations, time-outs and
  the latency of every move (UPD sent to MOV complete, as the server measures it), and
  what a replay needs (bots.records): the map, every move with its latency and the
  outcome of its random battles.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import structlog

from protocol.twilight import (
    CLIENT_FRAMES, Bye, Decoder, End, Hme, Hum, Map, Mov, Nme, Set, Upd, encode,
)

from .. import records
from ..streams import Closed, Garbage, pump
from .record import position
from .rules import IllegalMove, Species, State, battle_cells, resolve, validate

log = structlog.get_logger("bots.referee")


@dataclass
class Seat:
    """One connected player."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    name: str = "?"
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    decoder: Decoder = field(default_factory=lambda: Decoder(CLIENT_FRAMES))
    task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(pump(self.reader, self.decoder, self.queue))

    def flush(self) -> bool:
        """Discard what the player sent out of turn; False if it has disconnected."""
        self.decoder.clear()
        alive = True
        while not self.queue.empty():
            if isinstance(self.queue.get_nowait(), Closed):
                alive = False
        if not alive:
            self.queue.put_nowait(Closed())
        return alive

    async def send(self, *frames: Any) -> None:
        self.writer.write(b"".join(encode(f) for f in frames))
        await self.writer.drain()

    async def close(self) -> None:
        if self.task:
            self.task.cancel()
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass


@dataclass(frozen=True)
class RefereeConfig:
    initial: State
    map_name: str = "map"
    move_timeout: float = 2.0
    max_plies: int = 200
    seed: int | None = None
    games: int = 1
    nme_timeout: float = 30.0  # ours: the official server waits for NME forever
    game_time: float | None = None  # seconds of play before the game ends (official MaxGameDuration); None: no cap


class Referee:
    """Serves matches on one listening socket; `on_game` gets each game's record."""

    def __init__(self, config: RefereeConfig, on_game: Callable[[dict], None] | None = None,
                 on_ply: Callable[[State], None] | None = None) -> None:
        self.config = config
        self.on_game = on_game or (lambda record: None)
        self.on_ply = on_ply or (lambda state: None)
        self.rng = random.Random(config.seed)
        self.records: list[dict] = []
        self._waiting: Seat | None = None
        self._matches: set[asyncio.Task] = set()
        self._accepted = 0  # connections accepted so far
        self._accepted_more = asyncio.Event()
        self.server: asyncio.base_events.Server | None = None

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen; returns the port (pass 0 for a free one)."""
        self.server = await asyncio.start_server(self._accept, host, port)
        return self.server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self.server:
            self.server.close()
        for task in list(self._matches):
            task.cancel()
        if self._matches:
            await asyncio.gather(*self._matches, return_exceptions=True)
        if self._waiting:
            await self._waiting.close()

    async def connected(self, count: int) -> None:
        """Wait until `count` connections have been accepted since the start.  The order of
        connections decides the species (the first of a pair plays vampires in game 0), so whoever
        wants a player to be first connects it, awaits this, and only then connects the other."""
        while self._accepted < count:
            self._accepted_more.clear()
            await self._accepted_more.wait()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seat = Seat(reader, writer)
        seat.start()
        self._accepted += 1
        self._accepted_more.set()
        if self._waiting is None:
            self._waiting = seat
            return
        first, self._waiting = self._waiting, None
        task = asyncio.get_running_loop().create_task(self.match(first, seat))
        self._matches.add(task)
        task.add_done_callback(self._matches.discard)

    async def _greet(self, seat: Seat) -> bool:
        try:
            event = await asyncio.wait_for(seat.queue.get(), self.config.nme_timeout)
        except asyncio.TimeoutError:
            return False
        if not isinstance(event, Nme):
            return False
        seat.name = event.name
        return True

    async def match(self, first: Seat, second: Seat) -> None:
        seats = [first, second]
        try:
            greeted = await asyncio.gather(*(self._greet(s) for s in seats))
            if not all(greeted):
                log.warning("player did not introduce itself with NME; match abandoned",
                            names=[s.name for s in seats])
                return
            for number in range(self.config.games):
                # Game 0: the first connection plays vampires; then the species swap.
                order = seats if number % 2 == 0 else seats[::-1]
                record = await self.play(order[0], order[1], number)
                self.records.append(record)
                self.on_game(record)
                last = number == self.config.games - 1 or record["reason"] == "disconnect"
                for s in seats:
                    try:
                        await s.send(End(), *([Bye()] if last else []))
                    except (ConnectionError, OSError):
                        pass
                if last:
                    break
        except (ConnectionError, OSError) as exc:
            log.warning("match ended: a connection broke", error=str(exc))
        except Exception:  # a referee bug ends this match, never the server
            log.exception("match failed")
        finally:
            for s in seats:
                await s.close()

    async def play(self, vampires: Seat, werewolves: Seat, number: int) -> dict:
        """One game; returns its record."""
        cfg = self.config
        state = cfg.initial._replace(to_move=Species.VAMPIRES, ply=0, max_plies=cfg.max_plies)
        seats = {Species.VAMPIRES: vampires, Species.WEREWOLVES: werewolves}
        homes = {Species.VAMPIRES: state.vampires[0], Species.WEREWOLVES: state.werewolves[0]}
        record: dict[str, Any] = {
            "game": number, "map": cfg.map_name,
            "players": {"vampires": vampires.name, "werewolves": werewolves.name},
            "winner": None, "winner_name": None, "reason": None, "plies": 0,
            "violations": [], "timeouts": {"vampires": 0, "werewolves": 0},
            "latencies": {"vampires": [], "werewolves": []},
        }
        turns: list[dict] = []
        record = records.stamp(record, "twilight", {"name": cfg.map_name}, position(state), turns, records.SERVER)
        cells = state.cells()
        for species, seat in seats.items():
            hx, hy, _ = homes[species]
            await seat.send(Set(state.rows, state.cols), Hum(tuple((x, y) for x, y, _ in state.humans)),
                            Hme(hx, hy))
            await seat.send(Map(cells))
        touched: dict[Species, set] = {Species.VAMPIRES: set(), Species.WEREWOLVES: set()}
        self.on_ply(state)
        clock_start = time.monotonic()
        timed_out = False  # the game clock ran out
        while not state.is_terminal():
            if (cfg.game_time is not None and state.ply and state.to_move == Species.VAMPIRES
                    and time.monotonic() - clock_start >= cfg.game_time):  # checked after the werewolves' ply
                timed_out = True
                break
            mover = state.to_move
            side = mover.name.lower()
            seat = seats[mover]
            alive = seat.flush()
            update = Upd(tuple(state.cell(x, y) for x, y in sorted(touched[mover] | touched[mover.other])))
            event: Any = Closed()
            started = time.monotonic()
            if alive:
                try:
                    await seat.send(update)
                    started = time.monotonic()
                    event = await asyncio.wait_for(seat.queue.get(), cfg.move_timeout)
                except asyncio.TimeoutError:
                    record["timeouts"][side] += 1
                    turns.append(records.turn(len(turns) + 1, side, seat.name, None, cfg.move_timeout, timeout=True))
                    log.info("time-out: ply skipped", player=seat.name, species=side, ply=state.ply)
                    touched[mover] = set()
                    state = state.skip()
                    continue
                except (ConnectionError, OSError):
                    event = Closed()
            if isinstance(event, Closed):
                return self._forfeit(record, state, mover, "disconnect", event.reason)
            if isinstance(event, Garbage):
                return self._forfeit(record, state, mover, "protocol error", str(event.error))
            if not isinstance(event, Mov):
                return self._forfeit(record, state, mover, "protocol error", f"sent {type(event).__name__} during play")
            think = time.monotonic() - started
            record["latencies"][side].append(round(think, 4))
            try:
                validate(state, mover, event.moves)
            except IllegalMove as exc:
                return self._forfeit(record, state, mover, "illegal move", str(exc))
            battles = battle_cells(state, event.moves)
            state, touched[mover] = resolve(state, event.moves, self.rng)
            turns.append(records.turn(len(turns) + 1, side, seat.name, [list(m) for m in event.moves], think,
                                      battles=[list(state.cell(x, y)) for x, y in battles]))
            self.on_ply(state)
        population = {"vampires": state.population(Species.VAMPIRES),
                      "werewolves": state.population(Species.WEREWOLVES)}
        if timed_out:
            winner, reason = state.leader(), "time limit"
        elif state.survivor() is not None:
            winner, reason = state.survivor(), "elimination"
        else:
            winner, reason = state.winner(), "max plies"
        record.update(plies=state.ply, reason=reason, population=population)
        if winner is not None:
            record.update(winner=winner.name.lower(), winner_name=seats[winner].name)
        log.info("game over", **{k: record[k] for k in ("game", "map", "winner", "winner_name", "reason", "plies")})
        return record

    def _forfeit(self, record: dict, state: State, loser: Species, reason: str, detail: str) -> dict:
        winner = loser.other
        record["violations"].append({"species": loser.name.lower(), "ply": state.ply,
                                     "reason": reason, "detail": detail})
        record.update(plies=state.ply, reason=reason, winner=winner.name.lower(),
                      winner_name=record["players"][winner.name.lower()])
        log.warning("game lost by rule", loser=loser.name.lower(), reason=reason, detail=detail, ply=state.ply)
        return record
