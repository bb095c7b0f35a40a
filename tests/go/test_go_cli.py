"""The Go commands of `bots` (bots/cli.py, bots/go/commands.py): arena, gtp, play (CGOS),
serve cgos, bench, and their help and errors.

Commands run in-process through `bots.cli.main` where that is enough (exit code, stdout,
stderr), and as subprocesses where a real process matters: the GTP engine's stdout must carry
GTP only, `bots play go` plays a whole game against our CGOS server running in the test's
event loop, and `bots serve cgos` is a server a raw client connects to.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import structlog

from bots.cli import main
from bots.go.cgos_server import CgosServer
from bots.go.sgf import parse_moves

ROOT = Path(__file__).resolve().parents[2]
FAKE = str(Path(__file__).with_name("fake_gtp_engine.py"))
BOTS = [sys.executable, "-m", "bots.cli"]


def run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    """`bots.cli.main(argv)` in-process: (exit code, stdout, stderr).  main() points structlog
    at the (captured) stderr of the moment; the previous set-up is restored afterwards, so
    later log lines do not go to a closed capture stream."""
    saved = structlog.get_config()
    processors = list(saved["processors"])
    try:
        code = main(argv)
    finally:
        structlog.configure(processors=processors, wrapper_class=saved["wrapper_class"],
                            logger_factory=saved["logger_factory"], context_class=saved["context_class"],
                            cache_logger_on_first_use=saved["cache_logger_on_first_use"])
    out, err = capsys.readouterr()
    return code, out, err


# -- arena ------------------------------------------------------------------------------------

def test_arena_random_against_random_writes_sgf_and_json(tmp_path, capsys):
    sgf, records = tmp_path / "sgf", tmp_path / "games.jsonl"
    code, out, err = run_main(["arena", "go", "--a", "random", "--b", "random", "--games", "2",
                               "--move-time", "0.05", "--sgf", str(sgf), "--json", str(records),
                               "--workers", "1"], capsys)
    assert code == 0, err[-2000:]
    assert "A = random" in out and "B = random" in out
    assert "2 games: 2 per board on 9; komi 7.5, move_time 0.05, game_time None" in out
    assert "game 1/2 9: black A, white B: " in out and "game 2/2 9: black B, white A: " in out
    total = next(line for line in out.splitlines() if line.startswith("TOTAL"))
    assert total.split()[1] == "2"  # the report's games column
    files = sorted(sgf.glob("*.sgf"))
    assert len(files) == 2
    lines = records.read_text().splitlines()
    assert len(lines) == 2
    for i, line in enumerate(lines):
        record = json.loads(line)
        assert record["game_number"] == i
        assert record["end"] in ("two passes", "max moves") and record["violations"] == []
        assert record["result"][:2] in ("B+", "W+")
        assert Path(record["sgf"]).exists()
        size, komi, moves = parse_moves(Path(record["sgf"]).read_text())
        assert (size, komi, moves) == (9, 7.5, record["moves"])


def test_arena_against_an_external_gtp_engine(tmp_path, capsys):
    records = tmp_path / "games.jsonl"
    code, out, err = run_main(["arena", "go", "--a", "random", "--b", f"gtp:{sys.executable} {FAKE} good",
                               "--games", "2", "--move-time", "0.05", "--json", str(records), "--workers", "1",
                               "--size", "7"], capsys)
    assert code == 0, err[-2000:]
    assert f"B = gtp:{sys.executable} {FAKE} good" in out
    assert "2 games: 2 per board on 7;" in out
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 2
    assert [g["players"] for g in games] == [{"black": "A", "white": "B"}, {"black": "B", "white": "A"}]
    for g in games:
        assert g["violations"] == [] and g["size"] == 7 and g["moves"]


def test_arena_starts_both_engines_at_once(tmp_path, capsys):
    """Each engine takes 1.5 s to answer its first command: started in turn, White's would begin
    1.5 s after Black's (and, for an engine that warms up, play its first moves colder)."""
    slow = f'gtp:sh -c "sleep 1.5; exec {sys.executable} {FAKE} good"'
    records = tmp_path / "games.jsonl"
    t0 = time.monotonic()
    code, out, err = run_main(["arena", "go", "--a", slow, "--b", slow, "--games", "1", "--move-time", "0.5",
                               "--json", str(records), "--size", "5"], capsys)
    assert code == 0, err[-2000:]
    (game,) = [json.loads(line) for line in records.read_text().splitlines()]
    assert game["violations"] == [] and game["moves"]
    assert time.monotonic() - t0 < 2.8  # one start's 1.5 s and the game, not two starts'


