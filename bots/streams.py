"""Turning an asyncio stream into decoded events, for any sans-I/O decoder."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Closed:
    """The peer closed the connection (or it broke)."""

    reason: str = "connection closed"


@dataclass(frozen=True)
class Garbage:
    """The peer sent bytes the decoder rejected."""

    error: Exception


async def pump(reader: asyncio.StreamReader, decoder: Any, queue: asyncio.Queue) -> None:
    """Read until EOF, putting every decoded event (then one Closed) on `queue`.

    Garbage is reported and the decoder's buffer dropped, so the reader keeps going;
    what to do about it is the consumer's decision.
    """
    try:
        while data := await reader.read(65536):
            decoder.feed(data)
            try:
                for event in decoder.events():
                    queue.put_nowait(event)
            except Exception as exc:  # the decoder's own error types
                decoder.clear()
                queue.put_nowait(Garbage(exc))
        queue.put_nowait(Closed())
    except (ConnectionError, OSError) as exc:
        queue.put_nowait(Closed(f"connection broken: {exc}"))
