"""The one error family of bots, shared by every protocol and every game.

- `ProtocolError`: the peer sent something we cannot use (the message says what and where).
- `UsageError`: we asked a codec or a rules engine for something it cannot do.
- `IllegalMove`: a move the rules refuse; `reason` is a short tag ("occupied", "suicide",
  ...), the message the whole story.

Each codec keeps a base class of its own (e.g. `TwilightError`) so a caller may catch one
codec's errors only; its `ProtocolError` and `UsageError` are also these, so a session or the
daemon catches every codec's the same way.  Standard library only, like all of protocol/.
"""

from __future__ import annotations


class BotsError(Exception):
    """Base of the family."""


class ProtocolError(BotsError, ValueError):
    """The peer sent something that is not the protocol."""


class UsageError(BotsError, ValueError):
    """We misused an API (a value the protocol cannot carry, an unknown game, ...)."""


class IllegalMove(BotsError, ValueError):
    """A move the rules refuse.  `reason`: a short tag (defaults to the message)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message

    def __reduce__(self) -> tuple[type[IllegalMove], tuple[str, str]]:  # pickles across processes with its reason
        return (type(self), (str(self), self.reason))
