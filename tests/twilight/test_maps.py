"""Map loading (docs/protocols/twilight.md section 11) and legal moves on the shipped maps."""

import random

import pytest

from bots.twilight.maps import MapError, load_map, parse_map, shipped_maps, to_xml
from bots.twilight.rules import Species, validate

KNOWN = {"all_in", "humans_everywhere", "map8", "splitiskey", "testmap2", "thetrap"}


def doc(body, root='<Map Rows="5" Columns="10">'):
    return f"{root}\n{body}\n</Map>"


START = '<Vampires X="4" Y="3" Count="4"/>\n<Werewolves X="4" Y="1" Count="4"/>'


def test_known_maps_are_shipped():
    maps = shipped_maps()
    assert KNOWN <= set(maps)
    assert all(path.is_file() and path.suffix == ".xml" for path in maps.values())


@pytest.mark.parametrize("name", sorted(shipped_maps()))
def test_every_shipped_map_loads(name):
    s = load_map(name)
    assert (s.to_move, s.ply, s.max_plies) == (Species.VAMPIRES, 0, 200)
    assert len(s.vampires) == 1 and len(s.werewolves) == 1 and s.humans
    cells = [(x, y) for g in (s.humans, s.vampires, s.werewolves) for x, y, _ in g]
    assert len(cells) == len(set(cells))
    assert all(0 <= x < s.cols and 0 <= y < s.rows for x, y in cells)
    assert load_map(str(shipped_maps()[name])) == s  # by path as well as by name
    assert parse_map(to_xml(s)) == s


def test_thetrap():
    s = load_map("thetrap", max_plies=50)
    assert (s.rows, s.cols, s.max_plies) == (5, 10, 50)
    assert s.vampires == ((4, 3, 4),) and s.werewolves == ((4, 1, 4),)
    assert s.humans == ((2, 2, 4), (9, 0, 2), (9, 2, 1), (9, 4, 2))


def test_x_is_the_column_on_a_wide_map():
    s = load_map("testmap2")
    assert (s.rows, s.cols) == (15, 29)
    assert (28, 0, 2) in s.humans
    assert s.vampires == ((28, 14, 10),) and s.werewolves == ((0, 0, 10),)
    s = load_map("all_in")
    assert s.vampires == ((0, 2, 12),) and s.werewolves == ((1, 1, 8),)
    assert s.humans == ((0, 0, 10), (2, 0, 6))


@pytest.mark.parametrize("text,problem", [
    ("this is not xml", "not valid XML"),
    (doc(START).replace("</Map>", ""), "not valid XML"),
    ('<Board Rows="5" Columns="10">' + START + "</Board>", "root element is <Board>"),
    (doc(START, '<Map Columns="10">'), "no Rows attribute"),
    (doc(START, '<Map Rows="five" Columns="10">'), "Rows='five' is not an integer"),
    (doc(START + '<Humans X="a" Y="1" Count="2"/>'), "X='a' is not an integer"),
    (doc(START + '<Humans X="10" Y="1" Count="2"/>'), "X=10 is outside 0..9"),
    (doc(START + '<Humans X="0" Y="5" Count="2"/>'), "Y=5 is outside 0..4"),
    (doc(START + '<Humans X="0" Y="-1" Count="2"/>'), "Y=-1 is outside"),
    (doc(START + '<Humans X="0" Y="0" Count="0"/>'), "Count=0 is outside"),
    (doc(START + '<Humans X="0" Y="0"/>'), "no Count attribute"),
    (doc('<Vampires X="4" Y="3" Count="4"/>'), "no <Werewolves> start cell"),
    (doc('<Werewolves X="4" Y="1" Count="4"/>'), "no <Vampires> start cell"),
    (doc(START + '<Vampires X="0" Y="0" Count="3"/>'), "more than one <Vampires>"),
    (doc(START + '<Werewolves X="0" Y="0" Count="3"/>'), "more than one <Werewolves>"),
    (doc(START + '<Castle X="0" Y="0" Count="3"/>'), "unknown element <Castle>"),
    (doc('<Vampires X="4" Y="3" Count="4"/><Werewolves X="4" Y="3" Count="4"/>'), "same cell"),
])
def test_malformed_maps_name_the_source_and_the_problem(text, problem):
    with pytest.raises(MapError) as info:
        parse_map(text, where="maps/broken.xml")
    message = str(info.value)
    assert message.startswith("maps/broken.xml: ")
    assert problem in message
    assert isinstance(info.value, ValueError)


