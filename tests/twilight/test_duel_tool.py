"""tools/duel.py: the node-budget A/B that docs/decisions/twilight-planner-experiments.md quotes."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
DUEL = [sys.executable, str(ROOT / "tools" / "duel.py")]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(DUEL + list(args), capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.mark.slow
def test_duel_plays_both_species_and_prints_the_total(tmp_path):
    old = tmp_path / "planner_old.py"
    old.write_text((ROOT / "bots" / "twilight" / "planner.py").read_text())
    done = run("planner", "random", "--nodes", "300", "--maps", "map8", "--procs", "1")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("map8"))
    assert row.split()[1] == "2.0/2" and "V 1.0" in row and "W 1.0" in row
    assert "TOTAL 2/2 = 100.0%" in done.stdout
    done = run("old", "random", "--old", str(old), "--nodes", "300", "--maps", "map8", "--procs", "1")
    assert done.returncode == 0 and "TOTAL 2/2" in done.stdout, done.stderr


def test_duel_names_a_bad_player_or_map_in_one_line():
    done = run("nosuch", "greedy", "--maps", "map8")
    assert done.returncode == 2 and "unknown twilight player 'nosuch'" in done.stderr
    done = run("planner", "greedy", "--maps", "nomap")
    assert done.returncode == 2 and "nomap" in done.stderr
