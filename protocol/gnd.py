"""Sans-I/O codec for the gnd server's HTTP JSON protocol (Gopher and Dodo), both sides.

The transport is three JSON POST endpoints (docs/protocols/gnd.md section 2): every request
body is the same six-field envelope (`Request`), `/register` answers `{"Token": ...}`
(`parse_token`), `/start` and `/play` answer a game turn (`Turn`, `parse_turn` on the
client side, `turn_json` on the server side).  Actions travel as Python-tuple strings:
`["(q, r)"]` for Gopher, `["(q1, r1)", "(q2, r2)"]` for Dodo (`encode_action`,
`decode_action`).

    body = register(12, "toto", "secret", ["gopher", "dodo"]).to_json()
    token = parse_token(response_json)
    turn = parse_turn(response_json)         # raises ProtocolError on any bad shape
    body = play(token, encode_action(turn.game, move)).to_json()

Two error types: `ProtocolError` means the peer sent something that is not the
documented shape, `UsageError` means we asked the codec for something the protocol
cannot carry.  Nothing here does I/O, reads a clock or uses asyncio.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, TypeGuard, Union

from . import errors

GOPHER, DODO = 0, 1
GAME_NAMES = ("gopher", "dodo")
EMPTY, RED, BLUE = 0, 1, 2
ILLEGAL_ACTION = 310
"""The HTTP status the server answers an illegal action with."""

MAX_SIZE = 64  # far above any real board (the server uses 4..7); bounds the work on garbage

Cell = tuple[int, int]
Action = Union[Cell, tuple[Cell, Cell]]


class ProtocolError(errors.ProtocolError):
    """The peer sent something that is not the documented shape; the message says where."""


class UsageError(errors.UsageError):
    """We misused the codec (an action of the wrong shape, an unknown game, ...)."""


# --- games ------------------------------------------------------------------------------

def game_number(name: str) -> int:
    """0 for "gopher", 1 for "dodo" (case-insensitive)."""
    if isinstance(name, str) and name.lower() in GAME_NAMES:
        return GAME_NAMES.index(name.lower())
    raise UsageError(f"unknown game {name!r} (known: {', '.join(GAME_NAMES)})")


def game_name(number: int) -> str:
    """"gopher" for 0, "dodo" for 1."""
    if _is_int(number) and number in (GOPHER, DODO):
        return GAME_NAMES[number]
    raise UsageError(f"unknown game number {number!r} (known: 0 = gopher, 1 = dodo)")


# --- cells ------------------------------------------------------------------------------

_CELL = re.compile(r"\s*\(\s*(-?[0-9]{1,9})\s*,\s*(-?[0-9]{1,9})\s*\)\s*", re.ASCII)


def parse_cell(text: str) -> Cell:
    """"(q,r)" or "(q, r)" (spaces allowed around every token) -> (q, r); never evaluates."""
    if not isinstance(text, str):
        raise ProtocolError(f"a cell must be a string like \"(q, r)\", got {type(text).__name__} {text!r:.60}")
    m = _CELL.fullmatch(text)
    if m is None:
        raise ProtocolError(f"not a cell \"(q, r)\": {text!r:.60}")
    return int(m.group(1)), int(m.group(2))


def cell_key(cell: Cell) -> str:
    """The server's grid-key form: "(q,r)", no space."""
    q, r = _cell_value(cell)
    return f"({q},{r})"


def cell_text(cell: Cell) -> str:
    """The action form the official client sends: Python's tuple repr "(q, r)"."""
    q, r = _cell_value(cell)
    return f"({q}, {r})"


def on_hexagon(cell: Cell, size: int) -> bool:
    """|q|, |r|, |q - r| <= size - 1."""
    q, r = cell
    return max(abs(q), abs(r), abs(q - r)) <= size - 1


def cell_count(size: int) -> int:
    """Cells on a hexagon of side `size`: 3N(N-1)+1."""
    return 3 * size * (size - 1) + 1


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _cell_value(cell: object) -> Cell:
    if isinstance(cell, (tuple, list)) and len(cell) == 2 and all(_is_int(v) for v in cell):
        return int(cell[0]), int(cell[1])
    raise UsageError(f"a cell must be a pair of ints (q, r), got {cell!r:.80}")


# --- actions ----------------------------------------------------------------------------

def encode_action(game: int, action: Any) -> tuple[str, ...]:
    """Gopher (q, r) -> ("(q, r)",); Dodo ((q1, r1), (q2, r2)) -> ("(q1, r1)", "(q2, r2)")."""
    game_name(game)
    if game == GOPHER:
        return (cell_text(action),)
    if not (isinstance(action, (tuple, list)) and len(action) == 2):
        raise UsageError(f"a Dodo action is a pair of cells (from, to), got {action!r:.80}")
    return cell_text(action[0]), cell_text(action[1])


