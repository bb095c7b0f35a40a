"""Go arena: our players and external GTP engines meet under our rules, one game at a time.

We are the referee, as gogui-twogtp is (shared/specs/go.md section 7): before each game an
external engine gets `boardsize`, `clear_board`, `komi` and, if it knows the command,
`time_settings 0 <per_move> 1`; the side to move gets `genmove`, the other one the move as
`play`.  Every move, ours included, is checked with our rules (positional superko, no
suicide) before it is applied; an illegal or unreadable move, a `?` answer, a crash or a
hard time-out (per_move * 5 + 5 s by default) loses that game and is recorded as a
violation (a hard time-out also as a time-out).  A reply later than per_move + 0.5 s only
counts as a time-out in the record.  `time_settings` carries whole seconds (GTP wants
integers), so per_move is rounded up there.  Two passes end the game, scored
by bare area (no dead-stone removal) with komi, which is why GNU Go must run with
`--chinese-rules --capture-all-dead`.

An engine is started once per arena and reused with `clear_board`; one that died is started
again for the next game.  Records fit `bots.matches.summarise` (seats are "black"/"white").
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import structlog

from protocol.gtp import ProtocolError, format_vertex, parse_vertex
from search.budget import Budget

from ..matches import Side
from ..players import PlayerError, make_player
from ..runner import SearchRunner
from .board import BLACK, PASS, WHITE, IllegalMove, State, empty, point_name
from ..decide import decide
from .gtp_client import EngineError, GtpProcess
from .sgf import game_sgf

SEATS = {BLACK: "black", WHITE: "white"}
LETTER = {BLACK: "B", WHITE: "W"}
LATE = 0.5  # seconds over per_move before a reply counts as a time-out in the record
SETUP_TIMEOUT = 30.0  # seconds for a setup command (boardsize, clear_board, komi, ...)


@dataclass(frozen=True)
class OurSide:
    """One of our players: `player` names an entry of bots.go.players.PLAYERS."""

    label: str
    player: str
    params: tuple = ()  # sorted (key, value) pairs


@dataclass(eq=False)
class GtpSide:
    """An external GTP engine run as `argv`; the arena keeps one process per side."""

    label: str
    argv: list[str]
    process: GtpProcess | None = field(default=None, init=False, repr=False)
    starts: int = field(default=0, init=False)  # processes started so far
    params: tuple = field(default=(), init=False)  # as OurSide's, for the report

    def __post_init__(self) -> None:
        self.argv = list(self.argv)
        if not self.argv:
            raise ValueError(f"side {self.label}: empty engine command line")

    @property
    def player(self) -> str:
        """The command line (what the arena report prints for this side)."""
        return shlex.join(self.argv)

    async def engine(self, log: Any = None) -> GtpProcess:
        """The running engine, started (again, if it died or was killed) when needed."""
        if self.process is not None and self.process.alive:
            return self.process
        await self.close()
        proc = GtpProcess(self.argv, log=log)
        self.process = proc
        self.starts += 1
        await proc.start()
        return proc

    async def close(self) -> None:
        proc, self.process = self.process, None
        if proc is not None:
            await proc.close()

    async def __aenter__(self) -> GtpSide:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


AnySide = OurSide | GtpSide


def match_side(side: AnySide) -> Side:
    """The bots.matches.Side that the report prints for this side."""
    return Side(side.label, side.player, side.params)


def describe(side: AnySide) -> str:
    """"random", "random:seed=3" or the engine's command line."""
    if isinstance(side, GtpSide):
        return side.player
    return side.player + (":" + ",".join(f"{k}={v}" for k, v in side.params) if side.params else "")


# -- one game -------------------------------------------------------------------------------------

class _Lost(Exception):
    """The side `colour` loses the game now (a violation): `how` is the result word."""

    def __init__(self, colour: int, move: str, reason: str, how: str) -> None:
        super().__init__(reason)
        self.colour, self.move, self.reason, self.how = colour, move, reason, how


def _engine_lost(colour: int, what: str, exc: EngineError) -> _Lost:
    how = "Time" if exc.reason == "timeout" else "Forfeit"
    return _Lost(colour, "", f"{what}: {exc}", how)


async def _setup(side: GtpSide, colour: int, size: int, komi: float, per_move: float, log: Any) -> None:
    try:
        proc = await side.engine(log)
        await proc.send("boardsize", size, timeout=SETUP_TIMEOUT)
        await proc.send("clear_board", timeout=SETUP_TIMEOUT)
        await proc.send("komi", float(komi), timeout=SETUP_TIMEOUT)
        if await proc.known("time_settings"):
            try:
                await proc.send("time_settings", 0, max(1, math.ceil(per_move)), 1, timeout=SETUP_TIMEOUT)
            except EngineError as exc:
                if exc.reason != "refused":
                    raise
                log.warning("engine refused time_settings", side=side.label, error=str(exc))
    except EngineError as exc:
        raise _engine_lost(colour, "game setup failed", exc) from None


