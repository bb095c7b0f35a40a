"""Tests for the sans-I/O gnd codec (protocol/gnd.py, docs/protocols/gnd.md sections 2-7)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import gnd
from protocol.gnd import (
    DODO, GOPHER, ProtocolError, Request, Turn, UsageError, cell_key, cell_text, decode_action,
    encode_action, parse_cell, parse_token, parse_turn, turn_json,
)


def hexagon(size: int) -> list[tuple[int, int]]:
    n = size - 1
    return [(q, r) for q in range(-n, n + 1) for r in range(-n, n + 1) if abs(q - r) <= n]


def server_turn(size: int = 4, **extra) -> dict:
    """A /play response shaped like the example of docs/protocols/gnd.md section 2.7, keys
    without spaces."""
    cells = {f"({q},{r})": (1 if q + r <= -3 else 2 if q + r >= 3 else 0) for q, r in hexagon(size)}
    body = {"Game": 1, "Player": 2, "Clocktime": 357.8, "MatchToken": "S5OgCTJviF",
            "Grid": {"Size": size, "Grid": cells}, "Finished": False, "Winner": 0, "FinalScore": 0}
    body.update(extra)
    return body


# --- constants, games, cells --------------------------------------------------------------

def test_constants():
    assert (gnd.GOPHER, gnd.DODO) == (0, 1)
    assert gnd.GAME_NAMES == ("gopher", "dodo")
    assert (gnd.EMPTY, gnd.RED, gnd.BLUE) == (0, 1, 2)
    assert gnd.ILLEGAL_ACTION == 310
    assert issubclass(ProtocolError, ValueError) and issubclass(UsageError, ValueError)


def test_game_names():
    assert gnd.game_number("gopher") == 0 and gnd.game_number("dodo") == 1
    assert gnd.game_number("Dodo") == 1
    assert gnd.game_name(0) == "gopher" and gnd.game_name(1) == "dodo"
    for bad in ("chess", "", None, 3):
        with pytest.raises(UsageError):
            gnd.game_number(bad)
    for bad in (2, -1, True, "0"):
        with pytest.raises(UsageError):
            gnd.game_name(bad)


@pytest.mark.parametrize(("text", "cell"), [
    ("(0,0)", (0, 0)), ("(0, 0)", (0, 0)), ("(-3,-3)", (-3, -3)), ("(1, -2)", (1, -2)),
    (" ( -1 ,  2 ) ", (-1, 2)), ("(12,-7)", (12, -7)), ("(-0,0)", (0, 0)),
])
def test_parse_cell_accepts(text, cell):
    assert parse_cell(text) == cell


@pytest.mark.parametrize("text", [
    "", "()", "(1)", "(1,2,3)", "1,2", "(1,2", "1,2)", "(a,b)", "(1.0,2)", "(+1,2)", "(1;2)",
    "(1,2)x", "__import__('os')", "(- 1,2)", "(١,2)", "[1,2]", "(1,,2)", "(9999999999,1)",
])
def test_parse_cell_rejects(text):
    with pytest.raises(ProtocolError):
        parse_cell(text)


@pytest.mark.parametrize("bad", [None, 3, b"(0,0)", ["(0,0)"]])
def test_parse_cell_rejects_non_strings(bad):
    with pytest.raises(ProtocolError):
        parse_cell(bad)


def test_cell_forms():
    assert cell_key((-1, 2)) == "(-1,2)"
    assert cell_text((-1, 2)) == "(-1, 2)" == str((-1, 2))  # the official client's str(tuple)
    for bad in [(1,), (1, 2, 3), ("1", 2), (1.0, 2), (True, 0), None, "(1,2)"]:
        with pytest.raises(UsageError):
            cell_key(bad)
        with pytest.raises(UsageError):
            cell_text(bad)


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6))
def test_cell_round_trips(q, r):
    assert parse_cell(cell_key((q, r))) == (q, r)
    assert parse_cell(cell_text((q, r))) == (q, r)


# --- actions ------------------------------------------------------------------------------

def test_encode_action_exact_forms():
    assert encode_action(GOPHER, (0, 0)) == ("(0, 0)",)
    assert encode_action(GOPHER, [2, -1]) == ("(2, -1)",)
    assert encode_action(DODO, ((-1, -2), (0, -1))) == ("(-1, -2)", "(0, -1)")


@pytest.mark.parametrize(("game", "action"), [
    (GOPHER, ((0, 0), (1, 1))), (GOPHER, (0,)), (GOPHER, "(0, 0)"), (GOPHER, None),
    (DODO, (0, 0)), (DODO, ((0, 0),)), (DODO, ((0, 0), (1, 1), (2, 2))), (DODO, ((0, 0), "x")),
    (2, (0, 0)),
])
def test_encode_action_wrong_shape_is_usage_error(game, action):
    with pytest.raises(UsageError):
        encode_action(game, action)


def test_decode_action_with_and_without_spaces():
    assert decode_action(GOPHER, ["(0, 0)"]) == (0, 0)
    assert decode_action(GOPHER, ("(3,-1)",)) == (3, -1)
    assert decode_action(DODO, ["(-1,-2)", "(0, -1)"]) == ((-1, -2), (0, -1))


@pytest.mark.parametrize(("game", "strings"), [
    (GOPHER, []), (GOPHER, ["(0, 0)", "(1, 1)"]), (GOPHER, ["0,0"]), (GOPHER, "(0, 0)"),
    (GOPHER, [[0, 0]]), (GOPHER, None), (DODO, ["(0, 0)"]), (DODO, ["(0, 0)", "x"]),
    (DODO, ["(0, 0)", "(1, 1)", "(2, 2)"]), (DODO, {"a": 1}),
])
def test_decode_action_garbage_is_protocol_error(game, strings):
    with pytest.raises(ProtocolError):
        decode_action(game, strings)


cells = st.tuples(st.integers(-20, 20), st.integers(-20, 20))


@given(cells)
def test_gopher_action_round_trip(cell):
    assert decode_action(GOPHER, encode_action(GOPHER, cell)) == cell


@given(st.tuples(cells, cells))
def test_dodo_action_round_trip(move):
    assert decode_action(DODO, encode_action(DODO, move)) == move


# --- requests -----------------------------------------------------------------------------

def test_request_json_shape_and_key_order():
    body = Request().to_json()
    assert body == {"Token": "", "PossibleGames": [], "Id": 0, "Members": "", "Password": "", "Action": []}
    assert list(body) == ["Token", "PossibleGames", "Id", "Members", "Password", "Action"]
    assert json.dumps(body) == ('{"Token": "", "PossibleGames": [], "Id": 0, "Members": "", "Password": "", '
                                '"Action": []}')


def test_request_helpers():
    reg = gnd.register(12, "toto", "totovelo", ["dodo", "gopher"]).to_json()
    assert reg == {"Token": "", "PossibleGames": [1, 0], "Id": 12, "Members": "toto",
                   "Password": "totovelo", "Action": []}
    assert gnd.register(3, "a", "b", [0]).possible_games == (0,)
    assert gnd.start("tok").to_json() == {"Token": "tok", "PossibleGames": [], "Id": 0, "Members": "",
                                          "Password": "", "Action": []}
    body = gnd.play("tok", encode_action(DODO, ((1, 2), (0, 1)))).to_json()
    assert body["Action"] == ["(1, 2)", "(0, 1)"] and body["Token"] == "tok"
    assert list(body) == ["Token", "PossibleGames", "Id", "Members", "Password", "Action"]
    with pytest.raises(UsageError):
        gnd.register("12", "toto", "x", [0])
    with pytest.raises(UsageError):
        gnd.register(12, "toto", "x", ["chess"])
    with pytest.raises(UsageError):
        gnd.play("tok", [(0, 0)])
    with pytest.raises(UsageError):
        gnd.start(None)


def test_password_never_in_repr():
    req = gnd.register(12, "toto", "s3cr3t-pw", [0])
    assert "s3cr3t-pw" not in repr(req) and "s3cr3t-pw" not in str(req)
    assert "toto" in repr(req)
    assert req.to_json()["Password"] == "s3cr3t-pw"
    with pytest.raises(ProtocolError) as info:
        Request.from_json({"Password": ["s3cr3t-pw"]})
    assert "s3cr3t-pw" not in str(info.value)


def test_request_is_hashable_and_lists_become_tuples():
    req = Request(token="t", possible_games=[1, 0], action=["(0, 0)"])
    assert req.possible_games == (1, 0) and req.action == ("(0, 0)",)
    hash(req)


def test_request_from_json_round_trip_and_tolerance():
    req = gnd.register(7, "ann & bob", "pw", [0, 1])
    assert Request.from_json(json.loads(json.dumps(req.to_json()))) == req
    assert Request.from_json({}) == Request()
    assert Request.from_json({"Token": "x", "Extra": [1, {"y": 2}]}) == Request(token="x")
    # null as a Go server reads it: the empty value
    assert Request.from_json({"Token": None, "Action": None, "PossibleGames": None, "Id": None}) == Request()


@pytest.mark.parametrize("obj", [
    [], "x", 3, None,
    {"Id": "12"}, {"Id": 1.0}, {"Id": True},
    {"Token": 5}, {"Members": ["a"]}, {"Password": 1},
    {"PossibleGames": "01"}, {"PossibleGames": [0, "1"]}, {"PossibleGames": [True]}, {"PossibleGames": {"0": 1}},
    {"Action": "(0, 0)"}, {"Action": [[0, 0]]}, {"Action": [None]},
])
def test_request_from_json_wrong_types(obj):
    with pytest.raises(ProtocolError):
        Request.from_json(obj)


@given(st.builds(Request, token=st.text(), possible_games=st.lists(st.integers(-5, 5)).map(tuple),
                 id=st.integers(-10**9, 10**9), members=st.text(), password=st.text(),
                 action=st.lists(st.text(), max_size=3).map(tuple)))
def test_request_round_trip(req):
    assert Request.from_json(json.loads(json.dumps(req.to_json()))) == req


# --- responses ----------------------------------------------------------------------------

def test_parse_token():
    assert parse_token({"Token": "abc", "Other": 1}) == "abc"
    for bad in ({}, {"Token": ""}, {"Token": 5}, {"Token": None}, [], "abc", None):
        with pytest.raises(ProtocolError):
            parse_token(bad)


def test_parse_turn_play_response():
    turn = parse_turn(server_turn())
    assert (turn.game, turn.player, turn.size, turn.match_token) == (1, 2, 4, "S5OgCTJviF")
    assert turn.clocktime == 357.8 and isinstance(turn.clocktime, float)
    assert (turn.finished, turn.winner, turn.final_score) == (False, 0, 0)
    cells = turn.cells()
    assert len(cells) == 37 and cells[(-3, -3)] == 1 and cells[(3, 3)] == 2 and cells[(0, 0)] == 0
    assert [c for c, _ in turn.grid] == sorted(cells)
    hash(turn)


def test_parse_turn_start_response_defaults_and_int_clock():
    body = server_turn(Clocktime=360, Player=1)
    for key in ("Finished", "Winner", "FinalScore"):
        del body[key]
    turn = parse_turn(body)
    assert turn.clocktime == 360.0 and isinstance(turn.clocktime, float)
    assert (turn.finished, turn.winner, turn.final_score) == (False, 0, 0)
    assert turn.player == 1


def test_parse_turn_keys_with_spaces_and_unknown_fields():
    body = server_turn(size=3, Surprise={"x": [1]})
    body["Grid"]["Grid"] = {cell_text(k): 0 for k in hexagon(3)}
    body["Grid"]["Extra"] = 1
    turn = parse_turn(body)
    assert turn.size == 3 and set(turn.cells()) == set(hexagon(3))


def test_parse_turn_finished():
    turn = parse_turn(server_turn(Finished=True, Winner=2, FinalScore=-1))
    assert (turn.finished, turn.winner, turn.final_score) == (True, 2, -1)


def _mutate(path: list, value, delete: bool = False) -> dict:
    body = server_turn()
    target = body
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


@pytest.mark.parametrize(("path", "value", "field_name"), [
    (["Game"], 2, "Game"), (["Game"], "1", "Game"), (["Game"], None, "Game"), (["Game"], True, "Game"),
    (["Player"], 0, "Player"), (["Player"], 3, "Player"), (["Player"], 1.0, "Player"),
    (["Clocktime"], "12", "Clocktime"), (["Clocktime"], None, "Clocktime"), (["Clocktime"], True, "Clocktime"),
    (["Clocktime"], float("nan"), "Clocktime"), (["Clocktime"], float("inf"), "Clocktime"),
    (["Grid"], [], "Grid"), (["Grid"], None, "Grid"),
    (["Grid", "Size"], "4", "Size"), (["Grid", "Size"], 0, "Size"), (["Grid", "Size"], 10**9, "Size"),
    (["Grid", "Size"], 5, "cells"), (["Grid", "Grid"], [], "Grid.Grid"),
    (["Grid", "Grid", "(0,0)"], 3, "(0,0)"), (["Grid", "Grid", "(0,0)"], "1", "(0,0)"),
    (["Grid", "Grid", "(0,0)"], True, "(0,0)"), (["Grid", "Grid", "(0,0)"], None, "(0,0)"),
    (["MatchToken"], 5, "MatchToken"),
    (["Finished"], 1, "Finished"), (["Finished"], "true", "Finished"),
    (["Winner"], 3, "Winner"), (["Winner"], "2", "Winner"), (["FinalScore"], 1.5, "FinalScore"),
])
def test_parse_turn_names_the_bad_field(path, value, field_name):
    with pytest.raises(ProtocolError, match=r"(?i)" + field_name.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        parse_turn(_mutate(path, value))


@pytest.mark.parametrize("key", ["Game", "Player", "Clocktime", "Grid"])
def test_parse_turn_missing_required(key):
    with pytest.raises(ProtocolError, match=key):
        parse_turn(_mutate([key], None, delete=True))


def test_parse_turn_grid_checks():
    body = server_turn()
    del body["Grid"]["Grid"]["(0,0)"]
    with pytest.raises(ProtocolError, match="36 cells"):
        parse_turn(body)
    # right count, but off the hexagon (docs/protocols/gnd.md section 7)
    body["Grid"]["Grid"]["(-3,1)"] = 0
    with pytest.raises(ProtocolError, match="off the hexagon"):
        parse_turn(body)
    body = server_turn()
    del body["Grid"]["Grid"]["(0,0)"]
    body["Grid"]["Grid"]["(1, 1)"] = 0  # "(1,1)" is there already
    with pytest.raises(ProtocolError, match="twice"):
        parse_turn(body)
    body = server_turn()
    del body["Grid"]["Grid"]["(0,0)"]
    body["Grid"]["Grid"]["zero"] = 0
    with pytest.raises(ProtocolError, match="zero"):
        parse_turn(body)


def test_turn_json_exact_shape():
    turn = Turn(game=0, player=1, clocktime=180, size=2,
                grid=gnd.grid_pairs({c: 0 for c in hexagon(2)} | {(0, 0): 1}), match_token="ABCDEFGHIJ")
    body = turn_json(turn, include_result=False)
    assert list(body) == ["Game", "Player", "Clocktime", "Grid", "MatchToken"]
    assert body["Clocktime"] == 180.0 and isinstance(body["Clocktime"], float)
    assert list(body["Grid"]) == ["Grid", "Size"] and body["Grid"]["Size"] == 2
    assert body["Grid"]["Grid"]["(0,0)"] == 1 and "(0, 0)" not in body["Grid"]["Grid"]
    assert len(body["Grid"]["Grid"]) == 7
    full = turn_json(turn, include_result=True)
    assert list(full) == ["Game", "Player", "Clocktime", "Grid", "MatchToken", "Finished", "Winner", "FinalScore"]
    assert (full["Finished"], full["Winner"], full["FinalScore"]) == (False, 0, 0)


@st.composite
def turns(draw):
    size = draw(st.integers(1, 5))
    grid = {c: draw(st.sampled_from((0, 1, 2))) for c in hexagon(size)}
    finished = draw(st.booleans())
    return Turn(game=draw(st.sampled_from((0, 1))), player=draw(st.sampled_from((1, 2))),
                clocktime=draw(st.floats(-1.0, 1e4, allow_nan=False)), size=size,
                grid=gnd.grid_pairs(grid), match_token=draw(st.text(max_size=10)), finished=finished,
                winner=draw(st.sampled_from((1, 2))) if finished else 0,
                final_score=draw(st.sampled_from((1, -1))) if finished else 0)


@settings(max_examples=60)
@given(turns())
def test_turn_round_trip(turn):
    assert parse_turn(json.loads(json.dumps(turn_json(turn, include_result=True)))) == turn
    partial = parse_turn(json.loads(json.dumps(turn_json(turn, include_result=False))))
    assert partial == Turn(turn.game, turn.player, turn.clocktime, turn.size, turn.grid, turn.match_token)


# --- fuzz: garbage raises ProtocolError and nothing else ----------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(
        st.sampled_from(["Token", "PossibleGames", "Id", "Members", "Password", "Action", "Game", "Player",
                         "Clocktime", "Grid", "Size", "MatchToken", "Finished", "Winner", "FinalScore",
                         "(0,0)", "(0, 0)", "x"]) | st.text(max_size=6),
        children, max_size=8),
    max_leaves=25)


def _only_protocol_errors(fn, *args) -> None:
    try:
        fn(*args)
    except ProtocolError:
        pass


@pytest.mark.slow
@settings(max_examples=300)
@given(json_values)
def test_fuzz_decoders_raise_only_protocol_error(obj):
    _only_protocol_errors(Request.from_json, obj)
    _only_protocol_errors(parse_turn, obj)
    _only_protocol_errors(parse_token, obj)
    _only_protocol_errors(parse_cell, obj)
    _only_protocol_errors(decode_action, GOPHER, obj)
    _only_protocol_errors(decode_action, DODO, obj)


@settings(max_examples=150)
@given(st.data())
def test_fuzz_mutated_turns_raise_only_protocol_error(data):
    body = server_turn(size=2)
    target = data.draw(st.sampled_from(["top", "grid", "cells"]))
    where = body if target == "top" else body["Grid"] if target == "grid" else body["Grid"]["Grid"]
    key = data.draw(st.sampled_from(sorted(where)) | st.text(max_size=6))
    if data.draw(st.booleans()):
        where.pop(key, None)
    else:
        where[key] = data.draw(json_values)
    _only_protocol_errors(parse_turn, body)


# -- hostile but well-formed answers (issue 11): each is our ProtocolError, never a crash -----------


@pytest.mark.parametrize("body", [
    b"\xff\xfe{}",  # not UTF-8
    b"[" * 100_000 + b"]" * 100_000,  # nesting deeper than the parser's recursion limit
    b'{"Game": 0',  # cut short
    b"",
])
def test_loads_turns_every_bad_body_into_a_protocol_error(body):
    with pytest.raises(gnd.ProtocolError):
        gnd.loads(body)


@pytest.mark.parametrize("digits, sign", [(309, 1), (400, -1), (5000, 1)])
def test_a_clocktime_too_large_for_a_float_is_a_protocol_error(digits, sign):
    turn = {"Game": 0, "Player": 1, "Clocktime": sign * 10 ** digits, "Grid": []}
    with pytest.raises(gnd.ProtocolError, match="Clocktime"):
        gnd.parse_turn(turn)


def test_a_huge_clocktime_in_json_text_is_a_protocol_error():
    body = b'{"Game": 0, "Player": 1, "Clocktime": 1' + b"0" * 400 + b', "Grid": []}'
    with pytest.raises(gnd.ProtocolError):
        gnd.parse_turn(gnd.loads(body))
