"""Game records (--record DIR) and `bots replay`: real arena games of every game saved, then
replayed by the command line with a script on stdin, drawn as PNGs, refused when corrupted."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots import records, settings
from bots.twilight.referee import Referee, RefereeConfig
from bots.twilight.maps import load_map
from bots.twilight.session import TwilightBot, play
from tests.helpers import reached, server

ARENA_KEYS = {"players", "winner_name", "timeouts", "latencies", "violations", "map", "plies"}


def bots(*args, stdin=""):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "bots.cli", "--log-level", "error", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=300)


def recorded(folder: Path, ext: str) -> list[Path]:
    return sorted(folder.glob(f"*.{ext}"))


def replay(path: Path, script: str):
    return bots("replay", str(path), stdin=script)


@pytest.mark.slow
@pytest.mark.e2e
def test_twilight_arena_records_every_move_and_replay_steps_through_it(tmp_path):
    out = bots("arena", "twilight", "--a", "greedy", "--b", "random:seed=4", "--maps", "map8", "--games", "2",
               "--move-time", "0.1", "--overhead", "0.05", "--max-plies", "12", "--workers", "1",
               "--record", str(tmp_path))
    assert out.returncode == 0, out.stderr
    files = recorded(tmp_path, "json")
    names = " ".join(f.name for f in files)  # the players by seat (species swap each game)
    assert len(files) == 2 and "-twilight-map8-greedy-vs-random_seed=4-0.json" in names, names
    assert "-twilight-map8-random_seed=4-vs-greedy-1.json" in names, names
    record = json.loads(files[0].read_text())
    assert ARENA_KEYS <= set(record) and record["think_measured_by"] == "server"
    turns = record["turns"]
    plies = record["plies"]
    assert len(turns) == plies and 3 <= plies <= 12  # the ply cap, or an end before it
    assert [t["think"] for t in turns if t["seat"] == "vampires"] == pytest.approx(record["latencies"]["vampires"],
                                                                                    abs=1e-3)
    shown = replay(files[0], "3\np\n\nq\n")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    captions = [line for line in lines if line.startswith(("move ", "twilight map8: start"))]
    assert [c.split(":")[0] for c in captions] == ["twilight map8", f"move 3/{plies}", f"move 2/{plies}",
                                                   f"move 3/{plies}"]
    assert "(server's clock)" in captions[1]
    assert "vampires greedy (A), werewolves random:seed=4 (B)" in captions[0]
    assert any(line.startswith("ply 3/12") for line in lines)  # out of the ply cap
    from bots import replay as replays  # the picture's legend and the result name the players

    game = replays.load(files[0])
    assert replays.legend(game)[:2] == [("vampires: greedy (A)", "#d32f2f"),
                                        ("werewolves: random:seed=4 (B)", "#1565c0")]
    winner = record["winner_name"]
    assert replays.result(game).startswith(
        {"A": "vampires greedy (A) won", "B": "werewolves random:seed=4 (B) won", None: "a draw"}[winner])
    assert any(line.startswith("ply 2/12") for line in lines)


@pytest.mark.slow
@pytest.mark.e2e
def test_gopher_arena_record_replays_to_the_final_board(tmp_path):
    out = bots("arena", "gopher", "--a", "random", "--b", "random", "--size", "3", "--time", "5", "--games", "1",
               "--workers", "1", "--record", str(tmp_path))
    assert out.returncode == 0, out.stderr
    [path] = recorded(tmp_path, "json")
    record = json.loads(path.read_text())
    assert ARENA_KEYS <= set(record) and record["rules"] == "gopher"
    assert [t["move"] for t in record["turns"]] == record["moves"]
    last = len(record["turns"])
    shown = replay(path, f"{last}\nn\nq\n")
    assert f"move {last}/{last}" in shown.stdout and "end of the game: " in shown.stdout
    assert f"(the last move: {last})" in shown.stdout
    assert shown.stdout.count("R") >= (last + 1) // 2  # every red stone is drawn


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("game, setup", [("go", ["--size", "5"]), ("hex", ["--size", "4", "--swap"])])
def test_go_and_hex_arena_sgf_carries_think_times_and_replays(tmp_path, game, setup):
    out = bots("arena", game, "--a", "random", "--b", "random", "--games", "1", "--move-time", "0.05",
               "--workers", "1", *setup, "--record", str(tmp_path))
    assert out.returncode == 0, out.stderr
    [path] = recorded(tmp_path, "sgf")
    text = path.read_text()
    assert "C[think " in text and "RE[" in text
    shown = replay(path, "2\np\nq\n")
    assert shown.returncode == 0, shown.stderr
    assert "move 2/" in shown.stdout and "move 1/" in shown.stdout and " in 0.0" in shown.stdout


@pytest.mark.slow
@pytest.mark.e2e
def test_sgf_is_still_an_alias_of_record(tmp_path):
    out = bots("arena", "go", "--a", "random", "--b", "random", "--games", "1", "--size", "5", "--move-time",
               "0.05", "--workers", "1", "--sgf", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert len(recorded(tmp_path, "sgf")) == 1


@pytest.fixture(scope="module")
def twilight_record(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("twilight")
    out = bots("arena", "twilight", "--a", "greedy", "--b", "greedy", "--maps", "map8", "--games", "1",
               "--move-time", "0.1", "--overhead", "0.05", "--max-plies", "8", "--workers", "1",
               "--record", str(folder))
    assert out.returncode == 0, out.stderr
    return recorded(folder, "json")[0]


@pytest.mark.slow
@pytest.mark.e2e
def test_a_corrupted_record_is_refused_with_the_move_and_the_reason(twilight_record, tmp_path):
    record = json.loads(twilight_record.read_text())
    x, y, n, tx, ty = record["turns"][3]["move"][0]
    record["turns"][3]["move"][0] = [x, y, n + 500, tx, ty]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    out = replay(bad, "q\n")
    assert out.returncode == 2
    [line] = out.stderr.splitlines()
    assert "move 4 cannot be replayed" in line and "units" in line
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"players": {}}')
    out = replay(garbage, "q\n")
    assert out.returncode == 2 and "not a game record" in out.stderr and len(out.stderr.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.e2e
def test_to_png_draws_the_board_and_never_overwrites(twilight_record, tmp_path):
    png = tmp_path / "final.png"
    out = bots("replay", str(twilight_record), "--to-png", str(png))
    assert out.returncode == 0, out.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(data) < 2_000_000
    again = bots("replay", str(twilight_record), "--to-png", str(png), "--move", "2")
    assert again.returncode == 2 and "already exists" in again.stderr and png.read_bytes() == data
    out = bots("replay", str(twilight_record), "--to-png", str(tmp_path / "m.png"), "--move", "99")
    assert out.returncode == 2 and "--move 99" in out.stderr


def test_write_never_overwrites_and_leaves_no_temporary_file(tmp_path):
    first = records.write(tmp_path, "game.json", "1")
    second = records.write(tmp_path, "game.json", "2")
    assert (first.name, second.name) == ("game.json", "game-2.json")
    assert first.read_text() == "1" and sorted(p.name for p in tmp_path.iterdir()) == ["game-2.json", "game.json"]


@pytest.mark.slow
@pytest.mark.e2e
async def test_a_twilight_client_records_what_it_saw_and_its_own_think_times(runner, tmp_path):
    referee = Referee(RefereeConfig(load_map("map8"), "map8", move_timeout=0.5, max_plies=10, seed=2))
    port = await referee.start()
    a = TwilightBot(name="ours", port=port, player="greedy", move_time=0.5, overhead=0.15, max_plies=10,
                    record=str(tmp_path))
    b = TwilightBot(name="them", port=port, player="greedy", move_time=0.5, overhead=0.15, max_plies=10)
    first = asyncio.ensure_future(play(a, runner))
    await reached(referee.connected(1), "the referee accepted our connection", watching=first)
    await asyncio.wait_for(asyncio.gather(first, play(b, runner)), 60)
    await referee.close()
    [path] = recorded(tmp_path, "json")
    record = json.loads(path.read_text())
    assert record["think_measured_by"] == "client" and record["players"]["vampires"] == "ours"
    assert len(record["turns"]) == 5 and all("position" in t and t["think"] < 0.5 for t in record["turns"])
    shown = replay(path, "5\nq\n")
    assert "move 5/5: vampires (ours)" in shown.stdout and "(client's clock)" in shown.stdout


def test_daemon_config_takes_a_record_directory_per_bot_or_for_all(tmp_path):
    games = tmp_path / "games"
    config = tmp_path / "bots.toml"
    config.write_text(f'record = "{games}"\n'
                      '[[bot]]\nname = "a"\ngame = "twilight"\nhost = "127.0.0.1"\nport = 5555\n'
                      f'[[bot]]\nname = "b"\ngame = "gopher"\nserver = "http://localhost:8080/"\ngroup = 1\n'
                      f'members = "b"\npassword = "x"\nrecord = "{tmp_path / "mine"}"\n')
    loaded = settings.load(config)
    assert [b.bot.record for b in loaded.bots] == [str(games), str(tmp_path / "mine")]
    assert games.is_dir()
    (tmp_path / "file").write_text("")
    config.write_text(f'[[bot]]\nname = "a"\ngame = "twilight"\nhost = "h"\nport = 5555\n'
                      f'record = "{tmp_path / "file"}"\n')
    with pytest.raises(settings.SettingsError, match="record"):
        settings.load(config)
    config.write_text('[[bot]]\nname = "a"\ngame = "twilight"\nhost = "h"\nport = 5555\nrecord = 3\n')
    with pytest.raises(settings.SettingsError, match="record must be str"):
        settings.load(config)


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("game", ["gopher", "go"])
def test_a_client_of_a_gnd_or_cgos_server_records_its_games_and_replay_reads_them(game, tmp_path):
    """`bots play gopher --record` (JSON) and `bots play go --record` (SGF) on our own servers:
    one file per game, our think times as we measured them, and `bots replay` reads it."""
    folder = tmp_path / "games"
    if game == "gopher":
        proc, port = server("serve", "gnd", "--game", "gopher", "--size", "3", "--random", "--time", "300")
        args = ["play", "gopher", "--server", f"http://127.0.0.1:{port}/", "--password", "pw"]
    else:
        proc, port = server("serve", "cgos", "--random", "--size", "5", "--time", "300")
        args = ["play", "go", "--cgos", f"127.0.0.1:{port}", "--name", "recorder", "--password", "secret"]
    try:
        done = bots(*args, "--player", "random", "--games", "1", "--workers", "1", "--record", str(folder))
    finally:
        proc.kill()
        proc.wait()
    assert done.returncode == 0, done.stderr
    [path] = recorded(folder, "json" if game == "gopher" else "sgf")
    if game == "gopher":
        record = json.loads(path.read_text())
        assert record["think_measured_by"] == "client" and record["turns"], record
        assert all(t["think"] >= 0 for t in record["turns"])
        last = len(record["turns"])
    else:
        text = path.read_text()
        assert "measured by the client" in text and text.count(";B[") + text.count(";W[") >= 2, text
        last = text.count(";B[") + text.count(";W[")
    shown = replay(path, f"{last}\nq\n")  # jump to the last move
    assert shown.returncode == 0 and f"move {last}/{last}" in shown.stdout, (shown.stdout[-1500:], shown.stderr)
