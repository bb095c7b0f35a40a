"""Sans-I/O codec for the CGOS (Computer Go Server) engine-client line protocol.

Plain text, one message per LF-terminated line, request/response (docs/protocols/cgos.md
section 2).  The server speaks first; the client answers `protocol`, `username`, `password`,
`genmove` and `gameover` with exactly one line and never answers `setup`, `play` or `info`.
Times on the wire are integer milliseconds; events carry seconds (float).

Client side:

    dec = Decoder()
    dec.feed(data)
    for event in dec.events():
        if isinstance(event, Protocol): send(encode_e1("mybot 1.0"))
        elif isinstance(event, Username): send(encode_username("mybot"))
        elif isinstance(event, Password): send(encode_password(secret))
        elif isinstance(event, Genmove): send(encode_move("e5"))
        elif isinstance(event, Gameover): send(encode_ready())
        elif isinstance(event, Unknown): log it and carry on

Server side (fake servers, tests): `encode(event)` writes any server message and
`parse_reply(prompt, line)` reads a client's answer to a prompt.

Moves are kept exactly as they came (CGOS forwards the opponent's text, either case);
`parse_move` turns one into a vertex.  Two error types: `ProtocolError` means the peer sent
a malformed message, `UsageError` means we asked to send something the protocol cannot
carry.  Passwords never appear in reprs or error messages.  Nothing here does I/O, reads a
clock or uses asyncio.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from . import errors, gtp


class CgosError(Exception):
    """Base class of the codec's errors."""


class ProtocolError(CgosError, errors.ProtocolError):
    """The peer sent a malformed message; the message says what."""


class UsageError(CgosError, errors.UsageError):
    """We asked to send something the protocol cannot carry."""


MAX_LINE = 1 << 18
"""Longest line accepted from the peer, in bytes; longer is a ProtocolError."""
MAX_BOARD_SIZE = 25

GENMOVE_ANALYZE = "genmove_analyze"
"""The `protocol` option and `e1` keyword of the optional analysis extension
(docs/protocols/cgos.md section 2.4)."""


# --- server -> client events -----------------------------------------------------------------

@dataclass(frozen=True)
class Protocol:
    """`protocol [options...]`: answer `e1 <text>` (`encode_e1`)."""

    options: tuple[str, ...] = ()

    @property
    def genmove_analyze(self) -> bool:
        """The server offers the `genmove_analyze` extension (Python server, cgos-lite)."""
        return GENMOVE_ANALYZE in self.options


@dataclass(frozen=True)
class Username:
    """`username`: answer the account name (`encode_username`), at any time (cgos-lite polls)."""


@dataclass(frozen=True)
class Password:
    """`password`: answer the password (`encode_password`)."""


@dataclass(frozen=True)
class Player:
    """A name in `setup`: `name(rating)` on CGOS, a bare name on cgos-lite (rating None)."""

    name: str
    rating: str | None = None

    @property
    def elo(self) -> float | None:
        """The rating as a number ("1800?" -> 1800.0), None if absent or not numeric."""
        if self.rating is None:
            return None
        m = _NUMBER.fullmatch(self.rating.rstrip("?"))
        return float(m.group()) if m else None

    @property
    def provisional(self) -> bool:
        """A '?' after the rating marks it provisional."""
        return self.rating is not None and self.rating.endswith("?")

    def __str__(self) -> str:
        return self.name if self.rating is None else f"{self.name}({self.rating})"


@dataclass(frozen=True)
class Setup:
    """`setup <gid> <size> <komi> <time_ms> <white> <black> [<mv> <ms>]...`: no reply.

    White comes first.  `time` is each side's main time in seconds; `moves` are the moves
    so far (a resumed game), black first, each with the mover's time left after it.
    """

    game_id: int
    size: int
    komi: float
    time: float
    white: Player
    black: Player
    moves: tuple[tuple[str, float], ...] = ()

    def color_of(self, name: str) -> str | None:
        """"w" or "b" for the player logged in as `name`, None if neither."""
        if name == self.white.name:
            return "w"
        if name == self.black.name:
            return "b"
        return None


