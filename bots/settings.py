"""The daemon's TOML config, read into frozen values with errors that name the problem.

    [runner]
    workers = 2          # search processes shared by every bot (default: all cores)
    grace = 0.1          # seconds the runner waits past a budget before the fallback

    [log]
    format = "auto"      # auto, console or json
    level = "info"

    [[bot]]
    name = "towelie"
    game = "twilight"
    host = "127.0.0.1"
    port = 5555
    player = "planner"
    params = { max_depth = 4 }
    move_time = 2.0      # the server's limit per move
    overhead = 0.3       # kept back for the network
    games = 0            # stop after this many games; 0 plays forever

    [[bot]]
    name = "gopher12"
    game = "gopher"      # or "dodo": the gnd server
    server = "http://localhost:8080/"
    group = 12
    members = "toto"
    password_env = "GOPHER12_PASSWORD"   # or password = "..." (never logged)
    player = "alphabeta" # optional: the default is the best player for the game
    overhead = 0.1
    games = 0

    [[bot]]
    name = "bots-mcts"   # the CGOS account: 3-18 characters from [A-Za-z0-9_.-]
    game = "go"          # 9x9 Go on a CGOS server
    host = "yss-aya.com"
    port = 6809          # the default: CGOS 9x9
    password_env = "CGOS_PASSWORD"       # or password = "..." (never logged); the first login registers
    player = "mcts"
    overhead = 0.2       # kept back per move: CGOS charges the network too
    games = 0
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import os

from .gnd.session import GndBot
from .go.cgos_session import DEFAULT_PORT as CGOS_PORT
from .go.cgos_session import CgosBot
from .players import PlayerError
from .twilight.session import TwilightBot


class SettingsError(ValueError):
    """A config file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class BotSettings:
    game: str
    bot: Any  # the game's bot value: TwilightBot, GndBot or CgosBot
    games: int = 0


@dataclass(frozen=True)
class Settings:
    bots: tuple[BotSettings, ...]
    workers: int | None = None
    grace: float = 0.1
    log_format: str = "auto"
    log_level: str = "info"


def _get(table: dict, key: str, kind: type | tuple, where: str, default: Any = ..., check=None, explain: str = "") -> Any:
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


_TWILIGHT_KEYS = {"name", "game", "host", "port", "player", "params", "move_time", "overhead", "games", "max_plies"}
_GND_KEYS = {"name", "game", "server", "group", "members", "password", "password_env", "player", "params",
             "overhead", "games"}
_GO_KEYS = {"name", "game", "host", "port", "password", "password_env", "player", "params", "overhead", "games"}
GAMES = ("twilight", "gopher", "dodo", "go")


