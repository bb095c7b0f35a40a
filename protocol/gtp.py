"""Sans-I/O codec for GTP version 2 (Go Text Protocol) and HTP, its Hex dialect; both sides.

Framing (docs/protocols/gtp.md section 2, GTP v2 draft 2): a command is one line
`[id] command_name [args...]`; a response is `=[id] result` or `?[id] error text`, may span
several lines and always ends with an empty line (two consecutive LF).

Engine side (we are the engine, a controller drives us):

    dec = CommandDecoder()
    dec.feed(data)
    for cmd in dec.events():                 # Command(id, name, args), preprocessed
        out.write(encode_response(cmd.id, True, "2"))

Controller side (we drive an external engine such as `gnugo --mode gtp`):

    proc.stdin.write(encode_command("play", "b", "E5", id=7))
    dec = ResponseDecoder()
    dec.feed(data)
    for resp in dec.events(): ...            # Response(id, ok, text)

Vertices: `parse_vertex("E5", 9) == (4, 4)`: (column, row), both 0-based; column 0 is
the letter A, row 0 is the line numbered 1 (the bottom in Go; the top in Hex/Benzene, whose
names use the same letter+number form).  Go skips the letter I; Hex does not
(`skip_i=False`, 11x11 runs a..k).  Hex boards may be non-square: `size=(cols, rows)`.

Two error types: `ProtocolError` means the peer sent garbage, `UsageError` means we asked
the codec for something the protocol cannot carry.  Nothing here does I/O, reads a clock
or uses asyncio.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeGuard

from . import errors


class GtpError(Exception):
    """Base class of the codec's errors."""


class ProtocolError(GtpError, errors.ProtocolError):
    """The peer sent something that is not GTP; the message says what."""


class UsageError(GtpError, errors.UsageError):
    """We asked to encode something GTP cannot carry (a newline in an argument, ...)."""


# --- commands -----------------------------------------------------------------------------

GTP_REQUIRED_COMMANDS: tuple[str, ...] = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "play", "genmove",
)
"""The commands GTP v2 requires of every engine."""

ENGINE_EXTRA_COMMANDS: tuple[str, ...] = (
    "time_settings", "time_left", "final_score", "final_status_list", "kgs-genmove_cleanup",
    "showboard", "undo",
)
"""The optional commands our Go engine supports on top of the required ones."""

REQUIRED_COMMANDS: tuple[str, ...] = GTP_REQUIRED_COMMANDS + ENGINE_EXTRA_COMMANDS
"""Everything our engine must implement (what `list_commands` answers)."""

MAX_LINE = 1 << 20
"""Longest line accepted from a peer, in bytes (LF excluded); longer is a ProtocolError."""
MAX_RESPONSE = 4 << 20
"""Largest multi-line response accepted from an engine, in bytes."""
MAX_ID_DIGITS = 18
"""Ids are unsigned integers; more digits than this (beyond int64) is a ProtocolError."""


# --- vertices and colours -------------------------------------------------------------------

Vertex = tuple[int, int]
"""(column, row), both 0-based: (0, 0) is A1."""

_LETTERS_SKIP_I = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # GTP: 25 letters, so boards up to 25x25
_LETTERS_ALL = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # Hex/HTP: a1..s19 includes the letter i
_VERTEX = re.compile(r"([A-Za-z])([1-9][0-9]{0,2})", re.ASCII)


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _dims(size: object, skip_i: bool) -> tuple[int, int, str]:
    letters = _LETTERS_SKIP_I if skip_i else _LETTERS_ALL
    if _is_int(size):
        cols = rows = size
    elif isinstance(size, (tuple, list)) and len(size) == 2 and all(_is_int(v) for v in size):
        cols, rows = size
    else:
        raise UsageError(f"size must be an int or a (columns, rows) pair, got {size!r:.60}")
    if not (1 <= cols <= len(letters) and 1 <= rows <= len(letters)):
        raise UsageError(f"board size {cols}x{rows} is outside 1..{len(letters)}")
    return cols, rows, letters


