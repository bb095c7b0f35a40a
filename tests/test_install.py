"""What a user runs: the package installed non-editable into a fresh venv, used from outside
the checkout, then the README's second command (`pip install -e`) in the same venv.

Issue 11: numba wrote its cache next to the installed sources, the editable install left
`site-packages/bots/` behind as a namespace package, and every Go command then failed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MOVE = re.compile(r"^= ([A-HJ][1-9]|PASS)$", re.M)  # the answer to genmove
GTP_SCRIPT = "boardsize 9\nclear_board\ngenmove b\nquit\n"
WARM = ("import asyncio\n"
        "from bots.runner import SearchRunner\n"
        "async def main():\n"
        "    async with SearchRunner(1, games=['go']) as r:\n"
        "        print('warm', r.games)\n"
        "asyncio.run(main())\n")


def _run(cmd, cwd, env, stdin=None, timeout=600):
    done = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


def _site_packages(env_dir: Path) -> Path:
    return next(env_dir.glob("lib/python*/site-packages"))


@pytest.mark.skipif(os.environ.get("BOTS_SKIP_INSTALL_TEST") == "1", reason="BOTS_SKIP_INSTALL_TEST=1")
def test_fresh_venv_install_then_editable_install(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py, bots = env_dir / "bin" / "python", env_dir / "bin" / "bots"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "BOTS_CACHE_DIR",
                                                           "VIRTUAL_ENV")}
    run_env = dict(env, XDG_CACHE_HOME=str(tmp_path / "cache"), HOME=str(tmp_path / "home"))

    _run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(ROOT)], outside, env)
    package = _site_packages(env_dir) / "bots"
    assert (package / "go" / "kernel.py").is_file()

    # A Go command and a pool warm-up, from outside the checkout.
    out = _run([str(bots), "gtp", "go", "--workers", "1"], outside, run_env, stdin=GTP_SCRIPT)
    assert MOVE.search(out), out
    assert "warm ('go',)" in _run([str(py), "-c", WARM], outside, run_env)
    # Every game package is installed (a package list once left Hex out): a whole game of Hex.
    out = _run([str(bots), "play", "hex", "--a", "random", "--b", "path", "--size", "3", "--workers", "1"],
               outside, run_env)
    assert "has won." in out, out

    written = [p for p in package.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert not written, f"numba cache written inside the installed package: {written[:3]}"
    cached = list((tmp_path / "cache" / "bots" / "numba").rglob("*.nbc"))
    assert cached, "numba cache not in the per-user cache directory"

    # The README's second command in the same venv: the editable install must take over.
    _run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", str(ROOT)],
         outside, env)
    where = _run([str(py), "-c", "import bots.go.commands, bots; print(bots.__file__)"], outside, run_env)
    assert Path(where.strip()).resolve() == ROOT / "bots" / "__init__.py"
    out = _run([str(bots), "gtp", "go", "--workers", "1"], outside, run_env, stdin=GTP_SCRIPT)
    assert MOVE.search(out), out
