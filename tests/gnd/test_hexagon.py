"""The gnd hexagon (bots/gnd/hexagon.py), checked against docs/protocols/gnd.md section 7."""

import pickle

import pytest
from hypothesis import given, settings, strategies as st

from bots.gnd.hexagon import BLUE, DIRECTIONS, RED, Grid, HexState, bits, grid

SIX = {(1, 0), (0, 1), (1, 1), (-1, 0), (0, -1), (-1, -1)}
FAST = settings(max_examples=40, deadline=None)


def on_board(c, n):
    q, r = c
    return abs(q) <= n - 1 and abs(r) <= n - 1 and abs(q - r) <= n - 1


def add(c, d):
    return c[0] + d[0], c[1] + d[1]


def rot60(c):
    """Rotation by 60 degrees: (1,0) -> (1,1) -> (0,1) -> (-1,0) -> ... (the neighbour ring in order)."""
    q, r = c
    return q - r, q


def cell_sets(sizes=range(2, 9)):
    """(size, set of cells) with a random subset of the hexagon."""
    return st.sampled_from(list(sizes)).flatmap(
        lambda n: st.tuples(st.just(n), st.sets(st.sampled_from(grid(n).cells))))


# -- cells -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 9))
def test_cell_count(n):
    g = grid(n)
    assert len(g.cells) == len(set(g.cells)) == 3 * n * (n - 1) + 1
    assert len(g.index) == len(g.cell_at) == len(g.cells)
    assert g.valid.bit_count() == len(g.cells)
    # exactly the cells of the inequalities in docs/protocols/gnd.md section 7
    box = {(q, r) for q in range(-n, n + 1) for r in range(-n, n + 1)}
    assert set(g.cells) == {c for c in box if on_board(c, n)}


def test_spec_cells_of_size_4():
    g = grid(4)
    assert (-3, 0) in g and (3, 0) in g
    assert (-3, 1) not in g and (3, -1) not in g
    assert (3, 3) in g and (-3, -3) in g and (3, -3) not in g
    assert len(g.cells) == 37 and len(grid(5).cells) == 61
    assert len(grid(6).cells) == 91 and len(grid(7).cells) == 127


@pytest.mark.parametrize("n", [0, 1, 13, -4])
def test_size_out_of_range(n):
    with pytest.raises(ValueError):
        Grid(n)


@pytest.mark.parametrize("n", [2, 5, 8])
def test_index_and_mask(n):
    g = grid(n)
    assert all(g.cell_at[g.index[c]] == c for c in g.cells)
    assert all(g.valid >> g.index[c] & 1 for c in g.cells)
    assert g.mask(g.cells) == g.valid
    assert g.mask([]) == 0
    assert g.to_cells(g.valid) == sorted(g.cells, key=g.index.__getitem__)


def test_distance_from_centre():
    g = grid(4)
    assert g.distance((0, 0), (0, 0)) == 0
    assert g.distance((0, 0), (3, 3)) == 3  # (1,1) is a single step
    assert g.distance((0, 0), (3, 0)) == 3
    assert g.distance((1, -1), (0, 0)) == 2  # (1,-1) is not a neighbour
    assert g.distance((-3, 0), (3, 0)) == 6
    for c in g.cells:
        assert g.distance(c, (0, 0)) == max(abs(c[0]), abs(c[1]), abs(c[0] - c[1])) <= 3


# -- neighbours --------------------------------------------------------------------------

def test_directions_are_the_spec_six():
    assert set(DIRECTIONS) == SIX and len(DIRECTIONS) == 6
    assert (1, -1) not in DIRECTIONS


@pytest.mark.parametrize("n", range(2, 9))
def test_neighbours_of_centre(n):
    g = grid(n)
    nb = {g.cell_at[i] for i in g.neighbours[g.index[(0, 0)]]}
    assert nb == SIX


@pytest.mark.parametrize("n", range(2, 9))
def test_neighbour_table_matches_definition(n):
    g = grid(n)
    for c in g.cells:
        got = [g.cell_at[i] for i in g.neighbours[g.index[c]]]
        assert len(got) == len(set(got))
        assert set(got) == {add(c, d) for d in SIX if on_board(add(c, d), n)}
        ring = g.distance(c, (0, 0))
        if ring < n - 1:
            assert len(got) == 6
        else:
            assert 3 <= len(got) < 6  # edge cells have fewer