def board_size_limit(skip_i: bool = True) -> int:
    """The largest board side the vertex notation can name: 25 for Go, 26 for Hex."""
    return len(_LETTERS_SKIP_I if skip_i else _LETTERS_ALL)


def parse_vertex(text: str, size: int | tuple[int, int], *, skip_i: bool = True) -> Vertex | None:
    """"E5" -> (4, 4); "pass" (any case) -> None.  Case-insensitive, surrounding blanks ignored.

    ProtocolError for garbage, the letter I (when `skip_i`), a leading zero, or a point off
    the board; UsageError for an impossible `size`.
    """
    cols, rows, letters = _dims(size, skip_i)
    if not isinstance(text, str):
        raise ProtocolError(f"a vertex must be a string, got {type(text).__name__}")
    t = text.strip(" \t")
    if t.lower() == "pass":
        return None
    m = _VERTEX.fullmatch(t)
    if m is None:
        raise ProtocolError(f"not a vertex: {text!r:.40}")
    letter = m.group(1).upper()
    col = letters.find(letter)
    if col < 0:
        raise ProtocolError(f"{text!r}: the letter I is not used in Go coordinates")
    row = int(m.group(2)) - 1
    if col >= cols or row >= rows:
        raise ProtocolError(f"{text!r} is off the {cols}x{rows} board")
    return col, row


def format_vertex(vertex: Vertex | None, size: int | tuple[int, int], *, skip_i: bool = True) -> str:
    """(4, 4) -> "E5" (uppercase, as engines answer); None -> "pass"."""
    cols, rows, letters = _dims(size, skip_i)
    if vertex is None:
        return "pass"
    if not (isinstance(vertex, (tuple, list)) and len(vertex) == 2 and all(_is_int(v) for v in vertex)):
        raise UsageError(f"a vertex is a (column, row) pair of ints or None, got {vertex!r:.60}")
    col, row = vertex
    if not (0 <= col < cols and 0 <= row < rows):
        raise UsageError(f"vertex {vertex!r} is off the {cols}x{rows} board")
    return f"{letters[col]}{row + 1}"


_COLORS = {"b": "b", "black": "b", "w": "w", "white": "w"}


def parse_color(text: str) -> str:
    """"b", "B", "black", "BLACK", ... -> "b"; likewise "w"."""
    if isinstance(text, str):
        color = _COLORS.get(text.strip(" \t").lower())
        if color is not None:
            return color
    raise ProtocolError(f"not a colour (b, w, black, white): {text!r:.40}")


# --- line splitting -------------------------------------------------------------------------

