"""Tests for the sans-I/O CGOS codec (protocol/cgos.py, docs/protocols/cgos.md sections 2-6)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import cgos
from protocol.cgos import (
    E1, CgosError, Decoder, Error, Gameover, Genmove, Info, MoveReply, PasswordReply, Play, Player, Protocol,
    ProtocolError, Quit, Ready, Setup, Unknown, UsageError, Username, UsernameReply, encode, encode_e1,
    encode_move, encode_password, encode_quit, encode_ready, encode_reply, encode_username, parse_move,
    parse_reply, parse_server_line,
)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


def decode(*chunks: bytes) -> tuple[list, Decoder]:
    dec, out = Decoder(), []
    for chunk in chunks:
        dec.feed(chunk)
        out.extend(dec.events())
    return out, dec


ALPHA = Player("alpha-bot", "1800?")
BETA = Player("beta-bot", "1800?")

# Every server message of docs/protocols/cgos.md sections 2.1 and 6.1-6.3, with the lines seen
# on the wire.
SERVER_LINES = [
    ("protocol", Protocol(())),
    ("protocol genmove_analyze", Protocol(("genmove_analyze",))),
    ("username", Username()),
    ("password", cgos.Password()),
    ("setup 1 9 7.0 60000 alpha-bot(1800?) beta-bot(1800?)", Setup(1, 9, 7.0, 60.0, ALPHA, BETA)),
    ("setup 2 9 7.0 60000 beta-bot(1800?) alpha-bot(1800?) e5 60000",
     Setup(2, 9, 7.0, 60.0, BETA, ALPHA, (("e5", 60.0),))),
    ("setup 0 9 7 900000 beta-bot alpha-bot",  # cgos-lite: gid 0, bare names, int komi
     Setup(0, 9, 7.0, 900.0, Player("beta-bot"), Player("alpha-bot"))),
    ("setup 7 19 7.5 1800000 w.x(2345) b_y(1999?)  q16 1799000 D4 1798500 pass 1797000 PASS 1796000",
     Setup(7, 19, 7.5, 1800.0, Player("w.x", "2345"), Player("b_y", "1999?"),
           (("q16", 1799.0), ("D4", 1798.5), ("pass", 1797.0), ("PASS", 1796.0)))),
    ("genmove b 60000", Genmove("b", 60.0)),
    ("genmove w 57996", Genmove("w", 57.996)),
    ("genmove w 876688", Genmove("w", 876.688)),
    ("play b e5 60000", Play("b", "e5", 60.0)),
    ("play w c3 60000", Play("w", "c3", 60.0)),
    ("play b j16 874312", Play("b", "j16", 874.312)),
    ("play b E5 899959", Play("b", "E5", 899.959)),
    ("play w pass 60000", Play("w", "pass", 60.0)),
    ("gameover 2024-03-01 W+6.0 ", Gameover("2024-03-01", "W+6.0", "")),
    ("gameover 2024-03-01 W+6.0", Gameover("2024-03-01", "W+6.0", "")),
    ("gameover 2024-03-01 B+Resign Resignation", Gameover("2024-03-01", "B+Resign", "Resignation")),
    ("gameover 2024-03-01 B+Illegal Illegal move error:move to occupied point move:e5",
     Gameover("2024-03-01", "B+Illegal", "Illegal move error:move to occupied point move:e5")),
    ("gameover 2024-03-01 W+Time ", Gameover("2024-03-01", "W+Time", "")),
    ("gameover 2024-03-01 Draw ", Gameover("2024-03-01", "Draw", "")),
    ("gameover 2024-03-01 Abort ", Gameover("2024-03-01", "Abort", "")),
    ("info Games in progress: 0 Players:2", Info("Games in progress: 0 Players:2")),
    ("info Maximum time until next round: 28:41", Info("Maximum time until next round: 28:41")),
    ("info Next round will start soon: 14:05", Info("Next round will start soon: 14:05")),
    ("info another login is being attempted using this user name",
     Info("another login is being attempted using this user name")),
    ("info", Info("")),
    ("Error: Sorry, password doesn't match", Error("Sorry, password doesn't match")),
    ("Error: User name must be 3 characters or more.", Error("User name must be 3 characters or more.")),
    ("Error: send <password> or <old_password new_password>",
     Error("send <password> or <old_password new_password>")),
    ("Error: You are already logged on!  Closing connection.",
     Error("You are already logged on!  Closing connection.")),
    ("Error: invalid response", Error("invalid response")),
    ("Sorry, password doesn't match", Error("Sorry, password doesn't match")),  # Tcl: no prefix
    ("hello there", Unknown("hello there")),
    ("setupx 1 2", Unknown("setupx 1 2")),
    ("Username", Unknown("Username")),
    ("ping", Unknown("ping")),
]


@pytest.mark.parametrize(("line", "event"), SERVER_LINES)
def test_every_documented_server_message(line, event):
    assert parse_server_line(line) == event
    for ending in (b"\n", b"\r\n"):
        got, dec = decode(line.encode() + ending)
        assert got == [event] and dec.buffered == 0
    assert type(parse_server_line(line)) is type(event)


def test_event_helpers():
    setup = parse_server_line("setup 1 9 7.0 60000 alpha-bot(1800?) beta-bot(2012)")
    assert setup.color_of("alpha-bot") == "w" and setup.color_of("beta-bot") == "b"
    assert setup.color_of("gamma") is None
    assert setup.white.elo == 1800.0 and setup.white.provisional
    assert setup.black.elo == 2012.0 and not setup.black.provisional
    assert Player("x").elo is None and not Player("x").provisional
    assert Player("x", "").elo is None and Player("x", "?").elo is None
    assert str(setup.white) == "alpha-bot(1800?)" and str(Player("x")) == "x"
    assert Protocol(("genmove_analyze",)).genmove_analyze and not Protocol(()).genmove_analyze
    winners = {"W+6.0": "w", "B+0.5": "b", "B+Resign": "b", "W+Time": "w", "B+Illegal": "b", "Draw": None,
               "Abort": None, "0": None, "W": None, "Black": None}
    for result, winner in winners.items():
        assert Gameover("2024-01-01", result).winner == winner


@pytest.mark.parametrize("line", [
    "setup", "setup 1 9 7.0 60000 alpha", "setup x 9 7.0 60000 a b", "setup -1 9 7.0 60000 a b",
    "setup 1 0 7.0 60000 a b", "setup 1 26 7.0 60000 a b", "setup 1 9x 7.0 60000 a b",
    "setup 1 9 seven 60000 a b", "setup 1 9 nan 60000 a b", "setup 1 9 inf 60000 a b", "setup 1 9 1_0 60000 a b",
    "setup 1 9 7.0 -1 a b", "setup 1 9 7.0 1e5 a b", "setup 1 9 7.0 60000 a(1800 b",
    "setup 1 9 7.0 60000 a b(", "setup 1 9 7.0 60000 (1800) b", "setup 1 9 7.0 60000 a(1)(2) b",
    "setup 1 9 7.0 60000 a b e5", "setup 1 9 7.0 60000 a b e5 x", "setup 1 9 7.0 60000 a b e5 60000 d4",
    "genmove", "genmove b", "genmove x 1000", "genmove b soon", "genmove b 1000 extra", "genmove 1000 b",
    "play", "play b e5", "play x e5 1000", "play b e5 soon", "play b e5 1000 extra",
    "gameover", "gameover 2024-01-01", "gameover  ",
])
def test_malformed_known_messages_are_protocol_errors(line):
    with pytest.raises(ProtocolError) as info:
        parse_server_line(line)
    assert isinstance(info.value, CgosError)
    dec = Decoder()
    dec.feed(line.encode() + b"\nusername\n")
    with pytest.raises(ProtocolError):
        dec.next_event()
    assert dec.next_event() == Username()  # only the bad line is dropped


def test_tolerated_variants():
    assert parse_server_line("genmove B 1000") == Genmove("b", 1.0)
    assert parse_server_line("play white E5 -250") == Play("w", "E5", -0.25)
    assert parse_server_line("genmove b 1000.5") == Genmove("b", 1.0005)
    assert parse_server_line("  username  ") == Username()
    assert parse_server_line("password please") == cgos.Password()
    assert parse_server_line("protocol genmove_analyze future") == Protocol(("genmove_analyze", "future"))
    assert parse_server_line("setup 1 9 -3.5 0 a b") == Setup(1, 9, -3.5, 0.0, Player("a"), Player("b"))
    assert parse_server_line("info  two  spaces ") == Info(" two  spaces ")
    assert parse_server_line("gameover 2024-01-01 W+1.0  two  spaces") == Gameover("2024-01-01", "W+1.0",
                                                                                   " two  spaces")
    for blank in ("", "   ", "\r", "\t"):
        assert parse_server_line(blank) is None
    with pytest.raises(UsageError):
        parse_server_line(b"username")


def test_full_game_transcript_whole_and_byte_by_byte():
    # docs/protocols/cgos.md section 6.1, White's side, followed by the start of the next round
    stream = (b"protocol genmove_analyze\n"
              b"username\npassword\n"
              b"setup 1 9 7.0 60000 alpha-bot(1800?) beta-bot(1800?)\n"
              b"info Games in progress: 0 Players:2\n"
              b"play b e5 60000\ngenmove w 60000\n"
              b"play b g7 60000\ngenmove w 60000\n"
              b"play b pass 60000\n"
              b"gameover 2024-03-01 W+6.0 \n"
              b"info Next round will start soon: 14:05\n"
              b"setup 2 9 7.0 60000 beta-bot(1803) alpha-bot(1797)\n")
    want = [Protocol(("genmove_analyze",)), Username(), cgos.Password(), Setup(1, 9, 7.0, 60.0, ALPHA, BETA),
            Info("Games in progress: 0 Players:2"), Play("b", "e5", 60.0), Genmove("w", 60.0),
            Play("b", "g7", 60.0), Genmove("w", 60.0), Play("b", "pass", 60.0),
            Gameover("2024-03-01", "W+6.0", ""), Info("Next round will start soon: 14:05"),
            Setup(2, 9, 7.0, 60.0, Player("beta-bot", "1803"), Player("alpha-bot", "1797"))]
    assert decode(stream)[0] == want
    got, dec = decode(*(stream[i:i + 1] for i in range(len(stream))))
    assert got == want and dec.buffered == 0
    crlf = stream.replace(b"\n", b"\r\n")
    assert decode(*(crlf[i:i + 1] for i in range(len(crlf))))[0] == want


def test_cgos_lite_polls_and_unknown_lines_interleave():
    stream = b"username\n\n\nusername\nsomething new\nsetup 0 9 7 900000 beta-bot alpha-bot\ngenmove b 900000\n"
    got, _ = decode(stream)
    assert got == [Username(), Username(), Unknown("something new"),
                   Setup(0, 9, 7.0, 900.0, Player("beta-bot"), Player("alpha-bot")), Genmove("b", 900.0)]


def test_trailing_partial_line_stays_buffered():
    got, dec = decode(b"setup 1 9 7.0 60000 a b\ngenmove b 600")
    assert got == [Setup(1, 9, 7.0, 60.0, Player("a"), Player("b"))]
    assert dec.next_event() is None and dec.buffered == len(b"genmove b 600")
    dec.feed(b"00\n")
    assert dec.next_event() == Genmove("b", 60.0) and dec.buffered == 0


def test_overlong_line_is_protocol_error(monkeypatch):
    monkeypatch.setattr(cgos, "MAX_LINE", 32)
    dec = Decoder()
    dec.feed(b"info " + b"x" * 40)
    with pytest.raises(ProtocolError):
        dec.next_event()
    dec.feed(b"yyy\nusername\n")
    assert dec.next_event() == Username()
    with pytest.raises(UsageError):
        dec.feed("username\n")


def test_invalid_utf8_is_replaced_not_raised():
    got, _ = decode(b"info caf\xe9\n\xff\xfe\n")
    assert got == [Info("caf\ufffd"), Unknown("\ufffd\ufffd")]


# --- moves --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "size", "vertex"), [
    ("e5", 9, (4, 4)), ("E5", 9, (4, 4)), ("j9", 9, (8, 8)), ("a1", 9, (0, 0)), ("j16", 19, (8, 15)),
    ("T19", 19, (18, 18)), ("pass", 9, None), ("PASS", 9, None), ("Pa", 9, None), ("pAsSeD", 9, None),
])
def test_parse_move(text, size, vertex):
    assert parse_move(text, size) == vertex


@pytest.mark.parametrize(("text", "size"), [("i5", 9), ("k1", 9), ("a10", 9), ("resign", 9), ("", 9), ("p", 9),
                                            (None, 9)])
def test_parse_move_rejects(text, size):
    with pytest.raises(ProtocolError):
        parse_move(text, size)
    with pytest.raises(UsageError):
        parse_move("a1", 0)


# --- client messages -------------------------------------------------------------------------------

def test_client_encoders_exact_bytes():
    assert encode_e1("cgosPython 1.0.0") == b"e1 cgosPython 1.0.0\n"
    assert encode_e1() == b"e1\n"
    assert encode_e1("mybot 0.1", genmove_analyze=True) == b"e1 genmove_analyze mybot 0.1\n"
    assert encode_e1("mybot genmove_analyze", genmove_analyze=True) == b"e1 mybot genmove_analyze\n"
    assert encode_username("alpha-bot") == b"alpha-bot\n"
    assert encode_username("a.b_c-123456789012") == b"a.b_c-123456789012\n"  # 18 characters
    assert encode_password("secret1") == b"secret1\n"
    assert encode_password("old", "new.pw_1") == b"old new.pw_1\n"
    assert encode_move("e5") == b"e5\n"
    assert encode_move("E5") == b"E5\n"
    assert encode_move("T19") == b"T19\n"
    assert encode_move("pass") == b"pass\n" and encode_move("PASS") == b"PASS\n"
    assert encode_move("resign") == b"resign\n"
    assert encode_move("d4", {"winrate": 0.55, "visits": 800}) == b'd4 {"winrate":0.55,"visits":800}\n'
    assert encode_move("d4", '{"winrate": 0.5}') == b'd4 {"winrate": 0.5}\n'
    assert encode_ready() == b"ready\n"
    assert encode_quit() == b"quit\n"


@pytest.mark.parametrize("call", [
    lambda: encode_e1("two\nlines"), lambda: encode_e1("cr\r"), lambda: encode_e1(None),
    lambda: encode_e1("x genmove_analyze"), lambda: encode_e1("x", genmove_analyze=1),
    lambda: encode_username("ab"), lambda: encode_username("a" * 19), lambda: encode_username("bad name"),
    lambda: encode_username("émile"), lambda: encode_username("x\n"), lambda: encode_username(None),
    lambda: encode_move("i5"), lambda: encode_move("e5 d4"), lambda: encode_move("e"), lambda: encode_move("5e"),
    lambda: encode_move("e100"), lambda: encode_move("e0"), lambda: encode_move("pas"), lambda: encode_move(""),
    lambda: encode_move("e5\n"), lambda: encode_move(None), lambda: encode_move(("e", 5)),
    lambda: encode_move("e5", "a\nb"), lambda: encode_move("e5", " "), lambda: encode_move("e5", {"x": float("nan")}),
    lambda: encode_move("e5", {"x": object()}), lambda: encode_reply(Username()), lambda: encode_reply("ready"),
])
def test_client_encoders_reject(call):
    with pytest.raises(UsageError):
        call()


@pytest.mark.parametrize(("password", "new"), [("pw", None), ("x" * 17, None), ("has space", None),
                                               ("sécret", None), ("good-pw", "no"), ("good-pw", "bad pw!"),
                                               (None, None), ("line\nbreak", None)])
def test_passwords_never_leak(password, new):
    with pytest.raises(UsageError) as info:
        encode_password(password, new)
    for secret in (password, new):
        if isinstance(secret, str) and len(secret) > 2:
            assert secret not in str(info.value)
    reply = PasswordReply("hunter22", "hunter33")
    assert "hunter" not in repr(reply) and "hunter" not in str(reply)
    with pytest.raises(ProtocolError) as info:
        parse_reply("password", "hunter22 hunter33 hunter44")
    assert "hunter" not in str(info.value)


@pytest.mark.parametrize(("prompt", "line", "reply"), [
    ("protocol", "e1 cgosGtp 0.98 alpha - engine client for CGOS", E1("cgosGtp 0.98 alpha - engine client for CGOS")),
    ("protocol", "e1 genmove_analyze mybot", E1("mybot", True)),
    ("protocol", "e1 mybot genmove_analyze", E1("mybot genmove_analyze", True)),
    ("protocol", "e1", E1("")),
    ("protocol", "quit", Quit()),
    ("username", "alpha-bot", UsernameReply("alpha-bot")),
    ("username", "quit", UsernameReply("quit")),
    ("password", "secret1\r", PasswordReply("secret1")),
    ("password", "old new", PasswordReply("old", "new")),
    ("genmove", "e5", MoveReply("e5")),
    ("genmove", "PASS", MoveReply("PASS")),
    ("genmove", "resign", MoveReply("resign")),
    ("genmove", "quit", Quit()),
    ("genmove", 'd4 {"winrate":0.55}', MoveReply('d4 {"winrate":0.55}')),
    ("gameover", "ready", Ready()),
    ("gameover", "quit", Quit()),
])
def test_parse_reply(prompt, line, reply):
    assert parse_reply(prompt, line) == reply


def test_parse_reply_genmove_analyze_and_errors():
    assert parse_reply("genmove", 'd4 {"winrate":0.55}', genmove_analyze=True) == MoveReply("d4", '{"winrate":0.55}')
    assert parse_reply("genmove", "d4", genmove_analyze=True) == MoveReply("d4")
    for prompt, line in [("protocol", "v1 viewer"), ("protocol", "hello"), ("protocol", ""), ("gameover", "ok"),
                         ("gameover", ""), ("genmove", ""), ("password", ""), ("password", "a b c")]:
        with pytest.raises(ProtocolError):
            parse_reply(prompt, line)
    with pytest.raises(UsageError):
        parse_reply("setup", "x")
    with pytest.raises(UsageError):
        parse_reply("genmove", b"e5")


@pytest.mark.parametrize(("prompt", "reply"), [
    ("protocol", E1("cgosPython 1.0.0")), ("protocol", E1("bot", True)), ("protocol", E1("", True)),
    ("username", UsernameReply("alpha-bot")), ("password", PasswordReply("secret1")),
    ("password", PasswordReply("old", "new")), ("genmove", MoveReply("E5")), ("genmove", MoveReply("pass")),
    ("gameover", Ready()), ("gameover", Quit()),
])
def test_client_messages_round_trip(prompt, reply):
    wire = encode_reply(reply)
    assert wire.endswith(b"\n") and wire.count(b"\n") == 1
    assert parse_reply(prompt, wire[:-1].decode()) == reply
    with_json = MoveReply("d4", '{"visits":800}')
    assert parse_reply("genmove", encode_reply(with_json)[:-1].decode(), genmove_analyze=True) == with_json


# --- server-side encoder and hypothesis round trips ------------------------------------------------

def test_encode_server_messages_exact():
    for line, event in SERVER_LINES:
        if isinstance(event, Unknown) or line.startswith("Sorry") or line in ("gameover 2024-03-01 W+6.0",):
            continue
        wire = encode(event).decode()
        if isinstance(event, Setup):
            assert parse_server_line(wire[:-1]) == event
        else:
            assert wire == line + ("\n" if line != "info" else " \n"), line
    assert encode(Setup(0, 9, 7, 900.0, Player("b"), Player("a"))) == b"setup 0 9 7 900000 b a\n"
    assert encode(Unknown("hello")) == b"hello\n"


@pytest.mark.parametrize("event", [
    Genmove("x", 1.0), Genmove("b", float("nan")), Genmove("b", 1e13), Genmove("b", "1"), Play("b", "e 5", 1.0),
    Play("b", "", 1.0), Info("a\nb"), Error("a\rb"), Gameover("", "W+1", ""), Gameover("d", "W +1", ""),
    Gameover("d", "W+1", "x\ny"), Protocol(("a b",)), Setup(-1, 9, 7.0, 1.0, Player("a"), Player("b")),
    Setup(1, 26, 7.0, 1.0, Player("a"), Player("b")), Setup(1, 9, float("nan"), 1.0, Player("a"), Player("b")),
    Setup(1, 9, 1e-7, 1.0, Player("a"), Player("b")), Setup(1, 9, 7.0, -1.0, Player("a"), Player("b")),
    Setup(1, 9, 7.0, 1.0, Player("a(b)"), Player("b")), Setup(1, 9, 7.0, 1.0, Player("a", "1 2"), Player("b")),
    Setup(1, 9, 7.0, 1.0, "a", Player("b")), Setup(1, 9, 7.0, 1.0, Player("a"), Player("b"), (("e5",),)),
    Unknown("a\nb"), "username", None,
])
def test_encode_rejects(event):
    with pytest.raises(UsageError):
        encode(event)


words = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
                              blacklist_characters="()\x85", max_codepoint=0x2FFF), min_size=1, max_size=10)
free = st.text(st.characters(blacklist_categories=("Cs", "Cc"), max_codepoint=0x2FFF), max_size=30)
ms = st.integers(-10**6, 10**10).map(lambda m: m / 1000)
colors = st.sampled_from(["b", "w"])
players = st.builds(Player, words, st.none() | st.from_regex(r"[0-9]{1,4}\??", fullmatch=True))
setups = st.builds(Setup, st.integers(0, 10**9), st.integers(1, 25), st.integers(-200, 200).map(lambda k: k / 2),
                   st.integers(0, 10**10).map(lambda m: m / 1000), players, players,
                   st.lists(st.tuples(words, ms), max_size=6).map(tuple))
server_events = st.one_of(
    st.builds(Protocol, st.lists(words, max_size=3).map(tuple)), st.just(Username()), st.just(cgos.Password()),
    setups, st.builds(Genmove, colors, ms), st.builds(Play, colors, words, ms),
    st.builds(Gameover, words, words, free.map(str.strip)),
    st.builds(Info, free), st.builds(Error, free.map(str.strip)),
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(server_events, min_size=1, max_size=6), st.data())
def test_server_events_round_trip_any_chunking(events, data):
    stream = b"".join(encode(e) for e in events)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=12))
    got, dec = decode(*split_at(stream, cuts))
    assert got == events and dec.buffered == 0
    assert [type(e) for e in got] == [type(e) for e in events]


@settings(max_examples=100, deadline=None)
@given(st.from_regex(r"[A-Za-z0-9_.-]{3,18}", fullmatch=True), st.from_regex(r"[A-Za-z0-9_.-]{3,16}", fullmatch=True),
       st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=20))
def test_client_encoders_round_trip_property(name, password, text):
    assert parse_reply("username", encode_username(name)[:-1].decode()) == UsernameReply(name)
    assert parse_reply("password", encode_password(password)[:-1].decode()) == PasswordReply(password)
    if "genmove_analyze" not in text:
        assert parse_reply("protocol", encode_e1(text)[:-1].decode()) == E1(text)
        assert parse_reply("protocol", encode_e1(text, True)[:-1].decode()) == E1(text, True)


# --- fuzz: only our error types escape ----------------------------------------------------------------

cgos_noise = st.sampled_from([b"\n", b"\r\n", b" ", b"setup", b"setup 1 9 7.0 60000 a b", b"genmove", b"play",
                              b"gameover", b"info", b"Error:", b"b", b"w", b"e5", b"60000", b"(", b")", b"?",
                              b"\xff", b"-", b".", b"nan", b"1e5", b"9" * 30])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40) | cgos_noise, max_size=20))
def test_fuzz_decoder_raises_only_protocol_error(chunks):
    dec = Decoder()
    for chunk in chunks:
        dec.feed(chunk)
        for _ in range(64):
            try:
                if dec.next_event() is None:
                    break
            except ProtocolError:
                pass


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(cgos.PROMPTS), st.text(max_size=30), st.booleans())
def test_fuzz_parse_reply_raises_only_protocol_error(prompt, line, analyze):
    try:
        reply = parse_reply(prompt, line, genmove_analyze=analyze)
    except ProtocolError:
        return
    assert isinstance(reply, (E1, UsernameReply, PasswordReply, MoveReply, Ready, Quit))


def test_events_are_frozen():
    event = Genmove("b", 1.0)
    with pytest.raises(AttributeError):
        event.color = "w"  # type: ignore[misc]
    assert hash(Setup(1, 9, 7.0, 1.0, Player("a"), Player("b"), (("e5", 1.0),)))
