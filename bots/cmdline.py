"""What every game's commands share: option types, player options, output files, the board
drawn on the terminal, and the one error that means "bad input" (exit status 2).

bots.cli builds the `bots` command from the registry; each game's `commands` module adds its
own parsers with these helpers and runs them.  Nothing here names a game.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, Callable, Sequence

from .players import PlayerError, check_ponder, make_player, parse_spec, player_table

__all__ = ["UsageFailure", "page", "output_file", "listening", "player_spec", "checked_player", "shower",
           "number", "port", "positive", "nonnegative", "count", "whole", "add_player", "add_workers",
           "players_text", "add_record", "record_directory", "not_a_person", "search_workers"]


class UsageFailure(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def output_file(path: str | None, mode: str = "w") -> Any:
    """A file the user named for output, opened before any work: UsageFailure if it cannot be."""
    if not path:
        return None
    try:
        return open(path, mode)
    except OSError as exc:
        raise UsageFailure(f"cannot write {path}: {exc.strerror or exc}") from None


async def listening(start: Any, host: str, port: int | None) -> Any:
    """Await a server's start(); a port in use (or not ours to take) is bad input, not a crash."""
    try:
        return await start
    except OSError as exc:
        raise UsageFailure(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


# -- help pages --------------------------------------------------------------------------------


def page(sub: argparse._SubParsersAction, name: str, help: str, examples: Sequence[str],
         description: str = "", **kwargs: Any) -> argparse.ArgumentParser:
    """A command's parser whose help page teaches: what the command does (`description`; by
    default `help` as a sentence) and how to run it (`examples`, each a command line, shown
    under "example:" or "examples:")."""
    head = "example:" if len(examples) == 1 else "examples:"
    return sub.add_parser(name, help=help, description=description or f"{help[0].upper()}{help[1:]}.",
                          epilog="\n".join([head, *(f"  {line}" for line in examples)]),
                          formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


# -- players -----------------------------------------------------------------------------------


def player_spec(text: str) -> tuple[str, tuple]:
    """'expecti' or 'expecti:max_depth=5,max_groups=2' -> (name, sorted params)."""
    try:
        name, params = parse_spec(text)
    except PlayerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name, tuple(sorted(params.items()))


def checked_player(game: str, spec: tuple[str, tuple], extra: Sequence[str] = ()) -> tuple[str, tuple]:
    """A player of `game` with its options (and --param KEY=VALUE ones) checked and typed."""
    name, params = spec
    merged = dict(params)
    for pair in extra:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageFailure(f"--param {pair!r} is not key=value")
        merged[key] = value
    try:
        player = make_player(game, name, merged)
    except PlayerError as exc:
        raise UsageFailure(str(exc)) from None
    # Keep typed values so workers do not parse strings again.
    typed = {k: getattr(player, k) for k in merged}
    return name, tuple(sorted(typed.items()))


def not_a_person(game: str, player: str | None, why: str) -> None:
    """UsageFailure when `player` is a person at the keyboard (bots.human) and the command
    cannot have one (`why`: e.g. its stdin carries a protocol)."""
    from .human import is_person

    if is_person(game, player):
        raise UsageFailure(f"{player!r} is a person at this terminal and cannot play here: {why}")


def search_workers(requested: int | None, searching: Sequence[bool]) -> int | None:
    """The search processes a command starts: none when none of its participants searches
    (`searching`: one flag each; a person at the keyboard or an external engine does not),
    else `requested` (None: all the cores)."""
    return 0 if searching and not any(searching) else requested


def players_text(game: str, persons: bool = True) -> str:
    """The players of `game` for a --help text; a person at the keyboard (bots.human) is marked,
    or left out with `persons=False`."""
    from .human import is_person

    return ", ".join(name + (" (you, at this terminal)" if is_person(game, name) else "")
                     for name in sorted(player_table(game)) if persons or not is_person(game, name))


def add_player(p: argparse.ArgumentParser, game: str, default: str | None, flag: str = "--player",
               help: str = "", persons: bool = True) -> None:
    """--player NAME[:k=v,...] and the repeatable --param KEY=VALUE; `persons=False` where a
    person at the keyboard cannot play (an engine whose stdin carries a protocol)."""
    p.add_argument(flag, type=player_spec, default=(default, ()) if default else None, metavar="PLAYER",
                   help=help or f"NAME or NAME:key=value,... ({players_text(game, persons)}; default {default})")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a player option (repeatable)")


def add_workers(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=count, default=None,
                   help="search processes (default: all cores; none when every player is a person)")


def add_ponder(p: argparse.ArgumentParser) -> None:
    """--ponder, for every engine speaking a GTP dialect (bots.gtp_runtime.GameEngine)."""
    p.add_argument("--ponder", action="store_true",
                   help="search on while the opponent thinks: the next move starts from what was found "
                        "(the workers' cores stay busy between our moves)")


def checked_ponder(game: str, player: str, params: tuple, ponder: bool) -> bool:
    """--ponder, if the player can with its options (UsageFailure naming why not)."""
    if ponder:
        try:
            check_ponder(game, player, params)
        except PlayerError as exc:
            raise UsageFailure(str(exc)) from None
    return ponder


# -- game records ---------------------------------------------------------------------------------


def add_record(p: argparse.ArgumentParser, what: str = "every game", kind: str = "JSON", *aliases: str) -> None:
    """--record DIR (and its `aliases`, e.g. the older --sgf): where each game is saved."""
    p.add_argument("--record", *aliases, dest="record", default=None, metavar="DIR",
                   help=f"save {what} in DIR as {kind}, one file per game (see `bots replay FILE`)"
                        + (f"; {', '.join(aliases)} is the same option" if aliases else ""))


def record_directory(path: str | None) -> Any:
    """The --record directory (a Path), created and checked before any game; None stays None."""
    from . import records

    if path is None:
        return None
    try:
        return records.directory(path)
    except records.RecordError as exc:
        raise UsageFailure(str(exc)) from None


# -- the board on the terminal ---------------------------------------------------------------------


def shower(render: Callable[..., str]) -> Callable[[Any], None]:
    """A callback drawing each state it gets with the game's `render(state, colour=...)`."""

    def show(state: Any) -> None:
        clear = "\033[H\033[2J" if sys.stdout.isatty() else ""
        print(clear + render(state, colour=sys.stdout.isatty()), flush=True)

    return show


# -- option types: finite numbers, with the reason when a value is refused ----------------------------


def number(text: str, kind: type = float) -> Any:
    """A finite number of `kind` (int or float) from the command line, or the reason it is not."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def port(text: str) -> int:
    value = number(text, int)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {value} is outside 0..65535")
    return value


def positive(text: str) -> float:
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def nonnegative(text: str) -> float:
    value = number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def count(text: str) -> int:
    value = number(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def whole(text: str) -> int:
    value = number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value
