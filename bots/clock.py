"""How long one move may think, for every game's sessions, engines and drop-ins: one function,
`budget`, gives the `search.budget.Budget` of a move (Twilight's per-move limit, the game
clocks of CGOS, gnd, the course referees and the arena, the GTP dialects' main time, byo-yomi
and absolute time, the default pace when nothing is said), counted from the time the request
arrived and with the server's deadline as its limit.  docs/protocols/time-control.md.

On a game clock (sudden death, or main time) the clock left is spread evenly over the moves
we still expect to make (each game estimates those from its position and passes the number:
`bots.go.clock.moves_left`, `bots.hex.htp.moves_left`, Gopher's and Dodo's
`State.expected_moves`), less a small reserve, and less what each move costs on the clock
besides its thinking (`overhead`: the network, queueing; negative when a server gives time
back, as CGOS's 0.25 s per move does).  The share is recomputed from the clock at every move,
so time a move did not use (a book move, a search that stopped early) goes to the moves after
it, and the share grows as the game nears its end.  One move never takes more than a quarter
of what is left.

`Overhead` learns that cost from the clock itself: the server says what we had before a move
and what we have after it, and we know how long we thought.

The clock model of the GTP dialects (Go's GTP engine, Hex's HTP engine) is here too, once:
`TimeSettings` (main time, then Canadian byo-yomi periods; absolute time and no limit as
special cases), a `Clock` reading `(seconds, stones)`, the clock at the start of a game
(`start_clock`), what a controller's reading means under the settings (`read_clock`) and the
clock after one of our moves (`after_move`); `budget` reads a `Clock` as `time_left` and
`stones`.  Nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from search.budget import Budget

MIN_SECONDS = 0.05
TAIL_MOVES = 40  # on a game clock, the floor gives way once the clock could not pay it this many times
RESERVE = 0.05  # of the clock never planned: the last moves, a move that overruns
MAX_SHARE = 0.25  # of what is left, at most, on one move
OVERHEAD = 0.1  # seconds per move besides thinking, until measured

DEFAULT_SECONDS = 2.0
"""Seconds a move may take, wire included (it thinks this less the overhead), when nothing
says how long (no time_settings, kgs-time_settings, param_game game_time or time_left): the
default of Go's GTP engine and Hex's HTP engine.  Why 2 s: it is the per-move limit of the
course's Twilight server (docs/protocols/twilight.md section 6), the default pace of
`bots arena go` and `bots play hex` and the pace of our Go gauntlet against GNU Go, so a
default game looks like a real one; nobody at HexGui or GoGui waits for a move (Benzene's
default game clock of 1800 s had our Hex engine think up to 30 s on each of the first
moves); and a controller that wants longer moves says so with time_settings (or
kgs-time_settings, param_game game_time)."""

NETWORK_MARGIN = 0.1  # seconds kept for a move's way to the server when its search overran
OVERRUN = 2.0  # on a game clock, a search that overran is waited for up to this times its plan


@dataclass
class Overhead:
    """A running estimate of what a move costs on our clock besides thinking (see the module
    docstring): start from the configured `value`, then follow each measured move with
    weight `weight`.  Kept within [low, high] so one odd reading cannot derail a game."""

    value: float = OVERHEAD
    weight: float = 0.5
    low: float = -0.5
    high: float = 5.0

    def observe(self, before: float, after: float, thought: float) -> float:
        """One move: our clock read `before` it and `after` it, and we thought `thought`
        seconds (from receiving the request to sending the move).  Returns the estimate."""
        return self.spent(before - after, thought)

    def spent(self, charged: float, thought: float) -> float:
        """One move that cost `charged` seconds from request to answer, `thought` of them
        thinking (a clock we keep ourselves: the arena's, a GTP engine's).  Returns the estimate."""
        measured = charged - thought
        estimate = (1.0 - self.weight) * self.value + self.weight * measured
        self.value = min(self.high, max(self.low, estimate))
        return self.value


# -- the clock model of the GTP dialects -------------------------------------------------------

Clock = tuple[float, int]
"""One side's clock as GTP's time_left reads it: (seconds, stones).  stones = 0: `seconds` of
main time (or of the whole game) are left; stones > 0: `seconds` are left to play `stones`
more moves in the current byo-yomi period."""


@dataclass(frozen=True)
class TimeSettings:
    """GTP time_settings: `main` seconds, then `byo_stones` moves per `byo_time` seconds
    (Canadian byo-yomi).  byo_time = byo_stones = 0: absolute; byo_time > 0 and
    byo_stones = 0: no limit.  `0 S 1` is S seconds for every move."""

    main: float
    byo_time: float
    byo_stones: int

    @property
    def unlimited(self) -> bool:
        return self.byo_time > 0 and self.byo_stones == 0

    @property
    def absolute(self) -> bool:
        return self.byo_time == 0 and self.byo_stones == 0

    def start(self) -> Clock | None:
        """The clock at the start of a game; None without a limit."""
        if self.unlimited:
            return None
        if self.main > 0 or self.byo_stones == 0:
            return (self.main, 0)
        return (self.byo_time, self.byo_stones)

    def after_move(self, clock: Clock, elapsed: float) -> Clock:
        """The clock after one of our moves took `elapsed` seconds.  A move that runs out
        of main time starts byo-yomi and counts as its first move; the period restarts once
        its stones are played."""
        seconds, stones = clock
        seconds -= elapsed
        if stones == 0:
            if seconds > 0 or self.byo_stones == 0:
                return (max(0.0, seconds), 0)
            seconds += self.byo_time
            stones = self.byo_stones
        stones -= 1
        if stones <= 0:
            return (self.byo_time, self.byo_stones)
        return (max(0.0, seconds), stones)

    def read(self, seconds: float, stones: int) -> Clock:
        """A controller's reading (time_left) as a clock these settings can have.  With
        byo-yomi periods, main time never exceeds `main` (none at all with `0 S N`: the
        periods come next), and a period never holds more than `byo_time` seconds or
        `byo_stones` stones (so a reading that counts Japanese periods left in the stones
        field is one period of one stone).  Absolute time and no limit take the reading as
        it is (a controller may add time to a game clock)."""
        if self.byo_stones == 0:
            return (seconds, stones)
        if stones == 0:
            return (min(seconds, self.main), 0)
        return (min(seconds, self.byo_time), min(stones, self.byo_stones))


def start_clock(settings: TimeSettings | None) -> Clock | None:
    """The clock at the start of a game; None when nothing limits it."""
    return settings.start() if settings is not None else None


def read_clock(settings: TimeSettings | None, seconds: float, stones: int) -> Clock:
    """A controller's reading of our clock (GTP time_left) under `settings` (see
    `TimeSettings.read`); without settings, as it is."""
    return settings.read(seconds, stones) if settings is not None else (seconds, stones)


def after_move(settings: TimeSettings | None, clock: Clock | None, elapsed: float) -> Clock | None:
    """The clock after one of our moves took `elapsed` seconds, until the controller's next
    reading corrects it.  Without settings (a time_left the controller sent without
    time_settings) a byo-yomi period's length is unknown, so the clock is gone (None: the
    default) once the period's stones are played."""
    if clock is None:
        return None
    if settings is not None:
        return settings.after_move(clock, elapsed)
    seconds, stones = clock
    if stones == 1:
        return None
    return (max(0.0, seconds - elapsed), max(0, stones - 1))


