"""The `bots` command: run for real in subprocesses (exit codes, stderr, stdout), plus argument parsing."""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bots import cli, cmdline
from tests.helpers import WITH_SIGINT, ScriptedRunner

ROOT = Path(__file__).resolve().parents[1]
BOTS = [sys.executable, "-m", "bots.cli"]


def bots(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*BOTS, *args], cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("bots: error: "), lines[0]
    assert result.stdout == ""
    return lines[0]


# -- help -----------------------------------------------------------------------------------


@pytest.mark.e2e
def test_help_lists_every_command():
    result = bots("--help")
    assert result.returncode == 0, result.stderr
    for command in ("play", "serve", "arena", "bench", "daemon", "demo"):
        assert re.search(rf"^\s+{command}\s", result.stdout, re.MULTILINE), command
    for option in ("--log-format", "--log-level"):
        assert option in result.stdout
    assert "bots --game twilight --host H --port P" in result.stdout  # the docker form is documented


@pytest.mark.e2e
def test_the_installed_script_runs():
    script = shutil.which("bots")
    assert script, "the bots console script is not on PATH"
    result = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "usage: bots" in result.stdout


@pytest.mark.e2e
def test_arena_help_lists_its_options():
    result = bots("arena", "twilight", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--a", "--b", "--maps", "--games", "--move-time", "--overhead", "--max-plies", "--parallel",
                   "--seed", "--workers", "--json", "--show"):
        assert re.search(rf"(^|\s){re.escape(option)}[\s,]", result.stdout), option
    assert ("alphabeta, expecti, greedy, human (you, at this terminal), planner, random"
            in " ".join(result.stdout.split()))


@pytest.mark.e2e
@pytest.mark.parametrize("command, options", [
    (["play", "twilight"], ["--host", "--port", "--player", "--param", "--move-time", "--overhead", "--workers",
                            "--name"]),
    (["serve", "twilight"], ["--map", "--port", "--move-timeout", "--max-plies", "--seed", "--games"]),
    (["daemon"], ["--config"]),
    (["bench", "twilight"], ["--maps", "--players", "--time"]),
    (["play"], ["twilight", "gopher", "dodo", "go"]),  # the games come from the registry
    (["serve"], ["twilight", "gnd", "cgos"]),
])
def test_subcommand_help(command, options):
    result = bots(*command, "--help")
    assert result.returncode == 0, result.stderr
    for option in options:
        assert option in result.stdout, option


# -- bad input: exit 2, one line ---------------------------------------------------------------


