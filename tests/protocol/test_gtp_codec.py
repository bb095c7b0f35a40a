"""Tests for the sans-I/O GTP v2 / HTP codec (protocol/gtp.py, docs/protocols/gtp.md sections 2
and 3)."""

from __future__ import annotations

import itertools
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import gtp
from protocol.gtp import (
    GTP_REQUIRED_COMMANDS, REQUIRED_COMMANDS, Command, CommandDecoder, GtpError, LineBuffer,
    ProtocolError, Response, ResponseDecoder, UsageError, encode_command, encode_response,
    format_vertex, parse_color, parse_command_line, parse_vertex,
)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


def commands(*chunks: bytes) -> tuple[list[Command], CommandDecoder]:
    dec, out = CommandDecoder(), []
    for chunk in chunks:
        dec.feed(chunk)
        out.extend(dec.events())
    return out, dec


def responses(*chunks: bytes) -> tuple[list[Response], ResponseDecoder]:
    dec, out = ResponseDecoder(), []
    for chunk in chunks:
        dec.feed(chunk)
        out.extend(dec.events())
    return out, dec


# --- 1. command lists ----------------------------------------------------------------------

def test_required_commands():
    assert GTP_REQUIRED_COMMANDS == ("protocol_version", "name", "version", "known_command", "list_commands",
                                     "quit", "boardsize", "clear_board", "komi", "play", "genmove")
    for extra in ("time_settings", "time_left", "final_score", "final_status_list", "kgs-genmove_cleanup",
                  "showboard", "undo"):
        assert extra in REQUIRED_COMMANDS
    assert set(GTP_REQUIRED_COMMANDS) <= set(REQUIRED_COMMANDS)
    assert len(set(REQUIRED_COMMANDS)) == len(REQUIRED_COMMANDS) == 18
    assert issubclass(ProtocolError, GtpError) and issubclass(UsageError, GtpError)


# --- 2. vertices and colours -----------------------------------------------------------------

@pytest.mark.parametrize(("text", "size", "vertex"), [
    ("A1", 9, (0, 0)), ("J1", 9, (8, 0)), ("A9", 9, (0, 8)), ("J9", 9, (8, 8)), ("E5", 9, (4, 4)),
    ("H8", 9, (7, 7)), ("j9", 9, (8, 8)), ("e5", 9, (4, 4)),
    ("N13", 13, (12, 12)), ("n1", 13, (12, 0)), ("A13", 13, (0, 12)), ("G7", 13, (6, 6)),
    ("T19", 19, (18, 18)), ("t1", 19, (18, 0)), ("A19", 19, (0, 18)), ("K10", 19, (9, 9)), ("D16", 19, (3, 15)),
    ("Z25", 25, (24, 24)), ("A1", 1, (0, 0)),
    (" C3 ", 9, (2, 2)), ("C3\t", 9, (2, 2)),
    ("pass", 9, None), ("PASS", 9, None), ("Pass", 19, None), ("pAsS", 13, None),
])
def test_parse_vertex(text, size, vertex):
    assert parse_vertex(text, size) == vertex


@pytest.mark.parametrize(("text", "size"), [
    ("I1", 9), ("i5", 19), ("I9", 25),             # the letter I is skipped
    ("K1", 9), ("A10", 9), ("O1", 13), ("A14", 13), ("U1", 19), ("A20", 19), ("B1", 1),  # off board
    ("A0", 9), ("A01", 9), ("A-1", 9), ("A+1", 9),  # rows start at 1, no signs or leading zeros
    ("", 9), (" ", 9), ("A", 9), ("1", 9), ("1A", 9), ("AA1", 9), ("A 1", 9), ("A1A", 9), ("A1.0", 9),
    ("passs", 9), ("pas", 9), ("resign", 9), ("Ä1", 9), ("A١", 9), ("A1\n", 9), ("A1000", 25),
])
def test_parse_vertex_rejects(text, size):
    with pytest.raises(ProtocolError):
        parse_vertex(text, size)


@pytest.mark.parametrize("bad", [None, 5, b"A1", ("A", 1)])
def test_parse_vertex_rejects_non_strings(bad):
    with pytest.raises(ProtocolError):
        parse_vertex(bad, 9)


