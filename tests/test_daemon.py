"""The daemon: backoff, several bots on one loop, error boundaries, and clean signal handling."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from bots import daemon
from bots.backoff import Backoff
from bots.playing import keep_playing
from bots.runner import SearchRunner
from bots.settings import BotSettings, Settings
from bots.twilight.maps import load_map
from bots.twilight.referee import Referee, RefereeConfig
from bots.twilight.session import TwilightBot, play
from tests.helpers import alive, descendants, until

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A port with nothing listening on it (bound once by the OS, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def start_referee(port: int = 0, games: int = 1, seed: int = 1) -> tuple[Referee, int]:
    config = RefereeConfig(load_map("thetrap", 20), "thetrap", move_timeout=0.5, max_plies=20, seed=seed,
                           games=games)
    referee = Referee(config)
    return referee, await referee.start("127.0.0.1", port)


def bot(name: str, port: int, player: str = "greedy", **kw) -> TwilightBot:
    return TwilightBot(name=name, host="127.0.0.1", port=port, player=player, move_time=0.5, overhead=0.2,
                       max_plies=20, **kw)


# -- Backoff ----------------------------------------------------------------------------------


def test_backoff_grows_exponentially_with_jitter_and_is_capped():
    backoff = Backoff(first=1.0, cap=8.0, rng=random.Random(42))
    delays = [backoff.next() for _ in range(8)]
    nominal = [1, 2, 4, 8, 8, 8, 8, 8]
    for d, n in zip(delays, nominal, strict=True):
        assert 0.8 * n <= d <= 1.2 * n, (delays, nominal)
    # The jitter is the seeded rng's uniform(0.8, 1.2), applied to the capped nominal delay.
    rng = random.Random(42)
    assert delays == [n * rng.uniform(0.8, 1.2) for n in nominal]
    assert len({round(d / n, 9) for d, n in zip(delays, nominal, strict=True)}) > 1  # there is jitter
    assert backoff.failures == 8


def test_backoff_is_deterministic_with_a_seeded_rng():
    a = Backoff(first=0.5, cap=60, rng=random.Random(7))
    b = Backoff(first=0.5, cap=60, rng=random.Random(7))
    assert [a.next() for _ in range(10)] == [b.next() for _ in range(10)]


def test_backoff_never_exceeds_the_cap_plus_jitter():
    backoff = Backoff(first=0.05, cap=2.0, rng=random.Random(3))
    delays = [backoff.next() for _ in range(200)]  # 2**199 * first would overflow a float cap
    assert max(delays) <= 2.0 * 1.2
    assert min(delays[6:]) >= 2.0 * 0.8  # 0.05 * 2**6 = 3.2 > cap: every later delay is capped


def test_backoff_reset_goes_back_to_the_first_delay():
    backoff = Backoff(first=1.0, cap=60.0, rng=random.Random(1))
    for _ in range(5):
        backoff.next()
    assert backoff.next() >= 0.8 * 32
    backoff.reset()
    assert backoff.failures == 0
    assert 0.8 <= backoff.next() <= 1.2
    assert 1.6 <= backoff.next() <= 2.4


def test_backoff_default_rng_and_first_delay():
    backoff = Backoff()
    assert 0.8 <= backoff.next() <= 1.2


# -- in-process: the daemon plays on two servers at once ---------------------------------------


@pytest.mark.slow
async def test_daemon_runs_two_bots_against_two_referees(runner):
    (ref1, port1), (ref2, port2) = await start_referee(seed=1), await start_referee(seed=2)
    settings = Settings(
        bots=(BotSettings("twilight", bot("daemon-greedy", port1, "greedy"), games=1),
              BotSettings("twilight", bot("daemon-expecti", port2, "expecti", params=(("max_depth", 2),)),
                          games=1)),
        workers=2, grace=0.1)
    # The opponents connect first (they play vampires); the daemon's bots connect once its pool is up.
    opponents = [asyncio.ensure_future(play(bot(f"opponent{i}", port, "random"), runner))
                 for i, port in ((1, port1), (2, port2))]
    t0 = time.monotonic()
    try:
        code, *summaries = await asyncio.wait_for(asyncio.gather(daemon.run(settings), *opponents), 90)
    finally:
        await ref1.close()
        await ref2.close()
    assert code == 0
    assert time.monotonic() - t0 < 60
    assert [len(s) for s in summaries] == [1, 1]  # each opponent played one game
    for referee, ours, theirs in ((ref1, "daemon-greedy", "opponent1"), (ref2, "daemon-expecti", "opponent2")):
        assert len(referee.records) == 1
        record = referee.records[0]
        assert record["violations"] == []
        assert record["players"] == {"vampires": theirs, "werewolves": ours}
        assert record["reason"] in ("elimination", "max plies")
        assert 1 <= record["plies"] <= 20


# -- keep_playing: retries, and the error boundary ------------------------------------------------


@pytest.mark.slow
async def test_keep_playing_retries_until_the_server_is_up(runner):
    port = free_port()
    backoff = Backoff(first=0.05, cap=0.2, rng=random.Random(0))
    entry = BotSettings("twilight", bot("patient", port), games=1)
    task = asyncio.ensure_future(keep_playing(entry, runner, backoff=backoff, pause=0.05))
    # refused, refused, ... each one a retry after a delay
    await until(lambda: backoff.failures >= 2 or task.done(), what="two refused connections")
    assert not task.done(), task.result()
    referee, _ = await start_referee(port=port)
    try:
        opponent = asyncio.ensure_future(play(bot("opponent", port, "random"), runner))
        played, games = await asyncio.wait_for(asyncio.gather(task, opponent), 60)
    finally:
        await referee.close()
    assert played == 1 and len(games) == 1
    assert backoff.failures == 0  # reset after the game
    assert len(referee.records) == 1 and referee.records[0]["violations"] == []
    assert "patient" in referee.records[0]["players"].values()


@pytest.mark.slow
async def test_keep_playing_plays_games_back_to_back(runner):
    """games=2: one game per connection, then a new connection for the next one."""
    referee, port = await start_referee()
    entry = BotSettings("twilight", bot("twice", port), games=2)
    task = asyncio.ensure_future(keep_playing(entry, runner, backoff=Backoff(first=0.05), pause=0.05))
    try:
        for i in range(2):
            await asyncio.wait_for(play(bot(f"opponent{i}", port, "random"), runner), 60)
        played = await asyncio.wait_for(task, 30)
    finally:
        await referee.close()
    assert played == 2
    assert [sorted(r["players"].values()) for r in referee.records] == [["opponent0", "twice"], ["opponent1", "twice"]]


@pytest.mark.slow
async def test_garbage_stops_one_bot_while_another_keeps_playing(runner):
    connections = 0

    async def garbage(reader, writer):
        nonlocal connections
        connections += 1
        writer.write(b"XYZ\x01\x02\x03garbage")
        await writer.drain()
        try:
            await reader.read()  # keep the socket open until the client leaves
        finally:
            writer.close()

    junk = await asyncio.start_server(garbage, "127.0.0.1", 0)
    junk_port = junk.sockets[0].getsockname()[1]
    referee, port = await start_referee()
    quick = {"backoff": Backoff(first=0.05), "pause": 0.05}
    victim = asyncio.ensure_future(keep_playing(BotSettings("twilight", bot("victim", junk_port), 0), runner, **quick))
    healthy = asyncio.ensure_future(keep_playing(BotSettings("twilight", bot("healthy", port), 1), runner, **quick))
    try:
        assert await asyncio.wait_for(victim, 10) == 0  # stopped, without retrying, even with games=0
        opponent = asyncio.ensure_future(play(bot("opponent", port, "random"), runner))
        played, games = await asyncio.wait_for(asyncio.gather(healthy, opponent), 60)
        await asyncio.sleep(0.2)  # time for a retry, which must not happen (no event marks its absence)
    finally:
        junk.close()
        await referee.close()
    assert connections == 1
    assert played == 1 and len(games) == 1
    assert referee.records[0]["violations"] == []
    assert sorted(referee.records[0]["players"].values()) == ["healthy", "opponent"]


@pytest.mark.slow
async def test_a_bug_in_a_session_is_retried_not_fatal(runner, monkeypatch):
    """Any other exception from a session is logged and retried with backoff."""
    calls = []

    async def broken(bot, runner, on_state=None, log=None, stop=None):
        calls.append(bot.name)
        if len(calls) < 3:
            raise RuntimeError("a bug")
        return [{"species": "vampires"}]

    monkeypatch.setattr("bots.twilight.session.play", broken)
    backoff = Backoff(first=0.01, rng=random.Random(0))
    played = await asyncio.wait_for(keep_playing(BotSettings("twilight", bot("buggy", 1), 1), runner,
                                                 backoff=backoff, pause=0.01), 10)
    assert played == 1 and calls == ["buggy"] * 3
    assert backoff.failures == 0


# -- signals, in-process -----------------------------------------------------------------------


def unreachable_settings(n: int = 2) -> Settings:
    return Settings(bots=tuple(BotSettings("twilight", bot(f"b{i}", free_port()), 0) for i in range(n)),
                    workers=1, grace=0.1)


async def test_sigterm_cancels_every_bot_and_run_returns_zero(monkeypatch):
    started = asyncio.Event()
    real = daemon.keep_playing
    bots = []

    async def watched(*args, **kw):
        bots.append(args[0].bot.name)
        if len(bots) == 2:
            started.set()
        return await real(*args, **kw)

    monkeypatch.setattr(daemon, "keep_playing", watched)
    task = asyncio.ensure_future(daemon.run(unreachable_settings(2)))
    await asyncio.wait_for(started.wait(), 30)  # every bot is playing
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(task, 10) == 0
    # The handlers are removed again: SIGTERM is back to its default.
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


async def test_a_second_signal_exits_at_once(monkeypatch):
    started = asyncio.Event()
    real = daemon.keep_playing
    exits = []

    async def watched(*args, **kw):
        started.set()
        return await real(*args, **kw)

    monkeypatch.setattr(daemon, "keep_playing", watched)
    monkeypatch.setattr(daemon, "os", SimpleNamespace(_exit=exits.append))  # instead of killing pytest
    task = asyncio.ensure_future(daemon.run(unreachable_settings()))
    await asyncio.wait_for(started.wait(), 30)
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)  # both are delivered before the loop runs the first handler
    assert await asyncio.wait_for(task, 10) == 0
    assert exits == [1]


async def test_sigterm_during_start_up_stops_the_daemon(monkeypatch):
    """`systemctl stop` while the workers are still starting (a first start compiles the
    kernels for up to a minute): the daemon stops at once, exit 0, without waiting for them."""
    real_new_pool = SearchRunner._new_pool

    def slow_new_pool(self):  # runs in the thread that starts the pool, as a compiling forkserver blocks it
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5.0)
        return real_new_pool(self)

    monkeypatch.setattr(SearchRunner, "_new_pool", slow_new_pool)
    started = time.monotonic()
    task = asyncio.ensure_future(daemon.run(unreachable_settings()))
    try:
        assert await asyncio.wait_for(asyncio.shield(task), 3) == 0
        assert time.monotonic() - started < 2.0
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


# -- signals, the real command ---------------------------------------------------------------------


def write_config(tmp_path: Path, workers: int = 2) -> Path:
    text = f"[runner]\nworkers = {workers}\n\n[log]\nlevel = \"info\"\n"
    for name in ("first", "second"):
        text += (f'\n[[bot]]\nname = "{name}"\ngame = "twilight"\nhost = "127.0.0.1"\nport = {free_port()}\n'
                 'player = "greedy"\nmove_time = 1.0\noverhead = 0.2\n')
    path = tmp_path / "cfg.toml"
    path.write_text(text)
    return path


class Daemon:
    """A daemon in a subprocess (stdin and stdout closed); its stderr JSON lines are read by a thread.

    Every process below it is recorded once it has started, and `stop()` kills whatever of
    those is still alive, so a test never leaves processes behind even when the daemon does.
    """

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        self.children: set[int] = set()
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def command(cls, config: Path) -> "Daemon":
        return cls([sys.executable, "-m", "bots.cli", "--log-format", "json", "daemon", "--config", str(config)])

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, event: str, timeout: float) -> dict:
        """The first log line whose event is `event`, read within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            entry = self.parse(line)
            if entry.get("event") == event:
                if event in ("daemon started", "pool ready"):
                    self.children = descendants(self.proc.pid)
                return entry
        raise AssertionError(f"no {event!r} log line within {timeout} s; stderr so far: {self.seen}")

    def parse(self, line: str) -> dict:
        """A JSON log line; anything else (a child's traceback) fails the test with all stderr."""
        try:
            return json.loads(line)
        except ValueError:
            rest = "".join(self.seen)
            raise AssertionError(f"stderr line is not a JSON log entry: {line!r}\nstderr so far:\n{rest}") from None

    def wait(self, timeout: float) -> tuple[int, list[dict], str]:
        """Exit code, every JSON log line, and the raw stderr (what arrived within 1 s of the exit:
        processes left behind may keep the pipe open)."""
        code = self.proc.wait(timeout=timeout)
        deadline = time.monotonic() + 1
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
        err = "".join(self.seen)
        return code, [self.parse(line) for line in self.seen if line.startswith("{")], err

    def survivors(self, grace: float = 5.0) -> list[int]:
        """The recorded processes still running `grace` seconds from now (or sooner, once all are gone)."""
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(alive(pid) for pid in self.children):
            time.sleep(0.05)
        return sorted(pid for pid in self.children if alive(pid))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pid in self.children:  # only processes this test started, by pid
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


