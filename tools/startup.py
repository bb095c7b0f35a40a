"""Start-up latency of every way bots is started, with an empty and with a warm kernel cache
(issue 28): how long until it answers its protocol, how long its first move takes, and how long
until its search workers are ready.  Prints a table.

    python tools/startup.py [--runs 1] [--cases gtp-go htp-hex play-twilight daemon] [--command "bots"]

`--command` is how bots is started (split like a shell does), e.g. an older checkout side by
side: `--command "env PYTHONPATH=/tmp/old python -m bots.cli"`.

Each case runs `bots` as a user would (a new process, logs in JSON on stderr):
- gtp-go / htp-hex: `name`, then `genmove` on an empty board (9x9, 11x11), timed at the pipe;
- play-twilight / daemon: a Twilight client on our referee (map8, 2 s a move) against a warm
  `greedy`: the time until it logged "connected", and its first move's latency as the
  referee measured it (UPD sent to MOV received).
"pool ready" is the runner's own figure (its log line), "fallbacks" the moves sent before it.
The empty cache is a new temporary BOTS_CACHE_DIR; the warm one is the same directory again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

WARMING = "still warming up"


class Logs:
    """A process's JSON log lines on stderr, read in a thread, with the time each arrived."""

    def __init__(self, stream, t0: float) -> None:
        self.lines: list[tuple[float, dict]] = []
        self.t0 = t0
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            try:
                self.lines.append((time.monotonic() - self.t0, json.loads(line)))
            except ValueError:
                pass

    def first(self, event: str, timeout: float = 120.0) -> tuple[float, dict] | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, line in list(self.lines):
                if line.get("event") == event:
                    return at, line
            time.sleep(0.01)
        return None

    def fallbacks(self) -> int:
        return sum(1 for _, line in self.lines if line.get("event") == "move" and WARMING in str(line.get("fallback")))


def pool_ready(logs: Logs, timeout: float) -> str:
    found = logs.first("pool ready", timeout)
    return f"{found[0]:.1f}" if found else f">{timeout:.0f}"


def engine_case(bots: list[str], game: str, size: int, env: dict, wait: float) -> dict:
    command = "gtp" if game == "go" else "htp"
    t0 = time.monotonic()
    proc = subprocess.Popen([*bots, "--log-format", "json", command, game], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    logs = Logs(proc.stderr, t0)

    def ask(line: str) -> float:
        started = time.monotonic()
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        answer = proc.stdout.readline()
        while proc.stdout.readline().strip():
            pass
        if not answer.startswith("="):
            raise RuntimeError(f"{line!r} answered {answer!r}")
        return time.monotonic() - started

    ask("name")
    first_answer = time.monotonic() - t0
    ask(f"boardsize {size}")
    ask("clear_board")
    first_move = ask("genmove b")
    ready = pool_ready(logs, wait)
    ask("quit")
    proc.wait(30)
    return {"first answer": first_answer, "first move": first_move, "pool ready": ready, "fallbacks": logs.fallbacks()}


def _server(bots: list[str], env: dict) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([*bots, "--log-format", "json", "serve", "twilight", "--map", "map8", "--port", "0",
                             "--games", "1", "--move-timeout", "2"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in proc.stderr:
        found = re.search(r'"port": (\d+)', line)
        if "listening" in line and found:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, int(found.group(1))
    raise RuntimeError("the referee did not start")


def twilight_case(bots: list[str], daemon: bool, env: dict, host_env: dict, wait: float) -> dict:
    server, port = _server(bots, host_env)
    opponent = subprocess.Popen([*bots, "--log-format", "json", "play", "twilight", "--host", "127.0.0.1",
                                 "--port", str(port), "--player", "greedy", "--name", "opponent"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=host_env)
    with tempfile.TemporaryDirectory() as tmp:
        if daemon:
            config = Path(tmp) / "bots.toml"
            config.write_text(f'[[bot]]\nname = "measured"\ngame = "twilight"\nhost = "127.0.0.1"\nport = {port}\n'
                              'move_time = 2.0\ngames = 1\n')
            args = [*bots, "--log-format", "json", "daemon", "--config", str(config)]
        else:
            args = [*bots, "--log-format", "json", "play", "twilight", "--host", "127.0.0.1", "--port", str(port),
                    "--name", "measured"]
        t0 = time.monotonic()
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, env=env)
        logs = Logs(proc.stderr, t0)
        connected = logs.first("connected", wait)
        ready = pool_ready(logs, wait)
        record = json.loads(server.stdout.readline() or "{}")
        for p in (proc, opponent, server):
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
    side = next((s for s, name in record.get("players", {}).items() if name == "measured"), None)
    latencies = record.get("latencies", {}).get(side, [])
    return {"first answer": connected[0] if connected else float("nan"),
            "first move": latencies[0] if latencies else float("nan"), "pool ready": ready,
            "fallbacks": logs.fallbacks()}


CASES = {"gtp-go": ("go", 9), "htp-hex": ("hex", 11), "play-twilight": None, "daemon": None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--runs", type=int, default=1, help="runs of each case and cache state (1)")
    parser.add_argument("--command", default="bots", help="how to start bots (default: bots)")
    parser.add_argument("--wait", type=float, default=180.0, help="seconds to wait for the pool (180)")
    args = parser.parse_args()
    bots = shlex.split(args.command)
    print(f"{'case':<14} {'cache':<6} {'first answer s':>14} {'first move s':>12} {'pool ready s':>12} "
          f"{'fallbacks':>9}", flush=True)
    for case in args.cases:
        for _ in range(args.runs):
            cache = tempfile.mkdtemp(prefix="bots-startup-")
            try:
                env = dict(os.environ, BOTS_CACHE_DIR=cache)
                env.pop("NUMBA_CACHE_DIR", None)
                env.pop("BOTS_NUMBA_CACHE_CHOSEN", None)
                for state in ("empty", "warm"):
                    if CASES[case]:
                        game, size = CASES[case]
                        row = engine_case(bots, game, size, env, args.wait)
                    else:
                        row = twilight_case(bots, case == "daemon", env, os.environ.copy(), args.wait)
                    print(f"{case:<14} {state:<6} {row['first answer']:>14.2f} {row['first move']:>12.2f} "
                          f"{row['pool ready']:>12} {row['fallbacks']:>9}", flush=True)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