def test_edge_cells_have_fewer_neighbours():
    g = grid(4)
    count = lambda c: len(g.neighbours[g.index[c]])  # noqa: E731
    assert count((3, 3)) == 3 and count((-3, -3)) == 3 and count((3, 0)) == 3 and count((0, -3)) == 3
    assert count((3, 1)) == 4 and count((-2, 1)) == 4 and count((0, 3)) == 3
    assert count((2, 2)) == 6 and count((0, 0)) == 6


@FAST
@given(cell_sets())
def test_shift_is_the_neighbour_relation(case):
    n, cells = case
    g = grid(n)
    x = g.mask(cells)
    assert len(g.shifts) == 6
    for d, s in zip(DIRECTIONS, g.shifts, strict=True):
        expected = {add(c, d) for c in cells if on_board(add(c, d), n)}
        got = g.shift(x, s)
        assert got & ~g.valid == 0  # never lands on padding or outside
        assert set(g.to_cells(got)) == expected


@pytest.mark.parametrize("n", [2, 4, 7])
def test_shift_of_everything_and_of_corners(n):
    g = grid(n)
    for d, s in zip(DIRECTIONS, g.shifts, strict=True):
        # the whole board shifted: every cell whose opposite neighbour is on the board
        back = (-d[0], -d[1])
        assert set(g.to_cells(g.shift(g.valid, s))) == {c for c in g.cells if on_board(add(c, back), n)}
    corner = g.mask([(n - 1, n - 1)])
    assert g.shift(corner, g.shifts[DIRECTIONS.index((1, 1))]) == 0
    assert g.shift(corner, g.shifts[DIRECTIONS.index((1, 0))]) == 0
    assert g.shift(corner, g.shifts[DIRECTIONS.index((0, 1))]) == 0
    assert g.to_cells(g.shift(corner, g.shifts[DIRECTIONS.index((-1, -1))])) == [(n - 2, n - 2)]


# -- bits --------------------------------------------------------------------------------

def test_bits_examples():
    assert list(bits(0)) == []
    assert list(bits(1)) == [0]
    assert list(bits(0b1011)) == [0, 1, 3]
    assert list(bits(1 << 200)) == [200]


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2 ** 300))
def test_bits_property(x):
    out = list(bits(x))
    assert out == sorted(set(out))
    assert sum(1 << i for i in out) == x
    assert len(out) == x.bit_count()


# -- symmetries --------------------------------------------------------------------------

def compose(a, b):
    """The table of 'a after b'."""
    return {i: a[b[i]] for i in b}


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_twelve_distinct_bijections(n):
    g = grid(n)
    idx = set(g.index.values())
    assert len(g.symmetries) == 12
    for t in g.symmetries:
        assert set(t) == idx and set(t.values()) == idx
    frozen = {tuple(sorted(t.items())) for t in g.symmetries}
    assert len(frozen) == 12


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_symmetries_preserve_adjacency(n):
    g = grid(n)
    for t in g.symmetries:
        for i, nb in g.neighbours.items():
            assert {t[j] for j in nb} == set(g.neighbours[t[i]])
        # and distance from the centre
        for c in g.cells:
            assert g.distance(g.cell_at[t[g.index[c]]], (0, 0)) == g.distance(c, (0, 0))
        assert t[g.index[(0, 0)]] == g.index[(0, 0)]


@pytest.mark.parametrize("n", [2, 3, 5])
def test_symmetries_form_a_group(n):
    g = grid(n)
    tables = [tuple(sorted(t.items())) for t in g.symmetries]
    members = set(tables)
    identity = tuple((i, i) for i in sorted(g.index.values()))
    assert identity in members
    for a in g.symmetries:
        for b in g.symmetries:
            assert tuple(sorted(compose(a, b).items())) in members
        # every element has its inverse in the set
        inverse = {v: k for k, v in a.items()}
        assert tuple(sorted(inverse.items())) in members


@pytest.mark.parametrize("n", [2, 4, 6])
def test_rotation_by_60_degrees_and_mirror_included(n):
    g = grid(n)
    members = {tuple(sorted(t.items())) for t in g.symmetries}
    rot = {g.index[c]: g.index[rot60(c)] for c in g.cells}
    assert tuple(sorted(rot.items())) in members
    mirror = {g.index[c]: g.index[(c[1], c[0])] for c in g.cells}
    assert tuple(sorted(mirror.items())) in members
    point = {g.index[c]: g.index[(-c[0], -c[1])] for c in g.cells}
    assert tuple(sorted(point.items())) in members
    # rotation has order 6; the rotations and mirror generate all 12
    r = dict(rot)
    for k in range(1, 6):
        assert any(r[i] != i for i in r), k
        r = compose(rot, r)
    assert all(r[i] == i for i in r)
    generated = set()
    r = {i: i for i in rot}
    for _ in range(6):
        generated.add(tuple(sorted(r.items())))
        generated.add(tuple(sorted(compose(mirror, r).items())))
        r = compose(rot, r)
    assert generated == members


