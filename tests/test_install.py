"""What a user runs: the package installed non-editable into a fresh venv, used from outside
the checkout, then the README's second command (`pip install -e`) in the same venv.

Issue 11: numba wrote its cache next to the installed sources, the editable install left
`site-packages/bots/` behind as a namespace package, and every Go command then failed.

A guest on the machine (issue 28): both installs are made from a copy of the checkout in
`tmp_path` (pip builds in the source tree: it would leave `build/` and `*.egg-info` in our
checkout, and a stale `build/lib` there would even go into the wheel), with no pip cache (an
empty cache, and nothing written to the user's), and the venv (about 460 MB) is deleted when
the test ends, passed or failed.  The dependencies come from the configured package index:
the test is marked `network` (`pytest -m "not network"` leaves it out).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

import bots as checkout

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "tournament-bots"  # `pip install bots` is somebody else's project on PyPI
MOVE = re.compile(r"^= ([A-HJ][1-9]|PASS)$", re.M)  # the answer to genmove
GTP_SCRIPT = "boardsize 9\nclear_board\ngenmove b\nquit\n"
WARM = ("import asyncio\n"
        "from bots.runner import SearchRunner\n"
        "async def main():\n"
        "    async with SearchRunner(1, games=['go']) as r:\n"
        "        print('warm', r.games)\n"
        "asyncio.run(main())\n")
METADATA = ("import importlib.metadata as m\n"
            "d = m.distribution(%r)\n"
            "print(d.version)\n"
            "print(sorted(d.metadata.get_all('Provides-Extra')))\n"
            "print(sorted(e.name for e in d.entry_points if e.group == 'console_scripts'))\n"
            "try:\n"
            "    m.distribution('bots')\n"
            "except m.PackageNotFoundError:\n"
            "    print('no distribution named bots')\n" % DISTRIBUTION)
# What a fresh clone does not have (.gitignore), and what does not belong in a copy of the sources.
NOT_SOURCES = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".venv", ".hypothesis",
                                     ".pytest_cache", "*.nbi", "*.nbc")
PIP = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-cache-dir"]


def _run(cmd, cwd, env, stdin=None, timeout=600):
    done = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


def _site_packages(env_dir: Path) -> Path:
    return next(env_dir.glob("lib/python*/site-packages"))


@pytest.fixture
def scratch(tmp_path):
    """`tmp_path`, emptied when the test ends (pytest keeps its last three runs' directories)."""
    try:
        yield tmp_path
    finally:
        for entry in tmp_path.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


@pytest.mark.e2e
@pytest.mark.network
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("BOTS_SKIP_INSTALL_TEST") == "1", reason="BOTS_SKIP_INSTALL_TEST=1")
def test_fresh_venv_install_then_editable_install(scratch):
    source = scratch / "checkout"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    env_dir = scratch / "venv"
    venv.create(env_dir, with_pip=True)
    py, bots = env_dir / "bin" / "python", env_dir / "bin" / "bots"
    outside = scratch / "elsewhere"
    outside.mkdir()
    (scratch / "tmp").mkdir()
    # A user's environment: none of this process's cache choices (bots.cache hands them to children), no path
    # into the checkout.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_CACHE_DIR") and not k.startswith(("BOTS_", "NUMBA_"))}
    pip_env = dict(env, TMPDIR=str(scratch / "tmp"))  # pip's build environments, whatever pip leaves behind
    run_env = dict(env, XDG_CACHE_HOME=str(scratch / "cache"), HOME=str(scratch / "home"))

    _run([str(py), *PIP, str(source)], outside, pip_env)
    package = _site_packages(env_dir) / "bots"
    assert (package / "go" / "kernel.py").is_file()
    # Installed under our own distribution name, with its extra and its command, and nothing called `bots`.
    version, extras, scripts, *rest = _run([str(py), "-c", METADATA], outside, run_env).splitlines()
    assert version == checkout.__version__
    assert "'cluster'" in extras and scripts == "['bots']"
    assert rest == ["no distribution named bots"]

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
    cached = list((scratch / "cache" / "bots" / "numba").rglob("*.nbc"))
    assert cached, "numba cache not in the per-user cache directory"

    # The README's second command in the same venv (from the copy of the checkout): the editable
    # install must take over.
    _run([str(py), *PIP, "-e", str(source)], outside, pip_env)
    where = _run([str(py), "-c", "import bots.go.commands, bots; print(bots.__file__)"], outside, run_env)
    assert Path(where.strip()).resolve() == source.resolve() / "bots" / "__init__.py"
    out = _run([str(bots), "gtp", "go", "--workers", "1"], outside, run_env, stdin=GTP_SCRIPT)
    assert MOVE.search(out), out
