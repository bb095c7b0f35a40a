"""Participants that must be our own players (Twilight's and gnd's matches): checked and
typed from the command line's text.  Apart from bots.matches so that the hook Protocols
(bots.hooks, bots.registry) do not reach the command line through it."""

from __future__ import annotations

import argparse

from .cmdline import UsageFailure, checked_player, player_spec
from .human import is_person
from .matches import Side


def our_side(game: str, label: str, text: str) -> Side:
    """A participant that must be one of our players (`name` or `name:key=value,...`), checked
    and typed: UsageFailure naming what is wrong."""
    try:
        return Side(label, *checked_player(game, player_spec(text)))
    except argparse.ArgumentTypeError as exc:
        raise UsageFailure(str(exc)) from None


def check_ours(game: str, text: str, label: str = "") -> None:
    """The `check` match hook of a game whose participants are only our players."""
    our_side(game, label or "A", text)


def searches_ours(game: str, text: str) -> bool:
    """The `searches` match hook of a game whose participants are only our players: all but
    a person at the terminal."""
    return not is_person(game, text.partition(":")[0].strip())