def test_arena_pairs_start_from_one_random_opening_told_to_the_engines(tmp_path, capsys):
    """--opening-moves K: both games of a --sprt pair start from the same K moves, drawn from
    the pair's seed, from the third line inwards; the external engine is told them with `play`
    (the fake engine refuses a move it was not told of), the SGF replays them."""
    from bots.go.arena import opening

    records, sgf = tmp_path / "games.jsonl", tmp_path / "sgf"
    code, out, err = run_main(["arena", "go", "--a", "random", "--b", f"gtp:{sys.executable} {FAKE} good",
                               "--sprt", "elo0=0 elo1=10", "--games", "4", "--move-time", "0.05", "--size", "7",
                               "--opening-moves", "3", "--json", str(records), "--sgf", str(sgf), "--workers", "1"],
                              capsys)
    assert code in (0, 3), err[-2000:]
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 4 and all(g["violations"] == [] and g["opening"] == 3 for g in games)
    openings = [tuple(g["moves"][:3]) for g in games]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[0] != openings[2]
    for g in games:
        assert parse_moves(Path(g["sgf"]).read_text())[2] == g["moves"]
    assert opening(7, 3, 5) == opening(7, 3, 5) != opening(7, 3, 6)
    assert all(2 <= p // 7 <= 4 and 2 <= p % 7 <= 4 for p in opening(7, 9, 1))  # the third line inwards
    assert len(opening(7, 12, 1)) == 9  # as many as there are such points


@pytest.mark.parametrize("sequential", [False, True])
def test_an_engine_that_fails_its_setup_again_and_again_stops_the_match(sequential, tmp_path, capsys):
    """An engine that refuses boardsize loses each game by forfeit; after arena.SETUP_FAILURES of
    them in a row no more games start, and the exit status is 1 with the engine's last error."""
    from bots.arena import SETUP_FAILURES

    records = tmp_path / "games.jsonl"
    engine = f"gtp:{sys.executable} {FAKE} nosize"
    more = ["--sprt", "elo0=0 elo1=10"] if sequential else []
    code, out, err = run_main(["arena", "go", "--a", "random", "--b", engine, "--games", "20", "--move-time", "0.05",
                               "--json", str(records), "--workers", "1", *more], capsys)
    assert code == 1, err[-2000:]
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == SETUP_FAILURES  # one lane: the games after the third were never started
    assert all(g["winner_name"] == "A" and g["end"] == "forfeit" for g in games)
    last = out.splitlines()[-1]
    assert last.startswith("stopped before a decision: " if sequential else "stopped after 3 of 20 games: ")
    assert f"side B ({engine}) failed its setup in 3 games in a row" in last and "unacceptable size" in last


def test_failed_setups_stop_a_match_only_when_they_come_in_a_row():
    from bots.arena import SETUP_FAILURES, Match
    from bots.matches import Side

    match = Match(None, None, Side("A", "random"), Side("B", "gtp:x"), {}, [], None, None, None, None)  # type: ignore[arg-type]
    failed = {"players": {"black": "A", "white": "B"},
              "violations": [{"species": "white", "reason": "game setup failed: the engine has exited"}]}
    lost = {"players": {"black": "B", "white": "A"},  # B loses in play, not at setup
            "violations": [{"species": "black", "reason": "genmove failed: the engine has exited"}]}
    for record in [failed, failed, lost] * 3 + [failed] * (SETUP_FAILURES - 1):
        match._count_setups(record)
    assert match.broken is None
    match._count_setups(failed)
    assert match.broken and match.broken.startswith("side B (gtp:x) failed its setup in 3 games in a row")


def test_a_gauntlet_counts_each_side_s_failed_setups_over_its_own_games():
    """With --against R, games alternate A against R and B against R: R fails in a row over
    all of them, A over its own only (B's games in between neither count nor reset)."""
    from bots.arena import SETUP_FAILURES, Match
    from bots.matches import Side

    def game(tested: str, failing: str | None) -> dict:
        players = {"black": tested, "white": "R"}
        seat = next((seat for seat, label in players.items() if label == failing), None)
        return {"players": players,
                "violations": [{"species": seat, "reason": "game setup failed: gone"}] if seat else []}

    match = Match(None, None, Side("A", "gtp:x"), Side("B", "random"), {}, [], None, None, None, None,  # type: ignore[arg-type]
                  Side("R", "gtp:r"))
    for _ in range(SETUP_FAILURES - 1):
        match._count_setups(game("A", "A"))
        match._count_setups(game("B", None))
    assert match.broken is None
    match._count_setups(game("A", "A"))
    assert match.broken and match.broken.startswith("side A (gtp:x) failed its setup in 3 games in a row")
    referee = Match(None, None, Side("A", "random"), Side("B", "random"), {}, [], None, None, None, None,  # type: ignore[arg-type]
                    Side("R", "gtp:r"))
    for tested in ["A", "B", "A"][:SETUP_FAILURES]:
        referee._count_setups(game(tested, "R"))
    assert referee.broken and referee.broken.startswith("side R (gtp:r) failed its setup in 3 games in a row")


@pytest.mark.parametrize("a, b, words", [
    ("nobody", "random", ["side A", "nobody"]),
    ("random", "mcts:playouts=lots", ["side B", "mcts.playouts"]),
    ("random", "random:colour=red", ["side B", "no option", "colour"]),
    ("random", "alphabeta:depth", ["side B", "key=value"]),
    ("gtp:/no/such/engine --gtp", "random", ["side A", "/no/such/engine", "not found"]),
    ("random", "gtp:", ["side B", "empty"]),
    ("random", "", ["side B", "empty"]),
])
def test_arena_bad_sides_exit_2_with_a_message(a, b, words, capsys):
    code, out, err = run_main(["arena", "go", "--a", a, "--b", b, "--games", "1", "--workers", "1"], capsys)
    assert code == 2 and out == ""  # nothing was played
    assert err.startswith("bots: error: ")
    for word in words:
        assert word in err
    assert "Traceback" not in err


def test_arena_engine_that_dies_at_once_loses_by_forfeit(capsys):
    # an executable that exists but is no GTP engine: it exits at once
    code, out, err = run_main(["arena", "go", "--a", "random", "--b", "gtp:/bin/false", "--games", "1",
                               "--move-time", "0.05", "--workers", "1"], capsys)
    if code == 2:  # the engine died before its start was confirmed
        assert "cannot run the engine" in err
    else:  # or during the game setup: B (White in game 1) forfeits, Black (A) wins
        assert code == 0, err[-2000:]
        assert "game 1/1 9: black A, white B: A won (B+Forfeit, forfeit, 0 moves)" in out


# -- gtp ----------------------------------------------------------------------------------------

@pytest.mark.e2e
def test_gtp_engine_subprocess_speaks_gtp_only():
    proc = subprocess.run(BOTS + ["gtp", "go", "--player", "random", "--workers", "1"],
                          input="1 protocol_version\n2 name\nquit\n", capture_output=True, text=True,
                          timeout=120, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    blocks = proc.stdout.split("\n\n")
    assert blocks[0] == "=1 2"
    assert blocks[1].startswith("=2 ")
    assert blocks[2].rstrip() == "=" and blocks[3] == ""  # quit: an empty success ("= ")
    assert len(blocks) == 4  # nothing but the three answers


@pytest.mark.e2e
@pytest.mark.parametrize("command", [["gtp", "go"], ["htp", "hex"]])
@pytest.mark.parametrize("stdin, stdout", [("file", "null"), ("null", "file"), ("file", "file")])
def test_an_engine_runs_on_files_and_dev_null(command, stdin, stdout, tmp_path):
    """`bots gtp go < commands > /dev/null`: the event loop cannot wait on a regular file or on
    /dev/null (epoll refuses them, and libuv aborted the process: exit 134)."""
    commands = tmp_path / "commands"
    commands.write_text("1 name\n2 boardsize 9\nquit\n")
    answers = tmp_path / "answers"
    with open(commands if stdin == "file" else os.devnull, "rb") as fin, \
            open(answers if stdout == "file" else os.devnull, "wb") as fout:
        proc = subprocess.run(BOTS + command + ["--player", "random", "--workers", "1"], stdin=fin,
                              stdout=fout, stderr=subprocess.PIPE, text=True, timeout=120, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if stdout == "file":
        assert answers.read_text() == ("=1 bots\n\n=2 \n\n= \n\n" if stdin == "file" else "")


def test_gtp_with_a_bad_player_exits_2(capsys):
    code, _, err = run_main(["gtp", "go", "--player", "nobody", "--workers", "1"], capsys)
    assert code == 2 and "nobody" in err
    code, _, err = run_main(["gtp", "go", "--player", "mcts", "--param", "heavy=perhaps"], capsys)
    assert code == 2 and "mcts.heavy" in err
    code, _, err = run_main(["gtp", "go", "--param", "heavy"], capsys)
    assert code == 2 and "key=value" in err
    code, _, err = run_main(["gtp", "go", "--player", "random", "--ponder"], capsys)
    assert code == 2 and "cannot ponder" in err
    code, _, err = run_main(["gtp", "go", "--player", "mcts:reuse=false", "--ponder"], capsys)
    assert code == 2 and "cannot ponder with reuse=false" in err


# -- play (CGOS) --------------------------------------------------------------------------------

def test_play_go_needs_a_cgos_address_and_a_password(monkeypatch, capsys):
    monkeypatch.delenv("BOTS_CGOS_PASSWORD", raising=False)
    code, _, err = run_main(["play", "go", "--name", "tester", "--password", "pw123"], capsys)
    assert code == 2 and "--cgos HOST:PORT" in err
    for bad in ("nohost", "host:", ":6809", "host:port", "host:70000", "host:0"):
        code, _, err = run_main(["play", "go", "--cgos", bad, "--name", "tester", "--password", "pw123"], capsys)
        assert code == 2 and "is not HOST:PORT" in err, bad
    code, _, err = run_main(["play", "go", "--cgos", "127.0.0.1:6809", "--name", "tester"], capsys)
    assert code == 2 and "--password" in err and "BOTS_CGOS_PASSWORD" in err
    code, _, err = run_main(["play", "go", "--cgos", "127.0.0.1:6809", "--name", "x", "--password", "pw123"],
                            capsys)
    assert code == 2 and "name" in err  # too short for CGOS
    code, _, err = run_main(["play", "go", "--cgos", "127.0.0.1:6809", "--name", "tester", "--password", "pw123",
                             "--player", "nobody"], capsys)
    assert code == 2 and "nobody" in err
    monkeypatch.setenv("BOTS_CGOS_PASSWORD", "a b")  # from the environment: checked too
    code, _, err = run_main(["play", "go", "--cgos", "127.0.0.1:6809", "--name", "tester"], capsys)
    assert code == 2 and "a b" not in err  # the password is never echoed


@pytest.mark.slow
@pytest.mark.e2e
async def test_play_go_plays_one_game_on_our_cgos_server(tmp_path):
    server = CgosServer(random_opponent=True, main_time=20, pair_delay=0.1)
    port = await server.start()
    env = {k: v for k, v in os.environ.items() if k != "BOTS_CGOS_PASSWORD"}
    try:
        proc = await asyncio.create_subprocess_exec(
            *BOTS, "--log-format", "json", "play", "go", "--cgos", f"127.0.0.1:{port}", "--name", "tester",
            "--password", "pw123", "--games", "1", "--player", "random", "--workers", "1",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=env)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 120)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise
    finally:
        await server.close()
    stderr = err.decode(errors="replace")
    assert proc.returncode == 0, stderr[-3000:]
    assert len(server.records) == 1
    record = server.records[0]
    assert "tester" in record["players"].values() and "server-random" in record["players"].values()
    # a scored game (komi 7 allows a draw between two random players), never a forfeit
    assert record["result"] == "Draw" or record["result"][1:2] == "+" and record["result"][2:3].isdigit()
    assert "pw123" not in stderr and b"pw123" not in out  # never logged
    summaries = [json.loads(line) for line in out.decode().splitlines()]  # one JSON line per game (issue 11)
    assert len(summaries) == 1 and summaries[0]["result"] == record["result"]


# -- serve cgos ---------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.e2e
async def test_serve_cgos_greets_a_client_and_pairs_it_with_the_random_player():
    proc = await asyncio.create_subprocess_exec(
        *BOTS, "--log-format", "json", "serve", "cgos", "--port", "0", "--random", "--time", "30",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    writer = None
    try:
        port = None
        while port is None:
            line = await asyncio.wait_for(proc.stderr.readline(), 60)
            assert line, "the server exited before listening"
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if "listening" in str(event.get("event", "")):
                port = event["port"]
        assert isinstance(port, int) and port > 0
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        greeting = (await asyncio.wait_for(reader.readline(), 10)).decode()
        assert greeting.split()[0] == "protocol"
        writer.write(b"e1 test client\n")
        assert (await asyncio.wait_for(reader.readline(), 10)).decode().strip() == "username"
        writer.write(b"tester\n")
        assert (await asyncio.wait_for(reader.readline(), 10)).decode().strip() == "password"
        writer.write(b"pw123\n")
        setup = (await asyncio.wait_for(reader.readline(), 10)).decode().split()
        assert setup[:3] == ["setup", "1", "9"]  # game 1 on 9x9 against the server's random player
        assert any("tester" in word for word in setup) and any("server-random" in word for word in setup)
    finally:
        if writer is not None:
            writer.close()
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)
    assert proc.returncode is not None


# -- bench ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_bench_go_prints_the_table(capsys):
    code, out, err = run_main(["bench", "go", "--time", "0.2"], capsys)
    assert code == 0, err[-2000:]
    lines = out.splitlines()
    assert lines[0] == "Go speed on one core, 0.2 s per row (9x9, komi 7.5)"
    assert lines[1].split() == ["what", "position", "per", "second", "unit", "vs", "light"]
    rows = lines[2:]
    labels = [("playouts, kernel light", "empty"), ("playouts, kernel heavy", "empty"),
              ("playouts, kernel heavy + ladders", "empty"), ("playouts, heavy, ladders, throw-ins", "empty"),
              ("mcts iterations (1 worker)", "empty"), ("mcts iterations, ladders (1 worker)", "empty"),
              ("mcts iterations, ladders, learned", "empty"), ("mcts iterations, + throw-ins", "empty"),
              ("alphabeta nodes (depth", "empty"),
              ("mcts iterations (1 worker)", "middle"), ("mcts iterations, ladders (1 worker)", "middle"),
              ("mcts iterations, ladders, learned", "middle"), ("mcts iterations, + throw-ins", "middle"),
              ("alphabeta nodes (depth", "middle")]
    assert len(rows) == len(labels)
    for row, (label, position) in zip(rows, labels, strict=True):
        assert row.startswith(label) and position in row.split()
    for row in rows[:4]:
        assert row.endswith("x") and "playouts/s" in row
    assert rows[0].split()[-1] == "1.0x"
    assert "Python" not in out  # the pure-Python reference is test code (python -m tests.go.speed)
    for row in rows[4:]:
        rate = row.split("/s")[0].split()[-2]
        assert float(rate.replace(",", "")) > 0


@pytest.mark.slow
@pytest.mark.e2e
def test_the_kernel_against_python_speed_script_runs_from_a_checkout():
    """`python -m tests.go.speed`: the pure-Python oracle's playouts against the kernel's, in
    the bench's table shape, ratios against Python."""
    proc = subprocess.run([sys.executable, "-m", "tests.go.speed", "0.1"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "Go speed on one core, 0.1 s per row (9x9, komi 7.5)"
    assert lines[1].split() == ["what", "position", "per", "second", "unit", "vs", "Python"]
    rows = lines[2:]
    assert [row[:36].strip() for row in rows] == ["playouts, pure Python (reference)", "playouts, kernel light",
                                                  "playouts, kernel heavy"]
    assert rows[0].split()[-1] == "1.0x" and all("playouts/s" in row and row.endswith("x") for row in rows)
    bad = subprocess.run([sys.executable, "-m", "tests.go.speed", "soon"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=False)
    assert bad.returncode == 2 and "usage: python -m tests.go.speed" in bad.stderr


# -- help ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, options", [
    (["gtp", "go", "--help"], ["--player", "--param", "--workers", "--ponder", "go"]),
    (["play", "go", "--help"], ["--cgos", "--password", "--games", "--name", "--player", "--overhead", "go"]),
    (["serve", "cgos", "--help"], ["cgos", "--port", "--random", "--komi", "--time", "--size"]),
    (["arena", "go", "--help"],
     ["--a", "--b", "gtp:", "--games", "--move-time", "--sgf", "--json", "--komi", "--size"]),
    (["bench", "go", "--help"], ["--time", "go"]),
])
def test_help_of_the_go_commands(argv, options, capsys):
    assert main(argv) == 0  # main returns argparse's exit code (the console script exits with it)
    out = capsys.readouterr().out
    for option in options:
        assert option in out, option