def _bot(table: Any, where: str) -> BotSettings:
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: expected a table")
    game = _get(table, "game", str, where)
    if game not in GAMES:
        raise SettingsError(f"{where}: game {game!r} is not supported (supported: {', '.join(GAMES)})")
    keys = {"twilight": _TWILIGHT_KEYS, "go": _GO_KEYS}.get(game, _GND_KEYS)
    unknown = sorted(set(table) - keys)
    if unknown:
        raise SettingsError(f"{where}: unknown key {unknown[0]!r} for {game} (known: {', '.join(sorted(keys))})")
    params = _get(table, "params", dict, where, {})
    games = _get(table, "games", int, where, 0, lambda v: v >= 0, "must be >= 0")
    try:
        if game == "twilight":
            bot = TwilightBot(
                name=_get(table, "name", str, where),
                host=_get(table, "host", str, where),
                port=_get(table, "port", int, where, check=lambda p: 1 <= p <= 65535, explain="is not a TCP port"),
                player=_get(table, "player", str, where, "planner"),
                params=tuple(sorted(params.items())),
                move_time=float(_get(table, "move_time", (int, float), where, 2.0, lambda v: v > 0, "must be positive")),
                overhead=float(_get(table, "overhead", (int, float), where, 0.3, lambda v: v >= 0, "must be >= 0")),
                max_plies=_get(table, "max_plies", int, where, 200, lambda v: v > 0, "must be positive"),
            )
        elif game == "go":
            bot = CgosBot(
                name=_get(table, "name", str, where),
                host=_get(table, "host", str, where, check=bool, explain="must not be empty"),
                port=_get(table, "port", int, where, CGOS_PORT, lambda p: 1 <= p <= 65535, "is not a TCP port"),
                password=_password(table, where),
                player=_get(table, "player", str, where, "mcts"),
                params=tuple(sorted(params.items())),
                overhead=float(_get(table, "overhead", (int, float), where, 0.2, lambda v: v >= 0, "must be >= 0")),
                games=games,
            )
        else:
            player = _get(table, "player", str, where, None)
            if params and player is None:
                raise SettingsError(f"{where}: params need a player (the default player depends on the board size)")
            bot = GndBot(
                game=game,
                name=_get(table, "name", str, where),
                server=_get(table, "server", str, where),
                group=_get(table, "group", int, where),
                members=_get(table, "members", str, where),
                password=_password(table, where),
                player=player,
                params=tuple(sorted(params.items())),
                overhead=float(_get(table, "overhead", (int, float), where, 0.1, lambda v: v >= 0, "must be >= 0")),
                games=games,
            )
    except SettingsError:
        raise
    except (PlayerError, ValueError) as exc:
        raise SettingsError(f"{where}: {exc}") from None
    return BotSettings(game, bot, games)


def _password(table: dict, where: str) -> str:
    """From `password`, or from the environment variable named by `password_env`."""
    if ("password" in table) == ("password_env" in table):
        raise SettingsError(f"{where}: give exactly one of password and password_env")
    if "password" in table:
        if not isinstance(table["password"], str):
            raise SettingsError(f"{where}: password must be a string")  # never echo it
        return table["password"]
    var = _get(table, "password_env", str, where)
    if var not in os.environ:
        raise SettingsError(f"{where}: password_env names {var!r}, which is not set in the environment")
    return os.environ[var]


def _table(data: dict, name: str, keys: set[str], path: Path) -> dict:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [{name}] must be a table, got {table!r}")
    unknown = sorted(set(table) - keys)
    if unknown:
        raise SettingsError(f"{path}: [{name}] has unknown key {unknown[0]!r} (known: {', '.join(sorted(keys))})")
    return table


def load(path: str | Path) -> Settings:
    """Read and check a config file; SettingsError says what is wrong and where."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML ({exc})") from None
    unknown = sorted(set(data) - {"runner", "log", "bot"})
    if unknown:
        raise SettingsError(f"{path}: unknown section [{unknown[0]}] (known: runner, log, bot)")
    runner = _table(data, "runner", {"workers", "grace"}, path)
    logcfg = _table(data, "log", {"format", "level"}, path)
    bots = data.get("bot", [])
    if not isinstance(bots, list) or not bots:
        raise SettingsError(f"{path}: no [[bot]] entries")
    parsed = tuple(_bot(b, f"{path}: bot[{i}]") for i, b in enumerate(bots))
    names = [b.bot.name for b in parsed]
    if len(set(names)) != len(names):
        raise SettingsError(f"{path}: bot names must be unique, got {names}")
    return Settings(
        bots=parsed,
        workers=_get(runner, "workers", int, f"{path}: [runner]", None, lambda v: v >= 1, "must be >= 1"),
        grace=float(_get(runner, "grace", (int, float), f"{path}: [runner]", 0.1, lambda v: v >= 0, "must be >= 0")),
        log_format=_get(logcfg, "format", str, f"{path}: [log]", "auto",
                        lambda v: v in ("auto", "console", "json"), "must be auto, console or json"),
        log_level=_get(logcfg, "level", str, f"{path}: [log]", "info",
                       lambda v: v.lower() in ("debug", "info", "warning", "error"), "must be debug, info, warning or error"),
    )
