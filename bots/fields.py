"""Typed values out of one TOML table, with errors that name the file, the table and the key.

bots.settings reads the file; each game's session module turns its `[[bot]]` table into its
bot value with these (`bot_from_table`), so every game checks its keys the same way.
"""

from __future__ import annotations

import os
from typing import Any, Callable


class SettingsError(ValueError):
    """A config file that cannot be used; the message names the file and the key."""


def get(table: dict, key: str, kind: type | tuple, where: str, default: Any = ...,
        check: Callable[[Any], bool] | None = None, explain: str = "") -> Any:
    """table[key], which must be of `kind` (bool is never an int here) and pass `check`."""
    if key not in table:
        if default is ...:
            raise SettingsError(f"{where}: missing key {key!r}")
        return default
    value = table[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise SettingsError(f"{where}: {key} must be {names}, got {value!r}")
    if check is not None and not check(value):
        raise SettingsError(f"{where}: {key}={value!r} {explain}")
    return value


def seconds(table: dict, key: str, where: str, default: float, positive: bool = False) -> float:
    """A number of seconds: > 0 if `positive`, else >= 0."""
    if positive:
        return float(get(table, key, (int, float), where, default, lambda v: v > 0, "must be positive"))
    return float(get(table, key, (int, float), where, default, lambda v: v >= 0, "must be >= 0"))


def port(table: dict, where: str, default: Any = ...) -> int:
    return get(table, "port", int, where, default, lambda p: 1 <= p <= 65535, "is not a TCP port")


def params(table: dict, where: str) -> tuple:
    """A player's options, as the sorted (key, value) pairs bots.players expects."""
    return tuple(sorted(get(table, "params", dict, where, {}).items()))


def only(table: dict, keys: set[str], where: str, game: str) -> None:
    """No key outside `keys` (a typo must not be silently ignored)."""
    unknown = sorted(set(table) - keys)
    if unknown:
        raise SettingsError(f"{where}: unknown key {unknown[0]!r} for {game} (known: {', '.join(sorted(keys))})")


def password(table: dict, where: str) -> str:
    """From `password`, or from the environment variable named by `password_env`; never echoed."""
    if ("password" in table) == ("password_env" in table):
        raise SettingsError(f"{where}: give exactly one of password and password_env")
    if "password" in table:
        if not isinstance(table["password"], str):
            raise SettingsError(f"{where}: password must be a string")
        return table["password"]
    var = get(table, "password_env", str, where)
    if var not in os.environ:
        raise SettingsError(f"{where}: password_env names {var!r}, which is not set in the environment")
    return os.environ[var]


def record(table: dict, where: str) -> str | None:
    """`record`: a directory for the bot's game records (bots.records), created and checked now."""
    from .records import RecordError, directory

    path = get(table, "record", str, where, None)
    if path is not None:
        try:
            directory(path)
        except RecordError as exc:
            raise SettingsError(f"{where}: record: {exc}") from None
    return path
