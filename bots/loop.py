"""Running a command's coroutine: on uvloop, with SIGTERM as a clean stop.

Its own module (not bots.cli): `python -m bots.cli` runs the CLI as `__main__`, and an
exception class defined there would be a different class from the one the game commands
import, so a clean stop would surface as a traceback.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import uvloop


class Stopped(Exception):
    """SIGTERM arrived: the command closed its sockets and workers and stops (exit 0)."""


def run(coro: Any) -> Any:
    """Run `coro` to completion on uvloop; SIGTERM cancels it cleanly and raises Stopped."""

    async def guarded() -> Any:
        task, loop = asyncio.current_task(), asyncio.get_running_loop()
        terminated: list[bool] = []

        def on_sigterm() -> None:
            terminated.append(True)
            task.cancel()

        loop.add_signal_handler(signal.SIGTERM, on_sigterm)  # the daemon installs its own
        try:
            return await coro
        except asyncio.CancelledError:
            if terminated:
                raise Stopped() from None
            raise
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(guarded())
