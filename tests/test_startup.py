"""Issue 28: bots works from the first second on any machine.

- The runner warms up in the background: a search asked for before it is ready waits at most
  half its budget and then gets the fallback, in time; a stop during the warm-up is immediate.
- `bots gtp go` with an empty kernel cache answers at once, moves within its clock while the
  kernels compile, and a Ctrl-C or SIGTERM meanwhile ends it in a second, with one line, the
  right exit code and no process left behind.
- The kernel cache never crashes: an unwritable directory falls back to a temporary copy, and
  nothing writable means no disk cache at all.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bots import cache
from bots.runner import WARMING, SearchRunner
from search.budget import Budget, SearchResult
from tests.helpers import ROOT, WITH_SIGINT, descendants, until_sync


def quick(budget: Budget) -> SearchResult:
    return SearchResult("searched")


def slow_start(monkeypatch, seconds: float) -> None:
    """The pool's start takes `seconds` (in its thread), as a forkserver compiling its preload does."""
    real = SearchRunner._new_pool

    def slow(self):
        time.sleep(seconds)
        return real(self)

    monkeypatch.setattr(SearchRunner, "_new_pool", slow)


async def test_a_search_before_the_workers_are_ready_gets_the_fallback_in_time(monkeypatch):
    slow_start(monkeypatch, 3.0)
    runner = SearchRunner(workers=1, games=["twilight"], background=True)
    try:
        async with runner:
            assert not runner.ready
            t0 = time.monotonic()
            report = await runner.run(quick, budget=Budget(0.4), fallback="fallback")
            assert report.move == "fallback" and report.fallback == WARMING
            assert 0.25 < time.monotonic() - t0 < 0.4  # it waited until a quarter of the budget was left
            assert runner.failures[WARMING] == 1
    finally:
        runner.close()


async def test_a_search_waits_for_a_warm_up_that_ends_within_half_its_budget(monkeypatch):
    slow_start(monkeypatch, 0.2)
    async with SearchRunner(workers=1, games=["twilight"], background=True) as runner:
        report = await runner.run(quick, budget=Budget(20.0), fallback="fallback")
        assert report.fallback is None and report.move == "searched" and runner.ready


async def test_an_engine_on_a_game_clock_waits_for_workers_about_to_be_ready(monkeypatch):
    """A controller that starts the engine and asks for a move at once, on a game clock: the
    move waits for the workers' start (bots.gtp_clock: at most a tenth of the clock) and is
    searched, where its own share of the clock would have ended in the fallback."""
    from bots import runner as runner_module
    from bots.go.gtp_engine import Engine
    from protocol.gtp import parse_command_line
    from tests.helpers import info_logs

    slow_start(monkeypatch, 3.0)
    monkeypatch.setattr(runner_module, "WARM_EXPECTED", 10.0)  # a slow machine's start, told in advance
    async with SearchRunner(workers=1, games=["twilight"], background=True) as runner:
        engine = Engine(runner, "random")
        with info_logs() as logs:
            for line in ("time_settings 100 0 0", "genmove b"):
                good, answer = await engine.handle(parse_command_line(line.encode()))
                assert good, answer
        assert runner.ready and runner.warm_wait() == 0.0
    (move,) = [entry for entry in logs if entry["event"] == "move"]
    assert move["fallback"] is None  # the share alone (about 2.5 s) ends before the start's 3 s
    assert move["used"] < 12.0


async def test_closing_during_the_warm_up_is_immediate(monkeypatch):
    slow_start(monkeypatch, 5.0)
    runner = SearchRunner(workers=1, games=["twilight"])
    runner.launch()
    await asyncio.sleep(0.1)
    t0 = time.monotonic()
    runner.close()
    assert time.monotonic() - t0 < 0.5
    report = await runner.run(quick, budget=Budget(0.2), fallback="fallback")  # a bot still asking
    assert report.move == "fallback" and report.used < 0.1


# -- the real command, with an empty kernel cache ------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class ColdEngine:
    """`bots gtp go` with a new, empty kernel cache, in its own process group (as a terminal
    runs a foreground command), speaking GTP on a pipe."""

    def __init__(self, cache_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BOTS_", "NUMBA_"))}
        env["BOTS_CACHE_DIR"] = str(cache_dir)
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([*WITH_SIGINT, "--log-format", "json", "gtp", "go", "--workers", "1"],
                                     cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, start_new_session=True)
        self.children: set[int] = set()

    def ask(self, line: str) -> tuple[str, float]:
        started = time.monotonic()
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        assert self.proc.stdout.readline() == "\n"
        return answer, time.monotonic() - started

    def stop(self) -> None:
        for pid in self.children | descendants(self.proc.pid) | {self.proc.pid}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()


@pytest.fixture
def cold(tmp_path):
    engine = ColdEngine(tmp_path / "cache")
    yield engine
    engine.stop()


@pytest.mark.slow
@pytest.mark.e2e
def test_a_cold_engine_answers_at_once_and_moves_in_time_while_it_compiles(cold):
    answer, _ = cold.ask("name")
    assert answer == "= bots" and time.monotonic() - cold.t0 < 10.0  # the process's start, imports included
    for line in ("boardsize 9", "clear_board", "time_settings 0 1 1"):
        assert cold.ask(line)[0] == "="
    for colour in "bw":  # the kernels take 20-40 s to compile: these moves come before
        answer, seconds = cold.ask(f"genmove {colour}")
        assert answer.startswith("= ") and seconds < 1.0, (answer, seconds)
    cold.ask("quit")
    assert cold.proc.wait(10) == 0
    err = cold.proc.stderr.read()
    assert WARMING in err  # the move's log line says why it was the fallback


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 0)])
def test_a_signal_during_the_first_compile_ends_it_in_a_second(cold, sig, code):
    assert cold.ask("name")[0] == "= bots"
    until_sync(lambda: len(descendants(cold.proc.pid)) >= 1, 10, "the forkserver started")
    time.sleep(1.0)  # well into the compile
    cold.children = descendants(cold.proc.pid)
    t0 = time.monotonic()
    os.killpg(cold.proc.pid, sig) if sig == signal.SIGINT else cold.proc.send_signal(sig)  # Ctrl-C: the group
    assert cold.proc.wait(5) == code
    assert time.monotonic() - t0 < 1.5
    err = cold.proc.stderr.read()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
    assert len(err.strip().splitlines()) <= 6, err  # start-up lines and one saying it stopped
    until_sync(lambda: not any(_alive(pid) for pid in cold.children), 3, "every child process gone")


