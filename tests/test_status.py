"""The daemon's status: the monitor's projection of the bots' events, the page and its
endpoints (/api/status, /events, /board, /records, /metrics, /healthz, the token), `bots
status`, and the [status] table of the config."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bots import session as events
from bots import status_cli
from bots.monitor import Monitor, Tee, reason_kind
from bots.settings import SettingsError, load
from bots.status_page import make_app
from bots.twilight.maps import load_map

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "a-token-of-twenty-chars"


class Clock:
    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class Runner:
    workers, processes, queued, ready = 2, 3, 1, True


def playing_monitor(record: Path | None = None) -> tuple[Monitor, object]:
    """A monitor with bot `alpha` in a Twilight game: two moves made, one a fallback."""
    monitor = Monitor(Runner(), failing_after=2, now=Clock())
    watch = monitor.watch("alpha", "twilight", "127.0.0.1:5555", "planner")
    watch.event("info", events.CONNECTED, {})
    watch.event("info", events.GAME_STARTS, {"species": "vampires", "rows": 5, "cols": 10, "password": "x"})
    watch.position(load_map("thetrap", 20))
    watch.event("info", events.MOVE, {"move": [[4, 3, 4, 4, 2]], "budget": 1.7, "used": 1.2, "depth": 6,
                                      "nodes": 5000, "late_by": 0.0, "fallback": None, "ply": 0})
    watch.event("info", events.MOVE, {"move": [[4, 2, 4, 3, 2]], "budget": 1.7, "used": 1.75, "depth": 0,
                                      "nodes": 0, "late_by": 0.05, "fallback": "search raised ValueError: boom",
                                      "ply": 2})
    return monitor, watch


# -- the monitor ----------------------------------------------------------------------------------


def test_the_monitor_follows_a_bot_through_a_game():
    monitor, watch = playing_monitor()
    bot = monitor.snapshot()["bots"][0]
    assert (bot["state"], bot["name"], bot["server"], bot["player"]) == ("playing", "alpha", "127.0.0.1:5555",
                                                                          "planner")
    game = bot["playing"]
    assert game["species"] == "vampires" and "password" not in game  # only the listed fields
    assert [m["move"] for m in game["moves"]] == ["4 (4,3)->(4,2)", "4 (4,2)->(3,2)"]  # as bots replay shows them
    assert game["last_move"]["fallback"] == "search raised ValueError: boom" and game["board_version"] == 1
    pool = monitor.snapshot()["pool"]
    assert (pool["workers"], pool["queued"], pool["fallbacks_last_hour"], pool["late_last_hour"]) == (2, 1, 1, 1)

    watch.event("info", events.GAME_OVER, {"result": "won", "reason": "elimination", "record": "/x/g-7.json"})
    bot = monitor.snapshot()["bots"][0]
    assert bot["state"] == "waiting" and bot["playing"] is None
    assert bot["results"] == {"won": 1} and bot["games_today"] == 1
    assert bot["finished"][0] | {"ended": 0} == {"ended": 0, "started": Clock().t, "result": "won",
                                                 "reason": "elimination", "moves": 2, "record": "/x/g-7.json"}
    watch.event("info", events.GAME_STARTS, {})
    watch.event("warning", events.INTERRUPTED, {"detail": "closed"})
    watch.event("info", events.GAME_STARTS, {})
    watch.event("info", events.GAME_OVER, {"result": "W+Resign", "outcome": "lost"})  # CGOS: ours is `outcome`
    assert monitor.snapshot()["bots"][0]["results"] == {"won": 1, "unknown": 1, "lost": 1}


def test_the_pool_forgets_fallbacks_older_than_an_hour():
    monitor, _ = playing_monitor()
    monitor.now.t += 3601
    assert monitor.pool()["fallbacks_last_hour"] == 0 and monitor.pool()["late_last_hour"] == 0


def test_health_fails_after_failures_in_a_row_and_after_a_fatal_stop():
    monitor, watch = playing_monitor()
    assert monitor.health()[0]
    watch.backing_off("connection refused", 2.0)
    assert monitor.health()[0]  # within its policy (failing_after=2)
    watch.backing_off("connection refused", 4.0)
    ok, bots = monitor.health()
    assert not ok and bots["alpha"] == {"state": "backing off", "failures": 2, "failing": True}
    assert monitor.snapshot()["bots"][0]["error"] == "connection refused"
    watch.succeeded()
    watch.connecting()
    assert monitor.health()[0]
    watch.stopped("the server sent garbage or refused us", "bad password")
    assert not monitor.health()[0]
    other = monitor.watch("beta", "go", "h:1", "mcts")
    other.finished("played its 3 games")
    assert monitor.health()[1]["beta"]["failing"] is False


def test_a_restarted_bot_keeps_todays_results_and_a_removed_one_leaves_the_metrics():
    monitor, watch = playing_monitor()
    watch.event("info", events.GAME_OVER, {"result": "lost"})
    monitor.watch("alpha", "twilight", "127.0.0.1:5556", "greedy")  # changed by a reload
    bot = monitor.snapshot()["bots"][0]
    assert bot["results"] == {"lost": 1} and bot["server"] == "127.0.0.1:5556" and bot["state"] == "connecting"
    monitor.forget("alpha")
    assert monitor.snapshot()["bots"] == []
    text = metrics_text(monitor)
    assert 'bots_bot_state{bot="alpha"' not in text and 'bots_moves_total{bot="alpha",game="twilight"} 2.0' in text


def metrics_text(monitor: Monitor) -> str:
    from prometheus_client import generate_latest

    return generate_latest(monitor.metrics.registry).decode()


def test_metrics_count_moves_fallbacks_games_and_retries_per_bot():
    monitor, watch = playing_monitor()
    watch.event("info", events.GAME_OVER, {"result": "won"})
    watch.backing_off("refused", 1.0)
    text = metrics_text(monitor)
    for line in ('bots_moves_total{bot="alpha",game="twilight"} 2.0',
                 'bots_move_seconds_count{bot="alpha",game="twilight"} 2.0',
                 'bots_move_seconds_bucket{bot="alpha",game="twilight",le="1.5"} 1.0',
                 'bots_move_budget_ratio_bucket{bot="alpha",game="twilight",le="1.0"} 1.0',
                 'bots_fallbacks_total{bot="alpha",game="twilight",reason="search raised ValueError"} 1.0',
                 'bots_late_moves_total{bot="alpha",game="twilight"} 1.0',
                 'bots_games_total{bot="alpha",game="twilight",result="won"} 1.0',
                 'bots_connection_retries_total{bot="alpha",game="twilight"} 1.0',
                 'bots_bot_state{bot="alpha",game="twilight",state="backing off"} 1.0',
                 'bots_bot_state{bot="alpha",game="twilight",state="playing"} 0.0',
                 "bots_pool_workers 2.0", "bots_pool_queued_jobs 1.0"):
        assert line in text, line
    assert "_created" not in text


def test_reason_kinds_drop_the_details():
    assert reason_kind("illegal move from the search (not adjacent)") == "illegal move from the search"
    assert reason_kind("worker late") == "worker late" and reason_kind("") == "unknown"


class Log:
    def __init__(self, fields=None):
        self.fields, self.lines = dict(fields or {}), []

    def bind(self, **kw):
        log = Log({**self.fields, **kw})
        log.lines = self.lines
        return log

    def info(self, event, **kw):
        self.lines.append((event, {**self.fields, **kw}))
        return "logged"

    warning = error = info


def test_the_tee_logs_as_before_and_tells_the_watch():
    seen, log = [], Log()
    tee = Tee(log, lambda level, event, fields: seen.append((level, event, fields))).bind(gid=3)
    assert tee.info("move", used=1.0) == "logged"
    assert log.lines == [("move", {"gid": 3, "used": 1.0})] and seen == [("info", "move", {"used": 1.0})]

    def broken(level, event, fields):
        raise KeyError("a bug in the monitor")

    Tee(log, broken).error("game over", result="won")  # the page must never cost a move
    assert log.lines[-2][0] == "game over" and log.lines[-1][0] == "status page: cannot record an event"


async def test_waiting_for_a_change_wakes_at_the_next_event():
    monitor, watch = playing_monitor()
    version = monitor.version
    assert await monitor.wait(version - 1, 5) == version  # already past: at once
    waiter = asyncio.ensure_future(monitor.wait(version, 5))
    await asyncio.sleep(0.01)
    assert not waiter.done()
    watch.event("info", "registered", {})
    assert await asyncio.wait_for(waiter, 1) > version
    assert await monitor.wait(monitor.version, 0.01) == monitor.version  # a timeout: the same version


# -- the page -----------------------------------------------------------------------------------------


async def page_client(monitor: Monitor, token: str | None = None) -> TestClient:
    client = TestClient(TestServer(make_app(monitor, token)))
    await client.start_server()
    return client


async def test_the_endpoints_serve_the_status():
    monitor, _ = playing_monitor()
    client = await page_client(monitor)
    try:
        page = await client.get("/")
        assert page.status == 200 and "EventSource" not in (text := await page.text()) and "/events" in text
        data = await (await client.get("/api/status")).json()
        assert data["bots"][0]["playing"]["moves"][1]["fallback"].startswith("search raised")
        health = await client.get("/healthz")
        assert health.status == 200 and (await health.json())["ok"] is True
        metrics = await client.get("/metrics")
        assert metrics.headers["Content-Type"].startswith("text/plain") and "bots_moves_total" in await metrics.text()
        board = await client.get("/board/alpha")
        assert board.headers["Content-Type"] == "image/svg+xml" and b"<svg" in await board.read()
        assert (await client.get("/board/nobody")).status == 404
        monitor.bots["alpha"].failures, monitor.bots["alpha"].state = 9, "backing off"
        assert (await client.get("/healthz")).status == 503
    finally:
        await client.close()


async def test_events_stream_a_snapshot_at_each_change():
    monitor, watch = playing_monitor()
    client = await page_client(monitor)
    try:
        response = await client.get("/events")
        assert response.headers["Content-Type"] == "text/event-stream"
        first = json.loads((await response.content.readuntil(b"\n\n"))[6:])
        assert first["bots"][0]["state"] == "playing"
        watch.event("info", events.GAME_OVER, {"result": "draw"})
        second = json.loads((await asyncio.wait_for(response.content.readuntil(b"\n\n"), 5))[6:])
        assert second["version"] > first["version"] and second["bots"][0]["results"] == {"draw": 1}
        response.close()
    finally:
        await client.close()


async def test_records_are_served_only_when_the_bot_recorded_them(tmp_path):
    monitor, watch = playing_monitor()
    (tmp_path / "g-1.json").write_text('{"rules": "twilight"}\n')
    (tmp_path / "secret.json").write_text("{}")
    watch.event("info", events.GAME_OVER, {"result": "won", "record": str(tmp_path / "g-1.json")})
    client = await page_client(monitor)
    try:
        answer = await client.get("/records/alpha/g-1.json")
        assert answer.status == 200 and await answer.json() == {"rules": "twilight"}
        assert (await client.get("/records/alpha/secret.json")).status == 404
        assert (await client.get("/records/alpha/..%2Fsecret.json")).status == 404
    finally:
        await client.close()


async def test_a_token_guards_every_path_but_the_empty_page():
    monitor, _ = playing_monitor()
    client = await page_client(monitor, TOKEN)
    try:
        assert (await client.get("/")).status == 200
        for path in ("/api/status", "/events", "/metrics", "/healthz", "/board/alpha"):
            refused = await client.get(path)
            assert refused.status == 401 and refused.headers["WWW-Authenticate"] == "Bearer", path
            assert (await client.get(path, headers={"Authorization": "Bearer wrong"})).status == 401
        answer = await client.get("/api/status", headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status == 200 and TOKEN not in await answer.text()
    finally:
        await client.close()


# -- bots status ------------------------------------------------------------------------------------


def serve_in_thread(monitor: Monitor, token: str | None = None) -> tuple[str, callable]:
    """The page on a free port in a thread of its own (bots status is a blocking client)."""
    from aiohttp import web

    loop, ready = asyncio.new_event_loop(), threading.Event()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    runner = web.AppRunner(make_app(monitor, token))

    def main():
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    ready.wait(10)

    def stop():
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    return f"http://127.0.0.1:{port}", stop


def test_bots_status_prints_a_line_per_bot_and_exits_by_health(capsys, monkeypatch):
    monitor, watch = playing_monitor()
    url, stop = serve_in_thread(monitor, TOKEN)
    monkeypatch.setenv("PAGE_TOKEN", TOKEN)
    try:
        assert status_cli.run(url, "PAGE_TOKEN", False) == 0
        out = capsys.readouterr().out
        assert "alpha" in out and "playing" in out and "2 moves" in out and "1 fallbacks" in out
        watch.stopped("the server sent garbage or refused us", "bad password")
        assert status_cli.run(url, "PAGE_TOKEN", False) == 1
        assert "FAILING: stopped" in capsys.readouterr().out
        assert status_cli.run(url, None, False) == status_cli.UNREACHABLE  # no token
        assert "HTTP 401" in capsys.readouterr().err
    finally:
        stop()
    assert status_cli.run(url, "PAGE_TOKEN", True) == status_cli.UNREACHABLE  # nobody listens now
    assert "cannot reach the status page" in capsys.readouterr().err


# -- the config's [status] --------------------------------------------------------------------------


BOT = '[[bot]]\nname = "a"\ngame = "twilight"\nhost = "127.0.0.1"\nport = 5555\n'


def config(tmp_path: Path, status: str) -> Path:
    path = tmp_path / "bots.toml"
    path.write_text(status + "\n" + BOT)
    return path


def test_the_status_table_is_optional_and_loopback_needs_no_token(tmp_path):
    assert load(config(tmp_path, "")).status is None
    status = load(config(tmp_path, '[status]\nlisten = "127.0.0.1:8765"')).status
    assert (status.host, status.port, status.token, status.failing_after) == ("127.0.0.1", 8765, None, 5)
    assert load(config(tmp_path, '[status]\nlisten = "[::1]:9"')).status.host == "::1"


@pytest.mark.parametrize("table, env, error", [
    ('listen = "0.0.0.0:8765"', {}, "reachable from other machines: set token_env"),
    ('listen = "0.0.0.0:8765"\ntoken_env = "T"', {}, "the environment variable is not set"),
    ('listen = "0.0.0.0:8765"\ntoken_env = "T"', {"T": "short"}, "fewer than 16 characters"),
    ('listen = "8765"', {}, "must be HOST:PORT"),
    ('listen = "host:99999"', {}, "must be HOST:PORT"),
    ('listen = "127.0.0.1:1"\nport = 3', {}, "unknown key 'port'"),
    ('listen = "127.0.0.1:1"\nfailing_after = 0', {}, "failing_after=0 must be >= 1"),
])
def test_a_bad_status_table_is_refused_by_name(tmp_path, monkeypatch, table, env, error):
    monkeypatch.delenv("T", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError, match="status") as caught:
        load(config(tmp_path, "[status]\n" + table))
    assert error in str(caught.value)


def test_the_token_is_read_from_the_environment_and_never_shown(tmp_path, monkeypatch):
    monkeypatch.setenv("T", TOKEN)
    status = load(config(tmp_path, '[status]\nlisten = "0.0.0.0:8765"\ntoken_env = "T"')).status
    assert status.token == TOKEN and TOKEN not in repr(status)


@pytest.mark.e2e
def test_bots_daemon_check_validates_without_starting_anything(tmp_path):
    good = config(tmp_path, '[status]\nlisten = "127.0.0.1:8765"')
    run = subprocess.run([sys.executable, "-m", "bots.cli", "daemon", "--check", str(good)], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0 and "OK: 1 bot(s): a (twilight on 127.0.0.1:5555); status page on 127.0.0.1:8765" \
        in run.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(BOT.replace("5555", "0"))
    run = subprocess.run([sys.executable, "-m", "bots.cli", "daemon", "--check", str(bad)], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and "bot[0]" in run.stderr and "port" in run.stderr and run.stderr.count("\n") == 1


async def test_no_password_reaches_the_page_or_the_metrics():
    """Bots with passwords (gnd, CGOS) that fail to connect: their status, errors and metrics
    name the server, never the password."""
    from bots.backoff import Backoff
    from bots.gnd.session import bot_from_table as gnd_bot
    from bots.go.cgos_session import bot_from_table as cgos_bot
    from bots.playing import BotSettings, keep_playing

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nobody listens there
    secret = "hunter2.secret"
    monitor = Monitor()
    entries = [BotSettings("gopher", gnd_bot({"game": "gopher", "server": f"http://127.0.0.1:{port}/", "group": 3,
                                              "members": "x", "name": "g3", "password": secret}, "t")),
               BotSettings("go", cgos_bot({"game": "go", "name": "bots-t", "host": "127.0.0.1", "port": port,
                                           "password": secret}, "t"))]
    for entry in entries:
        watch = monitor.watch(entry.bot.name, entry.game, entry.bot.address, entry.bot.player)
        await asyncio.wait_for(keep_playing(entry, None, backoff=Backoff(first=0.01), retries=1, watch=watch), 60)
    text = json.dumps(monitor.snapshot()) + metrics_text(monitor)
    assert [b["state"] for b in monitor.snapshot()["bots"]] == ["stopped", "stopped"]
    assert str(port) in text and secret not in text


async def test_a_status_address_in_use_stops_the_daemon_with_exit_1():
    from bots.daemon import Daemon
    from bots.settings import StatusSettings

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = load_settings_with_status(port)
        assert await asyncio.wait_for(Daemon(settings).run(), 30) == 1
    assert StatusSettings("127.0.0.1", port) == settings.status


def load_settings_with_status(port: int):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bots.toml"
        path.write_text(f'[status]\nlisten = "127.0.0.1:{port}"\n[runner]\nworkers = 1\n' + BOT)
        return load(path)