@pytest.mark.parametrize("size", [0, -1, 26, 9.0, "9", None, True, (9,), (9, 9, 9), (0, 9), (9, 26)])
def test_bad_size_is_usage_error(size):
    with pytest.raises(UsageError):
        parse_vertex("A1", size)
    with pytest.raises(UsageError):
        format_vertex((0, 0), size)


def test_format_vertex():
    assert format_vertex(None, 9) == "pass"
    assert format_vertex((0, 0), 9) == "A1"
    assert format_vertex((8, 8), 9) == "J9"  # I skipped: the 9th letter is J
    assert format_vertex((7, 0), 9) == "H1"
    assert format_vertex((12, 12), 13) == "N13"
    assert format_vertex((18, 18), 19) == "T19"
    assert format_vertex((8, 0), 19) == "J1"
    assert format_vertex((24, 24), 25) == "Z25"
    for bad in [(9, 0), (0, 9), (-1, 0), (0, -1), (1,), (1, 2, 3), ("A", 1), (1.0, 2), (True, 0), "A1"]:
        with pytest.raises(UsageError):
            format_vertex(bad, 9)


@pytest.mark.parametrize("size", [1, 2, 5, 8, 9, 13, 19, 25])
def test_every_vertex_round_trips(size):
    seen = set()
    for col in range(size):
        for row in range(size):
            text = format_vertex((col, row), size)
            assert "I" not in text
            assert parse_vertex(text, size) == parse_vertex(text.lower(), size) == (col, row)
            seen.add(text)
    assert len(seen) == size * size
    assert parse_vertex(format_vertex(None, size), size) is None


def test_hex_coordinates_keep_the_letter_i():
    # HTP/Benzene: 11x11 runs a..k (i included), a1 is a corner, up to s19.
    assert parse_vertex("i1", 11, skip_i=False) == (8, 0)
    assert parse_vertex("k11", 11, skip_i=False) == (10, 10)
    assert parse_vertex("s19", 19, skip_i=False) == (18, 18)
    assert format_vertex((8, 3), 11, skip_i=False) == "I4"
    assert format_vertex((10, 10), 11, skip_i=False).lower() == "k11"
    with pytest.raises(ProtocolError):
        parse_vertex("l1", 11, skip_i=False)
    assert gtp.board_size_limit() == 25 and gtp.board_size_limit(skip_i=False) == 26
    assert parse_vertex("z26", 26, skip_i=False) == (25, 25)


def test_non_square_boards():
    # HexGui sends `boardsize W H`: size=(columns, rows).
    assert parse_vertex("c2", (3, 2), skip_i=False) == (2, 1)
    assert format_vertex((2, 1), (3, 2), skip_i=False) == "C2"
    with pytest.raises(ProtocolError):
        parse_vertex("c3", (3, 2), skip_i=False)
    with pytest.raises(ProtocolError):
        parse_vertex("d1", (3, 2), skip_i=False)
    with pytest.raises(UsageError):
        format_vertex((0, 2), (3, 2))


@given(st.integers(1, 25), st.data())
def test_vertex_round_trip_property(size, data):
    col = data.draw(st.integers(0, size - 1))
    row = data.draw(st.integers(0, size - 1))
    text = format_vertex((col, row), size)
    mangled = data.draw(st.sampled_from([text, text.lower(), f" {text}\t"]))
    assert parse_vertex(mangled, size) == (col, row)


@pytest.mark.parametrize(("text", "color"), [
    ("b", "b"), ("B", "b"), ("black", "b"), ("Black", "b"), ("BLACK", "b"),
    ("w", "w"), ("W", "w"), ("white", "w"), ("WhItE", "w"),
])
def test_parse_color(text, color):
    assert parse_color(text) == color


@pytest.mark.parametrize("bad", ["", "x", "bl", "blacks", "e", "1", "b w", None, 1])
def test_parse_color_rejects(bad):
    with pytest.raises(ProtocolError):
        parse_color(bad)


# --- 3. engine side: preprocessing and commands -------------------------------------------------