def decode_action(game: int, strings: Any) -> Action:
    """The inverse of `encode_action` (server side); accepts cells with or without spaces."""
    game_name(game)
    want = 1 if game == GOPHER else 2
    if not isinstance(strings, (list, tuple)) or not all(isinstance(s, str) for s in strings):
        raise ProtocolError(f"Action must be a list of strings, got {strings!r:.80}")
    if len(strings) != want:
        raise ProtocolError(f"a {GAME_NAMES[game]} Action has {want} cell string(s), got {len(strings)}: "
                            f"{list(strings)!r:.80}")
    cells = tuple(parse_cell(s) for s in strings)
    return cells[0] if game == GOPHER else (cells[0], cells[1])


# --- requests (client -> server) --------------------------------------------------------

@dataclass(frozen=True)
class Request:
    """The six-field envelope every request body carries (unused fields stay empty)."""

    token: str = ""
    possible_games: tuple[int, ...] = ()
    id: int = 0
    members: str = ""
    password: str = field(default="", repr=False)
    action: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "possible_games", tuple(self.possible_games))
        object.__setattr__(self, "action", tuple(self.action))

    def to_json(self) -> dict[str, Any]:
        """All six keys, always, in the official client's order."""
        return {
            "Token": self.token,
            "PossibleGames": list(self.possible_games),
            "Id": self.id,
            "Members": self.members,
            "Password": self.password,
            "Action": list(self.action),
        }

    @classmethod
    def from_json(cls, obj: Any) -> Request:
        """Server side: tolerant of missing, extra and null keys; ProtocolError on wrong types.

        null is read as the field's empty value, as a Go server decoding into a struct does.
        """
        if not isinstance(obj, dict):
            raise ProtocolError(f"the request body must be a JSON object, got {_kind(obj)}")
        token = _opt(obj, "Token", str, "")
        members = _opt(obj, "Members", str, "")
        password = obj.get("Password")
        if password is None:
            password = ""
        elif not isinstance(password, str):  # the value is never echoed: it may be a secret
            raise ProtocolError(f"Password must be a string, got {type(password).__name__}")
        ident = obj.get("Id")
        if ident is None:
            ident = 0
        elif not _is_int(ident):
            raise ProtocolError(f"Id must be an integer, got {_kind(ident)}")
        games = _opt(obj, "PossibleGames", list, [])
        if not all(_is_int(g) for g in games):
            raise ProtocolError(f"PossibleGames must be a list of integers, got {games!r:.80}")
        action = _opt(obj, "Action", list, [])
        if not all(isinstance(a, str) for a in action):
            raise ProtocolError(f"Action must be a list of strings, got {action!r:.80}")
        return cls(token=token, possible_games=tuple(games), id=ident, members=members,
                   password=password, action=tuple(action))


def register(group: int, members: str, password: str, games: Iterable[int | str]) -> Request:
    """A /register request; `games` are numbers or names ("gopher", "dodo")."""
    if not _is_int(group):
        raise UsageError(f"the group id must be an int, got {group!r}")
    if not isinstance(members, str) or not isinstance(password, str):
        raise UsageError("members and password must be strings")
    numbers = []
    for g in games:
        if isinstance(g, str):
            g = game_number(g)
        game_name(g)  # checks the number
        numbers.append(g)
    return Request(possible_games=tuple(numbers), id=group, members=members, password=password)


def start(token: str) -> Request:
    """A /start request."""
    return Request(token=_token_arg(token))


def play(token: str, action_strings: Iterable[str]) -> Request:
    """A /play request carrying an already encoded action (see `encode_action`)."""
    strings = tuple(action_strings)
    if not all(isinstance(s, str) for s in strings):
        raise UsageError(f"the action must be strings (use encode_action), got {strings!r:.80}")
    return Request(token=_token_arg(token), action=strings)


def _token_arg(token: object) -> str:
    if not isinstance(token, str):
        raise UsageError(f"the token must be a string, got {token!r:.60}")
    return token


# --- responses (server -> client) -------------------------------------------------------

