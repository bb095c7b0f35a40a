"""Running `bots tournament` as a user does: a subprocess of this tree's `bots.cli`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--move-time", "0.05", "--overhead", "0.02", "--workers", "2"]  # Twilight: a game in well under a second


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "bots.cli", "--log-level", "warning", *args]


def environment(first_on_path: str | None = None) -> dict:
    paths = [p for p in (first_on_path, str(ROOT)) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def bots(*args: str, timeout: float = 120, first_on_path: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), cwd=ROOT, env=environment(first_on_path), capture_output=True, text=True,
                          timeout=timeout)


def ledger(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "ledger.jsonl").read_text().splitlines()]


def table(stdout: str) -> list[str]:
    """The final ratings table's lines (from its header to the report or overhead line)."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("participant"))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith(("report:", "runner overhead:")))
    return lines[start:end]
