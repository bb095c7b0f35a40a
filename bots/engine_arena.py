"""The arena for games whose external engines speak GTP or a dialect of it (Go's GTP, Hex's
HTP): our players and external engines meet under our rules, one game at a time.

We are the referee, as gogui-twogtp is: before each game an external engine gets the game's
setup commands (`Rules.setup`: the board, komi or the swap rule, the time), the side to move
gets `genmove`, the other one the move as `play`.  Every move, ours included, is checked
with our rules before it is applied; an illegal or unreadable move, a `?` answer, a crash or
a hard time-out (per_move * 5 + 5 s by default) loses that game and is recorded as a
violation (a hard time-out also as a time-out).  A reply later than per_move + 0.5 s only
counts as a time-out in the record.

What a game supplies is a `Rules` value (bots/go/arena.py, bots/hex/arena.py): its registry
name, the engine prefix on the command line (`gtp:`, `htp:`), the start State, the setup
commands, how to read and write a move, how a finished game is scored and its SGF text.

An engine is started for each game and closed after it (play_sides: the match hooks of Go and
Hex play one game at a time, bots.matches).  Records fit `bots.matches.summarise` (seats are
"black"/"white").
"""

from __future__ import annotations

import asyncio
import math
import os
import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import structlog

from protocol.errors import IllegalMove, ProtocolError
from search.contracts import Context

from . import clock
from . import records as game_records
from .decide import decide
from .gtp_client import EngineError, GtpProcess
from .human import is_person
from .matches import Side, Watch
from .players import PlayerError, make_player
from .runner import SearchRunner

BLACK, WHITE = 1, 2  # the colours of every game here: Black moves first
SEATS = {BLACK: "black", WHITE: "white"}
LETTER = {BLACK: "B", WHITE: "W"}
LATE = 0.5  # seconds over per_move before a reply counts as a time-out in the record
SETUP_FAILED = "game setup failed"  # how a violation at setup begins (bots.arena counts them)
SETUP_TIMEOUT = 30.0  # seconds for a setup command (boardsize, clear_board, komi, ...)


class Rules(Protocol):
    """What one game tells the arena (see the module docstring)."""

    game: str  # the registry name (our players, bots.decide)
    prefix: str  # "gtp" or "htp": how an external engine is written on the command line
    max_moves: int  # a game stops here if it has not ended (then `finish` scores it)

    def start(self) -> Any: ...  # the State a game starts from

    async def setup(self, proc: GtpProcess, per_move: float, game_time: float | None, log: Any) -> None: ...

    async def tell_clock(self, proc: GtpProcess, state: Any, colour: int, seconds: float) -> None: ...
    # the engine's clock before its genmove, in a game with a clock (GTP's and HTP's time_left)

    def moves_left(self, state: Any) -> float: ...  # the moves a side still expects to make (bots.clock.budget)

    def read(self, text: str, state: Any) -> Any: ...  # a genmove answer -> a move; None = resign

    def write(self, move: Any, state: Any) -> str: ...  # a move as `play`'s argument

    def colour(self, state: Any, colour: int) -> str: ...  # a colour as `genmove` and `play` name it

    def name(self, move: Any, state: Any) -> str: ...  # a move as the record writes it

    def finish(self, state: Any, ended: bool) -> tuple[int, str, str, Any]: ...
    # (winner: BLACK, WHITE or 0, result text, how it ended, score or None) of a game that
    # stopped on its own (`ended`) or at the move cap

    def fields(self) -> dict: ...  # what each record says about the setup ("map", "size", ...)

    def sgf(self, record: dict, black: str, white: str, comment: str) -> str: ...


@dataclass(frozen=True)
class OurSide:
    """One of our players: `player` names an entry of the game's PLAYERS table."""

    label: str
    player: str
    params: tuple = ()  # sorted (key, value) pairs


@dataclass(eq=False)
class EngineSide:
    """An external engine run as `argv`; the arena keeps one process per side."""

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

    async def __aenter__(self) -> EngineSide:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


AnySide = OurSide | EngineSide


def match_side(side: AnySide) -> Side:
    """The bots.matches.Side that the report prints for this side."""
    return Side(side.label, side.player, side.params)


def describe(side: AnySide) -> str:
    """"random", "random:seed=3", "human" or the engine's command line."""
    if isinstance(side, EngineSide):
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


async def _setup(rules: Rules, side: EngineSide, colour: int, per_move: float, game_time: float | None,
                 log: Any) -> None:
    try:
        await rules.setup(await side.engine(log), per_move, game_time, log)
    except EngineError as exc:
        raise _engine_lost(colour, SETUP_FAILED, exc) from None