@pytest.mark.parametrize(("line", "command"), [
    (b"protocol_version", Command(None, "protocol_version", ())),
    (b"1 name", Command(1, "name", ())),
    (b"play b E5", Command(None, "play", ("b", "E5"))),
    (b"42 play white pass", Command(42, "play", ("white", "pass"))),
    (b"0 boardsize 9", Command(0, "boardsize", ("9",))),
    (b"007 komi 7.5", Command(7, "komi", ("7.5",))),
    (b"boardsize 11 11", Command(None, "boardsize", ("11", "11"))),      # HTP
    (b"play w swap-pieces", Command(None, "play", ("w", "swap-pieces"))),  # HTP
    (b"time_settings 300 0 0", Command(None, "time_settings", ("300", "0", "0"))),
    (b"kgs-genmove_cleanup b", Command(None, "kgs-genmove_cleanup", ("b",))),
    # CR and other control characters are removed (not turned into blanks)
    (b"genmove b\r", Command(None, "genmove", ("b",))),
    (b"gen\rmove\x00 b\x1b", Command(None, "genmove", ("b",))),
    (b"\x7fquit\x01", Command(None, "quit", ())),
    (b"list_\x0bcommands", Command(None, "list_commands", ())),
    # HT becomes a space; runs of blanks separate tokens; leading and trailing blanks vanish
    (b"\t3\tplay\t\tb  \t C3\t", Command(3, "play", ("b", "C3"))),
    (b"   name   ", Command(None, "name", ())),
    # '#' starts a comment up to the end of the line
    (b"play b A1 # the corner", Command(None, "play", ("b", "A1"))),
    (b"play b A1#no blank needed", Command(None, "play", ("b", "A1"))),
    (b"5 showboard#\r", Command(5, "showboard", ())),
    # control characters are removed before the comment is cut, so \x00 cannot hide a '#'
    (b"name\x00# x", Command(None, "name", ())),
    # an id is a leading unsigned integer token only
    (b"12abc x", Command(None, "12abc", ("x",))),
    (b"-1 name", Command(None, "-1", ("name",))),
    (b"+1 name", Command(None, "+1", ("name",))),
    (b"1 2 3", Command(1, "2", ("3",))),
    # an id alone: no command name (the engine answers a failure with that id)
    (b"12", Command(12, "", ())),
    (b"12 # just an id", Command(12, "", ())),
    # other Unicode is data, not blank; invalid UTF-8 is replaced, never an exception
    (b"name \xc2\xa0x", Command(None, "name", ("\xa0x",))),
    (b"\xff\xfe", Command(None, "\ufffd\ufffd", ())),
])
def test_parse_command_line(line, command):
    assert parse_command_line(line) == command
    got, dec = commands(line + b"\n")
    assert got == [command] and dec.buffered == 0


@pytest.mark.parametrize("line", [b"", b" ", b"\t", b"  \t ", b"\r", b"# comment", b"   # indented comment",
                                  b"\x00\x01\r", b"\t#\tplay b A1", b"#", b"\x1b\x00\x1f"])
def test_empty_and_comment_lines_are_ignored(line):
    assert parse_command_line(line) is None
    got, dec = commands(line + b"\n")
    assert got == [] and dec.buffered == 0


def test_session_stream_whole_and_byte_by_byte():
    stream = (b"# a GTP session\n1 protocol_version\r\n\r\n2 name\n\n   \n3 boardsize 9\n"
              b"clear_board\nkomi 7.5   # komi\n4 play black e5\n\t\n5 genmove w\nquit\n")
    want = [Command(1, "protocol_version"), Command(2, "name"), Command(3, "boardsize", ("9",)),
            Command(None, "clear_board"), Command(None, "komi", ("7.5",)), Command(4, "play", ("black", "e5")),
            Command(5, "genmove", ("w",)), Command(None, "quit")]
    assert commands(stream)[0] == want
    got, dec = commands(*(stream[i:i + 1] for i in range(len(stream))))
    assert got == want and dec.buffered == 0


def test_lone_cr_does_not_end_a_line():
    # CR is removed, it is not a line terminator: "name\rversion" is one command "nameversion".
    assert commands(b"name\rversion\n")[0] == [Command(None, "nameversion")]
    got, dec = commands(b"name\r")
    assert got == [] and dec.buffered == 5


def test_trailing_partial_line_stays_buffered():
    got, dec = commands(b"1 name\n2 vers")
    assert got == [Command(1, "name")]
    assert dec.next_event() is None and dec.buffered == 6
    dec.feed(b"ion\n")
    assert dec.next_event() == Command(2, "version")
    assert dec.next_event() is None and dec.buffered == 0