class LineBuffer:
    """Split a byte stream on LF, bounded: an over-long line raises ProtocolError once and is
    skipped up to its LF.  Shared by the GTP and CGOS decoders."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._scan = 0  # bytes of _buf already known to hold no LF
        self._limit = limit
        self._skipping = False  # inside an over-long line already reported

    def feed(self, data: bytes) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise UsageError(f"feed() takes bytes, got {type(data).__name__}")
        self._buf += data

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def next_line(self) -> bytes | None:
        """The next complete line without its LF, or None when more bytes are needed."""
        buf = self._buf
        end = buf.find(b"\n", self._scan)
        if self._skipping:
            if end < 0:
                buf.clear()
                self._scan = 0
                return None
            del buf[: end + 1]
            self._scan = 0
            self._skipping = False
            end = buf.find(b"\n")
        if end < 0:
            self._scan = len(buf)
            if len(buf) > self._limit:
                buf.clear()
                self._scan = 0
                self._skipping = True
                raise ProtocolError(f"line longer than {self._limit} bytes")
            return None
        line = bytes(buf[:end])
        del buf[: end + 1]
        self._scan = 0
        if len(line) > self._limit:
            raise ProtocolError(f"line longer than {self._limit} bytes")
        return line


# --- engine side: commands in, responses out --------------------------------------------------

@dataclass(frozen=True)
class Command:
    """One preprocessed command line.  `name` is "" for a line holding only an id (answer
    it with a failure, e.g. `? unknown command`, echoing the id)."""

    id: int | None
    name: str
    args: tuple[str, ...] = ()


_CONTROL_BYTES = bytes(c for c in range(32) if c not in (9, 10)) + b"\x7f"
_DIGITS = re.compile(rb"[0-9]+")


def parse_command_line(line: bytes) -> Command | None:
    """GTP preprocessing of one line (no LF), then `[id] name args`; None for a line to ignore.

    In the standard's order: remove CR and every other control character except HT and LF;
    cut the line at the first '#'; turn HT into a space; ignore an empty or blank line.
    Tokens are separated by runs of spaces.
    """
    data = bytes(line).translate(None, _CONTROL_BYTES)
    cut = data.find(b"#")
    if cut >= 0:
        data = data[:cut]
    tokens = [t for t in data.replace(b"\t", b" ").split(b" ") if t]
    if not tokens:
        return None
    ident = None
    if _DIGITS.fullmatch(tokens[0]):
        if len(tokens[0]) > MAX_ID_DIGITS:
            raise ProtocolError(f"command id has more than {MAX_ID_DIGITS} digits")
        ident = int(tokens.pop(0))
    words = [t.decode("utf-8", errors="replace") for t in tokens]
    if not words:
        return Command(ident, "", ())
    return Command(ident, words[0], tuple(words[1:]))


class CommandDecoder:
    """Engine side: bytes from the controller -> `Command` events."""

    def __init__(self) -> None:
        self._lines = LineBuffer(MAX_LINE)

    def feed(self, data: bytes) -> None:
        self._lines.feed(data)

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete line still waiting for its LF."""
        return self._lines.buffered

    def next_event(self) -> Command | None:
        """The next command, or None when more bytes are needed.

        ProtocolError (for an over-long line or an absurd id) drops that line only: the
        decoder can be used again afterwards.
        """
        while (line := self._lines.next_line()) is not None:
            command = parse_command_line(line)
            if command is not None:
                return command
        return None

    def events(self) -> Iterator[Command]:
        """Every complete command in the buffer, in order."""
        while (event := self.next_event()) is not None:
            yield event


def _check_id(ident: object) -> None:
    if ident is not None and not (_is_int(ident) and 0 <= ident and len(str(ident)) <= MAX_ID_DIGITS):
        raise UsageError(f"a GTP id is None or an unsigned integer of at most {MAX_ID_DIGITS} digits, "
                         f"got {ident!r:.40}")


def _has_control(text: str) -> bool:
    return any((ord(c) < 32 and c != "\t") or c == "\x7f" for c in text)


def encode_response(id: int | None, ok: bool, text: str = "") -> bytes:
    """`=id text\\n\\n` on success, `?id text\\n\\n` on failure (`= text` without an id).

    `text` may span several lines (e.g. `showboard`, `list_commands`), but no line after the
    first may be empty or blank, since an empty line ends the response; control characters
    other than LF and HT are refused too (a CR would become an empty line for a controller
    that drops CRs).  The separating space is always written, so an empty result is `= \\n\\n`.
    """
    _check_id(id)
    if not isinstance(ok, bool):
        raise UsageError(f"ok must be a bool, got {ok!r:.40}")
    if not isinstance(text, str):
        raise UsageError(f"the response text must be a string, got {type(text).__name__}")
    for number, line in enumerate(text.split("\n")):
        if _has_control(line):
            raise UsageError(f"control character in response line {number + 1}: {line!r:.60}")
        if number and not line.strip(" \t"):
            raise UsageError(f"response line {number + 1} is empty: it would end the response early")
    head = ("=" if ok else "?") + ("" if id is None else str(id))
    try:
        return f"{head} {text}\n\n".encode()
    except UnicodeEncodeError as exc:
        raise UsageError(f"response text cannot be encoded: {exc}") from None


# --- controller side: commands out, responses in ----------------------------------------------