def parse_token(obj: Any) -> str:
    """The Token of a /register response."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"the /register response must be a JSON object, got {_kind(obj)}")
    token = obj.get("Token")
    if not isinstance(token, str) or not token:
        raise ProtocolError(f"the /register response has no Token string: {token!r:.60}")
    return token


@dataclass(frozen=True)
class Turn:
    """A /start or /play response.  `grid` is sorted (cell, value) pairs; see `cells()`."""

    game: int
    player: int
    clocktime: float
    size: int
    grid: tuple[tuple[Cell, int], ...]
    match_token: str = ""
    finished: bool = False
    winner: int = 0
    final_score: int = 0

    def cells(self) -> dict[Cell, int]:
        """Every cell with 0 (empty), 1 (red) or 2 (blue)."""
        return dict(self.grid)


def parse_turn(obj: Any) -> Turn:
    """Client side: check every field of a /start or /play response; unknown keys are ignored.

    Finished/Winner/FinalScore default to (False, 0, 0) since /start omits them.
    """
    if not isinstance(obj, dict):
        raise ProtocolError(f"the response must be a JSON object, got {_kind(obj)}")
    game = _required(obj, "Game", int)
    if game not in (GOPHER, DODO):
        raise ProtocolError(f"Game must be 0 (gopher) or 1 (dodo), got {game!r}")
    player = _required(obj, "Player", int)
    if player not in (RED, BLUE):
        raise ProtocolError(f"Player must be 1 (red) or 2 (blue), got {player!r}")
    clock = obj.get("Clocktime")
    if not isinstance(clock, (int, float)) or isinstance(clock, bool) or not _finite(clock):
        raise ProtocolError(f"Clocktime must be a finite number, got {_kind(clock)}")
    size, grid = _parse_grid(obj.get("Grid"))
    token = obj.get("MatchToken", "")
    if not isinstance(token, str):
        raise ProtocolError(f"MatchToken must be a string, got {_kind(token)}")
    finished = obj.get("Finished", False)
    if not isinstance(finished, bool):
        raise ProtocolError(f"Finished must be a boolean, got {_kind(finished)}")
    winner = _opt_int(obj, "Winner")
    if winner not in (0, RED, BLUE):
        raise ProtocolError(f"Winner must be 0, 1 or 2, got {winner!r}")
    score = _opt_int(obj, "FinalScore")
    return Turn(game=game, player=player, clocktime=float(clock), size=size, grid=grid,
                match_token=token, finished=finished, winner=winner, final_score=score)


def turn_json(turn: Turn, include_result: bool) -> dict[str, Any]:
    """Server side: the response body for a turn; /play includes the result fields."""
    out: dict[str, Any] = {
        "Game": turn.game,
        "Player": turn.player,
        "Clocktime": float(turn.clocktime),
        "Grid": {"Grid": {cell_key(c): v for c, v in turn.grid}, "Size": turn.size},
        "MatchToken": turn.match_token,
    }
    if include_result:
        out.update(Finished=bool(turn.finished), Winner=turn.winner, FinalScore=turn.final_score)
    return out


def grid_pairs(cells: dict[Cell, int]) -> tuple[tuple[Cell, int], ...]:
    """A {cell: value} map as the sorted pairs `Turn.grid` holds."""
    return tuple(sorted(cells.items()))


def _parse_grid(obj: Any) -> tuple[int, tuple[tuple[Cell, int], ...]]:
    if not isinstance(obj, dict):
        raise ProtocolError(f"Grid must be an object {{\"Grid\": {{...}}, \"Size\": N}}, got {_kind(obj)}")
    size = obj.get("Size")
    if not _is_int(size) or not 1 <= size <= MAX_SIZE:
        raise ProtocolError(f"Grid.Size must be an integer in 1..{MAX_SIZE}, got {size!r:.40}")
    cells = obj.get("Grid")
    if not isinstance(cells, dict):
        raise ProtocolError(f"Grid.Grid must be an object of \"(q,r)\": 0|1|2, got {_kind(cells)}")
    want = cell_count(size)
    if len(cells) != want:
        raise ProtocolError(f"Grid.Grid has {len(cells)} cells, a hexagon of size {size} has {want}")
    out: dict[Cell, int] = {}
    for key, value in cells.items():
        try:
            cell = parse_cell(key)
        except ProtocolError as exc:
            raise ProtocolError(f"Grid.Grid key: {exc}") from None
        if not on_hexagon(cell, size):
            raise ProtocolError(f"Grid.Grid key {key!r} is off the hexagon of size {size}")
        if cell in out:
            raise ProtocolError(f"Grid.Grid names cell {cell} twice")
        if not _is_int(value) or value not in (EMPTY, RED, BLUE):
            raise ProtocolError(f"Grid.Grid[{key!r}] must be 0, 1 or 2, got {value!r:.40}")
        out[cell] = value
    return size, grid_pairs(out)


def _finite(x: int | float) -> bool:
    """A JSON number usable as seconds (an integer of 309+ digits is no float)."""
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def loads(body: bytes | str) -> Any:
    """A response or request body as JSON; ProtocolError for anything else (bytes that are not
    UTF-8, malformed JSON, nesting too deep for the parser, numbers too large)."""
    try:
        text = body.decode("utf-8") if isinstance(body, (bytes, bytearray)) else body
        return json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {type(exc).__name__}: {str(exc)[:120]}") from None


def _kind(x: object) -> str:
    try:
        text = repr(x)
    except ValueError:  # an int too long to print (sys.get_int_max_str_digits)
        text = "(too long to print)"
    return f"{type(x).__name__} {text:.60}"


def _required(obj: dict[str, Any], key: str, kind: type) -> Any:
    if key not in obj:
        raise ProtocolError(f"missing field {key}")
    value = obj[key]
    if kind is int:
        if not _is_int(value):
            raise ProtocolError(f"{key} must be an integer, got {_kind(value)}")
    elif not isinstance(value, kind):
        raise ProtocolError(f"{key} must be a {kind.__name__}, got {_kind(value)}")
    return value


def _opt(obj: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    value = obj.get(key)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise ProtocolError(f"{key} must be a {'string' if kind is str else kind.__name__}, got {_kind(value)}")
    return value


def _opt_int(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key, 0)
    if not _is_int(value):
        raise ProtocolError(f"{key} must be an integer, got {_kind(value)}")
    return value
