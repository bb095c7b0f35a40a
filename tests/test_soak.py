"""`bots soak`: four bots of three games against our local servers, as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_short_soak_prints_a_row_per_bot_and_the_pool_line():
    out = subprocess.run([sys.executable, "-m", "bots.cli", "--log-format", "json", "soak", "--moves", "24",
                          "--move-time", "0.5", "--workers", "2"], capture_output=True, text=True, timeout=180,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("bots soak: ") and "2 workers shared by 4 bots" in lines[0]
    rows = {line.split()[0]: line.split() for line in lines[2:-1]}
    assert set(rows) == {"twilight-1", "twilight-2", "go-3", "gopher-4"}
    assert sum(int(r[1]) for r in rows.values()) >= 24
    assert all(int(r[1]) > 0 for name, r in rows.items() if name.startswith("twilight"))
    assert lines[-1].startswith("pool: ")
    assert "Traceback" not in out.stderr
