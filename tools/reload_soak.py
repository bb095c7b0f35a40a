"""Reloads during a daemon's soak: how many games a reload costs (issue 32's benchmark).

    python tools/reload_soak.py --reloads 6 --every 20

Starts two Twilight servers of ours (each plays every pair of connections one game, again and
again) and `bots daemon` with four bots: `a` and `b` on the first server, `c` and `d` on the
second, and its status page.  Every `--every` seconds it rewrites the config and sends SIGHUP,
cycling through: `d` removed, `d` added back, `c` changed (another player), `c` changed back.
At the end it stops the daemon and prints a table: reloads, games the servers finished, games
that ended by a disconnect (a bot that left mid-game), and whether the daemon's bots matched
each config (read from its status page) after every reload.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CONFIGS = [  # (bot, server, player) after each reload, cycling
    [("a", 0, "planner"), ("b", 0, "greedy"), ("c", 1, "planner"), ("d", 1, "greedy")],
    [("a", 0, "planner"), ("b", 0, "greedy"), ("c", 1, "planner")],
    [("a", 0, "planner"), ("b", 0, "greedy"), ("c", 1, "planner"), ("d", 1, "greedy")],
    [("a", 0, "planner"), ("b", 0, "greedy"), ("c", 1, "expecti"), ("d", 1, "greedy")],
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(path: Path, bots: list[tuple[str, int, str]], ports: list[int], page: int) -> None:
    text = f'[runner]\nworkers = 2\n[status]\nlisten = "127.0.0.1:{page}"\n'
    for name, server, player in bots:
        text += (f'[[bot]]\nname = "{name}"\ngame = "twilight"\nhost = "127.0.0.1"\nport = {ports[server]}\n'
                 f'player = "{player}"\nmove_time = 1.0\n')
    path.write_text(text)


def bots_on_page(page: int) -> dict[str, str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{page}/api/status", timeout=5) as answer:
        return {b["name"]: b["player"] for b in json.load(answer)["bots"] if b["state"] != "stopped"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reloads", type=int, default=6)
    parser.add_argument("--every", type=float, default=20.0, help="seconds between reloads (20)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="reload-soak-"))
    ports, page = [free_port(), free_port()], free_port()
    servers = [subprocess.Popen([sys.executable, "-m", "bots.cli", "--log-level", "error", "serve", "twilight",
                                 "--map", "map8", "--port", str(port), "--move-timeout", "1", "--max-plies", "60",
                                 "--record", str(folder / f"server{i}")], stdout=subprocess.DEVNULL)
               for i, port in enumerate(ports)]
    config = folder / "bots.toml"
    write(config, CONFIGS[0], ports, page)
    log = open(folder / "daemon.log", "w")
    daemon = subprocess.Popen([sys.executable, "-m", "bots.cli", "--log-format", "json", "daemon", "--config",
                               str(config)], stdout=subprocess.DEVNULL, stderr=log)
    matched = []
    try:
        time.sleep(args.every)
        for k in range(1, args.reloads + 1):
            wanted = CONFIGS[k % len(CONFIGS)]
            write(config, wanted, ports, page)
            os.kill(daemon.pid, signal.SIGHUP)
            time.sleep(args.every)  # removed and changed bots finish their game first
            matched.append(bots_on_page(page) == {name: player for name, _, player in wanted})
    finally:
        stopped_at = time.time()  # games ended by the final SIGTERM are not the reloads'
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(60)
        for server in servers:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        log.close()
    files = sorted(folder.glob("server*/*.json"))
    ended = [(json.loads(p.read_text())["reason"], p.stat().st_mtime < stopped_at) for p in files]
    finished = sum(1 for reason, _ in ended if reason != "disconnect")
    lost = sum(1 for reason, before in ended if reason == "disconnect" and before)
    at_stop = sum(1 for reason, before in ended if reason == "disconnect" and not before)
    print("| reloads | seconds apart | games finished | lost to a reload (disconnect) | cut by the final SIGTERM "
          "| bots as configured after each reload |")
    print("|---|---|---|---|---|---|")
    print(f"| {args.reloads} | {args.every:g} | {finished} | {lost} | {at_stop} | {sum(matched)} of {len(matched)} |")
    print(f"\nrecords and the daemon's log: {folder}")
    return 0 if matched and all(matched) and not lost else 1


if __name__ == "__main__":
    sys.exit(main())
