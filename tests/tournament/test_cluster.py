"""`bots tournament --cluster`: the games as Ray tasks on a real Ray cluster (a head started
here with 2 CPUs, as a user starts one), giving the same games and records as a local run."""

from __future__ import annotations

import json
import socket
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from tests.tournament.cli import FAST, bots, environment, ledger, table

pytestmark = pytest.mark.e2e

pytest.importorskip("ray", reason="Ray is not installed (pip install 'tournament-bots[cluster]')")

GAMES = ["tournament", "twilight", "--players", "random", "greedy", "--maps", "testmap2", "map8", "--games", "3",
         *FAST]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def head():
    """HOST:PORT of a one-node Ray cluster with 2 CPUs (`ray start --head --block`), stopped after."""
    port = free_port()
    temp = tempfile.mkdtemp(prefix="/tmp/bots-ray-")  # short: Ray's socket paths must fit in 107 bytes
    proc = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
                             "--num-cpus", "2", "--port", str(port), "--node-ip-address", "127.0.0.1",
                             "--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", temp],
                            env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    try:
        while True:
            assert proc.poll() is None, f"ray start failed: {proc.stderr.read()}"
            assert time.monotonic() < deadline, "the Ray head did not start within 90 s"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()  # `ray start --block` stops the node's processes on SIGTERM
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(temp, ignore_errors=True)  # Ray's session directory: the suite leaves nothing in /tmp


@pytest.mark.slow
def test_a_cluster_run_plays_the_same_games_as_a_local_run(head, tmp_path):
    local = bots(*GAMES, "--record", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    remote = bots(*GAMES, "--record", str(tmp_path / "cluster"), "--report", str(tmp_path / "report"),
                  "--cluster", head, timeout=180)
    assert remote.returncode == 0, remote.stderr
    assert f"on the Ray cluster at {head}" in remote.stdout
    here, there = ledger(tmp_path / "local"), ledger(tmp_path / "cluster")
    assert len(here) == len(there) == 6
    seats = lambda entries: sorted((tuple(e["key"]), e["first"], e["second"]) for e in entries)  # noqa: E731
    assert seats(here) == seats(there)
    assert all(e["status"] == "done" and "startup" in e for e in there)  # each ran in a Ray task's own pool
    for e in there:  # the arena's own record, as a local run keeps it
        record = json.loads((tmp_path / "cluster" / e["file"]).read_text())
        assert record["map"] == e["setup"] and set(record["players"].values()) == {"A", "B"}
    # the same participants and game counts in the ratings (the results themselves are random)
    rows = lambda out: sorted((r.split()[0], r.split()[1]) for r in table(out)[1:])  # noqa: E731
    assert rows(local.stdout) == rows(remote.stdout) == [("greedy", "6"), ("random", "6")]
    assert (tmp_path / "report" / "index.html").is_file() and (tmp_path / "report" / "matrix.png").is_file()


@pytest.mark.slow
def test_an_unreachable_cluster_is_one_line(tmp_path):
    out = bots(*GAMES, "--cluster", f"127.0.0.1:{free_port()}", timeout=180)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().startswith("bots: error: cannot join the Ray cluster at 127.0.0.1:")
    assert "Traceback" not in out.stderr


@pytest.mark.slow
def test_an_arena_sequential_test_plays_its_pairs_on_the_cluster(head, tmp_path):
    records = tmp_path / "games.jsonl"
    out = bots("arena", "twilight", "--a", "greedy", "--b", "random", "--maps", "thetrap", "--move-time", "0.05",
               "--overhead", "0.02", "--workers", "1", "--sprt", "elo0=-300 elo1=0 alpha=0.2 beta=0.2",
               "--games", "40", "--parallel", "2", "--json", str(records), "--cluster", head, timeout=180)
    assert out.returncode == 0, out.stderr
    assert f"on the Ray cluster at {head}" in out.stdout
    verdict = next(line for line in out.stdout.splitlines() if line.startswith("verdict"))
    assert verdict.startswith("verdict  H1 accepted"), out.stdout  # greedy is not 300 Elo worse than random
    played = [json.loads(line) for line in records.read_text().splitlines()]
    # every pair started is played whole, A in the first seat (the vampires) in one game, B in the other
    first = [r["players"]["vampires"] for r in played]
    assert len(played) >= 4 and first.count("A") == first.count("B") == len(played) // 2, first

