"""The daemon's TOML config, read into frozen values with errors that name the problem.

    [runner]
    workers = 2          # search processes shared by every bot (default: all cores)
    grace = 0.1          # seconds the runner waits past a budget before the fallback

    [log]
    format = "auto"      # auto, console or json
    level = "info"

    [status]             # optional: the status page, /metrics and /healthz (bots.status_page)
    listen = "127.0.0.1:8765"   # HOST:PORT; another address than loopback needs token_env
    token_env = "BOTS_STATUS_TOKEN"  # the variable holding the token the page asks for
    failing_after = 5    # failures in a row after which a bot backing off counts as failing

    record = "games"     # optional: every bot saves its games here (bots.records); a bot's own
                         # `record = "DIR"` overrides it

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

import ipaddress
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import registry
from .fields import SettingsError, get
from .human import is_person
from .players import PlayerError
from .playing import BotSettings

__all__ = ["BotSettings", "Settings", "SettingsError", "load"]


@dataclass(frozen=True)
class StatusSettings:
    """Where the status page listens, and the token it requires (None: none, on loopback)."""

    host: str
    port: int
    token: str | None = None
    failing_after: int = 5

    def __repr__(self) -> str:  # the token is a secret
        return f"StatusSettings(host={self.host!r}, port={self.port}, token={'***' if self.token else None}, " \
               f"failing_after={self.failing_after})"


@dataclass(frozen=True)
class Settings:
    bots: tuple[BotSettings, ...]
    workers: int | None = None
    grace: float = 0.1
    log_format: str = "auto"
    log_level: str = "info"
    status: StatusSettings | None = None


def loopback(host: str) -> bool:
    """Whether `host` is this machine only (127.0.0.0/8, ::1 or localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _status(table: dict, where: str) -> StatusSettings | None:
    """The [status] table: None when it has no `listen`."""
    listen = get(table, "listen", str, where, None)
    token_env = get(table, "token_env", str, where, None)
    failing_after = get(table, "failing_after", int, where, 5, lambda v: v >= 1, "must be >= 1")
    if listen is None:
        return None
    host, sep, port = listen.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1]:8765
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SettingsError(f"{where}: listen={listen!r} must be HOST:PORT, e.g. \"127.0.0.1:8765\"")
    token = None
    if token_env is not None:
        token = os.environ.get(token_env, "")
        if len(token) < 16:
            raise SettingsError(f"{where}: token_env={token_env!r}: the environment variable "
                                + ("is not set" if not token else "holds fewer than 16 characters"))
    elif not loopback(host):
        raise SettingsError(f"{where}: listen={listen!r} is reachable from other machines: set token_env to the "
                            "environment variable holding the token the page requires (Authorization: Bearer)")
    return StatusSettings(host, int(port), token, failing_after)


def _bot(table: Any, where: str, record: str | None = None) -> BotSettings:
    """One [[bot]] table: its game (from the registry) reads the rest; `record` is the
    top-level record directory, the bot's default."""
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: expected a table")
    if record is not None and "record" not in table:
        table = {**table, "record": record}
    name = get(table, "game", str, where)
    try:
        game = registry.get(name)
    except registry.UnknownGame:
        raise SettingsError(f"{where}: game {name!r} is not supported (supported: {', '.join(registry.names())})") \
            from None
    if not game.has_server:
        raise SettingsError(f"{where}: a {name} bot has no server to join; a controller runs our {name} engine "
                            f"(see `bots --help`)")
    games = get(table, "games", int, where, 0, lambda v: v >= 0, "must be >= 0")
    try:
        bot = game.module("session").bot_from_table(table, where)
    except SettingsError:
        raise
    except (PlayerError, ValueError) as exc:
        raise SettingsError(f"{where}: {exc}") from None
    if is_person(name, bot.player):
        raise SettingsError(f"{where}: player {bot.player!r} is a person at a terminal, and a daemon has none "
                            f"(play with `bots play {name} --player {bot.player}`)")
    return BotSettings(name, bot, games)


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
    unknown = sorted(set(data) - {"runner", "log", "status", "bot", "record"})
    if unknown:
        raise SettingsError(f"{path}: unknown section [{unknown[0]}] (known: runner, log, status, bot, "
                            "and the key record)")
    record = get(data, "record", str, str(path), None)
    runner = _table(data, "runner", {"workers", "grace"}, path)
    logcfg = _table(data, "log", {"format", "level"}, path)
    status = _status(_table(data, "status", {"listen", "token_env", "failing_after"}, path), f"{path}: [status]")
    bots = data.get("bot", [])
    if not isinstance(bots, list) or not bots:
        raise SettingsError(f"{path}: no [[bot]] entries")
    parsed = tuple(_bot(b, f"{path}: bot[{i}]", record) for i, b in enumerate(bots))
    names = [b.bot.name for b in parsed]
    if len(set(names)) != len(names):
        raise SettingsError(f"{path}: bot names must be unique, got {names}")
    return Settings(
        bots=parsed,
        workers=get(runner, "workers", int, f"{path}: [runner]", None, lambda v: v >= 1, "must be >= 1"),
        grace=float(get(runner, "grace", (int, float), f"{path}: [runner]", 0.1, lambda v: v >= 0, "must be >= 0")),
        log_format=get(logcfg, "format", str, f"{path}: [log]", "auto",
                        lambda v: v in ("auto", "console", "json"), "must be auto, console or json"),
        log_level=get(logcfg, "level", str, f"{path}: [log]", "info",
                       lambda v: v.lower() in ("debug", "info", "warning", "error"),
                       "must be debug, info, warning or error"),
        status=status,
    )
