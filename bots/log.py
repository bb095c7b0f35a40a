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
