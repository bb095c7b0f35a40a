"""The daemon: every configured bot on one uvloop event loop, sharing one SearchRunner.

Each bot is one task and an error boundary: garbage from its server stops that bot
only; a server that is down or drops mid-game is retried with exponential backoff; a
finished game is followed by a new connection (the official server plays one game
per connection).  SIGTERM or SIGINT stops every bot (sockets closed, workers stopped,
exit 0); a second signal exits at once.
"""

from __future__ import annotations

import asyncio
import os
import signal

import structlog

from .playing import keep_playing
from .runner import SearchRunner
from .settings import Settings

log = structlog.get_logger("bots.daemon")


async def run(settings: Settings) -> int:
    """Run every bot until they finish or a signal arrives; the exit code."""
    loop = asyncio.get_running_loop()
    runner = SearchRunner(settings.workers, settings.grace, games={b.game for b in settings.bots},
                          bots=len(settings.bots))
    tasks: list[asyncio.Task] = []
    signals = 0

    def on_signal(signum: int) -> None:
        nonlocal signals
        signals += 1
        if signals > 1:
            log.warning("second signal: exiting now", signal=signal.Signals(signum).name)
            runner.kill()  # no orphaned workers
            os._exit(1)
        log.info("signal received: stopping every bot", signal=signal.Signals(signum).name)
        for task in tasks:
            task.cancel()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        # The bots connect at once; the workers warm up meanwhile (a first start compiles the
        # kernels), and a move asked for before they are ready gets its fallback (bots.runner).
        runner.launch()
        log.info("daemon started", bots=[b.bot.name for b in settings.bots], workers=runner.workers)
        async with asyncio.TaskGroup() as group:
            tasks += [group.create_task(keep_playing(b, runner), name=b.bot.name) for b in settings.bots]
    finally:
        runner.close()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        log.info("daemon stopped")
    return 0