@dataclass(frozen=True)
class Genmove:
    """`genmove <b|w> <ms>`: our turn; `time_left` is our clock in seconds.  Answer the move."""

    color: str
    time_left: float


@dataclass(frozen=True)
class Play:
    """`play <b|w> <mv> <ms>`: the opponent's move, as typed (either case, `pass`).  No reply.

    On CGOS `time_left` is the mover's clock after the move; cgos-lite sends the receiver's.
    """

    color: str
    move: str
    time_left: float


@dataclass(frozen=True)
class Gameover:
    """`gameover <date> <result> [<comment>]`: answer `ready` (or never be paired again)."""

    date: str
    result: str
    comment: str = ""

    @property
    def winner(self) -> str | None:
        """"b" for `B+...`, "w" for `W+...`, None for `Draw`, `Abort` or anything else."""
        if self.result.startswith("B+"):
            return "b"
        if self.result.startswith("W+"):
            return "w"
        return None


@dataclass(frozen=True)
class Info:
    """`info <text>`: broadcast news and keep-alive; no reply."""

    text: str


@dataclass(frozen=True)
class Error:
    """`Error: <text>` (or the Tcl server's bare `Sorry, password doesn't match`): the server
    is about to close the connection.  An event, not an exception."""

    text: str


@dataclass(frozen=True)
class Unknown:
    """A line this codec does not know: log it and carry on."""

    line: str


Event = Protocol | Username | Password | Setup | Genmove | Play | Gameover | Info | Error | Unknown

_TCL_BAD_PASSWORD = "Sorry, password doesn't match"
_NUMBER = re.compile(r"[+-]?[0-9]{1,20}(?:\.[0-9]{1,20})?", re.ASCII)
_UINT = re.compile(r"[0-9]{1,15}", re.ASCII)
_PLAYER = re.compile(r"([^()\s]+)(?:\(([^()\s]*)\))?")
_GAMEOVER = re.compile(r"gameover\s+(\S+)\s+(\S+)(?:\s(.*))?", re.DOTALL)


def _int(token: str, what: str) -> int:
    if not _UINT.fullmatch(token):
        raise ProtocolError(f"{what} must be an unsigned integer, got {token!r:.40}")
    return int(token)


def _number(token: str, what: str) -> float:
    if not _NUMBER.fullmatch(token):
        raise ProtocolError(f"{what} must be a number, got {token!r:.40}")
    return float(token)


def _ms(token: str, what: str) -> float:
    """Milliseconds on the wire -> seconds (integers per the spec; a decimal is tolerated)."""
    return _number(token, what) / 1000.0


def _color(token: str) -> str:
    try:
        return gtp.parse_color(token)
    except gtp.ProtocolError:
        raise ProtocolError(f"colour must be b or w, got {token!r:.40}") from None


def _player(token: str, what: str) -> Player:
    m = _PLAYER.fullmatch(token)
    if m is None:
        raise ProtocolError(f"{what} must be name or name(rating), got {token!r:.60}")
    return Player(m.group(1), m.group(2))


def _setup(args: list[str]) -> Setup:
    if len(args) < 6:
        raise ProtocolError(f"setup needs gid size komi time white black, got {len(args)} fields")
    game_id = _int(args[0], "setup game id")
    size = _int(args[1], "setup board size")
    if not 1 <= size <= MAX_BOARD_SIZE:
        raise ProtocolError(f"setup board size must be in 1..{MAX_BOARD_SIZE}, got {size}")
    komi = _number(args[2], "setup komi")
    main = _ms(args[3], "setup time")
    if main < 0:
        raise ProtocolError(f"setup time must not be negative, got {args[3]!r}")
    white = _player(args[4], "setup white player")
    black = _player(args[5], "setup black player")
    tail = args[6:]
    if len(tail) % 2:
        raise ProtocolError(f"setup move list must be (move, time) pairs, got {len(tail)} tokens")
    moves = tuple((tail[i], _ms(tail[i + 1], f"setup time after move {i // 2 + 1}"))
                  for i in range(0, len(tail), 2))
    return Setup(game_id, size, komi, main, white, black, moves)


