"""The clocks of an engine speaking a GTP dialect (Go's GTP engine, Hex's HTP engine): the
time settings, one clock per colour, and the commands that set them, over the one clock model
of bots.clock (docs/protocols/time-control.md).

`ClockedEngine` sits between `bots.gtp_runtime.GameEngine` and a game's engine.  It holds
`time` (the `TimeSettings`, None when nothing limits the game) and `clocks` ({colour: the
colour's `Clock`, None without a limit}), answers `time_settings` and `kgs-time_settings` for
every dialect, and gives a game's engine what it needs around a move: `move_budget` (the
move's budget by bots.clock.budget, from the colour's clock and the game's `moves_left`, its
estimate of the moves it still has to make) and `charge` (our own move taken off the clock
until the controller's next reading).
`time_left` differs between the dialects, so each engine parses it and calls `read_clock`.

Like gtp_runtime it names no game: a game's engine gives its colour values in `colours`.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import ClassVar

from protocol.gtp import Command
from search.budget import Budget

from . import clock as _clock
from .clock import Clock, TimeSettings
from .gtp_runtime import Failure, GameEngine, arity, command, natural, seconds

# Of a game clock, at most, one move spends waiting for the workers' start (SearchRunner.warm_wait).
WARM_SHARE = 0.1

KGS_SYSTEMS = "none, absolute MAIN, byoyomi MAIN PERIOD PERIODS or canadian MAIN TIME STONES"


class ClockedEngine(GameEngine, ABC):
    """A GameEngine with time settings and a clock per colour (see the module docstring)."""

    colours: ClassVar[tuple[int, ...]] = ()  # the game's colour values: (black, white)
    overhead: ClassVar[float] = _clock.OVERHEAD  # seconds kept back per move for the wire and the event loop
    pipe: ClassVar[float] = 0.01  # seconds a move costs on a game clock at least: the pipe and the controller

    time: TimeSettings | None
    clocks: dict[int, Clock | None]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cost = _clock.Overhead(value=self.overhead, low=self.pipe)
        self.set_time(None)

    # -- the clocks ------------------------------------------------------------------------
    def set_time(self, settings: TimeSettings | None) -> None:
        """New time settings; both clocks start again from them."""
        self.time = settings
        self.restart_clocks()

    def restart_clocks(self) -> None:
        """Both clocks at the start of a game (a new game keeps the settings)."""
        start = _clock.start_clock(self.time)
        self.clocks = {colour: start for colour in self.colours}

    def read_clock(self, colour: int, left: float, stones: int) -> None:
        """The controller's reading of `colour`'s clock (time_left), bounded by the settings."""
        self.clocks[colour] = _clock.read_clock(self.time, left, stones)

    @abstractmethod
    def moves_left(self) -> float:
        """The game's estimate of the moves we still have to make from the current position
        (bots.clock.budget spreads a clock over them): each game's engine gives its own."""

    def move_budget(self, colour: int, arrived: float) -> tuple[Budget, float | None]:
        """(the budget, seconds on the clock or None) of `colour`'s next move, asked for at
        `arrived` (time.monotonic()): bots.clock.budget over `colour`'s clock and the
        settings (main time, a byo-yomi period, `0 S 1`, absolute time; no clock: the
        default pace, and no limit), with the game's `moves_left()`.

        Kept back besides thinking: on a clock for the whole game (absolute time, sudden
        death) what our moves have cost besides their search (`cost`: learned from each move,
        at least `pipe`), since a move that overruns its plan costs only clock there; with
        byo-yomi (a per-move limit, periods, main time before them) or at the default pace,
        where a late move loses, `overhead`.

        While the workers are starting (`runner.warm_wait()`: a second or so with the kernels
        cached), a move on a game clock or in main time also gets the seconds they still
        need, at most WARM_SHARE of the clock: a controller that asks for a move just after
        starting the engine gets a searched move, not the fallback (until this process has
        loaded its kernels, a move by simple tactics).  Under byo-yomi a move cannot wait past its period."""
        clock = self.clocks[colour]
        left, stones = clock if clock is not None else (None, 0)
        whole_game = left is not None and stones == 0 and (self.time is None or self.time.absolute)
        overhead = self.cost.value if whole_game else self.overhead
        budget = _clock.budget(arrived=arrived, time_left=left, stones=stones, settings=self.time,
                               moves_left=self.moves_left(), overhead=overhead)
        if left is not None and stones == 0 and self.runner is not None:
            extra = min(self.runner.warm_wait(), WARM_SHARE * left)
            if extra > 0:
                seconds = budget.seconds + extra
                limit = max(seconds, min((budget.limit or seconds) + extra, left - _clock.NETWORK_MARGIN))
                budget = dataclasses.replace(budget, seconds=seconds, limit=limit)
        return budget, left

    def charge(self, colour: int, elapsed: float, searched: float) -> None:
        """Take one of our moves, `elapsed` seconds from its request to its answer, off
        `colour`'s clock (until the next time_left corrects it); `searched` of them were the
        search's (decide's MoveReport.used), the rest is what `cost` learns."""
        self.cost.spent(elapsed, searched)
        self.clocks[colour] = _clock.after_move(self.time, self.clocks[colour], elapsed)

    # -- the commands every dialect shares --------------------------------------------------
    @command("time_settings")
    async def _time_settings(self, cmd: Command) -> str:
        """GTP's `time_settings MAIN BYO_TIME BYO_STONES` (seconds, seconds, stones)."""
        main, byo_time, byo_stones = arity(cmd, 3)
        self.set_time(TimeSettings(seconds(main, "main time"), seconds(byo_time, "byo-yomi time"),
                                   natural(byo_stones, "byo-yomi stones")))
        return ""

    @command("kgs-time_settings")
    async def _kgs_time_settings(self, cmd: Command) -> str:
        """KGS's `kgs-time_settings SYSTEM ...`: none, absolute MAIN, byoyomi MAIN PERIOD
        PERIODS (Japanese: every move must fit in one period, which is Canadian byo-yomi of
        one stone; no period at all is absolute time), canadian MAIN TIME STONES (as
        time_settings)."""
        if not cmd.args:
            raise Failure(f"syntax error: kgs-time_settings needs a time system: {KGS_SYSTEMS}")
        system, args = cmd.args[0].lower(), cmd.args[1:]
        settings: TimeSettings | None
        if system == "none" and not args:
            settings = None
        elif system == "absolute" and len(args) == 1:
            settings = TimeSettings(seconds(args[0], "main time"), 0.0, 0)
        elif system == "byoyomi" and len(args) == 3:
            main, period = seconds(args[0], "main time"), seconds(args[1], "period time")
            periods = natural(args[2], "byo-yomi periods")
            settings = TimeSettings(main, period, 1) if period > 0 and periods > 0 else TimeSettings(main, 0.0, 0)
        elif system == "canadian" and len(args) == 3:
            settings = TimeSettings(seconds(args[0], "main time"), seconds(args[1], "byo-yomi time"),
                                    natural(args[2], "byo-yomi stones"))
        else:
            raise Failure(f"syntax error: kgs-time_settings {system!r:.20} with {len(args)} arguments; "
                          f"expected {KGS_SYSTEMS}")
        self.set_time(settings)
        return ""
