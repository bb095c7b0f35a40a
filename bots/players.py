"""Named, parameterised players of every game, and the job a worker runs.

A player is a dataclass that satisfies search.contracts.Player: its fields are its options
(with defaults), and `choose(state, context, budget) -> SearchResult` picks a move.  `make_player` builds
one from strings (CLI `key=value` or TOML values) with clear errors, so a typo in a
config fails at start-up, not on the first move.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from search.budget import Budget, SearchResult
from search.contracts import Context, Player, State

from . import registry


class PlayerError(ValueError):
    """An unknown player or a bad option; the message says which."""


def player_table(game: str) -> dict[str, type[Player]]:
    try:
        return registry.get(game).player_table()
    except registry.UnknownGame as exc:
        raise PlayerError(str(exc)) from None


def _convert(kind: Any, raw: Any, where: str) -> Any:
    if isinstance(kind, str) and "|" in kind:  # e.g. "int | None" (annotations are strings)
        if raw is None or str(raw).lower() == "none":
            return None
        kind = next(k.strip() for k in kind.split("|") if k.strip() != "None")
    kind = {"int": int, "float": float, "str": str, "bool": bool}.get(kind, kind)
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("1", "true", "yes", "on"):
            return True
        if str(raw).lower() in ("0", "false", "no", "off"):
            return False
        raise PlayerError(f"{where}: expected true or false, got {raw!r}")
    if kind in (int, float):
        if isinstance(raw, bool):
            raise PlayerError(f"{where}: expected a number, got {raw!r}")
        try:
            value = kind(raw)
        except (TypeError, ValueError):
            raise PlayerError(f"{where}: expected {kind.__name__}, got {raw!r}") from None
        if kind is int and isinstance(raw, float) and raw != value:
            raise PlayerError(f"{where}: expected an integer, got {raw!r}")
        return value
    return str(raw)


def parse_spec(text: str) -> tuple[str, dict[str, str]]:
    """'expecti' or 'expecti:max_depth=5,max_groups=2' -> (name, options as strings), for the
    CLI and the course drop-ins' $BOTS_PLAYER; PlayerError naming a bad part."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise PlayerError(f"player {text!r} names no player")
    params: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise PlayerError(f"player option {pair!r} is not key=value")
        params[key.strip()] = value.strip()
    return name, params


def make_player(game: str, name: str, params: dict[str, Any] | None = None) -> Player:
    """The player `name` of `game` with `params` (strings or TOML values) applied."""
    table = player_table(game)
    if name not in table:
        raise PlayerError(f"unknown {game} player {name!r} (known: {', '.join(sorted(table))})")
    cls = table[name]
    options: tuple[dataclasses.Field, ...] = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    fields = {f.name: f for f in options if f.init}
    values = {}
    for key, raw in (params or {}).items():
        if key not in fields:
            raise PlayerError(f"player {name!r} has no option {key!r} (options: {', '.join(fields) or 'none'})")
        values[key] = _convert(fields[key].type, raw, f"{name}.{key}")
    try:
        return cls(**values)
    except ValueError as exc:
        raise PlayerError(f"player {name!r}: {exc}") from None


@lru_cache(maxsize=16)  # more players than one daemon's bots; each may hold a search tree
def _cached(session: str | None, game: str, name: str, params: tuple) -> Player:
    return make_player(game, name, dict(params))


def think(game: str, name: str, params: tuple, state: State, context: Context | None, session: str | None,
          budget: Budget) -> SearchResult:
    """The job a worker runs: the named player chooses a move for `state`.

    Players are cached per worker and per session (`session`: the caller's
    bots.runner.Session.key), so one that keeps a tree between moves reuses its own tree,
    and two bots with the same settings never share one.  The cache keeps the players used
    last; an ended session's player ages out.
    """
    return _cached(session, game, name, params).choose(state, context, budget)


def parts(game: str, name: str, share: int) -> int:
    """How many workers one search of the player fans out over, given the session's `share`:
    all of it for a player whose workers vote (`parallel`, Go's root parallelism), else one."""
    return share if getattr(player_table(game)[name], "parallel", False) else 1


def check_ponder(game: str, name: str, params: tuple = ()) -> None:
    """PlayerError unless the player, with its options `params`, can search on while the
    opponent thinks: it has a `ponder` method and keeps its search tree between moves (not
    `reuse=false`, whose pondering would find nothing to keep)."""
    if not callable(getattr(player_table(game).get(name), "ponder", None)):
        raise PlayerError(f"{game} player {name!r} cannot ponder: only a player that keeps its search tree "
                          "between moves can (mcts)")
    if getattr(make_player(game, name, dict(params)), "reuse", True) is False:
        raise PlayerError(f"{game} player {name!r} cannot ponder with reuse=false: it keeps no search tree "
                          "between moves")


def ponder(game: str, name: str, params: tuple, state: State, session: str | None, budget: Budget) -> SearchResult:
    """The job a worker runs while the opponent thinks (an engine's `--ponder`): the same cached
    player as `think`'s searches `state`, the opponent to move, until the budget ends, so the
    tree it keeps for its next move has grown (when the reply is one it searched)."""
    return _cached(session, game, name, params).ponder(state, budget)  # type: ignore[attr-defined]