@pytest.mark.e2e
def test_serve_with_a_broken_map(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text('<Map Rows="5" Columns="10"><Humans X="2"')
    line = one_error_line(bots("serve", "twilight", "--map", str(broken), "--port", "0", timeout=30))
    assert str(broken) in line and "not valid XML" in line


@pytest.mark.e2e
def test_serve_with_a_map_that_breaks_the_rules(tmp_path):
    bad = tmp_path / "nowerewolves.xml"
    bad.write_text('<Map Rows="5" Columns="10"><Vampires X="1" Y="1" Count="4"/></Map>')
    line = one_error_line(bots("serve", "twilight", "--map", str(bad), "--port", "0", timeout=30))
    assert str(bad) in line and "Werewolves" in line


@pytest.mark.e2e
def test_serve_with_a_missing_map(tmp_path):
    missing = tmp_path / "nowhere.xml"
    line = one_error_line(bots("serve", "twilight", "--map", str(missing), "--port", "0", timeout=30))
    assert str(missing) in line and "no such file" in line


@pytest.mark.e2e
def test_daemon_with_a_broken_config(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[[bot]\nname = \n")
    line = one_error_line(bots("daemon", "--config", str(broken), timeout=30))
    assert str(broken) in line and "not valid TOML" in line


@pytest.mark.e2e
def test_daemon_with_an_invalid_config(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[bot]]\nname = "x"\ngame = "twilight"\nhost = "h"\nport = 99999\n')
    line = one_error_line(bots("daemon", "--config", str(bad), timeout=30))
    assert str(bad) in line and "is not a TCP port" in line


@pytest.mark.e2e
def test_daemon_with_a_missing_config(tmp_path):
    line = one_error_line(bots("daemon", "--config", str(tmp_path / "none.toml"), timeout=30))
    assert "none.toml" in line and "cannot read" in line


@pytest.mark.e2e
def test_play_with_an_unknown_player_option():
    line = one_error_line(bots("play", "twilight", "--player", "expecti:nosuch=1", "--port", "5555", timeout=30))
    assert "'nosuch'" in line and "expecti" in line


@pytest.mark.e2e
def test_play_with_a_bad_player_option_value():
    line = one_error_line(bots("play", "twilight", "--player", "expecti:max_depth=deep", "--port", "5555",
                               timeout=30))
    assert "max_depth" in line and "'deep'" in line


@pytest.mark.e2e
def test_play_with_an_unknown_player():
    line = one_error_line(bots("play", "twilight", "--player", "nosuch", "--port", "5555", timeout=30))
    assert "unknown twilight player 'nosuch'" in line


@pytest.mark.e2e
def test_play_with_a_move_time_below_the_overhead():
    line = one_error_line(bots("play", "twilight", "--port", "5555", "--move-time", "0.2", "--overhead", "0.3",
                               timeout=30))
    assert "leaves nothing after overhead" in line


@pytest.mark.e2e
def test_play_without_a_port():
    line = one_error_line(bots("play", "twilight", timeout=30))
    assert "no server port" in line


@pytest.mark.e2e
def test_arena_with_an_unknown_map():
    line = one_error_line(bots("arena", "twilight", "--a", "greedy", "--b", "random", "--maps", "nosuchmap",
                               timeout=30))
    assert "nosuchmap" in line


@pytest.mark.e2e
def test_argparse_errors_also_exit_2():
    result = bots("play", "chess", "--port", "1", timeout=30)
    assert result.returncode == 2 and "invalid choice: 'chess'" in result.stderr


# -- a failure while running: exit 1, a log line, no traceback ----------------------------------------


@pytest.mark.e2e
def test_play_against_a_port_with_nothing_listening():
    port = free_port()
    result = bots("--log-format", "json", "play", "twilight", "--host", "127.0.0.1", "--port", str(port),
                  "--player", "greedy", "--workers", "1", timeout=60)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    logs = [json.loads(line) for line in result.stderr.splitlines()]
    errors = [entry for entry in logs if entry["level"] == "error"]
    assert len(errors) == 1
    assert errors[0]["event"] == "cannot play on the server"
    assert errors[0]["server"] == f"127.0.0.1:{port}"
    assert "refused" in errors[0]["error"].lower()


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("game, where", [
    ("twilight", ["--host", "127.0.0.1", "--port", "{port}"]),
    ("gopher", ["--server", "http://127.0.0.1:{port}/", "--password", "pw"]),
    ("go", ["--cgos", "127.0.0.1:{port}", "--password", "secret"]),
])
def test_every_game_plays_the_same_way_when_its_server_cannot_be_reached(game, where):
    """One play path (the daemon's): an unreachable server is retried with backoff --retries
    times, each a warning, then one error and exit status 1, whatever the game."""
    port = free_port()
    started = time.monotonic()
    result = bots("--log-format", "json", "play", game, *(w.format(port=port) for w in where), "--retries", "1",
                  "--workers", "1", timeout=60)
    assert result.returncode == 1, result.stderr[-2000:]
    logs = [json.loads(line) for line in result.stderr.splitlines()]
    retried = [e for e in logs if e["event"] == "server unreachable or dropped; retrying"]
    errors = [e for e in logs if e["level"] == "error"]
    assert len(retried) == 1 and len(errors) == 1 and errors[0]["event"] == "cannot play on the server", logs
    assert str(port) in errors[0]["server"] and errors[0]["game"] == game
    assert time.monotonic() - started < 30


# -- parsing: the docker form and the course convention -------------------------------------------------


@pytest.mark.parametrize("argv, expected", [
    (["--game", "twilight", "--host", "h", "--port", "1"], ["play", "twilight", "--host", "h", "--port", "1"]),
    (["--game=twilight", "--port", "1"], ["play", "twilight", "--port", "1"]),
    (["--log-format", "json", "--game", "twilight", "--port", "2"],
     ["--log-format", "json", "play", "twilight", "--port", "2"]),
    (["play", "twilight", "h", "5"], ["play", "twilight", "h", "5"]),
    (["serve", "twilight", "--map", "thetrap"], ["serve", "twilight", "--map", "thetrap"]),
    (["--game"], ["--game"]),  # nothing to rewrite: argparse reports it
    ([], []),
    # --game anywhere (issue 11): after the options, between them, with a global option after it
    (["--host", "h", "--port", "1", "--game", "twilight"], ["play", "twilight", "--host", "h", "--port", "1"]),
    (["--host", "h", "--game=go", "--cgos", "x:1"], ["play", "go", "--host", "h", "--cgos", "x:1"]),
    (["--port", "3", "--log-level", "debug", "--game", "twilight"],
     ["--log-level", "debug", "play", "twilight", "--port", "3"]),
])
def test_normalise(argv, expected):
    assert cli._normalise(list(argv)) == expected


def parse(*argv: str) -> argparse.Namespace:
    return cli.parse_args(list(argv))


def test_parse_the_docker_form():
    args = parse("--log-format", "json", "--game", "twilight", "--host", "10.0.0.7", "--port", "6000",
                 "--player", "greedy", "--move-time", "0.5", "--overhead", "0.2")
    assert (args.command, args.game, args.host, args.port, args.address) == ("play", "twilight", "10.0.0.7", 6000, [])
    assert args.log_format == "json"
    assert args.player == ("greedy", ())
    assert (args.move_time, args.overhead) == (0.5, 0.2)
    from bots import playing

    assert args.func is playing.run


def test_parse_the_course_convention():
    args = parse("play", "twilight", "10.0.0.7", "6000")
    assert (args.host, args.port, args.address) == ("127.0.0.1", None, ["10.0.0.7", "6000"])
    args = parse("play", "twilight", "10.0.0.7", "6000", "--player", "random", "--move-time", "0.5")
    assert args.address == ["10.0.0.7", "6000"] and args.player == ("random", ())


def test_parse_play_defaults():
    args = parse("play", "twilight", "--port", "5555")
    assert (args.host, args.port, args.name, args.player, args.param) == (
        "127.0.0.1", 5555, "bots", ("planner", ()), [])
    assert (args.move_time, args.overhead, args.workers, args.show) == (2.0, 0.3, None, False)


def test_parse_the_course_convention_after_options():
    args = parse("play", "twilight", "--player", "random", "--move-time", "0.5", "--overhead", "0.2",
                 "127.0.0.1", "6000")
    assert args.address == ["127.0.0.1", "6000"]


@pytest.mark.e2e
def test_course_convention_after_options_reaches_the_server():
    result = bots("--log-format", "json", "play", "twilight", "--player", "random", "--move-time", "0.5",
                  "--overhead", "0.2", "--workers", "1", "127.0.0.1", str(free_port()), timeout=60)
    assert result.returncode == 1, result.stderr  # nothing listens there: a run-time failure, not bad input
    assert "cannot play on the server" in result.stderr


@pytest.mark.parametrize("text, expected", [
    ("expecti", ("expecti", ())),
    ("expecti:max_depth=5,max_groups=2", ("expecti", (("max_depth", "5"), ("max_groups", "2")))),
    (" greedy : ", ("greedy", ())),
    ("random:seed = 3 ,", ("random", (("seed", "3"),))),
])
def test_player_spec(text, expected):
    assert cmdline.player_spec(text) == expected


@pytest.mark.parametrize("text", ["expecti:max_depth", "expecti:=3"])
def test_player_spec_rejects_what_is_not_key_value(text):
    with pytest.raises(argparse.ArgumentTypeError):
        cmdline.player_spec(text)


def test_checked_player_keeps_typed_values_and_merges_params():
    assert cmdline.checked_player("twilight", ("expecti", (("max_depth", "5"),)), ["max_groups=2"]) == \
        ("expecti", (("max_depth", 5), ("max_groups", 2)))
    with pytest.raises(cmdline.UsageFailure, match="not key=value"):
        cmdline.checked_player("twilight", ("expecti", ()), ["max_groups"])


@pytest.fixture
def captured_play(monkeypatch):
    """cmd_play with the network and the workers replaced: the TwilightBot it would play with."""
    import bots.runner
    import bots.twilight.session as session

    seen = []

    async def fake_play(bot, runner, on_state=None, log=None, stop=None):
        seen.append(bot)
        return [{"species": "vampires", "moves": 3}]

    monkeypatch.setattr(session, "play", fake_play)
    monkeypatch.setattr(bots.runner, "SearchRunner", ScriptedRunner.factory())
    return seen


@pytest.mark.parametrize("argv, host, port", [
    (["play", "twilight", "--host", "10.1.1.1", "--port", "7000"], "10.1.1.1", 7000),
    (["play", "twilight", "10.2.2.2", "7001"], "10.2.2.2", 7001),
    (["play", "twilight", "10.2.2.2", "7001", "--host", "ignored", "--port", "1"], "10.2.2.2", 7001),
    (["--game", "twilight", "--host", "10.3.3.3", "--port", "7002"], "10.3.3.3", 7002),
    (["--game=twilight", "--port", "7003"], "127.0.0.1", 7003),
    (["--host", "10.4.4.4", "--port", "7004", "--game", "twilight"], "10.4.4.4", 7004),
])
def test_cmd_play_connects_where_it_is_told(captured_play, capsys, argv, host, port):
    assert parse(*argv).func(parse(*argv)) == 0
    (bot,) = captured_play
    assert (bot.host, bot.port, bot.player) == (host, port, "planner")
    assert json.loads(capsys.readouterr().out) == {"species": "vampires", "moves": 3}


@pytest.mark.parametrize("argv, message", [
    (["play", "twilight", "onlyhost"], "the last two arguments"),
    (["play", "twilight", "a", "b", "c"], "the last two arguments"),
    (["play", "twilight", "h", "notaport"], "port: 'notaport' is not an integer"),
    (["play", "twilight", "h", "70000"], "port 70000 is outside 0..65535"),
    (["play", "twilight"], "no server port"),
])
def test_cmd_play_rejects_bad_addresses(captured_play, argv, message):
    args = parse(*argv)
    with pytest.raises(cli.UsageFailure, match=message):
        args.func(args)
    assert captured_play == []


# -- a real game: our referee and two clients, all as commands ----------------------------------------


class Lines:
    """Reads a process's stream line by line in a thread, so a test can wait for one with a deadline."""

    def __init__(self, stream) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.all: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def until(self, predicate, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.all.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"line not seen within {timeout} s: {self.all}")

    def rest(self, timeout: float = 5) -> list[str]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.all.append(line)
        return self.all


def logged(predicate):
    """A Lines.until predicate: the line is a JSON log entry that `predicate` accepts."""

    def check(line: str) -> bool:
        try:
            entry = json.loads(line)
        except ValueError:
            return False
        return isinstance(entry, dict) and "event" in entry and bool(predicate(entry))

    return check


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([*WITH_SIGINT, *args], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@pytest.mark.slow
@pytest.mark.e2e
def test_a_real_game_between_two_client_commands_on_our_referee():
    server = start("--log-format", "json", "serve", "twilight", "--map", "thetrap", "--port", "0",
                   "--move-timeout", "0.5", "--max-plies", "20", "--seed", "4")
    server_out, server_err = Lines(server.stdout), Lines(server.stderr)
    clients: list[subprocess.Popen] = []
    try:
        listening = json.loads(server_err.until(lambda line: "referee listening" in line, 30))
        port = str(listening["port"])
        assert int(port) > 0 and listening["map"] == "thetrap"
        # The docker form; once it has connected, the course convention (which so plays werewolves).
        clients.append(start("--log-format", "json", "--game", "twilight", "--host", "127.0.0.1", "--port", port,
                             "--player", "greedy", "--move-time", "0.5", "--overhead", "0.2", "--name", "first"))
        first_err = Lines(clients[0].stderr)
        first_err.until(logged(lambda entry: entry["event"] == "connected"), 30)  # its NME is sent
        clients.append(start("--log-format", "json", "play", "twilight", "127.0.0.1", port, "--player", "random",
                             "--move-time", "0.5", "--overhead", "0.2", "--name", "second"))
        clients[0].wait(timeout=60)
        outputs = [(clients[0].stdout.read(), "".join(first_err.rest())), clients[1].communicate(timeout=60)]
        record = json.loads(server_out.until(lambda line: line.startswith("{"), 10))
        server.send_signal(signal.SIGINT)
        server.wait(timeout=10)
        server_lines = server_out.rest()
    finally:
        stop(server, *clients)
    for client, (_, err) in zip(clients, outputs, strict=True):
        assert client.returncode == 0, err
        assert "Traceback" not in err
        for line in err.splitlines():  # stderr holds JSON log lines only
            assert isinstance(json.loads(line), dict)
    summaries = [[json.loads(line) for line in out.splitlines()] for out, _ in outputs]
    assert [len(s) for s in summaries] == [1, 1]  # one JSON line per game
    (first,), (second,) = summaries
    assert (first["species"], second["species"]) == ("vampires", "werewolves")
    assert first["moves"] >= 1 and second["moves"] >= 1
    # The server: one JSON line for the one game, then a clean exit on SIGINT.
    assert server.returncode == 0
    assert len([line for line in server_lines if line.strip()]) == 1
    assert record["players"] == {"vampires": "first", "werewolves": "second"}
    assert record["violations"] == []
    assert 1 <= record["plies"] <= 20
    assert record["reason"] in ("elimination", "max plies")
    assert record["winner"] in ("vampires", "werewolves", None)
    if record["winner"]:
        assert record["winner_name"] == record["players"][record["winner"]]


@pytest.mark.e2e
def test_serve_exits_on_sigterm():
    server = start("--log-format", "json", "serve", "twilight", "--map", "thetrap", "--port", "0")
    err = Lines(server.stderr)
    try:
        err.until(lambda line: "referee listening" in line, 30)
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=10)
    finally:
        stop(server)
    assert code in (0, -signal.SIGTERM)


# -- bench and arena ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.e2e
def test_bench_prints_a_table():
    result = bots("bench", "twilight", "--maps", "thetrap", "--time", "0.2", timeout=60)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    header = out.splitlines()[0]
    for column in ("map", "position", "player", "depth", "nodes", "nodes/s"):
        assert column in header
    # Fixed-width rows: map 18, position 10, player 22, depth 6, nodes 9, time 10, nodes/s 10.
    rows = [(line[18:28].strip(), line[28:50].strip(), int(line[50:56]), int(line[56:65]), float(line[75:85]))
            for line in out.splitlines()[1:] if line.startswith("thetrap")]
    assert {player for _, player, *_ in rows} == {"alphabeta", "expecti", "planner", "alphabeta (unbounded)",
                                                  "expecti (unbounded)", "planner (unbounded)"}
    # The start position, and the one after 8 greedy plies if that game is still running.
    assert {player for position, player, *_ in rows if position == "start"} == {p for _, p, *_ in rows}
    assert {position.split()[0] for position, *_ in rows} <= {"start", "ply"}
    assert len(rows) in (6, 12)  # 3 players x (default, unbounded) per position
    for position, player, depth, nodes, speed in rows:
        assert depth >= 1 and nodes >= 1 and speed > 0, (position, player)
    assert "mean nodes/s" in out
    assert "alphabeta (unbounded):" in out and "expecti (unbounded):" in out


@pytest.mark.slow
@pytest.mark.e2e
def test_arena_prints_a_report_with_a_total_row(tmp_path):
    records = tmp_path / "games.jsonl"
    result = bots("--log-format", "json", "arena", "twilight", "--a", "greedy", "--b", "random", "--maps",
                  "thetrap", "--games", "2", "--move-time", "0.3", "--workers", "1", "--json", str(records),
                  timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("A = greedy") and "B = random" in lines[0]
    total = next(line for line in lines if line.startswith("TOTAL"))
    match = re.match(r"TOTAL\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+%\s+\[.*?\]\s+(\d+)/(\d+)\s+(\d+)/(\d+)", total)
    assert match, total
    games, a, draws, b, illegal_a, illegal_b = (int(g) for g in match.groups()[:6])
    assert games == 2 and a + draws + b == 2
    assert (illegal_a, illegal_b) == (0, 0)
    assert "0/0" in total
    assert any(line.startswith("thetrap") for line in lines)
    played = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(played) == 2 and all(r["violations"] == [] for r in played)
    assert [r["players"]["vampires"] for r in played] == ["A", "B"]  # species swap between games


@pytest.mark.slow
@pytest.mark.e2e
def test_bench_scaling_prints_depth_and_latency_per_board_size():
    result = bots("bench", "twilight", "--scaling", "--players", "planner", "--time", "0.05", timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["map", "position", "player"]
    rows = [line for line in lines[1:] if "camps" in line]
    for size in (10, 20, 30):
        for camps in (10, 25, 40):
            assert any(line.startswith(f"{size}x{size}, {camps} camps") for line in rows)
    for line in rows:
        depth, latency = int(line.split()[-3]), float(line.split()[-1])
        assert depth >= 1 and 0 < latency < 0.5

@pytest.mark.e2e
def test_bench_endgames_plays_duels_against_the_exact_player():
    result = bots("bench", "twilight", "--endgames", "2", "--players", "planner", "--time", "0.05",
                  timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["position", "board", "armies", "plies", "exact", "planner"]
    named = lines[1:9]
    assert [line.split("  ")[0] for line in named][:2] == ["hunter waits", "leader runs to the cap"]
    for line in named:  # the exact player's own value, kept to the end
        exact, played = re.search(r"(\d\.\d{3})\s+(\d\.\d{3}) \(", line).groups()
        assert exact == played, line
    assert "planner mean 0.0000, max 0.000, worse than exact in 0 of 2" in result.stdout
    bad = bots("bench", "twilight", "--endgames", "--players", "planner:duel=maybe", timeout=60)
    assert bad.returncode == 2 and "duel" in bad.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("command", [
    ["serve", "twilight", "--map", "thetrap"],
    ["serve", "gnd", "--game", "gopher", "--size", "4"],
    ["serve", "cgos"],
])
def test_serve_stops_cleanly_on_sigterm(command):
    """`bots serve` under systemd or docker stop (issue 11): SIGTERM closes the sockets, exit 0."""
    import signal

    port = free_port()
    proc = subprocess.Popen([*BOTS, "--log-format", "json", *command, "--port", str(port)], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines = Lines(proc.stderr)
    try:
        # Its SIGTERM handler is installed before it listens, and it logs once it listens.
        err_lines.until(logged(lambda entry: entry["event"].endswith("listening") and entry.get("port") == port), 30)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        err = "".join(err_lines.rest())
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()


# -- bad input: one line, exit 2, never a traceback (issue 11) --------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("argv, words", [
    (["play", "twilight", "--port", "70000"], ["--port", "65535"]),
    (["play", "twilight", "--port", "abc"], ["--port", "'abc'"]),
    (["serve", "twilight", "--map", "thetrap", "--port", "70000"], ["--port"]),
    (["play", "twilight", "--port", "1", "--move-time", "nan"], ["--move-time", "finite"]),
    (["play", "twilight", "--port", "1", "--move-time", "inf"], ["--move-time", "finite"]),
    (["play", "twilight", "--port", "1", "--overhead", "-1"], ["--overhead"]),
    (["serve", "cgos", "--komi", "nan"], ["--komi"]),
    (["arena", "go", "--a", "random", "--b", "random", "--komi", "nan"], ["--komi"]),
    (["demo", "--map", "nosuch"], ["nosuch"]),
    (["bench", "twilight", "--maps", "nosuch"], ["nosuch"]),
    (["bench", "twilight", "--players", "nosuch"], ["nosuch"]),
    (["bench", "gopher", "--players", "nosuch"], ["nosuch"]),
    (["bench", "gopher", "--sizes", "0"], ["--sizes"]),
    (["arena", "twilight", "--a", "greedy", "--b", "random", "--json", "/nonexistent/dir/x.json"], ["/nonexistent"]),
    (["arena", "gopher", "--a", "random", "--b", "random", "--json", "/nonexistent/dir/x.json"], ["/nonexistent"]),
    (["arena", "go", "--a", "random", "--b", "random", "--json", "/nonexistent/dir/x.json"], ["/nonexistent"]),
    (["arena", "go", "--a", "random", "--b", "random", "--sgf", "/proc/nope"], ["/proc/nope"]),
    (["arena", "go", "--a", "random", "--b", "random", "--size", "1"], ["size 1"]),
    (["serve", "cgos", "--size", "30"], ["size 30"]),
    (["play", "twilight", "--port", "1", "--name", "x" * 256], ["256 bytes"]),
    (["demo", "--move-time", "0.1"], ["--move-time 0.1", "--overhead 0.15"]),
    (["arena", "twilight", "--a", "greedy", "--b", "random", "--move-time", "0.2", "--overhead", "0.3"],
     ["--move-time 0.2", "--overhead 0.3"]),
])
def test_bad_input_is_one_line_and_exit_2(argv, words):
    line = one_error_line(bots(*argv, timeout=60))
    for word in words:
        assert word in line, line


@pytest.mark.e2e
@pytest.mark.parametrize("command", [["serve", "twilight", "--map", "thetrap"], ["serve", "gnd", "--game", "gopher"],
                                     ["serve", "cgos"]])
def test_a_port_in_use_is_one_line_and_exit_2(command):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(bots(*command, "--port", str(port), timeout=60))
    assert f"127.0.0.1:{port}" in line and "in use" in line


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("game", ["gopher", "go"])
def test_ctrl_c_in_the_middle_of_a_game_exits_quietly(game):
    """Issue 11, item 8: Ctrl-C (SIGINT to the whole foreground group, as a terminal sends it) of
    `bots play gopher` or `bots play go` in the middle of a game: status 130, and no worker's
    KeyboardInterrupt traceback or "leaked semaphore objects" warning."""
    port = str(free_port())
    if game == "gopher":
        server = start("serve", "gnd", "--game", "gopher", "--port", port, "--random")
        client_args = ["play", "gopher", "--server", f"http://127.0.0.1:{port}/", "--password", "pw"]
    else:
        server = start("serve", "cgos", "--port", port, "--random", "--time", "120")
        client_args = ["play", "go", "--cgos", f"127.0.0.1:{port}", "--name", "ctrlc", "--password", "secret"]
    client = subprocess.Popen([*WITH_SIGINT, "--log-format", "json", *client_args, "--games", "3", "--workers", "2"],
                              cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    err = Lines(client.stderr)
    try:
        err.until(logged(lambda entry: entry["event"] == "move"), 90)  # a game is under way
        os.killpg(client.pid, signal.SIGINT)
        code = client.wait(timeout=30)
        rest = "".join(err.rest())
    finally:
        stop(client, server)
    assert code == 130, rest[-2000:]
    for bad in ("Traceback", "KeyboardInterrupt", "leaked semaphore"):
        assert bad not in rest, rest[-2000:]


# -- help that teaches -----------------------------------------------------------------------------


def help_pages():
    """(command words, parser) of every page of `bots --help`, subcommands of subcommands too."""
    import argparse

    def walk(parser, words):
        yield words, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    yield from walk(child, words + [name])

    return list(walk(cli.build_parser(), ["bots"]))


def test_every_help_page_says_what_the_command_does_and_shows_an_example():
    pages = help_pages()
    assert len(pages) > 40  # every command of every game
    for words, parser in pages:
        name = " ".join(words)
        assert parser.description and len(parser.description) > 20, f"{name}: no description"
        epilog = parser.epilog or ""
        assert epilog.startswith(("example:", "examples:")), f"{name}: no example"
        assert "bots " in epilog or name == "bots gtp go", f"{name}: its example is not a command line"


def test_a_person_is_offered_only_where_a_person_can_play():
    """`human` is refused by an engine whose stdin carries a protocol and makes no sense in a
    benchmark: their pages do not offer it; play and arena pages do."""
    pages = {" ".join(words): " ".join(parser.format_help().split()) for words, parser in help_pages()}
    for name in ("bots gtp go", "bots htp hex", "bots bench twilight", "bots bench gopher", "bots tournament go"):
        assert "human" not in pages[name], name
    for name in ("bots arena twilight", "bots arena go", "bots play twilight", "bots play hex"):
        assert "human (you, at this terminal)" in pages[name], name


def test_only_dodo_offers_a_starting_layout():
    pages = {" ".join(words): parser.format_help() for words, parser in help_pages()}
    assert "--layout" in pages["bots arena dodo"] and "--layout" in pages["bots tournament dodo"]
    assert "--layout" not in pages["bots arena gopher"] and "--layout" not in pages["bots tournament gopher"]