async def _prepare(rules: Rules, side: EngineSide, colour: int, per_move: float, game_time: float | None,
                   opening: Sequence[Any], log: Any) -> None:
    """Start an engine if needed, set its game up and tell it the opening."""
    await _setup(rules, side, colour, per_move, game_time, log)
    await _tell_opening(rules, await side.engine(log), colour, opening)


async def _tell_opening(rules: Rules, proc: GtpProcess, colour: int, opening: Sequence[Any]) -> None:
    state = rules.start()
    for move in opening:
        try:
            await proc.send("play", rules.colour(state, state.to_move), rules.write(move, state), timeout=SETUP_TIMEOUT)
        except EngineError as exc:
            raise _engine_lost(colour, f"the opening's {rules.name(move, state)} refused", exc) from None
        state = state.play(move)


async def _ask(rules: Rules, side: AnySide, state: Any, runner: SearchRunner, per_move: float,
               hard_timeout: float, log: Any, time_left: float | None = None, *,
               arrived: float, overhead: clock.Overhead) -> tuple[str, Any]:
    """(the answer as text, the move, or None for a resignation); `time_left`: the mover's
    clock in a game with a clock (then `per_move` is not used); `arrived`: when the move was
    asked for (time.monotonic(), as the mover's clock counts it), where its budget starts;
    `overhead`: what a move of ours costs on that clock besides thinking, learned here from
    each move as a server's clock teaches it (bots.clock.Overhead)."""
    colour = state.to_move
    if time_left is not None:  # the game clock, shared by bots.clock.budget over the moves left
        budget = clock.budget(arrived=arrived, time_left=time_left, moves_left=rules.moves_left(state),
                              overhead=overhead.value)
    else:  # our pace, all of it thinking, and no deadline (the runner's grace); a person has none
        pace = math.inf if is_person(rules.game, side.player) else per_move
        budget = clock.budget(arrived=arrived, pace=pace, overhead=0.0, floor=0.0)
    context = Context(time_left=time_left)
    if isinstance(side, OurSide):
        try:
            move, report = await decide(runner, rules.game, side.player, side.params, state, budget, context,
                                        log=log.bind(game=rules.game, side=side.label, player=describe(side)),
                                        seat=SEATS[colour])
        except Exception as exc:  # our own bug: recorded and logged, never crashes the arena
            log.exception("our player failed", side=side.label)
            raise _Lost(colour, "", f"our player raised {type(exc).__name__}: {exc}", "Forfeit") from None
        if time_left is not None:
            overhead.spent(time.monotonic() - arrived, report.used)
        return rules.name(move, state), move
    proc = side.process
    if proc is None:
        raise _Lost(colour, "", "the engine is not running", "Forfeit")
    try:
        if time_left is not None:
            await rules.tell_clock(proc, state, colour, time_left)
        text = await proc.send("genmove", rules.colour(state, colour), timeout=hard_timeout)
    except EngineError as exc:
        raise _engine_lost(colour, "genmove failed", exc) from None
    try:
        return text, rules.read(text, state)
    except (ProtocolError, ValueError) as exc:
        raise _Lost(colour, text, f"unreadable move {text!r}: {exc}", "Illegal") from None


