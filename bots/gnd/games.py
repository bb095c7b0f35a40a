"""The two games of the gnd server: their rules modules and default players."""

from __future__ import annotations

from types import ModuleType

from ..dodo import rules as dodo_rules
from ..gopher import rules as gopher_rules

RULES: dict[str, ModuleType] = {"gopher": gopher_rules, "dodo": dodo_rules}

# The strongest player per game as measured by `bots arena` (README, Benchmarks).
DEFAULTS: dict[str, str] = {"gopher": "alphabeta", "dodo": "mcts"}


def rules(game: str) -> ModuleType:
    try:
        return RULES[game]
    except KeyError:
        raise ValueError(f"unknown gnd game {game!r} (known: {', '.join(RULES)})") from None


def default_player(game: str, size: int) -> str:
    """The player bots uses for `game` on a board of `size` when none is named."""
    rules(game)
    return DEFAULTS[game]
