"""A person at the keyboard plays every game (issue 12, item 4): `bots play GAME --player human`
on our own server against its random player, or `bots arena GAME --a human --b random` (our
referee over the real protocol), typed into the subprocess's stdin as a person would type,
reading the board, the clock and the legal moves from its stdout.  One bad move per game is
explained with our rules' reason and asked again; quit and Ctrl-C end the command cleanly.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time

import pytest

from search.budget import Budget
from search.contracts import Context

from bots import decide as decide_mod
from bots import settings
from bots.gopher.rules import start as gopher_start
from bots.runner import SearchRunner
from tests.helpers import ROOT, WITH_SIGINT, server

PROMPT = "(or help, quit): "


class Seat:
    """A `bots` command with a person at its keyboard: the test reads what it shows up to
    each question (`screen`) and types an answer (`type`), as a person would."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([*WITH_SIGINT, "--log-format", "json", *args], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
        self.shown = ""  # everything on stdout so far
        self.asked = 0  # where the output after the last question starts
        self.err: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.err.append(line.decode(errors="replace"))

    def screen(self, timeout: float = 90.0) -> str | None:
        """What was shown since the last question, up to and with the next one; None when the
        command ended first (the game is over)."""
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + timeout
        while PROMPT not in self.shown[self.asked:]:
            left = end - time.monotonic()
            assert left > 0, f"no question within {timeout} s; shown:\n{self.shown[-3000:]}\n{self.errors()}"
            if select.select([fd], [], [], min(left, 0.5))[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.shown += chunk.decode(errors="replace")
        text = self.shown[self.asked:]
        self.asked += text.index(PROMPT) + len(PROMPT)
        return text[:text.index(PROMPT) + len(PROMPT)]

    def type(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def finish(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout=timeout)
        self.shown += self.proc.stdout.read().decode(errors="replace")
        return code

    def errors(self) -> str:
        return "".join(self.err)[-3000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def legal(text: str) -> list[str]:
    """The legal moves a gnd screen lists ("Legal: (0, 0)  (1, 0)" or, after help, "Legal now: ...")."""
    found = re.findall(r"^Legal(?: now)?: (.*)$", text, re.MULTILINE)
    return found[-1].split("  ") if found else []


def play_gnd(seat: Seat, bad: str, why: str) -> str:
    """Type the first legal move listed until the game ends, after one bad move; the output."""
    screens = 0
    shown_bad = False
    while (text := seat.screen()) is not None:
        screens += 1
        assert "[your clock: " in text, text  # every question shows the clock
        if not shown_bad:
            assert "to move" in text and "[your clock: " in text, text  # the board and the clock
            seat.type(bad)
            shown_bad = True
            explained = seat.screen()
            assert why in explained and explained.endswith(PROMPT), explained  # asked again
        moves = legal(seat.shown)
        if not moves:
            seat.type("help")
            moves = legal(seat.screen())
        seat.type(moves[0])
    assert screens >= 2, seat.shown
    return seat.shown


@pytest.mark.slow
@pytest.mark.e2e
def test_gopher_a_person_plays_a_whole_game_on_our_gnd_server():
    proc, port = server("serve", "gnd", "--game", "gopher", "--size", "3", "--random", "--time", "300")
    seat = Seat("play", "gopher", "--server", f"http://127.0.0.1:{port}/", "--password", "pw", "--player", "human")
    try:
        shown = play_gnd(seat, "9 9", "'9 9' is not allowed: (9, 9) is not on the board.")
        assert seat.finish() == 0, seat.errors()
    finally:
        seat.stop()
        proc.kill()
        proc.wait()
    summary = json.loads(shown.rsplit(PROMPT, 1)[-1].strip().splitlines()[-1])  # no echo: after the last question
    assert summary["game"] == "gopher" and summary["moves"] >= 1 and summary["refused"] == 0, summary
    assert "starting the search workers" not in seat.errors()  # nothing to search: no workers
    moves = [json.loads(line) for line in seat.err if '"event": "move"' in line]
    assert moves and all(m["fallback"] is None for m in moves), moves  # every move sent as typed


@pytest.mark.slow
@pytest.mark.e2e
def test_dodo_a_person_plays_a_whole_game_in_the_arena(tmp_path):
    """Each side has its own clock: the person 300 s, the program its --time 5."""
    games = tmp_path / "games.jsonl"
    seat = Seat("arena", "dodo", "--a", "human", "--b", "random", "--size", "3", "--games", "1", "--time", "5",
                "--person-time", "300", "--workers", "1", "--json", str(games))
    try:
        shown = play_gnd(seat, "(0, 0) (0, 0)", "'(0, 0) (0, 0)' is not allowed: ")
        assert seat.finish() == 0, seat.errors()
    finally:
        seat.stop()
    assert "1 games: 1 per board on 3; game dodo, clock 5.0" in shown and "person_clock 300.0" in shown
    assert re.search(r"A as red: won [01] of 1", shown), shown[-2000:]
    [record] = [json.loads(line) for line in games.read_text().splitlines()]
    assert record["clock"]["red"] > 200 and record["clock"]["blue"] <= 5, record["clock"]  # what each had left


@pytest.mark.slow
@pytest.mark.e2e
def test_go_a_person_plays_a_whole_game_on_our_cgos_server():
    proc, port = server("serve", "cgos", "--random", "--size", "5", "--time", "300")
    seat = Seat("play", "go", "--cgos", f"127.0.0.1:{port}", "--name", "person", "--password", "secret",
                "--player", "human")
    try:
        text = seat.screen()
        assert "   A B C D E" in text and "[your clock: 4:" in text, text  # the board and the clock
        seat.type("Z9")
        assert "'Z9' is not a point: type a column letter A-E (no I) and a row 1-5" in seat.screen()
        taken = False
        while True:
            last = re.findall(r"(?:Black|White) played ([A-Z]\d)\.", seat.shown)
            if last and not taken:  # a stone of the opponent's: taken, our rules say
                seat.type(last[-1])
                assert f"{last[-1]} is taken." in seat.screen()
                taken = True
            seat.type("pass")
            if seat.screen() is None:
                break
        assert seat.finish() == 0, seat.errors()
    finally:
        seat.stop()
        proc.kill()
        proc.wait()
    summary = json.loads(seat.shown.rsplit(PROMPT, 1)[-1].strip().splitlines()[-1])
    assert summary["opponent"] and summary["result"], summary
    assert taken, seat.shown[-2000:]


def quiet_order(screen: str) -> str:
    """An order moving our first group to an empty neighbouring cell (no battle to lose, so
    the game lasts its plies), read from the screen as a person would read it."""
    columns, *rows = screen[screen.index("ply "):screen.index("Yours, ")].splitlines()[1:]
    cols = len(columns.split())  # the columns' numbers
    rows = [row for row in rows if row.strip()]
    taken = {(int(x), int(y)) for x, y in re.findall(r"(\d+) (\d+) \([VWh]\d+\)", screen)}
    x, y, n = map(int, re.search(r"Yours, vampires: (\d+) (\d+) \(V(\d+)\)", screen).groups())
    for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)):
        if 0 <= x + dx < cols and 0 <= y + dy < len(rows) and (x + dx, y + dy) not in taken:
            return f"{x} {y} {n} {x + dx} {y + dy}"
    raise AssertionError(f"no empty cell next to {x} {y}:\n{screen}")


@pytest.mark.slow
@pytest.mark.e2e
def test_twilight_a_person_gives_orders_on_our_referee(tmp_path):
    """Each side has its own time: the person 60 s a move, the planner its 0.4 s."""
    games = tmp_path / "games.jsonl"
    seat = Seat("arena", "twilight", "--a", "human", "--b", "planner", "--maps", "map8", "--games", "1",
                "--max-plies", "6", "--person-time", "60", "--move-time", "0.4", "--overhead", "0.1",
                "--workers", "1", "--json", str(games))
    turns = 0
    try:
        while (text := seat.screen()) is not None:
            assert "ply " in text and "Yours, vampires: " in text, text  # the board, our groups listed
            assert re.search(r"\[\d+\.\d s left for this move\]", text), text  # the clock
            if turns == 0:
                seat.type("1 1 1 1 1, 0 0")
                assert "'0 0' is not an order: type five whole numbers" in seat.screen()
                seat.type("1 1 1 1 1")
                assert "is not allowed: source (1,1) holds no vampires." in seat.screen()
            seat.type(quiet_order(text))
            turns += 1
        assert seat.finish() == 0, seat.errors()
    finally:
        seat.stop()
    assert turns == 3, seat.shown[-2000:]  # 6 plies: three of them ours
    assert "TOTAL" in seat.shown
    [record] = [json.loads(line) for line in games.read_text().splitlines()]
    planner = next(seat for seat, label in record["players"].items() if label == "B")
    assert record["latencies"][planner] and max(record["latencies"][planner]) < 1.5, record["latencies"]


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("how", ["quit", "ctrl-c"])
def test_quit_or_ctrl_c_in_the_middle_of_a_persons_turn_ends_cleanly(how):
    """quit ends the command (exit 0, "Game left unfinished."); Ctrl-C (SIGINT to the whole
    foreground group, as a terminal sends it) exits 130; neither leaves a traceback."""
    proc, port = server("serve", "gnd", "--game", "gopher", "--size", "4", "--random", "--time", "300")
    seat = Seat("play", "gopher", "--server", f"http://127.0.0.1:{port}/", "--password", "pw", "--player", "human")
    try:
        assert "[your clock: " in seat.screen()
        if how == "quit":
            seat.type("quit")
        else:
            os.killpg(seat.proc.pid, signal.SIGINT)
        code = seat.finish(30)
    finally:
        seat.stop()
        proc.kill()
        proc.wait()
    assert code == (0 if how == "quit" else 130), seat.errors()
    assert ("Game left unfinished." in seat.shown) == (how == "quit")
    for bad in ("Traceback", "KeyboardInterrupt"):
        assert bad not in seat.errors()


def test_a_persons_time_is_not_a_searchs_deadline(monkeypatch):
    """A person answering long after the move's budget: the move is sent as typed (no fallback,
    no worker involved: the runner has none), and the late time is only reported."""

    class Slow:
        def readline(self) -> str:
            time.sleep(0.3)
            return "0 0\n"

    monkeypatch.setattr(sys, "stdin", Slow())
    monkeypatch.setattr(sys, "stdout", open(os.devnull, "w"))

    async def main():
        async with SearchRunner(0, games=["gopher"]) as runner:
            return await decide_mod.decide(runner, "gopher", "human", (), gopher_start(3), Budget(0.05), Context())

    move, report = asyncio.run(main())
    sys.stdout.close()
    assert move == (0, 0) and report.fallback is None and report.late_by > 0.2, report


@pytest.mark.e2e
@pytest.mark.parametrize("args, words", [
    (["gtp", "go", "--player", "human"], "a GTP engine reads its commands on stdin"),
])
def test_a_person_where_stdin_carries_a_protocol_is_refused(args, words):
    run = subprocess.run([sys.executable, "-m", "bots.cli", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and words in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_a_person_in_the_daemons_config_is_refused(tmp_path):
    path = tmp_path / "bots.toml"
    path.write_text('[[bot]]\ngame = "gopher"\nname = "p"\nserver = "http://localhost:8080/"\ngroup = 1\n'
                    'members = "p"\npassword = "pw"\nplayer = "human"\n', encoding="utf-8")
    with pytest.raises(settings.SettingsError, match="a person at a terminal, and a daemon has none"):
        settings.load(path)
