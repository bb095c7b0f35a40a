"""The check every move we send passes, whoever chose it: a search (bots.decide) or a person
at the keyboard (bots.human, which asks again until it passes)."""

from __future__ import annotations

from typing import Any

from protocol.errors import IllegalMove


def refusal(state: Any, move: Any, context: dict | None) -> str | None:
    """Why our rules refuse `move` in `state` (None: it may be sent)."""
    if move is None:
        return "no move"
    if context and move in context.get("exclude", ()):
        return "the server refused it this turn"
    try:
        state.play(move)
    except IllegalMove as exc:
        return exc.reason
    except (TypeError, ValueError) as exc:  # a malformed move from a buggy search
        return f"malformed: {exc}"
    return None
