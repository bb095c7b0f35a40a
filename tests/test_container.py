"""The container image (issue 28 items 5 and 7), through tools/container-check: it builds the
python:3.11-slim stand-in (if missing) and the image with podman, then checks the first GTP
answer, the image's kernel cache, a whole Twilight game against a server on the host,
`podman stop`, --read-only and --user 12345, and prints a table of PASS/FAIL rows.

A build takes minutes, so the test runs only with BOTS_CONTAINER_TESTS=1 (and podman):

    BOTS_CONTAINER_TESTS=1 python -m pytest tests/test_container.py -m container
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "container-check"
CHECKS = (  # every row the script prints, in its order: a check that silently stopped running fails
    "base image", "build", "image = working tree, no sources",
    "run (bots --help)", "run --read-only (bots --help)", "run --user 12345 (bots --help)",
    "first GTP answer (name, quit)", "numba cache complete (genmove)",
    "GTP name, genmove --read-only", "GTP name, genmove --user 12345", "GTP name, genmove --read-only --user 12345",
    "Twilight game, host server", "podman stop: bots play", "podman stop: bots daemon",
)


def test_script_parses_and_documents_itself():
    """No podman needed: the script is executable, valid bash, and its --help and its refusal
    of an unknown argument work (exit 0 and 2)."""
    assert os.access(SCRIPT, os.X_OK)
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    shown = subprocess.run([str(SCRIPT), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0 and "--sizes" in shown.stdout and "set -uo" not in shown.stdout, shown
    bad = subprocess.run([str(SCRIPT), "--no-such-option"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "unknown argument" in bad.stderr, bad


@pytest.mark.e2e
@pytest.mark.external
@pytest.mark.slow
@pytest.mark.container
@pytest.mark.skipif(shutil.which("podman") is None, reason="podman is not installed")
@pytest.mark.skipif(os.environ.get("BOTS_CONTAINER_TESTS") != "1",
                    reason="builds the image with podman, which takes minutes: set BOTS_CONTAINER_TESTS=1")
def test_container_check_passes():
    # The host side (the referee, the other Twilight client) is this interpreter's `bots`.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    report = f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-4000:]}"
    rows = [line.split(" | ") for line in done.stdout.splitlines()
            if line.startswith("| ") and not line.startswith(("| check ", "| ---"))]
    names = [row[0].lstrip("| ") for row in rows]
    for check in CHECKS:
        assert any(name.startswith(check) for name in names), f"no row for {check!r}\n{report}"
    failed = [row for row in rows if row[1] != "PASS"]
    assert not failed, f"failed checks: {failed}\n{report}"
    assert done.returncode == 0, report