# A daemon whose bots take 5 s to stop (say, a server that never acknowledges the close): the
# first signal starts a stop that is still running when the second signal arrives.
SLOW_STOP = """\
import asyncio, sys
import structlog
from bots import cli, daemon

real = daemon.keep_playing

async def slow_to_stop(*args, **kw):
    try:
        return await real(*args, **kw)
    except asyncio.CancelledError:
        structlog.get_logger("bots.test").info("slow stop begins")
        await asyncio.sleep(5)
        raise

daemon.keep_playing = slow_to_stop

if __name__ == "__main__":
    sys.exit(cli.main(["--log-format", "json", "daemon", "--config", sys.argv[1]]))
"""


def slow_stop_daemon(tmp_path: Path) -> Daemon:
    script = tmp_path / "slow_stop.py"
    script.write_text(SLOW_STOP)
    return Daemon([sys.executable, str(script), str(write_config(tmp_path, workers=2))])


@pytest.mark.slow
@pytest.mark.e2e
def test_sigterm_stops_the_daemon_cleanly(tmp_path):
    d = Daemon.command(write_config(tmp_path, workers=2))
    try:
        started = d.until("daemon started", 30)
        assert started["bots"] == ["first", "second"] and started["workers"] == 2
        d.until("pool ready", 60)  # the workers warm up in the background (bots.runner.launch)
        assert len(d.children) >= 3, d.children  # the forkserver and its two workers (at least)
        d.until("server unreachable or dropped; retrying", 10)  # the bots are in backoff
        d.proc.send_signal(signal.SIGTERM)
        code, lines, err = d.wait(10)
        survivors = d.survivors()
    finally:
        d.stop()
    assert code == 0, err
    events = [line["event"] for line in lines]
    assert "signal received: stopping every bot" in events
    assert events[-1] == "daemon stopped"
    assert "Traceback" not in err
    assert survivors == []