def test_duplicate_humans_keep_the_last_entry():
    s = parse_map(doc(START + '<Humans X="1" Y="1" Count="3"/><Humans X="1" Y="1" Count="7"/>'))
    assert s.humans == ((1, 1, 7),)


def test_humans_on_a_start_cell_are_dropped():
    body = ('<Humans X="4" Y="3" Count="9"/>' + START
            + '<Humans X="4" Y="1" Count="2"/><Humans X="0" Y="0" Count="1"/>')
    s = parse_map(doc(body))
    assert s.humans == ((0, 0, 1),)
    assert s.vampires == ((4, 3, 4),) and s.werewolves == ((4, 1, 4),)


def test_declaration_comments_and_attribute_order():
    text = ('<?xml version="1.0" encoding="utf-8" ?>\n<!-- a comment -->\n'
            '<Map Columns="7" Rows="3">\n  <!-- inside -->\n'
            '  <Humans Count="5" Y="2" X="6"/>\n'
            '  <Vampires X="0" Y="0" Count="3"/>\n  <Werewolves X="6" Y="0" Count="3"/>\n</Map>\n')
    s = parse_map(text, max_plies=30)
    assert (s.rows, s.cols, s.max_plies) == (3, 7, 30)
    assert s.humans == ((6, 2, 5),) and s.vampires == ((0, 0, 3),) and s.werewolves == ((6, 0, 3),)


def test_load_map_from_a_file_and_errors(tmp_path):
    good = tmp_path / "tiny.xml"
    good.write_text(doc(START + '<Humans X="9" Y="4" Count="2"/>'), encoding="utf-8")
    assert load_map(str(good)).humans == ((9, 4, 2),)
    missing = tmp_path / "nowhere.xml"
    with pytest.raises(MapError, match="nowhere.xml"):
        load_map(str(missing))
    with pytest.raises(MapError, match="not a shipped map"):
        load_map("no_such_map")
    bad = tmp_path / "bad.xml"
    bad.write_text(doc(START + "<Foo/>"), encoding="utf-8")
    with pytest.raises(MapError) as info:
        load_map(str(bad))
    assert str(bad) in str(info.value) and "unknown element <Foo>" in str(info.value)
    binary = tmp_path / "binary.xml"
    binary.write_bytes(b"\xff\xfe\x00<Map")
    with pytest.raises(MapError, match="binary.xml"):
        load_map(str(binary))


# -- legal_moves on the shipped maps ---------------------------------------------------------

@pytest.mark.parametrize("name", sorted(shipped_maps()))
def test_legal_moves_validate_on_shipped_maps(name):
    state, rng = load_map(name), random.Random(name)
    checked = 0
    for _ in range(40):
        if state.is_terminal():
            break
        moves, own = state.legal_moves(), {(x, y): n for x, y, n in state.groups(state.to_move)}
        assert moves
        for m in moves:
            validate(state, state.to_move, m)  # raises IllegalMove if not
            assert len(m) == 1 and m[0].count == own[m[0][:2]]  # whole groups
        checked += len(moves)
        state = state.play(rng.choice(moves), rng)
    assert checked >= 3


def test_legal_moves_of_thetrap():
    s = load_map("thetrap")
    assert sorted(m[0][3:] for m in s.legal_moves()) == [
        (3, 2), (3, 3), (3, 4), (4, 2), (4, 4), (5, 2), (5, 3), (5, 4)]
    assert all(m[0][:3] == (4, 3, 4) for m in s.legal_moves())
    wolves = s._replace(to_move=Species.WEREWOLVES)
    assert sorted(m[0][3:] for m in wolves.legal_moves()) == [
        (3, 0), (3, 1), (3, 2), (4, 0), (4, 2), (5, 0), (5, 1), (5, 2)]


def test_a_position_of_ours_may_have_several_groups_a_species():
    from bots.twilight.maps import parse_map, to_xml
    from bots.twilight.rules import Cell, Species, state_from_cells

    state = state_from_cells(8, 8, [Cell(2, 3, 0, 210, 0), Cell(4, 3, 0, 0, 104), Cell(6, 6, 0, 0, 68),
                                    Cell(0, 7, 250, 0, 0)], Species.VAMPIRES)
    text = to_xml(state)
    assert 'Groups="several"' in text and parse_map(text) == state
    assert 'Groups' not in to_xml(parse_map(doc(START)))  # one start cell each: the official format
    with pytest.raises(MapError, match="more than one <Werewolves>.*Groups=\"several\""):
        parse_map(text.replace(' Groups="several"', ""))
    with pytest.raises(MapError, match="Groups='many'"):
        parse_map(text.replace("several", "many"))