def parse_server_line(line: str) -> Event | None:
    """One server line (without its LF; a trailing CR is ignored) -> event; None if blank.

    Known keywords with missing or malformed arguments raise ProtocolError; lines with an
    unknown keyword become `Unknown(line)`.
    """
    if not isinstance(line, str):
        raise UsageError(f"parse_server_line takes a str, got {type(line).__name__}")
    line = line.removesuffix("\r")
    stripped = line.strip()
    if not stripped:
        return None
    if stripped.startswith("Error:"):
        return Error(stripped[len("Error:"):].strip())
    if stripped == _TCL_BAD_PASSWORD:
        return Error(stripped)
    tokens = stripped.split()
    head, args = tokens[0], tokens[1:]
    if head == "protocol":
        return Protocol(tuple(args))
    if head == "username":
        return Username()
    if head == "password":
        return Password()
    if head == "info":
        text = line.lstrip()[len("info"):]
        return Info(text[1:] if text[:1].isspace() else text)
    if head == "setup":
        return _setup(args)
    if head == "genmove":
        if len(args) != 2:
            raise ProtocolError(f"genmove needs <b|w> <ms>, got {stripped!r:.80}")
        return Genmove(_color(args[0]), _ms(args[1], "genmove time"))
    if head == "play":
        if len(args) != 3:
            raise ProtocolError(f"play needs <b|w> <move> <ms>, got {stripped!r:.80}")
        return Play(_color(args[0]), args[1], _ms(args[2], "play time"))
    if head == "gameover":
        m = _GAMEOVER.fullmatch(line.lstrip())
        if m is None:
            raise ProtocolError(f"gameover needs <date> <result> [comment], got {stripped!r:.80}")
        return Gameover(m.group(1), m.group(2), m.group(3) or "")
    return Unknown(line)


class _Lines:
    def __init__(self) -> None:
        self._lines = gtp.LineBuffer(MAX_LINE)

    def feed(self, data: bytes) -> None:
        try:
            self._lines.feed(data)
        except gtp.UsageError as exc:
            raise UsageError(str(exc)) from None

    @property
    def buffered(self) -> int:
        return self._lines.buffered

    def next_line(self) -> str | None:
        try:
            raw = self._lines.next_line()
        except gtp.ProtocolError as exc:
            raise ProtocolError(str(exc)) from None
        if raw is None:
            return None
        return raw.decode("utf-8", errors="replace")


