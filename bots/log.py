"""structlog set-up: a console renderer on a TTY, JSON lines otherwise."""

from __future__ import annotations

import logging
import sys

import structlog


def setup(fmt: str = "auto", level: str = "info", stream=None) -> None:
    """Configure structlog once for the process.  fmt: auto, console or json."""
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
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )


def ensure_configured() -> None:
    """For code run outside the bots command (the course drop-ins): if nobody set structlog
    up, log to stderr at info level, never to stdout (a referee or client may read it)."""
    if not structlog.is_configured():
        setup("auto", "info")