def test_huge_id_is_protocol_error_and_the_decoder_recovers():
    dec = CommandDecoder()
    dec.feed(b"1" * 19 + b" name\n2 version\n")
    with pytest.raises(ProtocolError):
        dec.next_event()
    assert dec.next_event() == Command(2, "version")
    assert parse_command_line(b"9" * 18 + b" name") == Command(10**18 - 1, "name")


def test_overlong_line_is_protocol_error_once_and_skipped(monkeypatch):
    monkeypatch.setattr(gtp, "MAX_LINE", 16)
    dec = CommandDecoder()
    dec.feed(b"x" * 17)
    with pytest.raises(ProtocolError):
        dec.next_event()
    assert dec.buffered == 0
    dec.feed(b"yyyyyyyyyyyyyyyyyyyyyyyy")  # still the same over-long line: dropped silently
    assert dec.next_event() is None and dec.buffered == 0
    dec.feed(b"zz\n1 name\n")
    assert dec.next_event() == Command(1, "name")
    dec.feed(b"a" * 20 + b"\n2 name\n")  # a whole over-long line in one chunk
    with pytest.raises(ProtocolError):
        dec.next_event()
    assert dec.next_event() == Command(2, "name")


def test_feed_requires_bytes():
    with pytest.raises(UsageError):
        CommandDecoder().feed("name\n")
    with pytest.raises(UsageError):
        ResponseDecoder().feed(None)
    dec = CommandDecoder()
    dec.feed(bytearray(b"name\n"))
    dec.feed(memoryview(b"version\n"))
    assert list(dec.events()) == [Command(None, "name"), Command(None, "version")]


@pytest.mark.parametrize(("args", "wire"), [
    ((None, True), b"= \n\n"),
    ((1, True), b"=1 \n\n"),
    ((None, True, "2"), b"= 2\n\n"),
    ((7, True, "E5"), b"=7 E5\n\n"),
    ((0, False, "unknown command"), b"?0 unknown command\n\n"),
    ((None, False, "illegal move"), b"? illegal move\n\n"),
    ((3, True, "name\nversion\nquit"), b"=3 name\nversion\nquit\n\n"),
    ((None, True, "\n   A B C\n 3 . . .  3\n   A B C"), b"= \n   A B C\n 3 . . .  3\n   A B C\n\n"),
    ((12, True, "\u00e9t\u00e9"), "=12 \u00e9t\u00e9\n\n".encode()),
    ((None, True, "a\tb"), b"= a\tb\n\n"),
])
def test_encode_response(args, wire):
    assert encode_response(*args) == wire
    got, dec = responses(wire)
    ident, ok, *text = args
    assert got == [Response(ident, ok, text[0] if text else "")] and dec.buffered == 0


@pytest.mark.parametrize(("args", "kwargs"), [
    ((-1, True), {}), ((True, True), {}), ((1.0, True), {}), (("1", True), {}), ((10**18, True), {}),
    ((None, 1), {}), ((None, None), {}), ((None, True, None), {}), ((None, True, b"x"), {}),
    ((None, True, "a\n\nb"), {}), ((None, True, "a\n"), {}), ((None, True, "a\n  \nb"), {}),
    ((None, True, "\n"), {}), ((None, True, "a\rb"), {}), ((None, True, "a\r\nb"), {}),
    ((None, True, "a\x00"), {}), ((None, True, "\x7f"), {}), ((None, True, "\ud800"), {}),
])
def test_encode_response_rejects(args, kwargs):
    with pytest.raises(UsageError):
        encode_response(*args, **kwargs)


# --- 4. controller side: commands out, responses in ---------------------------------------------

@pytest.mark.parametrize(("call", "wire"), [
    (lambda: encode_command("protocol_version"), b"protocol_version\n"),
    (lambda: encode_command("name", id=1), b"1 name\n"),
    (lambda: encode_command("boardsize", 9, id=0), b"0 boardsize 9\n"),
    (lambda: encode_command("komi", 7.5), b"komi 7.5\n"),
    (lambda: encode_command("komi", 0), b"komi 0\n"),
    (lambda: encode_command("play", "b", "E5", id=12), b"12 play b E5\n"),
    (lambda: encode_command("time_settings", 300, 0, 0), b"time_settings 300 0 0\n"),
    (lambda: encode_command("time_left", "w", 299, 0), b"time_left w 299 0\n"),
    (lambda: encode_command("boardsize", 11, 11), b"boardsize 11 11\n"),
    (lambda: encode_command("kgs-genmove_cleanup", "b"), b"kgs-genmove_cleanup b\n"),
])
def test_encode_command(call, wire):
    assert call() == wire


