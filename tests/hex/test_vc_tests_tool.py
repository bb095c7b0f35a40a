"""tools/hex_vc_tests.py: Benzene's vc-connected-to tests read and answered by our H-search."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import hex_vc_tests  # noqa: E402

from bots.hex.board import BLACK  # noqa: E402

# 5x5: Black's c2 is a bridge from its first edge (north); White's wall on row 4 cuts it from the south
WALL = "(;FF[4]GM[11]SZ[5];AB[c2]AW[a4][b4][c4][d4][e4])"

TST = """# our own positions, in Benzene's format
loadsgf wall.sgf
vc-build black
1 vc-connected-to c2 black 0
#? [.*north.*]
2 vc-connected-to c2 black 0
#? [!.*south.*]
3 vc-connected-to c2 black 0
#? [.*south.*]*
play white c1
vc-build black
4 vc-connected-to c2 black 0
#? [!.*north.*]
5 vc-connected-to c2 black 1
#? [.*north.*]
"""


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "wall.sgf").write_text(WALL)
    tst = tmp_path / "ours.tst"
    tst.write_text(TST)
    return tst


def test_the_tests_are_read_as_benzene_writes_them(suite):
    tests = hex_vc_tests.read_tests(suite)
    assert [(t["id"], t["point"], t["names"], t["absent"], t["semi"], t["expected_fail"], len(t["plays"]))
            for t in tests] == [("ours-1", "c2", ["north"], False, False, False, 0),
                                ("ours-2", "c2", ["south"], True, False, False, 0),
                                ("ours-3", "c2", ["south"], False, False, True, 0),
                                ("ours-4", "c2", ["north"], True, False, False, 1),
                                ("ours-5", "c2", ["north"], False, True, False, 1)]
    assert all(t["colour"] == BLACK for t in tests)


def test_each_test_is_answered_by_the_h_search(suite, capsys):
    tests = hex_vc_tests.read_tests(suite)
    for edges in (True, False):
        answers = [hex_vc_tests.passes(hex_vc_tests.test_state(t), t, 50_000, edges) for t in tests]
        # the bridge holds and the wall cuts the south; White's c1 (played after the SGF) leaves
        # the bridge an SC through d1
        assert answers == [True, True, False, True, True]
    assert hex_vc_tests.main([str(suite), "--work", "1000"]) == 0
    out = capsys.readouterr().out
    assert "1,000 edges" in out and "4 of 5" in out


def test_a_file_it_cannot_read_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.tst"
    bad.write_text("1 vc-connected-to c2 black 0\n#? [.*north.*]\n")
    assert hex_vc_tests.main([str(bad)]) == 2
    assert "before any loadsgf" in capsys.readouterr().err