@pytest.mark.slow
@pytest.mark.e2e
def test_sigint_stops_the_daemon_like_sigterm(tmp_path):
    d = Daemon.command(write_config(tmp_path, workers=1))
    try:
        d.until("daemon started", 30)
        d.proc.send_signal(signal.SIGINT)
        code, lines, err = d.wait(10)
        survivors = d.survivors()
    finally:
        d.stop()
    assert code == 0, err
    assert lines[-1]["event"] == "daemon stopped"
    assert "Traceback" not in err
    assert survivors == []


@pytest.mark.e2e
def test_a_quick_second_sigterm_makes_it_exit(tmp_path):
    """Two SIGTERMs back to back.  The clean stop takes milliseconds and the kernel may merge the two
    signals, so any of these is right: a clean stop (0), the forced exit (1), or the default action of
    a signal that lands after the handlers were removed (-SIGTERM).  What matters: it is gone at once."""
    d = Daemon.command(write_config(tmp_path, workers=1))
    try:
        d.until("daemon started", 30)
        d.proc.send_signal(signal.SIGTERM)
        d.proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        d.proc.wait(5)
        assert time.monotonic() - t0 < 5
        code, lines, err = d.wait(0)
    finally:
        d.stop()
    events = [line["event"] for line in lines]
    assert code in (0, 1, -signal.SIGTERM), err
    assert "signal received: stopping every bot" in events
    if code == 1:
        assert "second signal: exiting now" in events
    if code == 0:
        assert events[-1] == "daemon stopped"