@pytest.mark.parametrize(("name", "args", "ident"), [
    ("", (), None), (None, (), None), (5, (), None), ("12", (), None), ("play b", (), None),
    ("play\n", (), None), ("pl#ay", (), None), ("name", (), -1), ("name", (), True), ("name", (), "1"),
    ("play", ("b\nquit",), None), ("play", ("b", "E5\r"), None), ("play", ("b", ""), None),
    ("play", ("b E5",), None), ("play", ("b\tE5",), None), ("play", ("#",), None),
    ("komi", (float("nan"),), None), ("komi", (float("inf"),), None), ("komi", (True,), None),
    ("komi", (None,), None), ("komi", (b"7",), None), ("name", ("\ud800",), None), ("na\x00me", (), None),
])
def test_encode_command_rejects(name, args, ident):
    with pytest.raises(UsageError):
        encode_command(name, *args, id=ident)


GNUGO_SESSION = (
    b"=1 2\n\n"
    b"=2 GNU Go\n\n"
    b"= \n\n"
    b"=4 \n\n"
    b"=5 C3\n\n"
    b"?6 illegal move\n\n"
    b"=7 \n   A B C D E F G H J\n 9 . . . . . . . . . 9\n   A B C D E F G H J\n\n"
    b"= W+6.5\n\n"
)


def test_response_stream_whole_byte_by_byte_and_crlf():
    want = [Response(1, True, "2"), Response(2, True, "GNU Go"), Response(None, True, ""),
            Response(4, True, ""), Response(5, True, "C3"), Response(6, False, "illegal move"),
            Response(7, True, "\n   A B C D E F G H J\n 9 . . . . . . . . . 9\n   A B C D E F G H J"),
            Response(None, True, "W+6.5")]
    assert responses(GNUGO_SESSION)[0] == want
    got, dec = responses(*(GNUGO_SESSION[i:i + 1] for i in range(len(GNUGO_SESSION))))
    assert got == want and dec.buffered == 0 and not dec.in_response
    crlf = GNUGO_SESSION.replace(b"\n", b"\r\n")
    assert responses(crlf)[0] == want
    assert responses(*(crlf[i:i + 1] for i in range(len(crlf))))[0] == want


def test_response_tolerances():
    # blank lines between responses are skipped; no separating blank; tab separator
    got, _ = responses(b"\n\n  \n=1 a\n\n\r\n?2\tb\n\n=3\n\n=c\n\n")
    assert got == [Response(1, True, "a"), Response(2, False, "b"), Response(3, True, ""),
                   Response(None, True, "c")]
    # digits glued to text are not an id
    assert responses(b"=1a\n\n")[0] == [Response(None, True, "1a")]
    # a blank (not empty) line is content, only an empty line ends the response
    assert responses(b"=1 x\n \ny\n\n")[0] == [Response(1, True, "x\n \ny")]


def test_response_trailing_bytes_stay_pending():
    got, dec = responses(b"=1 E5\n\n=2 list\nof\ncommands\n")
    assert got == [Response(1, True, "E5")]
    assert dec.in_response and dec.buffered == 0 and dec.next_event() is None
    dec.feed(b"\n=3")
    assert dec.next_event() == Response(2, True, "list\nof\ncommands")
    assert dec.next_event() is None and dec.buffered == 2 and not dec.in_response


@pytest.mark.parametrize("garbage", [b"hello\n", b"2\n", b" =1 x\n", b"GNU Go 3.8 debug output\n",
                                     b"\x00=1\n", b"#=1\n"])
def test_response_garbage_is_protocol_error_and_the_decoder_recovers(garbage):
    dec = ResponseDecoder()
    dec.feed(b"=1 ok\n\n" + garbage + b"=2 fine\n\n")
    assert dec.next_event() == Response(1, True, "ok")
    with pytest.raises(ProtocolError):
        dec.next_event()
    assert dec.next_event() == Response(2, True, "fine")


