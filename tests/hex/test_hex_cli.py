"""The Hex commands of `bots` (bots/hex/commands.py) as a user runs them: a game in the terminal
(a person typing moves, or two players), an arena against an external HTP engine (our own
`bots htp hex` in its own process, so every move crosses the protocol and the swap
translation), SGF files HexGui can read, and one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots import settings
from bots.hex.board import from_moves
from bots.hex.sgf import parse_moves

BOTS = [sys.executable, "-m", "bots.cli"]
ROOT = Path(__file__).resolve().parents[2]


def bots(*args: str, stdin: str = "", timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([*BOTS, *args], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@pytest.mark.slow
@pytest.mark.e2e
def test_two_players_play_a_game_to_the_end_in_the_terminal():
    run = bots("play", "hex", "--a", "random:seed=1", "--b", "path:seed=2", "--size", "5", "--move-time", "0.2",
               "--workers", "1")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Black (top to bottom) = random:seed=1" in run.stdout
    assert run.stdout.count(" plays ") >= 5  # every move is announced and drawn
    last = run.stdout.strip().splitlines()[-1]
    assert last.endswith("has won.") and ("B+" in last or "W+" in last), last


@pytest.mark.slow
@pytest.mark.e2e
def test_a_person_plays_by_typing_cells_and_the_seeds_coordinates(tmp_path):
    # 3x3: the person tries a bad cell, then plays every cell in turn (taken ones are refused
    # and asked again) until the game ends; moves typed as names and as the seed's "X Y".
    script = "zz\nb2\nb2\n" + "".join(f"{x} {y}\n" for x in range(3) for y in range(3))
    run = bots("play", "hex", "--a", "human", "--b", "random:seed=5", "--size", "3", "--move-time", "0.1",
               "--workers", "1", "--sgf", str(tmp_path), stdin=script)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "'zz' is not a cell" in run.stdout
    assert "This cell is not free" in run.stdout
    assert "Black (human) plays b2" in run.stdout
    assert "has won." in run.stdout.strip().splitlines()[-2]
    [sgf] = tmp_path.glob("*.sgf")
    assert parse_moves(sgf.read_text()).is_terminal()


@pytest.mark.slow
@pytest.mark.e2e
def test_a_person_may_leave_the_game_with_end_of_input():
    run = bots("play", "hex", "--a", "human", "--b", "random", "--size", "4", "--workers", "1", stdin="a1\n")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Game left unfinished." in run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.slow
@pytest.mark.e2e
def test_arena_against_our_htp_engine_in_another_process_with_the_swap_rule(tmp_path):
    engine = f"htp:{sys.executable} -m bots.cli htp hex --player path:seed=4 --workers 1"
    records = tmp_path / "games.jsonl"
    run = bots("arena", "hex", "--a", "bruteforce:seed=3", "--b", engine, "--games", "2", "--size", "5", "--swap",
               "--move-time", "0.3", "--workers", "1", "--sgf", str(tmp_path / "sgf"), "--json", str(records),
               timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "2 games: 2 per board on 5; swap True" in run.stdout and "TOTAL" in run.stdout
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 2
    for game in games:
        assert game["violations"] == [] and game["end"] == "connection", game
        final = from_moves(5, game["moves"], swap=True)  # the record is our canonical game
        assert final.is_terminal() and game["result"] == "BW"[final.winner() - 1] + "+"
        assert parse_moves(Path(game["sgf"]).read_text()) == final  # HexGui's dialect, translated back
        assert "GM[11]" in Path(game["sgf"]).read_text()


def test_sprt_pairs_start_from_one_opening_told_to_the_engine(tmp_path):
    """--opening-moves K: both games of a pair start from the same K stones (the pair's seed),
    told to the HTP engine in another process with `play` (a stone it was not told of would
    make its answer illegal under our rules)."""
    from bots.hex.arena import opening

    engine = f"htp:{sys.executable} -m bots.cli htp hex --player path:seed=4 --workers 1"
    records = tmp_path / "games.jsonl"
    run = bots("arena", "hex", "--a", "bruteforce:seed=3", "--b", engine, "--sprt", "elo0=0 elo1=10", "--games", "4",
               "--size", "5", "--opening-moves", "2", "--move-time", "0.2", "--workers", "1", "--json", str(records),
               timeout=300)
    assert run.returncode in (0, 3), run.stderr[-3000:]
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 4 and all(g["violations"] == [] and g["opening"] == 2 for g in games)
    starts = [tuple(g["moves"][:2]) for g in games]
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[0] != starts[2]
    for game in games:
        assert from_moves(5, game["moves"]).is_terminal()
    assert opening(5, 5, 2, 8) == opening(5, 5, 2, 8) != opening(5, 5, 2, 9)
    assert len(set(opening(3, 3, 20, 1))) == 8  # never the whole board


@pytest.mark.e2e
@pytest.mark.parametrize("args, words", [
    (["play", "hex", "--size", "0"], "must be at least 1"),
    (["play", "hex", "--size", "20"], "whole number from 1 to 19"),
    (["arena", "hex", "--a", "random", "--b", "path", "--size", "5x4", "--swap"], "needs a square board"),
    (["arena", "hex", "--a", "nosuch", "--b", "path"], "nosuch"),
    (["arena", "hex", "--a", "random", "--b", "htp:/nonexistent/mohex"], "not found"),
    (["htp", "hex", "--player", "human"], "an HTP engine reads its commands on stdin"),
    (["htp", "hex", "--player", "mcts:nosuch=1"], "nosuch"),
    (["htp", "hex", "--player", "random", "--ponder"], "cannot ponder"),
    (["htp", "hex", "--player", "mcts:reuse=false", "--ponder"], "cannot ponder with reuse=false"),
])
def test_bad_input_is_one_line_and_exit_status_2(args, words):
    run = bots(*args, timeout=60)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert words in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


@pytest.mark.slow
@pytest.mark.e2e
def test_help_lists_the_hex_commands_and_players():
    assert "hex" in bots("htp", "--help", timeout=60).stdout
    out = bots("arena", "hex", "--help", timeout=60).stdout
    for name in ("random", "path", "mind-path", "bruteforce", "resistance", "mcts", "htp:COMMAND"):
        assert name in out


def test_a_hex_bot_in_the_daemons_config_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "bots.toml"
    path.write_text('[[bot]]\ngame = "hex"\nname = "h"\n', encoding="utf-8")
    with pytest.raises(settings.SettingsError, match="no server to join"):
        settings.load(path)


@pytest.mark.slow
@pytest.mark.e2e
def test_ctrl_c_at_the_prompt_of_a_terminal_game_stops_at_once():
    """The person's keyboard is read in a daemon thread: Ctrl-C ends `bots play hex` (status
    130, no traceback) instead of leaving it waiting on the keyboard."""
    import os
    import pty
    import select
    import signal
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child, on the pseudo-terminal
        try:
            # A shell gives its foreground command Ctrl-C's default; pytest may have been started with
            # SIGINT ignored (a background job), and an ignored signal stays ignored across exec.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.chdir(ROOT)
            os.execv(sys.executable, [*BOTS, "play", "hex", "--a", "human", "--b", "random", "--size", "4",
                                      "--workers", "1"])
        finally:
            os._exit(127)
    seen = b""

    def read_until(done, timeout: float) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the child has gone
                    return
                if not chunk:
                    return
                seen += chunk

    status = None
    try:
        read_until(lambda: b"your move" in seen, 120)
        assert b"your move" in seen, seen.decode(errors="replace")
        os.write(fd, b"\x03")
        end = time.monotonic() + 15
        while status is None and time.monotonic() < end:
            read_until(lambda: False, 0.05)  # keep the terminal drained
            done, code = os.waitpid(pid, os.WNOHANG)
            status = os.waitstatus_to_exitcode(code) if done else None
            time.sleep(0.05)
        assert status == 130, (f"bots play hex: status {status} 15 s after Ctrl-C; its terminal showed: "
                               f"{seen[-1500:].decode(errors='replace')}")
        assert b"Traceback" not in seen
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
