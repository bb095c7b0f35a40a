"""Sans-I/O codec for the Vampires vs Werewolves ("Twilight") binary protocol.

Every frame is a 3-byte ASCII command followed by single-byte fields (see
docs/protocols/twilight.md section 4).  There is no framing beyond the count byte of
the variable-length frames, so the decoder works on a byte stream: feed it any split
or merge of the bytes and pull complete events out.

    dec = Decoder(SERVER_FRAMES)        # what a client receives
    dec.feed(data)
    for event in dec.events(): ...
    sock.send(encode(Mov(moves)))

Two error types: `ProtocolError` means the peer sent garbage, `UsageError` means we
tried to encode something the wire cannot carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple, Union

from . import errors


class TwilightError(Exception):
    """Base class of the codec's errors."""


class ProtocolError(TwilightError, errors.ProtocolError):
    """The peer sent bytes that are not a valid frame."""


class UsageError(TwilightError, errors.UsageError):
    """We asked to encode a value the protocol cannot carry."""


class Cell(NamedTuple):
    """One MAP/UPD entry: full contents of the cell at column x, row y."""

    x: int
    y: int
    humans: int
    vampires: int
    werewolves: int


class Move(NamedTuple):
    """One MOV entry: `count` units from (x_from, y_from) to (x_to, y_to)."""

    x_from: int
    y_from: int
    count: int  # type: ignore[assignment]  # the wire's name for it, though it hides tuple.count
    x_to: int
    y_to: int


@dataclass(frozen=True)
class Nme:
    name: str


@dataclass(frozen=True)
class Set:
    rows: int
    cols: int


@dataclass(frozen=True)
class Hum:
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Hme:
    x: int
    y: int


@dataclass(frozen=True)
class Map:
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Upd:
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class End:
    """The game is over.  It carries no winner and no score, and no UPD shows the last ply: a
    client infers the result (docs/protocols/game-ends.md).  SET (a new game) or BYE follows."""


@dataclass(frozen=True)
class Bye:
    """The server is closing the connection (the Go servers send it alone, without END)."""


@dataclass(frozen=True)
class Mov:
    moves: tuple[Move, ...]


Event = Union[Nme, Set, Hum, Hme, Map, Upd, End, Bye, Mov]

SERVER_FRAMES = frozenset({b"SET", b"HUM", b"HME", b"MAP", b"UPD", b"END", b"BYE"})
"""Frames a server sends: decode these on the client side."""
CLIENT_FRAMES = frozenset({b"NME", b"MOV"})
"""Frames a client sends: decode these on the server side."""

# command -> (bytes per entry of a counted list, or None for a fixed payload; fixed size)
_LAYOUT: dict[bytes, tuple[int | None, int]] = {
    b"SET": (None, 2),
    b"HME": (None, 2),
    b"END": (None, 0),
    b"BYE": (None, 0),
    b"HUM": (2, 0),
    b"MAP": (5, 0),
    b"UPD": (5, 0),
    b"MOV": (5, 0),
    b"NME": (1, 0),
}


class Decoder:
    """Incremental decoder for one direction of a connection."""

    def __init__(self, accept: frozenset[bytes]) -> None:
        self._accept = accept
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes received but not yet decoded into an event."""
        return len(self._buf)

    def clear(self) -> None:
        """Forget buffered bytes (the official server flushes a socket before each ply)."""
        self._buf.clear()

    def next_event(self) -> Event | None:
        """The next complete event, or None when more bytes are needed."""
        buf = self._buf
        if len(buf) < 3:
            if buf and not any(c.startswith(bytes(buf)) for c in self._accept):
                raise ProtocolError(f"unknown command prefix {bytes(buf)!r}")
            return None
        command = bytes(buf[:3])
        if command not in self._accept:
            raise ProtocolError(f"unexpected command {command!r}")
        entry, fixed = _LAYOUT[command]
        if entry is None:
            size = 3 + fixed
        else:
            if len(buf) < 4:
                return None
            size = 4 + entry * buf[3]
        if len(buf) < size:
            return None
        payload = bytes(buf[3:size])
        del buf[:size]
        return _build(command, payload)

    def events(self) -> Iterator[Event]:
        """Every complete event in the buffer, in order."""
        while (event := self.next_event()) is not None:
            yield event


def _chunks(body: bytes, width: int) -> list[tuple[int, ...]]:
    return [tuple(body[i : i + width]) for i in range(0, len(body), width)]


def _build(command: bytes, payload: bytes) -> Event:
    if command == b"SET":
        return Set(payload[0], payload[1])
    if command == b"HME":
        return Hme(payload[0], payload[1])
    if command == b"END":
        return End()
    if command == b"BYE":
        return Bye()
    body = payload[1:]
    if command == b"HUM":
        return Hum(tuple((x, y) for x, y in _chunks(body, 2)))
    if command == b"MAP":
        return Map(tuple(Cell(*c) for c in _chunks(body, 5)))
    if command == b"UPD":
        return Upd(tuple(Cell(*c) for c in _chunks(body, 5)))
    if command == b"MOV":
        return Mov(tuple(Move(*m) for m in _chunks(body, 5)))
    # NME: the official server reads raw bytes; a name is only ever displayed.
    return Nme(body.decode("utf-8", errors="replace"))


def _byte(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 255:
        raise UsageError(f"{what} must be an integer in 0..255, got {value!r}")
    return value


def _counted(command: bytes, entries: tuple[tuple[int, ...], ...], width: int, what: str) -> bytes:
    if not isinstance(entries, (tuple, list)):
        raise UsageError(f"{command.decode()} needs a sequence of {what}, got {entries!r}")
    if len(entries) > 255:
        raise UsageError(f"{command.decode()} carries at most 255 {what}, got {len(entries)}")
    out = bytearray(command)
    out.append(len(entries))
    for entry in entries:
        if not isinstance(entry, tuple) or len(entry) != width:
            raise UsageError(f"each {what[:-1]} needs {width} fields, got {entry!r}")
        out.extend(_byte(v, what[:-1]) for v in entry)
    return bytes(out)


def encode(event: Event) -> bytes:
    """The wire bytes of one frame."""
    if isinstance(event, Set):
        return b"SET" + bytes((_byte(event.rows, "rows"), _byte(event.cols, "cols")))
    if isinstance(event, Hme):
        return b"HME" + bytes((_byte(event.x, "x"), _byte(event.y, "y")))
    if isinstance(event, End):
        return b"END"
    if isinstance(event, Bye):
        return b"BYE"
    if isinstance(event, Hum):
        return _counted(b"HUM", event.cells, 2, "cells")
    if isinstance(event, Map):
        return _counted(b"MAP", event.cells, 5, "cells")
    if isinstance(event, Upd):
        return _counted(b"UPD", event.cells, 5, "cells")
    if isinstance(event, Mov):
        return _counted(b"MOV", event.moves, 5, "moves")
    if isinstance(event, Nme):
        try:
            raw = event.name.encode("utf-8")
        except (AttributeError, UnicodeEncodeError) as exc:
            raise UsageError(f"name {event.name!r} cannot be sent: {exc}") from None
        if len(raw) > 255:
            raise UsageError(f"name is {len(raw)} bytes, at most 255 fit")
        return b"NME" + bytes((len(raw),)) + raw
    raise UsageError(f"not a Twilight frame: {event!r}")
