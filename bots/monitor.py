"""What the daemon's bots are doing, for its status page (bots.status_page), `/metrics` and
`bots status`.

The status is a projection of the events each bot already logs (bots.session names them:
connected, game starts, move, game over, interrupted) plus the bot's state as bots.playing
sees it (connecting, waiting, playing, backing off, stopped, finished).  The daemon hands each
bot a `BotWatch`; bots.playing wraps the bot's logger in `watch.logger(...)`, a tee that logs
as before and updates the watch, and passes `watch.position` as the session's `on_state`.  No
session knows the monitor exists.

Nothing secret is kept: a bot is shown by name, game, server address and player; the events'
fields that reach the page are the ones listed in `MOVE_FIELDS` and `GAME_FIELDS`.

Metrics (prometheus_client, a registry of the monitor's own) are updated from the same events:
moves, move time and move time against the budget (histograms), fallbacks by reason, late
moves, games by result, connection retries, each bot's state, and the pool's workers and
queued jobs, labelled by bot and game.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Callable

from prometheus_client import CollectorRegistry, Counter as Count, Gauge, Histogram, disable_created_metrics

from . import registry
from .session import CONNECTED, GAME_OVER, GAME_STARTS, INTERRUPTED, MOVE

STATES = ("connecting", "waiting", "playing", "backing off", "stopped", "finished")
HEALTHY = {"connecting", "waiting", "playing", "finished"}
WINDOW = 3600.0  # seconds: the pool's "fallbacks and late moves in the last hour"
MOVE_FIELDS = ("move", "budget", "used", "depth", "nodes", "late_by", "fallback", "clock", "ply")
GAME_FIELDS = ("species", "colour", "opponent", "size", "gid", "match", "player", "clock", "rows", "cols")
FINISHED_KEPT = 20  # finished games listed per bot
WAITING_EVENTS = {CONNECTED, "registered", "waiting for a match"}


def reason_kind(reason: str) -> str:
    """A fallback's reason without its details ("search raised ValueError: x" -> "search
    raised ValueError"): one metric label per kind, not per message."""
    return re.split(r"[:(]", reason, maxsplit=1)[0].strip() or "unknown"


def move_text(game: str, move: Any) -> str:
    """A move as the game's records show it (bots replay), from its notation in the log."""
    try:
        return str(registry.get(game).module("record").move_text({"move": move}))
    except (KeyError, TypeError, ValueError, AttributeError):  # a game without records, or odd notation
        return str(move)


@dataclass
class GameView:
    """The game a bot is playing: what its session said when it started, our moves so far
    (with what each search did), the newest position and both clocks where the server tells them."""

    started: float
    info: dict
    moves: list[dict] = field(default_factory=list)
    state: Any = None
    version: int = 0  # bumped with each new position (the board's cache key)

    def summary(self) -> dict:
        last = self.moves[-1] if self.moves else {}
        return {"started": self.started, **self.info, "moves": self.moves, "board_version": self.version,
                "last_move": last, "clock": last.get("clock", self.info.get("clock")),
                "their_clock": last.get("their_clock")}


@dataclass
class BotStatus:
    name: str
    game: str
    server: str
    player: str
    state: str = "connecting"
    why: str = ""
    since: float = field(default_factory=time.time)
    day: str = field(default_factory=lambda: time.strftime("%Y-%m-%d"))
    results: Counter = field(default_factory=Counter)  # today's games by result
    error: str | None = None
    error_at: float | None = None
    failures: int = 0  # failures in a row (backing off)
    playing: GameView | None = None
    finished: deque = field(default_factory=lambda: deque(maxlen=FINISHED_KEPT))

    def summary(self) -> dict:
        return {"name": self.name, "game": self.game, "server": self.server, "player": self.player,
                "state": self.state, "why": self.why, "since": self.since, "today": self.day,
                "results": dict(self.results), "games_today": sum(self.results.values()),
                "error": self.error, "error_at": self.error_at, "failures": self.failures,
                "playing": self.playing.summary() if self.playing else None,
                "finished": list(self.finished)}


class Metrics:
    """The Prometheus metrics of one monitor (a registry of its own, so that two daemons in
    one process, as in the tests, do not share counters)."""

    def __init__(self) -> None:
        disable_created_metrics()  # no *_created series: a scraper needs only the counts
        self.registry = CollectorRegistry()
        labels = ("bot", "game")
        r = self.registry
        self.moves = Count("bots_moves", "Moves sent", labels, registry=r)
        self.move_seconds = Histogram("bots_move_seconds", "Time from the server's message to our move", labels,
                                      buckets=(0.05, 0.1, 0.25, 0.5, 1, 1.5, 1.8, 2, 3, 5, 10, 30, 60),
                                      registry=r)
        self.budget_ratio = Histogram("bots_move_budget_ratio", "A move's time over its budget", labels,
                                      buckets=(0.25, 0.5, 0.8, 0.9, 0.95, 1, 1.02, 1.05, 1.1, 1.25, 1.5, 2),
                                      registry=r)
        self.fallbacks = Count("bots_fallbacks", "Moves that were the fallback, by reason", (*labels, "reason"),
                               registry=r)
        self.late = Count("bots_late_moves", "Moves whose search ran past its budget", labels, registry=r)
        self.games = Count("bots_games", "Finished games by result (ours)", (*labels, "result"), registry=r)
        self.retries = Count("bots_connection_retries", "Connections retried after a failure", labels, registry=r)
        self.state = Gauge("bots_bot_state", "1 for the state each bot is in", (*labels, "state"), registry=r)
        self.workers = Gauge("bots_pool_workers", "Search workers of the shared pool", registry=r)
        self.queued = Gauge("bots_pool_queued_jobs", "Searches waiting for a worker", registry=r)