async def play_game(rules: Rules, black: AnySide, white: AnySide, runner: SearchRunner, per_move: float = 2.0,
                    max_moves: int | None = None, log: Any = None, hard_timeout: float | None = None,
                    on_move: Callable[[Any, str], None] | None = None, game_time: float | None = None,
                    opening: Sequence[Any] = ()) -> dict:
    """Play one game and return its record (bots.matches form, plus "result", "end",
    "moves" as names, "score" and the rules' `fields()`; "sgf" is None: the match writes
    the files).

    `hard_timeout` (default per_move * 5 + 5 s) is how long an engine may think before it
    loses the game.  External engines are started if they are not running; the caller
    closes them (`await side.close()`; play_sides does).  `on_move(state, name)` is told each
    move played and the state it leads to (`bots play hex` draws the board with it).  A
    person (bots.human) has no time per move (no time-outs are counted for one), but with a
    game clock the person's clock runs, is shown, and a fallen flag loses as for anyone.

    `game_time`: a clock of that many seconds per side for the whole game (sudden death)
    instead of `per_move`: our players get bots.clock.budget's share of it over the moves
    the game expects (`Rules.moves_left`), less what a move costs them besides thinking,
    learned from their clock as on a server (from 0.1 s to about 0.3 ms here, in
    the same process), an engine is told its clock before each genmove,
    a side whose clock runs out loses on time, and the record says what each clock had left
    ("clock_left").

    `opening`: moves played first, for nobody, as the game's setup (a sequential test's pairs
    start from one): each is checked by our rules and told to the engines with `play`, the
    record's "moves" begin with them, and "opening" says how many they are (they have no
    latency, and no clock runs for them).
    """
    log = log if log is not None else structlog.get_logger("bots.arena")
    if hard_timeout is None:
        hard_timeout = per_move * 5 + 5
    if max_moves is None:
        max_moves = rules.max_moves
    sides = {BLACK: black, WHITE: white}
    clocks = {BLACK: game_time, WHITE: game_time}
    overheads = {BLACK: clock.Overhead(), WHITE: clock.Overhead()}  # our players', learned from their clocks
    state = rules.start()
    starter = state.to_move  # White after Go's handicap stones
    moves: list[str] = []
    for move in opening:  # a bad opening is the caller's bug: IllegalMove
        moves.append(rules.name(move, state))
        state = state.play(move)
    latencies: dict[str, list[float]] = {"black": [], "white": []}
    timeouts = {"black": 0, "white": 0}
    violations: list[dict] = []
    winner = 0  # BLACK, WHITE, or 0 for a draw
    result = end = ""
    score = None
    try:
        # Both engines start at once, as a controller starts them: one after the other, White's
        # would start a second later and play its first moves while its workers still warmed.
        started = await asyncio.gather(*(_prepare(rules, side, colour, per_move, game_time, opening, log)
                                         for colour, side in sides.items() if isinstance(side, EngineSide)),
                                       return_exceptions=True)
        for failure in started:  # Black's first, as when they started in turn
            if isinstance(failure, BaseException):
                raise failure
        while not state.is_terminal() and len(moves) < max_moves:
            colour = state.to_move
            seat = SEATS[colour]
            t0 = time.monotonic()
            left = clocks[colour]
            text, move = await _ask(rules, sides[colour], state, runner, per_move,
                                    hard_timeout if left is None else left + 5, log, left, arrived=t0,
                                    overhead=overheads[colour])
            elapsed = time.monotonic() - t0
            latencies[seat].append(elapsed)
            if left is not None:
                clocks[colour] = left - elapsed
                if clocks[colour] < 0:
                    raise _Lost(colour, text, f"out of time ({elapsed:.2f} s with {left:.2f} s left)", "Time")
            elif elapsed > per_move + LATE and not is_person(rules.game, sides[colour].player):
                timeouts[seat] += 1
                log.warning("late move", seat=seat, seconds=round(elapsed, 3), per_move=per_move)
            if move is None:
                winner, result, end = 3 - colour, f"{LETTER[3 - colour]}+R", "resignation"
                break
            try:
                new = state.play(move)
            except IllegalMove as exc:
                raise _Lost(colour, text, f"illegal move {text}: {exc.reason}", "Illegal") from None
            moves.append(rules.name(move, state))
            other = sides[3 - colour]
            if isinstance(other, EngineSide) and other.process is not None:
                try:
                    await other.process.send("play", rules.colour(state, colour), rules.write(move, state),
                                             timeout=SETUP_TIMEOUT)
                except EngineError as exc:
                    raise _engine_lost(3 - colour, f"play {LETTER[colour]} {moves[-1]} (legal) refused", exc) from None
            state = new
            if on_move is not None:
                on_move(state, moves[-1])
        else:
            winner, result, end, score = rules.finish(state, state.is_terminal())
    except _Lost as lost:
        violations.append({"species": SEATS[lost.colour], "move": lost.move, "reason": lost.reason})
        if lost.how == "Time":  # a lost game on time is a time-out too (its move has no latency)
            timeouts[SEATS[lost.colour]] += 1
        winner, result, end = 3 - lost.colour, f"{LETTER[3 - lost.colour]}+{lost.how}", lost.how.lower()
        log.warning("violation", seat=SEATS[lost.colour], side=sides[lost.colour].label, move=lost.move,
                    reason=lost.reason)
    record = {
        **rules.fields(),
        "players": {"black": black.label, "white": white.label},
        "winner_name": sides[winner].label if winner else None,
        "timeouts": timeouts, "latencies": latencies, "violations": violations,
        "result": result, "end": end, "score": score, "moves": moves, "sgf": None,
    }
    if opening:
        record["opening"] = len(opening)
    if starter != BLACK:
        record["first"] = SEATS[starter]
    if game_time is not None:
        record["clock_left"] = {SEATS[c]: round(t, 3) for c, t in clocks.items()}
    log.info("game over", black=black.label, white=white.label, result=result, end=end, moves=len(moves))
    return record


# -- many games --------------------------------------------------------------------------------------

def _short(side: AnySide) -> str:
    return os.path.basename(side.argv[0]) if isinstance(side, EngineSide) else describe(side)