def test_response_huge_id_and_size_limits(monkeypatch):
    with pytest.raises(ProtocolError):
        responses(b"=" + b"9" * 19 + b" x\n\n")
    monkeypatch.setattr(gtp, "MAX_RESPONSE", 20)
    dec = ResponseDecoder()
    dec.feed(b"=1 a\n" + b"0123456789\n" * 3)
    with pytest.raises(ProtocolError):
        dec.next_event()
    assert not dec.in_response


def test_line_buffer_direct():
    buf = LineBuffer(8)
    buf.feed(b"ab\ncd")
    assert buf.next_line() == b"ab" and buf.next_line() is None and buf.buffered == 2
    buf.feed(b"\n\n")
    assert buf.next_line() == b"cd" and buf.next_line() == b"" and buf.next_line() is None


# --- 5. hypothesis round trips --------------------------------------------------------------------

token_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters=" #\x7f",
                            min_codepoint=33, max_codepoint=0x2FFF)
tokens = st.text(token_chars, min_size=1, max_size=8)
names = tokens.filter(lambda t: not t.isascii() or not t.isdigit())
ids = st.none() | st.integers(0, 10**18 - 1)
numbers = st.integers(-10**6, 10**6) | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(ids, names, st.lists(tokens | numbers, max_size=4)), min_size=1, max_size=5),
       st.data())
def test_command_round_trip_any_chunking(cmds, data):
    stream = b"".join(encode_command(name, *args, id=ident) for ident, name, args in cmds)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=12))
    got, dec = commands(*split_at(stream, cuts))
    want = [Command(ident, name, tuple(a if isinstance(a, str) else (str(a) if isinstance(a, int) else repr(a))
                                       for a in args)) for ident, name, args in cmds]
    assert got == want and dec.buffered == 0
    for (_, _, args), cmd in zip(cmds, got, strict=True):
        for arg, text in zip(args, cmd.args, strict=True):
            if not isinstance(arg, str):
                assert float(text) == arg


line_chars = st.characters(blacklist_categories=("Cs", "Cc"), max_codepoint=0x2FFF) | st.just("\t")
first_lines = st.text(line_chars, max_size=20)
more_lines = st.text(line_chars, min_size=1, max_size=20).filter(lambda s: s.strip(" \t"))
texts = st.builds(lambda first, rest: "\n".join([first, *rest]), first_lines, st.lists(more_lines, max_size=4))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(Response, ids, st.booleans(), texts), min_size=1, max_size=5), st.data())
def test_response_round_trip_any_chunking(resps, data):
    stream = b"".join(encode_response(r.id, r.ok, r.text) for r in resps)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=12))
    got, dec = responses(*split_at(stream, cuts))
    assert got == resps and dec.buffered == 0 and not dec.in_response


# --- 6. fuzz: only our error types escape --------------------------------------------------------

gtp_noise = st.sampled_from([b"\n", b"\r\n", b"\r", b"\t", b" ", b"#", b"=", b"?", b"=1 ", b"?2", b"12", b"\x00",
                             b"play b E5", b"\xff", b"\n\n", b"9" * 20])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40) | gtp_noise, max_size=16))
def test_fuzz_decoders_raise_only_protocol_error(chunks):
    for dec in (CommandDecoder(), ResponseDecoder()):
        for chunk in chunks:
            dec.feed(chunk)
            for _ in range(64):
                try:
                    if dec.next_event() is None:
                        break
                except ProtocolError:
                    pass
        assert dec.buffered <= sum(map(len, chunks))


@settings(max_examples=200, deadline=None)
@given(st.text(string.printable + "\u00e9\u4e00", max_size=6), st.integers(1, 25), st.booleans())
def test_fuzz_vertex_and_colour_parsers(text, size, skip_i):
    try:
        vertex = parse_vertex(text, size, skip_i=skip_i)
    except ProtocolError:
        pass
    else:
        assert parse_vertex(format_vertex(vertex, size, skip_i=skip_i), size, skip_i=skip_i) == vertex
    try:
        assert parse_color(text) in ("b", "w")
    except ProtocolError:
        pass


def test_events_are_frozen_and_hashable():
    cmd, resp = Command(1, "name"), Response(1, True, "x")
    with pytest.raises(AttributeError):
        cmd.name = "quit"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        resp.ok = False  # type: ignore[misc]
    assert len({cmd, Command(1, "name", ())}) == 1 and hash(resp) == hash(Response(1, True, "x"))