class Monitor:
    """Every bot's status, the pool's, and a way to wait for the next change."""

    def __init__(self, runner: Any = None, failing_after: int = 5, now: Callable[[], float] = time.time) -> None:
        self.runner, self.failing_after, self.now = runner, failing_after, now
        self.bots: dict[str, BotStatus] = {}
        self.metrics = Metrics()
        self.recent: deque[tuple[float, str, str]] = deque()  # (when, bot, "fallback"|"late")
        self.version = 0
        self._changed = asyncio.Event()
        if runner is not None:
            self.metrics.workers.set_function(lambda: runner.workers)
            self.metrics.queued.set_function(lambda: runner.queued)

    def watch(self, name: str, game: str, server: str, player: str) -> "BotWatch":
        """The handle of a bot (a new one, or one that restarts after a reload: today's results
        and its finished games stay)."""
        status = BotStatus(name, game, server, player, since=self.now())
        before = self.bots.get(name)
        if before is not None:
            status.day, status.results, status.finished = before.day, before.results, before.finished
        self.bots[name] = status
        self.changed()
        return BotWatch(self, self.bots[name])

    def forget(self, name: str) -> None:
        """A bot that the config no longer has."""
        status = self.bots.pop(name, None)
        if status is not None:
            for state in STATES:
                with contextlib.suppress(KeyError):  # a state it never reported
                    self.metrics.state.remove(name, status.game, state)
        self.changed()

    def changed(self) -> None:
        """Wake whoever waits for a change (the live page's streams)."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, version: int, timeout: float) -> int:
        """The version after the next change past `version` (or the same after `timeout`)."""
        if self.version == version:
            event = self._changed
            try:
                await asyncio.wait_for(event.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        return self.version

    def pool(self) -> dict:
        """The pool: workers, queued searches, and fallbacks and late moves in the last hour."""
        cutoff = self.now() - WINDOW
        while self.recent and self.recent[0][0] < cutoff:
            self.recent.popleft()
        kinds = Counter(kind for _, _, kind in self.recent)
        runner = self.runner
        return {"workers": getattr(runner, "workers", 0), "processes": getattr(runner, "processes", 0),
                "ready": bool(runner is not None and runner.ready), "queued": getattr(runner, "queued", 0),
                "fallbacks_last_hour": kinds["fallback"], "late_last_hour": kinds["late"]}

    def failing(self, status: BotStatus) -> bool:
        """A bot that stopped on an error, or has failed `failing_after` times in a row."""
        if status.state == "stopped":
            return status.error is not None
        return status.state == "backing off" and status.failures >= self.failing_after

    def snapshot(self) -> dict:
        """The page's JSON: every bot (with its game in progress), the pool, and health."""
        bots = [s.summary() | {"failing": self.failing(s)} for s in self.bots.values()]
        return {"time": self.now(), "version": self.version, "bots": bots, "pool": self.pool(),
                "healthy": not any(b["failing"] for b in bots)}

    def health(self) -> tuple[bool, dict]:
        """/healthz: whether every configured bot is connected, or backing off within its
        policy (fewer than `failing_after` failures in a row); each bot's state."""
        states = {s.name: {"state": s.state, "failures": s.failures, "failing": self.failing(s)}
                  for s in self.bots.values()}
        return not any(b["failing"] for b in states.values()), states