# -- the cache -------------------------------------------------------------------------------------


def test_an_unwritable_cache_is_copied_to_a_temporary_one(tmp_path, monkeypatch):
    readonly = tmp_path / "image-cache"
    (readonly / "numba" / "go_x").mkdir(parents=True)
    (readonly / "numba" / "go_x" / "kernel.nbi").write_text("index")
    monkeypatch.setenv("BOTS_CACHE_DIR", str(readonly))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv(cache.CHOSEN, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    real = cache._writable
    monkeypatch.setattr(cache, "_writable", lambda path: not path.startswith(str(readonly)) and real(path))
    directory, note = cache.choose()
    assert directory == cache.temporary_dir() and directory.startswith(str(tmp_path / "tmp"))
    assert (Path(directory) / "go_x" / "kernel.nbi").read_text() == "index"
    assert "read-only" in note and str(readonly / "numba") in note


def test_with_nothing_writable_nothing_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("BOTS_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(cache, "_writable", lambda path: False)
    directory, note = cache.choose()
    assert directory == "" and "compile at every start" in note


def _python_for(uid: int) -> tuple[str, str]:
    """(an interpreter uid can run, the PYTHONPATH that gives it our code and dependencies):
    ours, or the system's Python of the same version with our site-packages (a venv under
    /root is out of another user's reach); skip when neither can import our dependencies."""
    import site
    import sysconfig

    paths = os.pathsep.join([str(ROOT), *site.getsitepackages()])
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            done = subprocess.run([python, "-c", "import sys, numpy, numba; print(sys.version_info[:2])"],
                                  user=uid, cwd="/", env={"PYTHONPATH": paths}, capture_output=True, text=True,
                                  timeout=30)
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip() == str(sys.version_info[:2]):
            return python, paths
    pytest.skip(f"no Python {sysconfig.get_python_version()} with numpy and numba that uid {uid} can run "
                "(our site-packages are out of its reach)")


@pytest.fixture
def shared_tmp():
    """A temporary directory any user can write (pytest's own is private to us), removed after."""
    import shutil

    path = Path(tempfile.mkdtemp(prefix="bots-test-"))
    os.chmod(path, 0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.skipif(os.geteuid() != 0, reason="runs a child as another user (needs root)")
def test_an_unknown_user_with_no_home_still_runs(shared_tmp):
    """`docker run --user 12345`: no passwd entry, HOME=/ (not writable), the image's cache
    directory not writable: the command runs, with the cache in a temporary directory."""
    python, paths = _python_for(12345)
    env = {"PATH": os.environ["PATH"], "HOME": "/", "BOTS_CACHE_DIR": "/proc/no-such-cache", "TMPDIR": str(shared_tmp),
           "PYTHONPATH": paths}
    script = ("from bots import cache; import bots.go.kernel as K, numba; "
              "print(numba.config.CACHE_DIR, K.CACHE, bool(cache.NOTE))")
    done = subprocess.run([python, "-c", script], cwd="/", env=env, user=12345, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    directory, caching, noted = done.stdout.split()
    assert directory == str(shared_tmp / "bots-cache-12345" / "numba") and caching == "True" and noted == "True"
    helped = subprocess.run([python, "-m", "bots.cli", "--help"], cwd="/", env=env, user=12345,
                            capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and "warm" in helped.stdout, helped.stderr


@pytest.mark.slow
@pytest.mark.e2e
def test_a_bots_folder_in_the_working_directory_does_not_shadow_the_workers(tmp_path):
    """cpython #117378: on 3.11 the forkserver put its working directory first on its import
    path, so `bots` started from a directory holding a `bots/` folder ran that folder's code in
    its workers (the old Docker image compiled /app/bots, not the installed package)."""
    command = Path(sys.executable).with_name("bots")
    if not command.exists():
        pytest.skip("no `bots` command next to this Python")
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "__init__.py").write_text("raise SystemExit('the working directory shadowed bots')\n")
    proc = subprocess.Popen([str(command), "--log-format", "json", "gtp", "go", "--player", "random", "--workers", "1"],
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        lines: list[str] = []
        for line in proc.stderr:
            lines.append(line)
            if '"pool ready"' in line or "failed to start" in line or "shadowed" in line:
                break
        proc.stdin.write("genmove b\nquit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert '"pool ready"' in lines[-1], "".join(lines)[-3000:]
    assert "shadowed" not in err and out.startswith("= ")
