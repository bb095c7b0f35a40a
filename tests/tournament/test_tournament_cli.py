"""`bots tournament` end to end: real games through the games' arenas, the ledger, resuming,
and bad input as one line with exit status 2."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from bots.cli import main
from tests.helpers import WITH_SIGINT
from tests.tournament.cli import FAST, ROOT, bots, environment, ledger, table

FAKE = ROOT / "tests" / "go" / "fake_gtp_engine.py"


@pytest.mark.slow
@pytest.mark.e2e
def test_a_round_robin_keeps_a_ledger_and_records_and_prints_ratings(tmp_path):
    out = bots("tournament", "twilight", "--players", "random", "greedy", "alphabeta:max_depth=1",
               "--maps", "testmap2", "--games", "2", "--record", str(tmp_path), *FAST)
    assert out.returncode == 0, out.stderr
    assert "3 participants, 1 maps, 2 games per pairing and map: 6 games, 0 already played, 6 to play" in out.stdout
    entries = ledger(tmp_path)
    assert len(entries) == 6 and all(e["status"] == "done" for e in entries)
    assert len({tuple(e["key"]) for e in entries}) == 6
    for e in entries:  # the arena's record, as it gave it: the first participant is "A", the vampires
        record = json.loads((tmp_path / e["file"]).read_text())
        assert record["players"] == {"vampires": "A", "werewolves": "B"} and record["map"] == "testmap2"
        assert record["winner_name"] in ("A", "B", None)
    rows = table(out.stdout)
    assert rows[0].split() == ["participant", "games", "score", "Elo", "95%", "interval"]
    assert sorted(r.split()[0] for r in rows[1:4]) == ["alphabeta:max_depth=1", "greedy", "random"]
    assert all(r.split()[1] == "4" for r in rows[1:4])  # each plays two opponents twice
    points = sum(float(r.split()[2].rstrip("%")) for r in rows[1:4])
    assert points == pytest.approx(150.0, abs=0.2)  # the scores of a round robin average 50%
    assert "runner overhead:" in out.stdout and "\x1b[" not in out.stdout  # no live display in a pipe


@pytest.mark.slow
@pytest.mark.e2e
def test_a_rerun_plays_only_the_missing_games_and_gives_the_same_table(tmp_path):
    args = ["tournament", "twilight", "--players", "random", "greedy", "--maps", "testmap2", "map8",
            "--record", str(tmp_path), *FAST]
    first = bots(*args, "--games", "1")
    assert first.returncode == 0, first.stderr
    assert len(ledger(tmp_path)) == 2
    more = bots(*args, "--games", "3")  # the same tournament, extended: 4 more games
    assert more.returncode == 0, more.stderr
    assert "6 games, 2 already played, 4 to play" in more.stdout
    entries = ledger(tmp_path)
    assert len(entries) == 6 and len({tuple(e["key"]) for e in entries}) == 6
    again = bots(*args, "--games", "3")
    assert again.returncode == 0, again.stderr
    assert "6 games, 6 already played, 0 to play" in again.stdout
    assert len(ledger(tmp_path)) == 6
    assert table(again.stdout) == table(more.stdout)


@pytest.mark.slow
@pytest.mark.e2e
def test_an_interrupted_tournament_continues_from_its_records(tmp_path):
    args = ["tournament", "twilight", "--players", "planner", "greedy", "--maps", "map8", "--games", "4",
            "--max-plies", "30", "--record", str(tmp_path), *FAST]
    # WITH_SIGINT: Ctrl-C reaches the command also when pytest was started with SIGINT ignored.
    proc = subprocess.Popen([*WITH_SIGINT, "--log-level", "warning", *args], cwd=ROOT, env=environment(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not ((tmp_path / "ledger.jsonl").exists() and ledger(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    stdout, stderr = proc.communicate(timeout=30)
    played = len(ledger(tmp_path))
    assert proc.returncode == 130, stderr
    assert 1 <= played < 4, "interrupt the run before its last game: make the games longer"
    assert f"interrupted: {played} of 4 games played; run the same command again" in stdout
    rest = bots(*args)
    assert rest.returncode == 0, rest.stderr
    assert f"4 games, {played} already played, {4 - played} to play" in rest.stdout
    keys = [tuple(e["key"]) for e in ledger(tmp_path)]
    assert sorted(keys) == sorted(("greedy", "planner", "map8", i) for i in range(4))


@pytest.mark.slow
@pytest.mark.e2e
def test_a_gauntlet_with_external_engines_reports_their_faults(tmp_path):
    good, illegal = f"gtp:python {FAKE} good", f"gtp:python {FAKE} illegal"
    report = tmp_path / "report"
    out = bots("tournament", "go", "--players", "random", good, illegal, "--gauntlet", "random", "--sizes", "5",
               "--games", "2", "--move-time", "0.05", "--workers", "1", "--report", str(report))
    assert out.returncode == 0, out.stderr
    entries = ledger(report / "records")  # records go beside the report when --record is not given
    assert len(entries) == 4
    assert all("random" in (e["first"], e["second"]) for e in entries)  # a gauntlet: no engine against engine
    illegal_games = [e for e in entries if illegal in (e["first"], e["second"])]
    records = [json.loads((report / "records" / e["file"]).read_text()) for e in illegal_games]
    assert all(r["violations"] and r["end"] == "illegal" for r in records)
    page = (report / "index.html").read_text()
    assert page.count("illegal move") >= 2 and page.count("href='records/") >= 2
    for e in illegal_games:
        assert f"href='records/{e['file']}'" in page
    good_game = next(e for e in entries if good in (e["first"], e["second"]))
    sgf = (report / "records" / good_game["file"]).with_suffix(".sgf")  # Go's own record form, for bots replay
    assert sgf.read_text().startswith("(;") and "GM[1]" in sgf.read_text()
    png = tmp_path / "final.png"
    shown = bots("replay", str(sgf), "--to-png", str(png))
    assert shown.returncode == 0, shown.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, message", [
    (["--players", "random", "nosuch"], "unknown twilight player 'nosuch'"),
    (["--players", "random", "random"], "--players names 'random' twice"),
    (["--players", "random"], "a tournament needs at least two --players"),
    (["--players", "random", "greedy", "--gauntlet", "planner"], "--gauntlet 'planner' is not one of --players"),
    (["--players", "random", "greedy", "--anchor", "x"], "--anchor 'x' is not one of --players"),
    (["--players", "random", "greedy", "--maps", "nosuchmap"], "nosuchmap"),
    (["--players", "random", "greedy", "--move-time", "0.1", "--overhead", "0.2"], "leaves nothing to think"),
    (["--players", "human", "greedy"], "a tournament is played by programs"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    assert main(["tournament", "twilight", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_an_engine_that_cannot_run_is_bad_input(capsys):
    assert main(["tournament", "go", "--players", "random", "gtp:no-such-engine --mode gtp"]) == 2
    assert "engine 'no-such-engine' not found" in capsys.readouterr().err


def test_records_of_another_tournament_are_refused_not_mixed(tmp_path, capsys):
    (tmp_path / "tournament.json").write_text(json.dumps(
        {"game": "twilight", "settings": {"move_time": 0.5, "overhead": 0.15, "max_plies": 200}}))
    assert main(["tournament", "twilight", "--players", "random", "greedy", "--record", str(tmp_path),
                 "--move-time", "1"]) == 2
    err = capsys.readouterr().err
    assert "holds games played with other settings (move_time 0.5 there, 1.0 now)" in err
    assert json.loads((tmp_path / "tournament.json").read_text())["settings"]["move_time"] == 0.5  # untouched


@pytest.mark.e2e
def test_cluster_without_ray_says_how_to_install_it(tmp_path):
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named ray (hidden by the test)')\n")
    out = bots("tournament", "twilight", "--players", "random", "greedy", "--cluster", "127.0.0.1:6379",
               first_on_path=str(tmp_path))
    assert out.returncode == 2
    assert out.stderr.strip() == ("bots: error: --cluster needs Ray, which is not installed: "
                                  "pip install 'tournament-bots[cluster]'")