@pytest.mark.e2e
def test_a_second_signal_during_a_slow_stop_exits_at_once(tmp_path):
    d = slow_stop_daemon(tmp_path)
    try:
        d.until("daemon started", 30)
        d.proc.send_signal(signal.SIGTERM)
        d.until("signal received: stopping every bot", 10)
        for _ in range(2):  # both bots are now in their 5 s stop
            d.until("slow stop begins", 10)
        d.proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        d.proc.wait(10)
        took = time.monotonic() - t0
        code, lines, err = d.wait(0)
    finally:
        d.stop()
    assert code == 1, err
    assert took < 2.0  # not the 5 s the bots need to stop
    events = [line["event"] for line in lines]
    assert "second signal: exiting now" in events and "daemon stopped" not in events


@pytest.mark.e2e
def test_the_forced_exit_leaves_no_worker_behind(tmp_path):
    d = slow_stop_daemon(tmp_path)
    try:
        d.until("pool ready", 60)
        assert len(d.children) >= 3
        d.proc.send_signal(signal.SIGTERM)
        d.until("signal received: stopping every bot", 10)
        for _ in range(2):  # both bots are now in their 5 s stop
            d.until("slow stop begins", 10)
        d.proc.send_signal(signal.SIGTERM)
        code, _, err = d.wait(10)
        assert code == 1, err
        survivors = d.survivors(grace=3.0)
    finally:
        d.stop()  # kills the survivors, so the test leaves nothing behind either way
    assert survivors == []


