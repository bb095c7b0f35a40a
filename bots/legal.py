"""The check every move we send passes, whoever chose it: a search (bots.decide) or a person
at the keyboard (bots.human, which asks again until it passes)."""

from __future__ import annotations

from typing import Any

from protocol.errors import IllegalMove
from search.contracts import Context


def refusal(state: Any, move: Any, context: Context) -> str | None:
    """Why our rules refuse `move` in `state` (None: it may be sent); `context.exclude` are the
    moves the server refused this turn."""
    if move is None:
        return "no move"
    if move in context.exclude:
        return "the server refused it this turn"
    try:
        state.play(move)
    except IllegalMove as exc:
        return exc.reason
    except (TypeError, ValueError) as exc:  # a malformed move from a buggy search
        return f"malformed: {exc}"
    return None