def _token(value: object, what: str) -> str:
    if _is_int(value):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UsageError(f"{what} must be finite, got {value!r}")
        return repr(value)
    if not isinstance(value, str):
        raise UsageError(f"{what} must be a str, int or float, got {type(value).__name__} {value!r:.40}")
    if not value:
        raise UsageError(f"{what} is empty")
    if _has_control(value) or "\t" in value or " " in value or "#" in value:
        raise UsageError(f"{what} {value!r:.60} contains a blank, control character or '#'")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"{what} cannot be encoded: {exc}") from None
    return value


def encode_command(name: str, *args: str | float, id: int | None = None) -> bytes:
    """`[id ]name arg...\\n`.  Arguments are strings (one token each) or numbers.

    UsageError for an empty name, a name made only of digits (it would read as an id), and
    any blank, control character (newlines included) or '#' (a comment) in a token.
    """
    _check_id(id)
    if not isinstance(name, str) or not name:
        raise UsageError(f"the command name must be a non-empty string, got {name!r:.40}")
    name = _token(name, "command name")
    if _DIGITS.fullmatch(name.encode("utf-8")):
        raise UsageError(f"command name {name!r} would be read as an id")
    parts = [name] + [_token(a, f"argument {i + 1}") for i, a in enumerate(args)]
    line = " ".join(parts)
    if id is not None:
        line = f"{id} {line}"
    return (line + "\n").encode("utf-8")


@dataclass(frozen=True)
class Response:
    """One engine response; `text` is the result (ok) or the error message, lines joined by LF."""

    id: int | None
    ok: bool
    text: str


_RESPONSE_ID = re.compile(r"[0-9]+")


def _response_head(line: str) -> tuple[int | None, bool, str]:
    ok = line[0] == "="
    rest = line[1:]
    ident = None
    m = _RESPONSE_ID.match(rest)
    if m and (m.end() == len(rest) or rest[m.end()] in " \t"):
        if m.end() > MAX_ID_DIGITS:
            raise ProtocolError(f"response id has more than {MAX_ID_DIGITS} digits")
        ident = int(m.group())
        rest = rest[m.end():]
    if rest[:1] in (" ", "\t"):
        rest = rest[1:]
    return ident, ok, rest


class ResponseDecoder:
    """Controller side: bytes from an engine -> `Response` events.

    A response starts with a line beginning with '=' or '?' and ends at the first empty
    line.  CRs are dropped (CRLF engines work); blank lines between responses are skipped.
    Any other line outside a response is a ProtocolError (that line is dropped).
    """

    def __init__(self) -> None:
        self._lines = LineBuffer(MAX_LINE)
        self._head: tuple[int | None, bool] | None = None
        self._text: list[str] = []
        self._size = 0

    def feed(self, data: bytes) -> None:
        self._lines.feed(data)

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete line still waiting for its LF."""
        return self._lines.buffered

    @property
    def in_response(self) -> bool:
        """True between a response's first line and its terminating empty line."""
        return self._head is not None

    def next_event(self) -> Response | None:
        """The next complete response, or None when more bytes are needed."""
        while (raw := self._lines.next_line()) is not None:
            line = raw.replace(b"\r", b"").decode("utf-8", errors="replace")
            if self._head is None:
                if not line.strip(" \t"):
                    continue
                if line[0] not in "=?":
                    raise ProtocolError(f"a response must start with '=' or '?', got {line!r:.80}")
                ident, ok, first = _response_head(line)
                self._head, self._text, self._size = (ident, ok), [first], len(raw)
                continue
            if line == "":
                (ident, ok), text = self._head, "\n".join(self._text)
                self._head, self._text, self._size = None, [], 0
                return Response(ident, ok, text)
            self._size += len(raw) + 1
            if self._size > MAX_RESPONSE:
                self._head, self._text, self._size = None, [], 0
                raise ProtocolError(f"response longer than {MAX_RESPONSE} bytes")
            self._text.append(line)
        return None

    def events(self) -> Iterator[Response]:
        """Every complete response in the buffer, in order."""
        while (event := self.next_event()) is not None:
            yield event


Event = Command | Response