def move_thinks(record: dict) -> list[float]:
    """Each move's think time, in the order of `moves` (colours alternating from Black, or from
    the record's "first" seat; 0 for the opening's moves)."""
    first = record.get("opening", 0)
    starter = WHITE if record.get("first") == SEATS[WHITE] else BLACK
    return [0.0] * first + [record["latencies"][SEATS[starter if i % 2 == 0 else 3 - starter]][(i - first) // 2]
                            for i in range(first, len(record["moves"]))]


def sgf_text(rules: Rules, record: dict, black: AnySide, white: AnySide) -> str:
    """A game's SGF: the players, each move's think time as its comment, how it ended."""
    notes = [f"end: {record['end']}"]
    notes += [f"violation by {v['species']}: {v['reason']}" for v in record["violations"]]
    notes += [f"late moves by {seat}: {n}" for seat, n in record["timeouts"].items() if n]
    return rules.sgf(record, f"{black.label} ({describe(black)})", f"{white.label} ({describe(white)})",
                     "\n".join(notes))


def write_sgf(rules: Rules, record: dict, black: AnySide, white: AnySide, directory: Path, index: int) -> Path:
    """One SGF file per game (bots.records: named with the time, the game, the board, the
    sides and the index; never over an existing file)."""
    name = game_records.file_name(rules.game, rules.fields()["map"], f"{black.label}={_short(black)}",
                                  f"{white.label}={_short(white)}", index, "sgf")
    return game_records.write(directory, name, sgf_text(rules, record, black, white))


# -- command-line sides ----------------------------------------------------------------------------------

def _our_side(game: str, prefix: str, text: str, label: str) -> OurSide:
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
        make_player(game, name.strip(), params)
    except PlayerError as exc:
        raise ValueError(f"side {label}: {exc} (an external engine is written {prefix}:<command line>)") from None
    return OurSide(label, name.strip(), tuple(sorted(params.items())))


def parse_side(game: str, prefix: str, text: str, label: str) -> AnySide:
    """A side from the command line: `<prefix>:<command>` (gtp:, htp:) or a bare command line
    (it contains a space or starts with / or ./) is an external engine; otherwise `name` or
    `name:key=value,...` is one of the game's players.  ValueError with a clear message."""
    text = text.strip()
    if not text:
        raise ValueError(f"side {label}: empty player specification")
    is_command = text.startswith(prefix + ":")
    if is_command or " " in text or text.startswith(("/", "./")):
        command = text[len(prefix) + 1:] if is_command else text
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"side {label}: cannot split command line {command!r}: {exc}") from None
        if not argv:
            raise ValueError(f"side {label}: empty engine command line in {text!r}")
        if shutil.which(argv[0]) is None:
            raise ValueError(f"side {label}: engine {argv[0]!r} not found or not executable")
        return EngineSide(label, argv)
    return _our_side(game, prefix, text, label)


def checked_side(game: str, prefix: str, text: str, label: str = "") -> None:
    """A participant of `bots tournament` (one of our players or `<prefix>:<command>`), checked
    before any game: UsageFailure with parse_side's reason."""
    from .cmdline import UsageFailure

    try:
        parse_side(game, prefix, text, label or repr(text))
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None


async def play_sides(rules: Rules, black: str, white: str, runner: SearchRunner, per_move: float,
                     game_time: float | None = None, watch: Watch = Watch(), opening: Sequence[Any] = ()) -> dict:
    """One game between two command-line sides (parse_side), Black labelled `watch.labels[0]`
    and White `watch.labels[1]`: external engines are started for it and closed after it (also
    on errors and cancellation).  The record carries its SGF text (`sgf_text`), which a
    match keeps beside it."""
    sides = (parse_side(rules.game, rules.prefix, black, watch.labels[0]),
             parse_side(rules.game, rules.prefix, white, watch.labels[1]))
    on_move = None if watch.on_state is None else lambda state, name: watch.on_state(state)
    try:
        record = await play_game(rules, *sides, runner, per_move=per_move, game_time=game_time, on_move=on_move,
                                 opening=opening)
        return {**record, "sgf_text": sgf_text(rules, record, *sides)}
    finally:
        for side in sides:
            if isinstance(side, EngineSide):
                await side.close()


def participant_hooks(prefix: str) -> tuple[Callable[..., None], Callable[[str, str], bool]]:
    """The `check` and `searches` match hooks (bots.matches.MatchHooks) of a game whose external
    engines are named `<prefix>:COMMAND`."""

    def check(game: str, text: str, label: str = "") -> None:
        checked_side(game, prefix, text, label)

    def searching(game: str, text: str) -> bool:
        return searches(game, prefix, text)

    return check, searching


def searches(game: str, prefix: str, text: str) -> bool:
    """Whether a participant is one of our players that searches (not an external engine, not
    a person at the terminal)."""
    side = parse_side(game, prefix, text, "A")
    return isinstance(side, OurSide) and not is_person(game, side.player)