class BotWatch:
    """One bot's side of the monitor: bots.playing reports its state here, and the tee logger
    and `position` report what its session does."""

    def __init__(self, monitor: Monitor, status: BotStatus) -> None:
        self.monitor, self.status = monitor, status
        self.labels = (status.name, status.game)
        self._set_state("connecting", "")

    @property
    def playing(self) -> bool:
        """A game is in progress (a reload lets it finish)."""
        return self.status.playing is not None

    def logger(self, log: Any) -> "Tee":
        return Tee(log, self.event)

    def connecting(self) -> None:
        self._set_state("connecting", "")

    def backing_off(self, error: str, retry_in: float) -> None:
        self.status.failures += 1
        self.monitor.metrics.retries.labels(*self.labels).inc()
        self._error(error)
        self._set_state("backing off", f"{error}; retry in {retry_in:.0f} s")

    def succeeded(self) -> None:
        self.status.failures = 0

    def stopped(self, why: str, error: str | None = None) -> None:
        if error is not None:
            self._error(error)
        self.status.playing = None
        self._set_state("stopped", why)

    def finished(self, why: str) -> None:
        self._set_state("finished", why)

    def position(self, state: Any) -> None:
        """The session's on_state: the newest position of the game in progress."""
        view = self.status.playing
        if view is None:  # a session that shows a position before it says the game started
            view = self.status.playing = GameView(self.monitor.now(), {})
            self._set_state("playing", "")
        view.state = state
        view.version += 1
        self.monitor.changed()

    def event(self, level: str, name: str, fields: dict) -> None:
        """One event the bot's session logged."""
        status, now = self.status, self.monitor.now()
        if name in WAITING_EVENTS:
            self._set_state("waiting", "")
        elif name == GAME_STARTS:
            status.playing = GameView(now, {k: fields[k] for k in GAME_FIELDS if k in fields})
            self._set_state("playing", "")
        elif name == MOVE:
            self._move(fields)
        elif name in (GAME_OVER, INTERRUPTED):
            self._game_over(fields, interrupted=name == INTERRUPTED)
        if level in ("error", "critical", "exception"):
            self._error(f"{name}: {fields['error']}" if "error" in fields else name)
        self.monitor.changed()

    def _move(self, fields: dict) -> None:
        m, labels, now = self.monitor.metrics, self.labels, self.monitor.now()
        move = {k: fields[k] for k in MOVE_FIELDS if k in fields} | {"at": now}
        move["move"] = move_text(self.status.game, fields.get("move"))
        view = self.status.playing
        if view is None:
            view = self.status.playing = GameView(now, {})
            self._set_state("playing", "")
        view.moves.append(move)
        used, budget = float(fields.get("used") or 0.0), fields.get("budget")
        m.moves.labels(*labels).inc()
        m.move_seconds.labels(*labels).observe(used)
        if budget:
            m.budget_ratio.labels(*labels).observe(used / budget)
        if fields.get("fallback"):
            m.fallbacks.labels(*labels, reason_kind(str(fields["fallback"]))).inc()
            self.monitor.recent.append((now, self.status.name, "fallback"))
        if (fields.get("late_by") or 0) > 0:
            m.late.labels(*labels).inc()
            self.monitor.recent.append((now, self.status.name, "late"))

    def _game_over(self, fields: dict, interrupted: bool) -> None:
        status, now = self.status, self.monitor.now()
        today = time.strftime("%Y-%m-%d", time.localtime(now))
        if today != status.day:
            status.day, status.results = today, Counter()
        result = fields.get("outcome", fields.get("result")) if not interrupted else "unknown"
        result = result if result in ("won", "lost", "draw") else "unknown"
        status.results[result] += 1
        self.monitor.metrics.games.labels(*self.labels, result).inc()
        view = status.playing
        status.finished.appendleft({
            "ended": now, "started": view.started if view else None, "result": result,
            "reason": "disconnect" if interrupted else fields.get("reason"),
            "moves": len(view.moves) if view else fields.get("moves"), "record": fields.get("record")})
        status.playing = None
        self._set_state("waiting", "")

    def _error(self, error: str) -> None:
        self.status.error, self.status.error_at = error, self.monitor.now()

    def _set_state(self, state: str, why: str) -> None:
        status = self.status
        if state != status.state or why != status.why:
            status.state, status.why, status.since = state, why, self.monitor.now()
        for s in STATES:
            self.monitor.metrics.state.labels(*self.labels, s).set(1 if s == state else 0)
        self.monitor.changed()


class Tee:
    """A structlog logger that also tells a watch what was logged (`bind` keeps the tee)."""

    def __init__(self, log: Any, sink: Callable[[str, str, dict], None]) -> None:
        self._log, self._sink = log, sink

    def bind(self, **fields: Any) -> "Tee":
        return Tee(self._log.bind(**fields), self._sink)

    def _emit(self, level: str, event: str, fields: dict) -> Any:
        out = getattr(self._log, level)(event, **fields)
        try:
            self._sink(level, event, fields)
        except Exception as exc:  # the page must never cost a move
            self._log.warning("status page: cannot record an event", what=event, error=repr(exc))
        return out

    def debug(self, event: str, **fields: Any) -> Any:
        return self._emit("debug", event, fields)

    def info(self, event: str, **fields: Any) -> Any:
        return self._emit("info", event, fields)

    def warning(self, event: str, **fields: Any) -> Any:
        return self._emit("warning", event, fields)

    def error(self, event: str, **fields: Any) -> Any:
        return self._emit("error", event, fields)

    def exception(self, event: str, **fields: Any) -> Any:
        return self._emit("exception", event, fields)

    def critical(self, event: str, **fields: Any) -> Any:
        return self._emit("critical", event, fields)