# -- go (CGOS) bots -------------------------------------------------------------------------------


def go_bot(name: str, port: int, games: int = 0):
    from bots.go.cgos_session import CgosBot

    return CgosBot(name=name, host="127.0.0.1", port=port, password="pw-123", player="random", games=games)


def test_the_go_session_and_its_fatal_errors_are_wired():
    from bots import registry
    from bots.go import cgos_session
    from protocol import cgos

    assert registry.get("go").module("session") is cgos_session
    from bots.session import fatal

    assert fatal(cgos_session.Refused("no")) and fatal(cgos.ProtocolError("garbage"))
    assert not fatal(cgos_session.SessionClosed("dropped"))  # a drop is retried


async def test_a_refused_go_login_stops_that_bot_without_retrying():
    connections = 0

    async def refuse(reader, writer):
        nonlocal connections
        connections += 1
        for prompt in (b"protocol\n", b"username\n", b"password\n"):
            writer.write(prompt)
            await writer.drain()
            await reader.readline()
        writer.write(b"Error: Sorry, password doesn't match\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    entry = BotSettings("go", go_bot("refused-bot", port), 0)
    try:
        played = await asyncio.wait_for(keep_playing(entry, SearchRunner(1), backoff=Backoff(first=0.05), pause=0.05),
                                        10)
        await asyncio.sleep(0.2)  # time for a retry, which must not happen (no event marks its absence)
    finally:
        server.close()
    assert played == 0 and connections == 1


async def test_go_games_finished_before_a_drop_count(monkeypatch):
    """The CGOS session plays many games per connection; when the connection drops, the games it
    finished travel on the error and count towards `games`."""
    from bots.go import cgos_session

    asked = []
    summary = {"gid": 1, "colour": "b", "opponent": "x", "result": "B+Resign", "winner": "counted", "moves": 9}

    async def session(bot, runner, on_state=None, log=None, stop=None):
        asked.append(bot.games)
        if len(asked) == 1:
            raise cgos_session.SessionClosed("server closed the connection between games", [summary, summary])
        if len(asked) == 2:
            raise cgos_session.SessionClosed("server closed the connection mid-game", [])
        return [summary]

    monkeypatch.setattr("bots.go.cgos_session.play", session)
    backoff = Backoff(first=0.01, rng=random.Random(0))
    played = await asyncio.wait_for(keep_playing(BotSettings("go", go_bot("counted", 1, games=3), 3), None,
                                                 backoff=backoff, pause=0.01), 10)
    assert played == 3
    assert asked == [3, 1, 1]  # only the games still owed are asked for
    assert backoff.failures == 0
