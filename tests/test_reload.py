"""Reloading the daemon's config (SIGHUP, `systemctl reload`): new bots start, removed bots stop
after their game in progress, changed bots restart after it, unchanged bots are not touched,
and a config with an error is refused while the bots go on."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from bots.daemon import Daemon
from bots.settings import load
from tests.test_daemon import Daemon as DaemonProcess
from tests.test_daemon import free_port, start_referee

BOT = ('\n[[bot]]\nname = "{name}"\ngame = "twilight"\nhost = "127.0.0.1"\nport = {port}\nplayer = "{player}"\n'
       'move_time = 0.5\noverhead = 0.2\nmax_plies = 20\n')


def write(path: Path, *bots: tuple[str, int, str], extra: str = "") -> Path:
    path.write_text("[runner]\nworkers = 1\n" + extra + "".join(BOT.format(name=n, port=p, player=pl)
                                                                  for n, p, pl in bots))
    return path


async def until(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_a_reload_finishes_games_in_progress_and_touches_only_what_changed(tmp_path):
    referee, port = await start_referee(games=1)  # pairs two connections a game, again and again
    config = write(tmp_path / "bots.toml", ("a", port, "greedy"), ("b", port, "greedy"))
    daemon = Daemon(load(config), config)
    run = asyncio.ensure_future(daemon.run())
    try:
        await until(lambda: daemon.monitor.bots.get("b") and daemon.monitor.bots["b"].playing, 60, "b plays")
        a_task = daemon.running["a"].task

        # b removed, c added (nobody for c to play until b is gone: the referee pairs a and b)
        write(config, ("a", port, "greedy"), ("c", port, "random"))
        daemon.reload()
        assert daemon.running["b"].stop.is_set() and not daemon.running["b"].task.done()  # its game goes on
        await until(lambda: "b" not in daemon.running, 60, "b stops after its game")
        assert "b" not in daemon.monitor.bots
        assert daemon.running["a"].task is a_task  # untouched
        await until(lambda: daemon.monitor.bots["c"].results, 90, "c finishes a game")

        # a config with an error: refused, nothing changes
        config.write_text(config.read_text() + '\n[[bot]]\nname = "d"\ngame = "chess"\n')
        daemon.reload()
        assert set(daemon.running) == {"a", "c"} and daemon.running["a"].task is a_task

        # a changed: restarted after its game in progress, with its results kept
        write(config, ("a", port, "random"), ("c", port, "random"))
        await until(lambda: daemon.monitor.bots["a"].playing, 60, "a plays")
        before = sum(daemon.monitor.bots["a"].results.values())
        daemon.reload()
        await until(lambda: daemon.running["a"].task is not a_task, 60, "a restarts")
        assert daemon.running["a"].entry.bot.player == "random"
        assert sum(daemon.monitor.bots["a"].results.values()) >= before + 1  # the game in progress counted
    finally:
        daemon.stop_all()
        await asyncio.wait_for(run, 30)
        await referee.close()
    lost = [r for r in referee.records if r["reason"] not in ("elimination", "max plies")]
    assert referee.records and lost == []  # no game ended by a disconnect
    assert {frozenset(r["players"].values()) for r in referee.records} >= {frozenset({"a", "b"}),
                                                                           frozenset({"a", "c"})}


@pytest.mark.slow
@pytest.mark.e2e
def test_sighup_reloads_the_running_daemon_and_refuses_a_broken_config(tmp_path):
    config = write(tmp_path / "bots.toml", ("first", free_port(), "greedy"))
    daemon = DaemonProcess.command(config)
    try:
        daemon.until("daemon started", 60)
        config.write_text(config.read_text() + "\n[[bot]]\nname = 3\n")
        os.kill(daemon.proc.pid, signal.SIGHUP)
        refused = daemon.until("config refused; the running bots go on", 30)
        assert "bot[1]: missing key 'game'" in refused["error"]
        write(config, ("first", free_port(), "greedy"), ("second", free_port(), "greedy"))
        os.kill(daemon.proc.pid, signal.SIGHUP)
        reloaded = daemon.until("config reloaded", 30)
        assert (reloaded["added"], reloaded["removed"], reloaded["changed"]) == (["second"], [], ["first"])
        os.kill(daemon.proc.pid, signal.SIGTERM)
        code, _, _ = daemon.wait(30)
        assert code == 0
    finally:
        daemon.stop()