def _read_move(text: str, size: int) -> int | None:
    """The point of an engine's genmove answer, PASS, or None for `resign`; ProtocolError
    for anything else."""
    if text.strip().lower() == "resign":
        return None
    vertex = parse_vertex(text, size)
    return PASS if vertex is None else vertex[1] * size + vertex[0]


async def _ask(side: AnySide, state: State, runner: SearchRunner, per_move: float, hard_timeout: float,
               log: Any) -> tuple[str, int | None]:
    """(the answer as text, the move: a point, PASS or None for a resignation)."""
    colour = state.to_move
    if isinstance(side, OurSide):
        try:
            move, _ = await decide(runner, "go", side.player, side.params, state, Budget(per_move), log=log)
        except Exception as exc:  # our own bug: recorded and logged, never crashes the arena
            log.exception("our player failed", side=side.label)
            raise _Lost(colour, "", f"our player raised {type(exc).__name__}: {exc}", "Forfeit") from None
        return point_name(move, state.size), move
    proc = side.process
    if proc is None:
        raise _Lost(colour, "", "the engine is not running", "Forfeit")
    try:
        text = await proc.send("genmove", LETTER[colour].lower(), timeout=hard_timeout)
    except EngineError as exc:
        raise _engine_lost(colour, "genmove failed", exc) from None
    try:
        return text, _read_move(text, state.size)
    except ProtocolError as exc:
        raise _Lost(colour, text, f"unreadable move {text!r}: {exc}", "Illegal") from None


