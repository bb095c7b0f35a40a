"""structlog set-up: a console renderer on a TTY, JSON lines otherwise."""

from __future__ import annotations

import logging
import sys

import structlog


def setup(fmt: str = "auto", level: str = "info", stream=None, tap=None) -> None:
    """Configure structlog once for the process.  fmt: auto, console or json.  `tap` (for
    measurements such as `bots soak`) sees every event at `level` and above before it is
    rendered, and may drop it (structlog.DropEvent)."""
    stream = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if stream.isatty() else "json"
    renderer = (structlog.dev.ConsoleRenderer(colors=stream.isatty()) if fmt == "console"
                else structlog.processors.JSONRenderer())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            *([_tapping(tap)] if tap else []),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )


def _tapping(tap):
    def processor(logger, method, event: dict) -> dict:
        tap(event)
        return event

    return processor


def ensure_configured() -> None:
    """For code run outside the bots command (the course drop-ins): if nobody set structlog
    up, log to stderr at info level, never to stdout (a referee or client may read it)."""
    if not structlog.is_configured():
        setup("auto", "info")

