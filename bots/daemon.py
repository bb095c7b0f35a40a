"""The daemon: every configured bot on one uvloop event loop, sharing one SearchRunner.

Each bot is one task and an error boundary: garbage from its server stops that bot
only; a server that is down or drops mid-game is retried with exponential backoff; a
finished game is followed by a new connection (the official server plays one game
per connection).  SIGTERM or SIGINT stops every bot (sockets closed, workers stopped,
exit 0); a second signal exits at once.

SIGHUP re-reads the config file (`reload`): new bots start, removed bots stop after their
game in progress, changed bots restart after it, unchanged bots are not touched.  A config
with an error is refused with one log line, and the running bots go on.  [runner], [log] and
[status] take effect at the next start.  With [status] the daemon serves its status page,
/metrics and /healthz (bots.status_page) from the bots' own events (bots.monitor).
"""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from .monitor import BotWatch, Monitor
from .playing import BotSettings, keep_playing
from .runner import SearchRunner
from .settings import Settings, SettingsError, load

log = structlog.get_logger("bots.daemon")


@dataclass
class Running:
    """A bot's task, the event that asks it to stop after its game, and what starts after it."""

    entry: BotSettings
    task: asyncio.Task
    stop: asyncio.Event
    watch: BotWatch
    then: BotSettings | None = None


@dataclass
class Daemon:
    settings: Settings
    path: Path | None = None  # the config file, re-read on SIGHUP
    runner: SearchRunner = field(init=False)
    monitor: Monitor = field(init=False)
    running: dict[str, Running] = field(default_factory=dict)
    config: dict[str, BotSettings] = field(default_factory=dict)  # the bots of the accepted config
    stopping: bool = False
    _idle: asyncio.Event = field(init=False, default_factory=asyncio.Event)  # no bot is running

    def __post_init__(self) -> None:
        s = self.settings
        self.runner = SearchRunner(s.workers, s.grace, games={b.game for b in s.bots}, bots=len(s.bots))
        self.monitor = Monitor(self.runner, s.status.failing_after if s.status else 5)
        self.config = {b.bot.name: b for b in s.bots}

    def start(self, entry: BotSettings) -> None:
        bot = entry.bot
        stop = asyncio.Event()
        watch = self.monitor.watch(bot.name, entry.game, bot.address, bot.player)
        task = asyncio.get_running_loop().create_task(keep_playing(entry, self.runner, watch=watch, stop=stop),
                                                      name=bot.name)
        self.running[bot.name] = Running(entry, task, stop, watch)
        task.add_done_callback(lambda t: self._ended(bot.name, t))

    def retire(self, name: str, then: BotSettings | None = None) -> None:
        """Stop bot `name` after its game in progress (at once when it has none); then start
        `then` (a changed bot), or forget it (a removed one)."""
        running = self.running[name]
        running.then = then
        running.stop.set()
        if not running.watch.playing:
            running.task.cancel()

    def _ended(self, name: str, task: asyncio.Task) -> None:
        running = self.running.get(name)
        if running is None or running.task is not task:
            return
        del self.running[name]
        if not task.cancelled() and task.exception() is not None:  # a bug in keep_playing itself
            error = task.exception()
            log.error("bot crashed; the others go on", bot=name, error=repr(error), exc_info=error)
            running.watch.stopped("crashed", repr(error))
        elif task.cancelled() and not running.stop.is_set():
            running.watch.stopped("stopped by a signal")
        if running.then is not None and not self.stopping:
            self.start(running.then)
        elif running.stop.is_set():  # retired with nothing after it: removed from the config
            self.monitor.forget(name)
        if not self.running:
            self._idle.set()

    def reload(self) -> None:
        """Re-read the config (SIGHUP): start, stop and restart bots as it now says."""
        if self.path is None or self.stopping:
            why = "the daemon is stopping" if self.stopping else "no config file to re-read"
            log.warning("SIGHUP ignored", why=why)
            return
        try:
            new = load(self.path)
        except SettingsError as exc:
            log.error("config refused; the running bots go on", error=str(exc))
            return
        for part in ("workers", "grace", "log_format", "log_level", "status"):
            if getattr(new, part) != getattr(self.settings, part):
                log.warning("config reloaded: this part takes effect at the next start", part=part)
        wanted = {b.bot.name: b for b in new.bots}
        added = [n for n in wanted if n not in self.config]
        removed = [n for n in self.config if n not in wanted]
        changed = [n for n in wanted if n in self.config and wanted[n] != self.config[n]]
        for name in removed:
            if name in self.running:
                self.retire(name)
            else:
                self.monitor.forget(name)
        for name in changed:
            if name in self.running:
                self.retire(name, then=wanted[name])
            else:
                self.start(wanted[name])
        for name in added:
            self.start(wanted[name])
        self.settings, self.config = new, wanted
        if len(self.config) > self.runner.processes:
            log.warning("more bots than search processes: their searches share the cores until a restart",
                        bots=len(self.config), processes=self.runner.processes)
        log.info("config reloaded", added=added, removed=removed, changed=changed,
                 unchanged=len(wanted) - len(added) - len(changed))

    def stop_all(self) -> None:
        self.stopping = True
        for running in list(self.running.values()):
            running.task.cancel()

    async def run(self) -> int:
        """Run every bot until they finish or a signal arrives; the exit code."""
        loop = asyncio.get_running_loop()
        signals = 0

        def on_signal(signum: int) -> None:
            nonlocal signals
            signals += 1
            if signals > 1:
                log.warning("second signal: exiting now", signal=signal.Signals(signum).name)
                self.runner.kill()  # no orphaned workers
                os._exit(1)
            log.info("signal received: stopping every bot", signal=signal.Signals(signum).name)
            self.stop_all()

        def on_hangup() -> None:
            log.info("SIGHUP: reloading the config", config=str(self.path))
            self.reload()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal, sig)
        loop.add_signal_handler(signal.SIGHUP, on_hangup)
        page = None
        try:
            status = self.settings.status
            if status is not None:
                from .status_page import serve

                try:
                    page = await serve(self.monitor, status.host, status.port, status.token)
                except OSError as exc:  # the address is in use, or not this machine's
                    log.error("cannot serve the status page; the daemon stops", error=str(exc))
                    return 1
            # The bots connect at once; the workers warm up meanwhile (a first start compiles the
            # kernels), and a move asked for before they are ready gets its fallback (bots.runner).
            self.runner.launch()
            log.info("daemon started", bots=list(self.config), workers=self.runner.workers)
            for entry in self.config.values():
                self.start(entry)
            await self._idle.wait()
        finally:
            self.stop_all()
            await asyncio.gather(*(r.task for r in self.running.values()), return_exceptions=True)
            if page is not None:
                await page.cleanup()
            self.runner.close()
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                loop.remove_signal_handler(sig)
            log.info("daemon stopped")
        return 0


async def run(settings: Settings, path: str | Path | None = None) -> int:
    """Run the daemon of `settings` (read from `path`, which SIGHUP re-reads)."""
    return await Daemon(settings, Path(path) if path is not None else None).run()
