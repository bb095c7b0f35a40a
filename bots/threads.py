"""Work in a daemon thread, awaited from the event loop.

asyncio.to_thread's executor threads are joined when the interpreter exits, so a call that can
block for long (a person reading the keyboard, the forkserver's start while it compiles the
kernels) would keep a stopped process alive; a daemon thread does not.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable


async def in_daemon_thread(fn: Callable, *args: Any) -> Any:
    """fn(*args) in a daemon thread (see the module docstring), its result or exception awaited."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def work() -> None:
        try:
            value, ok = fn(*args), True
        except BaseException as exc:  # handed to the awaiting task, raised there
            value, ok = exc, False
        try:
            loop.call_soon_threadsafe(settle, ok, value)
        except RuntimeError:  # the loop is closed: the command ended (Ctrl-C) while the person typed
            pass

    threading.Thread(target=work, name=getattr(fn, "__name__", "work"), daemon=True).start()
    return await future