@FAST
@given(cell_sets(range(2, 7)), st.integers(0, 11))
def test_transform_is_the_table_image(case, k):
    n, cells = case
    g = grid(n)
    x = g.mask(cells)
    y = g.transform(x, k)
    assert y.bit_count() == x.bit_count()
    assert y & ~g.valid == 0
    assert set(bits(y)) == {g.symmetries[k][i] for i in bits(x)}


# -- pickling, caching, zobrist ----------------------------------------------------------

@pytest.mark.parametrize("n", [2, 4, 6])
def test_grid_pickles_to_the_cached_object(n):
    g = grid(n)
    assert grid(n) is g
    assert pickle.loads(pickle.dumps(g)) is g
    assert pickle.loads(pickle.dumps(Grid(n))) is g  # even a fresh, uncached one
    assert len(pickle.dumps(g)) < 100  # pickles as its size, not its tables


def test_zobrist_keys_are_fixed_per_size():
    a, b = Grid(5), grid(5)
    assert a is not b
    assert a.zobrist == b.zobrist and a.side_key == b.side_key
    assert grid(4).zobrist[0] != grid(5).zobrist[0]
    keys = [k for pair in b.zobrist.values() for k in pair] + [b.side_key]
    assert len(set(keys)) == len(keys)


def test_symmetric_zobrist_table():
    g = grid(4)
    sz = g.symmetric_zobrist
    for i in g.index.values():
        for c in (0, 1):
            assert sz[i][c] == tuple(g.zobrist[t[i]][c] for t in g.symmetries)


# -- HexState ----------------------------------------------------------------------------

def test_hexstate_from_cells_round_trip():
    n = 4
    cells = {c: 0 for c in grid(n).cells}
    cells[(0, 0)] = RED
    cells[(3, 3)] = BLUE
    cells[(-3, 0)] = RED
    s = HexState.from_cells(n, cells, BLUE)
    assert s.cells() == cells
    assert s.at((0, 0)) == RED and s.at((3, 3)) == BLUE and s.at((1, 1)) == 0
    assert s.to_move == BLUE and s.size == n
    assert s.stones(RED) == grid(n).mask([(0, 0), (-3, 0)])
    assert s.stones(BLUE) == grid(n).mask([(3, 3)])
    assert s.empty == grid(n).valid & ~(s.red | s.blue)
    assert s.empty.bit_count() == 37 - 3
    assert s.grid is grid(n)
    assert pickle.loads(pickle.dumps(s)) == s


@FAST
@given(st.sampled_from([2, 3, 4, 5, 6]).flatmap(
    lambda n: st.tuples(st.just(n), st.dictionaries(st.sampled_from(grid(n).cells), st.sampled_from([0, 1, 2])))),
    st.sampled_from([RED, BLUE]))
def test_hexstate_round_trip_property(case, to_move):
    n, partial = case  # a partial map: missing cells are empty
    s = HexState.from_cells(n, partial, to_move)
    full = s.cells()
    assert set(full) == set(grid(n).cells)
    assert all(full[c] == partial.get(c, 0) for c in full)
    assert HexState.from_cells(n, full, to_move) == s
    assert s.red & s.blue == 0


def test_hexstate_from_cells_errors():
    with pytest.raises(ValueError, match="not on a hexagon"):
        HexState.from_cells(4, {(-3, 1): 0}, RED)
    with pytest.raises(ValueError, match="not on a hexagon"):
        HexState.from_cells(4, {(4, 0): RED}, RED)
    with pytest.raises(ValueError, match="expected 0, 1 or 2"):
        HexState.from_cells(4, {(0, 0): 3}, RED)
    with pytest.raises(ValueError, match="expected 0, 1 or 2"):
        HexState.from_cells(4, {(0, 0): -1}, RED)
    with pytest.raises(ValueError, match="neither 1"):
        HexState.from_cells(4, {(0, 0): RED}, 0)
    with pytest.raises(ValueError, match="neither 1"):
        HexState.from_cells(4, {}, 3)
    with pytest.raises(ValueError):
        HexState.from_cells(13, {}, RED)  # the size itself is checked