async def play_game(black: AnySide, white: AnySide, runner: SearchRunner, size: int = 9, komi: float = 7.5,
                    per_move: float = 2.0, max_moves: int | None = None, log: Any = None,
                    hard_timeout: float | None = None) -> dict:
    """Play one game and return its record (bots.matches form, plus "result", "end",
    "moves" as names, "score", "size", "komi"; "sgf" is None: run_arena writes the files).

    `hard_timeout` (default per_move * 5 + 5 s) is how long an engine may think before it
    loses the game.  External engines are started if they are not running; the caller
    closes them (`await side.close()`; run_arena does).
    """
    log = log if log is not None else structlog.get_logger("bots.go.arena")
    if max_moves is None:
        max_moves = 3 * size * size
    if hard_timeout is None:
        hard_timeout = per_move * 5 + 5
    sides = {BLACK: black, WHITE: white}
    state = empty(size, komi)
    moves: list[str] = []
    latencies: dict[str, list[float]] = {"black": [], "white": []}
    timeouts = {"black": 0, "white": 0}
    violations: list[dict] = []
    winner: int | None = None  # BLACK, WHITE, or 0 for a draw
    result = end = ""
    try:
        for colour, side in sides.items():
            if isinstance(side, GtpSide):
                await _setup(side, colour, size, komi, per_move, log)
        while not state.is_terminal() and len(moves) < max_moves:
            colour = state.to_move
            seat = SEATS[colour]
            t0 = time.monotonic()
            text, move = await _ask(sides[colour], state, runner, per_move, hard_timeout, log)
            elapsed = time.monotonic() - t0
            latencies[seat].append(elapsed)
            if elapsed > per_move + LATE:
                timeouts[seat] += 1
                log.warning("late move", seat=seat, seconds=round(elapsed, 3), per_move=per_move)
            if move is None:
                winner, result, end = 3 - colour, f"{LETTER[3 - colour]}+R", "resignation"
                break
            try:
                state.check(move)
            except IllegalMove as exc:
                raise _Lost(colour, text, f"illegal move {text}: {exc.reason}", "Illegal") from None
            state = state.play(move)
            moves.append(point_name(move, size))
            other = sides[3 - colour]
            if isinstance(other, GtpSide) and other.process is not None:
                try:
                    await other.process.send("play", LETTER[colour].lower(), format_vertex(
                        None if move == PASS else (move % size, move // size), size), timeout=SETUP_TIMEOUT)
                except EngineError as exc:
                    raise _engine_lost(3 - colour, f"play {LETTER[colour]} {moves[-1]} (legal) refused", exc) from None
        else:
            score = state.score()
            winner = BLACK if score > 0 else WHITE if score < 0 else 0
            result = state.score_text()
            end = "two passes" if state.is_terminal() else "max moves"
    except _Lost as lost:
        violations.append({"species": SEATS[lost.colour], "move": lost.move, "reason": lost.reason})
        if lost.how == "Time":  # a lost game on time is a time-out too (its move has no latency)
            timeouts[SEATS[lost.colour]] += 1
        winner, result, end = 3 - lost.colour, f"{LETTER[3 - lost.colour]}+{lost.how}", lost.how.lower()
        log.warning("violation", seat=SEATS[lost.colour], side=sides[lost.colour].label, move=lost.move,
                    reason=lost.reason)
    record = {
        "map": f"{size}x{size}", "size": size, "komi": komi,
        "players": {"black": black.label, "white": white.label},
        "winner_name": sides[winner].label if winner else None,
        "timeouts": timeouts, "latencies": latencies, "violations": violations,
        "result": result, "end": end, "score": state.score() if end in ("two passes", "max moves") else None,
        "moves": moves, "sgf": None,
    }
    log.info("game over", black=black.label, white=white.label, result=result, end=end, moves=len(moves))
    return record


# -- many games --------------------------------------------------------------------------------------

def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=_-]+", "_", text).strip("_")[:40] or "x"


def _short(side: AnySide) -> str:
    return os.path.basename(side.argv[0]) if isinstance(side, GtpSide) else describe(side)


def write_sgf(record: dict, black: AnySide, white: AnySide, directory: Path, index: int) -> Path:
    """One SGF file per game, named with the index, the colours and the players."""
    name = (f"game{index:03d}_B-{_slug(black.label)}-{_slug(_short(black))}"
            f"_W-{_slug(white.label)}-{_slug(_short(white))}.sgf")
    notes = [f"end: {record['end']}"]
    notes += [f"violation by {v['species']}: {v['reason']}" for v in record["violations"]]
    notes += [f"late moves by {seat}: {n}" for seat, n in record["timeouts"].items() if n]
    text = game_sgf(record["size"], record["komi"], f"{black.label} ({describe(black)})",
                    f"{white.label} ({describe(white)})", record["moves"], record["result"],
                    comment="\n".join(notes))
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


async def run_arena(a: AnySide, b: AnySide, games: int, runner: SearchRunner, size: int = 9,
                    komi: float = 7.5, per_move: float = 2.0, sgf_dir: str | Path | None = None,
                    on_record: Callable[[dict], None] | None = None, log: Any = None) -> list[dict]:
    """Play `games` games, A Black in even games; returns the records (with "game_number").

    External engines are started first (EngineError if one cannot be run at all) and always
    closed at the end, on errors and cancellation too."""
    if a.label == b.label:
        raise ValueError(f"the two sides need different labels, both are {a.label!r}")
    log = log if log is not None else structlog.get_logger("bots.go.arena")
    directory = Path(sgf_dir) if sgf_dir is not None else None
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
    records: list[dict] = []
    external = [s for s in (a, b) if isinstance(s, GtpSide)]
    try:
        for side in external:
            await side.engine(log)
        for index in range(games):
            black, white = (a, b) if index % 2 == 0 else (b, a)
            record = await play_game(black, white, runner, size=size, komi=komi, per_move=per_move, log=log)
            record["game_number"] = index
            if directory is not None:
                record["sgf"] = str(write_sgf(record, black, white, directory, index))
            records.append(record)
            if on_record is not None:
                on_record(record)
    finally:
        for side in external:
            await side.close()
    return records


# -- command-line sides ----------------------------------------------------------------------------------

def _our_side(text: str, label: str) -> OurSide:
    name, _, options = text.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (o.strip() for o in options.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"side {label}: option {item!r} of {text!r} should be key=value")
        if key.strip() in params:
            raise ValueError(f"side {label}: option {key.strip()!r} given twice in {text!r}")
        params[key.strip()] = value.strip()
    try:
        make_player("go", name.strip(), params)
    except PlayerError as exc:
        raise ValueError(f"side {label}: {exc} (an external engine is written gtp:<command line>)") from None
    return OurSide(label, name.strip(), tuple(sorted(params.items())))


def parse_side(text: str, label: str) -> AnySide:
    """A side from the command line: `gtp:<command>` or a bare command line (it contains a
    space or starts with / or ./) is an external engine; otherwise `name` or
    `name:key=value,...` is one of our players.  ValueError with a clear message."""
    text = text.strip()
    if not text:
        raise ValueError(f"side {label}: empty player specification")
    is_command = text.startswith("gtp:")
    if is_command or " " in text or text.startswith(("/", "./")):
        command = text[4:] if is_command else text
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"side {label}: cannot split command line {command!r}: {exc}") from None
        if not argv:
            raise ValueError(f"side {label}: empty engine command line in {text!r}")
        if shutil.which(argv[0]) is None:
            raise ValueError(f"side {label}: engine {argv[0]!r} not found or not executable")
        return GtpSide(label, argv)
    return _our_side(text, label)


__all__ = ["OurSide", "GtpSide", "EngineError", "play_game", "run_arena", "parse_side", "match_side",
           "write_sgf", "describe"]
