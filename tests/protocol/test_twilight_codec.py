"""Tests for the sans-I/O Twilight codec (protocol/twilight.py, docs/protocols/twilight.md
sections 2-4)."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.twilight import (
    CLIENT_FRAMES, SERVER_FRAMES, Bye, Cell, Decoder, End, Hme, Hum, Map, Mov, Move, Nme,
    ProtocolError, Set, TwilightError, Upd, UsageError, encode,
)


def decode_all(accept: frozenset[bytes], *chunks: bytes) -> tuple[list, Decoder]:
    """Feed `chunks` one after the other, draining events after each one."""
    dec = Decoder(accept)
    out = []
    for chunk in chunks:
        dec.feed(chunk)
        out.extend(dec.events())
    return out, dec


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


# --- 1. whole frames ------------------------------------------------------------------

SERVER_CASES = [
    (b"SET\x0f\x1d", Set(rows=15, cols=29)),
    (b"HUM\x00", Hum(())),
    (b"HUM\x02\x1c\x00\x01\x02", Hum(((28, 0), (1, 2)))),
    (b"HME\x04\x03", Hme(4, 3)),
    (b"MAP\x01\x02\x03\x04\x00\x00", Map((Cell(2, 3, 4, 0, 0),))),
    (b"MAP\x02\x00\x00\x00\xff\x00\x01\x00\x00\x00\x07", Map((Cell(0, 0, 0, 255, 0), Cell(1, 0, 0, 0, 7)))),
    (bytes.fromhex("55 50 44 00"), Upd(())),
    (bytes.fromhex("55 50 44 02 1C 0D 00 01 00 1C 0E 00 09 00"),
     Upd((Cell(28, 13, 0, 1, 0), Cell(28, 14, 0, 9, 0)))),
    (b"END", End()),
    (b"BYE", Bye()),
]

CLIENT_CASES = [
    (bytes.fromhex("4D 4F 56 01 04 03 04 03 02"), Mov((Move(4, 3, 4, 3, 2),))),
    (b"MOV\x00", Mov(())),
    (b"MOV\x02\x00\x00\x01\x01\x01\xfe\xfe\xff\xff\xff", Mov((Move(0, 0, 1, 1, 1), Move(254, 254, 255, 255, 255)))),
    (b"NME\x05Alice", Nme("Alice")),
    (b"NME\x00", Nme("")),
]


@pytest.mark.parametrize(("accept", "raw", "event"),
                         [(SERVER_FRAMES, r, e) for r, e in SERVER_CASES]
                         + [(CLIENT_FRAMES, r, e) for r, e in CLIENT_CASES])
def test_whole_frame_decodes_and_encodes(accept, raw, event):
    dec = Decoder(accept)
    dec.feed(raw)
    got = dec.next_event()
    assert got == event
    assert type(got) is type(event)
    assert dec.next_event() is None
    assert dec.buffered == 0
    assert encode(event) == raw


def test_spec_upd_fields_are_column_row_then_counts():
    (upd,), _ = decode_all(SERVER_FRAMES, bytes.fromhex("55 50 44 02 1C 0D 00 01 00 1C 0E 00 09 00"))
    first, second = upd.cells
    assert (first.x, first.y, first.humans, first.vampires, first.werewolves) == (28, 13, 0, 1, 0)
    assert (second.x, second.y, second.vampires) == (28, 14, 9)
    (mov,), _ = decode_all(CLIENT_FRAMES, bytes.fromhex("4D 4F 56 01 04 03 04 03 02"))
    assert mov.moves[0] == Move(x_from=4, y_from=3, count=4, x_to=3, y_to=2)
    (nme,), _ = decode_all(CLIENT_FRAMES, b"NME\x03a\xffb")  # raw bytes, never an exception
    assert nme == Nme("a\ufffdb")


# --- 2. byte by byte and arbitrary splits ---------------------------------------------

SERVER_STREAM = b"".join(raw for raw, _ in SERVER_CASES) * 3
SERVER_EVENTS = [ev for _, ev in SERVER_CASES] * 3
CLIENT_STREAM = b"".join(raw for raw, _ in CLIENT_CASES) * 3
CLIENT_EVENTS = [ev for _, ev in CLIENT_CASES] * 3


STREAMS = [(SERVER_FRAMES, SERVER_STREAM, SERVER_EVENTS), (CLIENT_FRAMES, CLIENT_STREAM, CLIENT_EVENTS)]


@pytest.mark.parametrize(("accept", "stream", "events"), STREAMS)
def test_byte_by_byte_equals_whole(accept, stream, events):
    whole, _ = decode_all(accept, stream)
    one_by_one, dec = decode_all(accept, *(stream[i:i + 1] for i in range(len(stream))))
    assert whole == events
    assert one_by_one == events
    assert dec.buffered == 0


@pytest.mark.slow
@given(st.sampled_from(STREAMS), st.data())
def test_arbitrary_splits(case, data):
    accept, stream, events = case
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=40))
    got, dec = decode_all(accept, *split_at(stream, cuts))
    assert got == events
    assert dec.buffered == 0


# --- 3. trailing bytes ----------------------------------------------------------------

def test_trailing_partial_frame_stays_buffered():
    dec = Decoder(SERVER_FRAMES)
    dec.feed(b"HME\x01\x02" + b"UPD\x01\x05\x06")
    assert dec.next_event() == Hme(1, 2)
    assert dec.next_event() is None
    assert dec.buffered == 6
    dec.feed(b"\x00\x03\x00")
    assert dec.next_event() == Upd((Cell(5, 6, 0, 3, 0),))
    assert dec.buffered == 0


def test_set_hum_hme_then_map_in_next_chunk():
    first = b"SET\x05\x0a" + b"HUM\x01\x02\x02" + b"HME\x04\x03" + b"MAP\x02\x02\x02"
    second = b"\x07\x00\x00\x04\x03\x00\x05\x00"
    dec = Decoder(SERVER_FRAMES)
    dec.feed(first)
    assert list(dec.events()) == [Set(5, 10), Hum(((2, 2),)), Hme(4, 3)]
    assert dec.buffered == 6
    dec.feed(second)
    assert list(dec.events()) == [Map((Cell(2, 2, 7, 0, 0), Cell(4, 3, 0, 5, 0)))]
    assert dec.buffered == 0


@pytest.mark.parametrize("partial", [b"M", b"MA", b"MAP", b"MAP\x01", b"MAP\x01\x00\x00\x00\x00"])
def test_incomplete_frame_returns_none(partial):
    dec = Decoder(SERVER_FRAMES)
    dec.feed(partial)
    assert dec.next_event() is None
    assert dec.buffered == len(partial)


# --- 4. hypothesis round-trips --------------------------------------------------------

byte = st.integers(0, 255)
cells = st.builds(Cell, byte, byte, byte, byte, byte)
moves = st.builds(Move, byte, byte, byte, byte, byte)
lists = {"max_size": 255}
server_events = st.one_of(
    st.builds(Set, byte, byte), st.builds(Hme, byte, byte), st.just(End()), st.just(Bye()),
    st.builds(Hum, st.lists(st.tuples(byte, byte), **lists).map(tuple)),
    st.builds(Map, st.lists(cells, **lists).map(tuple)),
    st.builds(Upd, st.lists(cells, **lists).map(tuple)),
)
client_events = st.one_of(
    st.builds(Nme, st.text(st.sampled_from(string.ascii_letters), max_size=255)),
    st.builds(Mov, st.lists(moves, **lists).map(tuple)),
)


@pytest.mark.slow
@pytest.mark.parametrize(("accept", "strategy"), [(SERVER_FRAMES, server_events), (CLIENT_FRAMES, client_events)])
def test_round_trip_with_any_chunking(accept, strategy):
    @settings(max_examples=150, deadline=None)
    @given(st.lists(strategy, min_size=1, max_size=6), st.data())
    def check(events, data):
        stream = b"".join(encode(e) for e in events)
        cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=20))
        got, dec = decode_all(accept, *split_at(stream, cuts))
        assert got == events
        assert [type(e) for e in got] == [type(e) for e in events]
        assert dec.buffered == 0

    check()


# --- 5. fuzz and garbage --------------------------------------------------------------

def drain_or_protocol_error(accept: frozenset[bytes], chunks: list[bytes]) -> None:
    """Decode noise; only ProtocolError may escape, and decoded events must re-encode to
    exactly the bytes the decoder consumed (NME excepted: invalid UTF-8 is replaced)."""
    dec, events, fed = Decoder(accept), [], b""
    try:
        for chunk in chunks:
            dec.feed(chunk)
            fed += chunk
            events.extend(dec.events())
    except ProtocolError:
        assert dec.buffered > 0
    consumed = fed[: len(fed) - dec.buffered]
    if not any(isinstance(e, Nme) for e in events):
        assert b"".join(encode(e) for e in events) == consumed
    # a name's replacement characters may take more than the 255 bytes its frame held, so an NME
    # is not re-encoded here (hypothesis found a 178-byte name that re-encodes to 256)
    assert all((b"NME" if isinstance(e, Nme) else encode(e)[:3]) in accept for e in events)


def noise(accept: frozenset[bytes], valid: st.SearchStrategy) -> st.SearchStrategy[bytes]:
    """Chunks that look like frames: commands, frame-shaped junk, valid frames, raw bytes."""
    commands = st.sampled_from(sorted(accept))
    framed = st.builds(lambda cmd, body: cmd + bytes([len(body)]) + body, commands, st.binary(max_size=12))
    return commands | framed | valid.map(encode) | st.binary(max_size=6)


@pytest.mark.slow
@pytest.mark.parametrize(("accept", "valid"), [(SERVER_FRAMES, server_events), (CLIENT_FRAMES, client_events)])
def test_fuzz_only_protocol_error_escapes(accept, valid):
    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.binary(max_size=64), max_size=8) | st.lists(noise(accept, valid), max_size=12))
    def check(chunks):
        drain_or_protocol_error(accept, chunks)

    check()


GARBAGE = [(SERVER_FRAMES, g) for g in (b"XYZ", b"X", b"MOV\x01\x04\x03\x04\x03\x02", b"NME\x01a",
                                         b"upd\x00", b"ATK\x00")]
GARBAGE += [(CLIENT_FRAMES, g) for g in (b"UPD\x00", b"mov\x00", b"\x00\x00\x00", b"NMx")]


@pytest.mark.parametrize(("accept", "garbage"), GARBAGE)
def test_garbage_raises_protocol_error(accept, garbage):
    dec = Decoder(accept)
    dec.feed(garbage)
    with pytest.raises(ProtocolError) as info:
        dec.next_event()
    assert isinstance(info.value, TwilightError)
    assert dec.buffered == len(garbage)


def test_garbage_after_valid_frame_yields_the_frame_first():
    dec = Decoder(SERVER_FRAMES)
    dec.feed(b"END" + b"XYZ")
    assert dec.next_event() == End()
    with pytest.raises(ProtocolError):
        dec.next_event()


# --- 6. encoding errors ---------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    Set(256, 1), Set(-1, 1), Set(1, True), Set(1.0, 2), Hme(0, 300), Hme(False, 0),
    Hum(((1, 256),)), Hum(((1, 2, 3),)), Hum(((1,),)), Hum(((0, 0),) * 256),
    Map((Cell(0, 0, -1, 0, 0),)), Map(((0, 0, 0, 0),)), Map((Cell(0, 0, 0, 0, 0),) * 256),
    Upd((Cell(0, 0, 0, 256, 0),)), Upd(((0, 0, 0, 0, 0, 0),)), Upd(((0, 0, True, 0, 0),)),
    Mov((Move(0, 0, 1000, 1, 1),)), Mov(((0, 0, 1, 1),)), Mov((Move(0, 0, 1, 1, 1),) * 256),
    Nme("a" * 256), Nme("é" * 128),
    object(), None, b"END", (1, 2), Cell(0, 0, 0, 0, 0),
])
def test_encode_rejects_invalid(bad):
    with pytest.raises(UsageError) as info:
        encode(bad)
    assert isinstance(info.value, TwilightError)


@pytest.mark.parametrize("bad", [Hum((5,)), Map((None,)), Nme("\udc80"), Mov(moves=None), Upd(cells=3),
                                 Hum(cells=None)])
def test_encode_rejects_malformed_values_with_usage_error(bad):
    with pytest.raises(UsageError):
        encode(bad)


def test_encode_limits_are_inclusive():
    assert encode(Set(255, 0)) == b"SET\xff\x00"
    assert encode(Nme("a" * 255)) == b"NME\xff" + b"a" * 255
    big = Map(tuple(Cell(i, 255 - i, 1, 0, 0) for i in range(255)))
    raw = encode(big)
    assert len(raw) == 4 + 5 * 255 and raw[3] == 255
    assert decode_all(SERVER_FRAMES, raw)[0] == [big]


# --- 7. clear -------------------------------------------------------------------------

def test_clear_discards_buffered_bytes():
    dec = Decoder(SERVER_FRAMES)
    dec.feed(b"UPD\x02\x01\x01\x00")
    assert dec.next_event() is None and dec.buffered == 7
    dec.clear()
    assert dec.buffered == 0
    assert dec.next_event() is None
    dec.feed(b"END")
    assert dec.next_event() == End()


def test_clear_recovers_from_garbage():
    dec = Decoder(CLIENT_FRAMES)
    dec.feed(b"XYZ")
    with pytest.raises(ProtocolError):
        dec.next_event()
    dec.clear()
    dec.feed(b"MOV\x00")
    assert dec.next_event() == Mov(())