class Decoder:
    """Client side: bytes from the server -> events.

    Blank lines are skipped; a ProtocolError drops the offending line only, so the decoder
    can be used again (the session usually closes instead).
    """

    def __init__(self) -> None:
        self._lines = _Lines()

    def feed(self, data: bytes) -> None:
        self._lines.feed(data)

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete line still waiting for its LF."""
        return self._lines.buffered

    def next_event(self) -> Event | None:
        """The next event, or None when more bytes are needed."""
        while (line := self._lines.next_line()) is not None:
            event = parse_server_line(line)
            if event is not None:
                return event
        return None

    def events(self) -> Iterator[Event]:
        """Every complete event in the buffer, in order."""
        while (event := self.next_event()) is not None:
            yield event


def parse_move(text: str, size: int) -> gtp.Vertex | None:
    """A move from `play`/`setup` -> (column, row) 0-based, or None for a pass.

    Like the server, anything starting with "pa" (any case) is a pass; otherwise a GTP
    vertex without the letter I, case-insensitive.
    """
    if not isinstance(text, str):
        raise ProtocolError(f"a move must be a string, got {type(text).__name__}")
    if text.strip().lower().startswith("pa"):
        return None
    try:
        return gtp.parse_vertex(text, size)
    except gtp.ProtocolError as exc:
        raise ProtocolError(str(exc)) from None
    except gtp.UsageError as exc:
        raise UsageError(str(exc)) from None


# --- server side: writing server messages ----------------------------------------------------

def _ms_text(seconds: object, what: str) -> str:
    if (_is_int(seconds) or isinstance(seconds, float)) and math.isfinite(seconds):
        ms = round(seconds * 1000)
        if abs(ms) < 10**15:
            return str(ms)
    raise UsageError(f"{what} must be a finite number of seconds below 10**12, got {seconds!r:.40}")


def _komi_text(komi: object) -> str:
    if (_is_int(komi) or isinstance(komi, float)) and math.isfinite(komi):
        text = repr(komi)
        if _NUMBER.fullmatch(text):
            return text
    raise UsageError(f"komi must be a finite number in plain decimal notation, got {komi!r:.40}")


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _word(value: object, what: str, *, allow_parens: bool = True) -> str:
    if not isinstance(value, str) or not value or any(c.isspace() or ord(c) < 32 or c == "\x7f" for c in value):
        raise UsageError(f"{what} must be a non-empty string without blanks, got {value!r:.60}")
    if not allow_parens and ("(" in value or ")" in value):
        raise UsageError(f"{what} must not contain parentheses, got {value!r:.60}")
    return value


def _free_text(value: object, what: str) -> str:
    if not isinstance(value, str) or any(c in "\r\n" or (ord(c) < 32 and c != "\t") or c == "\x7f"
                                         for c in value):
        raise UsageError(f"{what} must be one line of text, got {value!r:.60}")
    return value


def _server_color(color: object) -> str:
    if color not in ("b", "w"):
        raise UsageError(f"colour must be 'b' or 'w', got {color!r:.20}")
    return color


def _player_text(player: object, what: str) -> str:
    if not isinstance(player, Player):
        raise UsageError(f"{what} must be a Player, got {player!r:.60}")
    name = _word(player.name, f"{what} name", allow_parens=False)
    if player.rating is None:
        return name
    if not isinstance(player.rating, str) or any(c.isspace() or c in "()" for c in player.rating):
        raise UsageError(f"{what} rating must be a string without blanks or parentheses")
    return f"{name}({player.rating})"


def encode(event: Event) -> bytes:
    """Server side: the wire line of a server message (for fake servers and tests)."""
    if isinstance(event, Protocol):
        line = " ".join(["protocol", *(_word(o, "protocol option") for o in event.options)])
    elif isinstance(event, Username):
        line = "username"
    elif isinstance(event, Password):
        line = "password"
    elif isinstance(event, Info):
        line = "info " + _free_text(event.text, "info text")
    elif isinstance(event, Error):
        line = "Error: " + _free_text(event.text, "error text")
    elif isinstance(event, Setup):
        if not (_is_int(event.game_id) and event.game_id >= 0):
            raise UsageError(f"game id must be an unsigned int, got {event.game_id!r:.20}")
        if not (_is_int(event.size) and 1 <= event.size <= MAX_BOARD_SIZE):
            raise UsageError(f"board size must be in 1..{MAX_BOARD_SIZE}, got {event.size!r:.20}")
        if not (_is_int(event.time) or isinstance(event.time, float)) or event.time < 0:
            raise UsageError(f"main time must be a non-negative number, got {event.time!r:.20}")
        parts = ["setup", str(event.game_id), str(event.size), _komi_text(event.komi), _ms_text(event.time, "time"),
                 _player_text(event.white, "white"), _player_text(event.black, "black")]
        for move in event.moves:
            if not (isinstance(move, tuple) and len(move) == 2):
                raise UsageError(f"setup moves are (move, seconds) pairs, got {move!r:.40}")
            parts += [_word(move[0], "setup move"), _ms_text(move[1], "setup move time")]
        line = " ".join(parts)
    elif isinstance(event, Genmove):
        line = f"genmove {_server_color(event.color)} {_ms_text(event.time_left, 'genmove time')}"
    elif isinstance(event, Play):
        line = (f"play {_server_color(event.color)} {_word(event.move, 'move')} "
                f"{_ms_text(event.time_left, 'play time')}")
    elif isinstance(event, Gameover):
        line = (f"gameover {_word(event.date, 'date')} {_word(event.result, 'result')} "
                f"{_free_text(event.comment, 'comment')}")  # trailing space when empty, as the server
    elif isinstance(event, Unknown):
        line = _free_text(event.line, "line")
    else:
        raise UsageError(f"not a CGOS server message: {event!r:.80}")
    return (line + "\n").encode("utf-8")


# --- client -> server messages -----------------------------------------------------------------

_ACCOUNT = re.compile(r"[A-Za-z0-9_.-]+", re.ASCII)
_MOVE = re.compile(r"[A-HJ-Za-hj-z](?:[1-9][0-9]?)|pass|resign", re.ASCII | re.IGNORECASE)


@dataclass(frozen=True)
class E1:
    """`e1 <text>`: the answer to `protocol`; `genmove_analyze` opts in to the
    extension (docs/protocols/cgos.md section 2.4)."""

    text: str = ""
    genmove_analyze: bool = False


@dataclass(frozen=True)
class UsernameReply:
    """The account name, answering `username`."""

    name: str


@dataclass(frozen=True)
class PasswordReply:
    """The password answering `password`; with `new_password`, `<old> <new>` changes it
    (Python server only)."""

    password: str = field(repr=False)
    new_password: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class MoveReply:
    """The answer to `genmove`: a vertex, `pass` or `resign`, plus optional one-line JSON."""

    move: str
    analysis: str | None = None


@dataclass(frozen=True)
class Ready:
    """`ready`: the answer to `gameover`."""


@dataclass(frozen=True)
class Quit:
    """`quit`: the server closes the connection (send it between games only)."""


Reply = E1 | UsernameReply | PasswordReply | MoveReply | Ready | Quit


def _account(value: object, what: str, low: int, high: int, secret: bool) -> str:
    if isinstance(value, str) and low <= len(value) <= high and _ACCOUNT.fullmatch(value):
        return value
    shown = "" if secret else f", got {value!r:.40}"
    raise UsageError(f"{what} must be {low}-{high} characters from [A-Za-z0-9_.-]{shown}")


def encode_reply(reply: Reply) -> bytes:
    """The wire line of any client message (the `encode_*` functions build one of these)."""
    if isinstance(reply, E1):
        text = _free_text(reply.text, "e1 text").strip()
        if not isinstance(reply.genmove_analyze, bool):
            raise UsageError("genmove_analyze must be a bool")
        if GENMOVE_ANALYZE in text.split() and not reply.genmove_analyze:
            raise UsageError(f"the word {GENMOVE_ANALYZE} in the e1 text opts in; set genmove_analyze=True")
        words = (["e1", GENMOVE_ANALYZE] if reply.genmove_analyze and GENMOVE_ANALYZE not in text.split()
                 else ["e1"]) + ([text] if text else [])
        line = " ".join(words)
    elif isinstance(reply, UsernameReply):
        line = _account(reply.name, "the user name", 3, 18, secret=False)
    elif isinstance(reply, PasswordReply):
        line = _account(reply.password, "the password", 3, 16, secret=True)
        if reply.new_password is not None:
            line += " " + _account(reply.new_password, "the new password", 3, 16, secret=True)
    elif isinstance(reply, MoveReply):
        if not isinstance(reply.move, str) or not _MOVE.fullmatch(reply.move):
            raise UsageError(f"a move is a vertex (no letter I), pass or resign, got {reply.move!r:.40}")
        line = reply.move
        if reply.analysis is not None:
            analysis = _free_text(reply.analysis, "analysis").strip()
            if not analysis:
                raise UsageError("analysis must not be blank (use None)")
            line += " " + analysis
    elif isinstance(reply, Ready):
        line = "ready"
    elif isinstance(reply, Quit):
        line = "quit"
    else:
        raise UsageError(f"not a CGOS client message: {reply!r:.80}")
    return (line + "\n").encode("utf-8")


def encode_e1(text: str = "", genmove_analyze: bool = False) -> bytes:
    """`e1 [genmove_analyze] <text>\\n`, answering `protocol`."""
    return encode_reply(E1(text, genmove_analyze))


def encode_username(name: str) -> bytes:
    """`<name>\\n`; UsageError unless 3-18 characters from [A-Za-z0-9_.-]."""
    return encode_reply(UsernameReply(name))


def encode_password(password: str, new_password: str | None = None) -> bytes:
    """`<password>\\n` (or `<old> <new>\\n`); UsageError unless 3-16 characters from
    [A-Za-z0-9_.-].  The error message never contains the password."""
    return encode_reply(PasswordReply(password, new_password))


def encode_move(move: str, analysis: str | dict[str, Any] | list[Any] | None = None) -> bytes:
    """`<move>\\n` answering `genmove`: a vertex such as `e5`/`E5`, `pass` or `resign`.

    `analysis` (only after opting in with `encode_e1(..., genmove_analyze=True)`) is a JSON
    object, or its one-line text, appended after a space.
    """
    if analysis is not None and not isinstance(analysis, str):
        try:
            analysis = json.dumps(analysis, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"analysis is not JSON-serialisable: {exc}") from None
    return encode_reply(MoveReply(move, analysis))


def encode_ready() -> bytes:
    """`ready\\n`, answering `gameover`."""
    return encode_reply(Ready())


def encode_quit() -> bytes:
    """`quit\\n`."""
    return encode_reply(Quit())


PROMPTS = ("protocol", "username", "password", "genmove", "gameover")
"""The server messages a client must answer, as `parse_reply` names them."""


def parse_reply(prompt: str, line: str, *, genmove_analyze: bool = False) -> Reply:
    """Server side: a client's answer (one line, LF removed) to `prompt` (one of `PROMPTS`).

    `quit` is recognised at every prompt except `username` and `password`, where the line
    is the name or password itself.  With `genmove_analyze`, a genmove answer splits into
    the move and the JSON text after it; without, the whole line is the move (the server's
    rule).  Moves are not checked: judging them is the game's job.
    """
    if prompt not in PROMPTS:
        raise UsageError(f"prompt must be one of {', '.join(PROMPTS)}, got {prompt!r:.40}")
    if not isinstance(line, str):
        raise UsageError(f"parse_reply takes a str line, got {type(line).__name__}")
    text = line.removesuffix("\r")
    text = text.strip()
    if prompt == "username":
        return UsernameReply(text)
    if prompt == "password":
        words = text.split()
        if len(words) == 1:
            return PasswordReply(words[0])
        if len(words) == 2:
            return PasswordReply(words[0], words[1])
        raise ProtocolError(f"send <password> or <old_password new_password> ({len(words)} words received)")
    if text == "quit":
        return Quit()
    if prompt == "protocol":
        words = text.split(None, 1)
        if not words or words[0] != "e1":
            raise ProtocolError(f"expected e1 <text> after protocol, got {text!r:.60}")
        rest = words[1] if len(words) > 1 else ""
        first, _, after = rest.partition(" ")
        if first == GENMOVE_ANALYZE:
            return E1(after.strip(), True)
        return E1(rest, GENMOVE_ANALYZE in rest.split())
    if prompt == "gameover":
        if text != "ready":
            raise ProtocolError(f"expected ready after gameover, got {text!r:.60}")
        return Ready()
    if not text:
        raise ProtocolError("empty answer to genmove")
    if genmove_analyze:
        move, _, analysis = text.partition(" ")
        return MoveReply(move, analysis.strip() or None)
    return MoveReply(text)

