"""The open engines our Go and Hex players are measured against (issue 31), through `bots arena`
as a user runs it: Pachi (GTP) and MoHex 2.0 (HTP, Benzene).  They are built outside this repo
(docs/benchmarks/go.md and hex.md say how); each test is skipped unless its engine is found:
$BOTS_PACHI or `pachi` on the PATH, $BOTS_MOHEX or `mohex` on the PATH.

Two short games each, seats swapped: every move of both sides passed our rules, each game ended
by the rules (no crash, no forfeit, no illegal move on either side) and the record names the
engine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def engine(variable: str, name: str) -> str | None:
    path = os.environ.get(variable) or shutil.which(name)
    return path if path and os.access(path, os.X_OK) else None


PACHI = engine("BOTS_PACHI", "pachi")
MOHEX = engine("BOTS_MOHEX", "mohex")


def arena(tmp_path: Path, *args: str) -> list[dict]:
    out = tmp_path / "games.jsonl"
    command = [str(Path(sys.executable).with_name("bots")), "arena", *args, "--games", "2", "--workers", "1",
               "--json", str(out)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2
    for record in records:  # our side ("A") breaks no rule; a game ends on the board, or
        # when the engine dies having lost (MoHex segfaults instead of resigning, hex.md)
        assert not [v for v in record["violations"] if record["players"][v["species"]] == "A"], record
        if record["violations"]:
            assert record["winner_name"] == "A" and record["end"] == "forfeit", record
            assert "Opponent has won" in record["violations"][0]["reason"], record
        else:
            assert record["end"] in ("two passes", "resignation", "connection"), record["end"]
    return records


@pytest.mark.slow
@pytest.mark.skipif(PACHI is None, reason="Pachi is not installed (set BOTS_PACHI)")
def test_two_games_against_pachi(tmp_path):
    records = arena(tmp_path, "go", "--a", "mcts", "--b", f"gtp:{PACHI} -t =2000 threads=1", "--move-time", "0.3")
    assert {r["players"]["black"] for r in records} == {"A", "B"}


@pytest.mark.slow
@pytest.mark.skipif(MOHEX is None, reason="MoHex is not installed (set BOTS_MOHEX)")
def test_two_games_against_mohex(tmp_path):
    config = tmp_path / "mohex.htp"
    # the last two settings keep MoHex from crashing in positions it has won (docs/benchmarks/hex.md)
    config.write_text("param_mohex max_time 0.3\nparam_mohex num_threads 1\n"
                      "param_mohex perform_pre_search 0\nparam_mohex use_root_data 0\n")
    records = arena(tmp_path, "hex", "--a", "mcts", "--b",
                    f"htp:{MOHEX} --use-logfile=0 --config={config}", "--sizes", "7", "--move-time", "0.3")
    assert {r["players"]["black"] for r in records} == {"A", "B"}
