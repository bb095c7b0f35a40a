"""tools/hex_regress.py: Benzene's regression files (GTP regression format) read and played."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import hex_regress  # noqa: E402

from bots.hex.board import BLACK, WHITE  # noqa: E402

# 5x5, Black joins top and bottom: c1-c4 leave c5 (and b5) to win; White holds b5 in the second.
BLACK_WINS = "(;AP[HexGui:0.2]FF[4]GM[11]SZ[5];AB[c1][c2][c3][c4]AW[a1][a2][a3][e1])"
WHITE_BLOCKS = "(;FF[4]GM[11]SZ[5];AB[c1][c2][c3][c4]AW[b5][a2][e1]PL[W])"
MOVES = "(;FF[4]GM[11]SZ[5];B[c1];W[a1];B[c2];W[a2])"

TST = """#-- our own positions, in Benzene's format
loadsgf win.sgf
10 genmove black
#? [b5|c5]

# comments and other engines' settings are skipped
param_mohex max_games 1000
loadsgf block.sgf
11 reg_genmove w
#? [c5]

loadsgf block.sgf
12 genmove white
#? [a5]*
"""


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "win.sgf").write_text(BLACK_WINS)
    (tmp_path / "block.sgf").write_text(WHITE_BLOCKS)
    (tmp_path / "moves.sgf").write_text(MOVES)
    tst = tmp_path / "ours.tst"
    tst.write_text(TST)
    return tst


def test_the_tests_and_positions_are_read_as_benzene_writes_them(suite):
    tests = hex_regress.read_tests(suite)
    assert [(t["id"], t["colour"], t["answers"], t["expected_fail"]) for t in tests] == [
        ("ours-10", BLACK, "b5|c5", False), ("ours-11", WHITE, "c5", False), ("ours-12", WHITE, "a5", True)]
    state = hex_regress.position(BLACK_WINS, None, BLACK)
    assert (state.width, state.to_move, state.board.count(BLACK), state.board.count(WHITE)) == (5, BLACK, 4, 4)
    assert state.board[2] == BLACK and state.board[0] == WHITE  # c1 is column c of row 1; a1 the corner
    before_third = hex_regress.position(MOVES, 3, WHITE)  # `loadsgf FILE 3`: the position before move 3
    assert (before_third.board.count(BLACK), before_third.board.count(WHITE), before_third.last) == (1, 1, 0)


def test_a_player_is_scored_by_the_answers_it_gives(suite, capsys):
    assert hex_regress.main([str(suite), "--players", "mcts", "--time", "0.3"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("ours-")}
    assert rows["ours-10"].split()[-2:] in (["b5", "ok"], ["c5", "ok"])  # it wins at once
    assert rows["ours-11"].split()[-2:] == ["c5", "ok"]  # it blocks the one winning cell
    assert "(Benzene: hard)" in rows["ours-12"] and not rows["ours-12"].endswith("ok")  # c5 again, not a5
    assert out.splitlines()[-1].split()[1:] == ["2", "of", "3"]


@pytest.mark.parametrize("text, says", [
    ("10 genmove black\n#? [a1]\n", "genmove before any loadsgf"),
    ("loadsgf win.sgf\n10 genmove black\nquit\n", "expected the answers line"),
    ("loadsgf win.sgf\n10 genmove purple\n#? [a1]\n", "'purple' is not a colour"),
    ("loadsgf missing.sgf\n10 genmove black\n#? [a1]\n", "missing.sgf"),
    ("loadsgf win.sgf\n10 genmove black\n#? [a1(]\n", "ours-10"),
])
def test_a_file_it_cannot_read_is_named_with_its_line(suite, capsys, text, says):
    suite.write_text(text)
    assert hex_regress.main([str(suite), "--time", "0.1"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.startswith("hex_regress: ")