# -- the budget of one move -------------------------------------------------------------------

def budget(*, arrived: float, moves_left: float = 1.0, per_move: float | None = None,
           time_left: float | None = None, stones: int = 0, settings: TimeSettings | None = None,
           caps: Sequence[tuple[float, float]] = (), overhead: float = OVERHEAD,
           floor: float = MIN_SECONDS, pace: float = DEFAULT_SECONDS) -> Budget:
    """The budget of one move, for every session, engine and drop-in: the seconds to think,
    counted from `arrived` (the time.monotonic() reading when the request arrived, so the
    time since, parsing and estimating included, is the move's), and the limit until which a
    search that overran its plan (a loaded machine) is waited for before the fallback move
    (search.budget.Budget.limit).

    What the server or controller says, the first that applies:

    * `per_move`: a limit of that many seconds on every move (Twilight's server; GTP's
      byo-yomi period of one stone, `time_settings 0 S 1`).  Think `per_move - overhead`; the
      limit is the deadline less NETWORK_MARGIN.
    * `time_left` with `stones` > 0: a byo-yomi period, `time_left` seconds for `stones`
      more moves (GTP's time_left).  One stone is a per-move limit; more share the period
      evenly, less `overhead`, and the limit is the game clock's (below) over the period.
    * `time_left`: a clock for the rest of the game, or main time (CGOS, gnd, the course
      referees, GTP's main or absolute time, the arena's game clock).  95% of it (RESERVE is
      never planned) spread evenly over `moves_left`, the moves of ours the game still expects
      from its position (at least 1), at most MAX_SHARE of it on one move, less `overhead`
      (what a move costs on the clock besides thinking; negative when the server gives time
      back).  When `settings` have byo-yomi after main time, never slower than its rate
      `byo_time / byo_stones`: main time spent at that rate cannot run the clock out.
      `caps`: (below, at_most) pairs, each capping the plan at `at_most` seconds once fewer
      than `below` seconds are left (the course referee's critical modes).  An overrun costs
      only clock, so the limit is at most OVERRUN times the plan, and never the whole clock.
    * neither: no deadline is known.  Think `pace` (DEFAULT_SECONDS, the GTP engines' default;
      the arena's own per-move pace) less `overhead`; no limit (None: the runner's grace).

    The plan is never less than `floor`, except on a game clock too short to pay it for
    TAIL_MOVES more moves (a long game's tail: then a TAIL_MOVES-th of the clock) and under a cap.
    """
    limit: float | None = None
    if per_move is None and time_left is not None and stones == 1:
        per_move = time_left  # a byo-yomi period of one stone: its seconds for this move
    if per_move is not None:
        seconds = max(floor, per_move - overhead)
        limit = max(seconds, per_move - NETWORK_MARGIN)
    elif time_left is not None:
        if stones > 0:
            seconds = max(floor, time_left / stones - overhead)
        else:
            seconds = _share(time_left, moves_left, overhead, floor)
            if settings is not None and settings.byo_stones > 0:
                seconds = max(seconds, settings.byo_time / settings.byo_stones - overhead)
            for below, at_most in caps:
                if time_left < below:
                    seconds = min(seconds, at_most)
        limit = max(seconds, min(time_left - NETWORK_MARGIN, OVERRUN * seconds))
    else:
        seconds = max(floor, pace - overhead)
    return Budget(seconds, start=arrived, limit=limit)


def _share(time_left: float, moves_left: float, overhead: float, floor: float) -> float:
    """The share of a game clock of `time_left` seconds for one of about `moves_left` moves,
    less `overhead`; never less than `floor` while the clock could pay it TAIL_MOVES more
    times, and then a TAIL_MOVES-th of the clock: a fixed floor drains a clock at a fixed
    rate in a game longer than expected, a share of what is left only shrinks it."""
    usable = max(0.0, time_left) * (1.0 - RESERVE)
    share = min(usable / max(1.0, moves_left), usable * MAX_SHARE)
    return max(min(floor, usable / TAIL_MOVES), share - overhead)
