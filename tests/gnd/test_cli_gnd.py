"""The gnd side of the `bots` command (play/serve/arena/bench gopher|dodo) and the daemon's TOML."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bots import settings
from bots.gnd.session import GndBot
from bots.settings import SettingsError

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-pw-6174"


def bots(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots.cli", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


def error_line(capsys) -> str:
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("bots: error: ")]
    assert len(lines) == 1, err
    assert out == ""
    return lines[0]


# --- usage errors (in-process) ---------------------------------------------------------------

def test_play_gopher_without_server(bots_main, capsys):
    assert bots_main("play", "gopher", "--password", SECRET, "--group", "3") == 2
    line = error_line(capsys)
    assert "--server" in line and SECRET not in line


def test_play_gopher_without_password(bots_main, capsys, monkeypatch):
    monkeypatch.delenv("BOTS_GND_PASSWORD", raising=False)
    assert bots_main("play", "dodo", "--server", "http://127.0.0.1:9/", "--group", "3") == 2
    line = error_line(capsys)
    assert "--password" in line and "BOTS_GND_PASSWORD" in line


@pytest.mark.parametrize(("args", "words"), [
    (["--server", "ftp://example.org/"], ["ftp://example.org/"]),
    (["--server", "http://127.0.0.1:9/", "--player", "nosuch"], ["nosuch"]),
    (["--server", "http://127.0.0.1:9/", "--player", "alphabeta:max_depth=deep"], ["max_depth"]),
    (["--server", "http://127.0.0.1:9/", "--param", "max_depth=deep"], ["max_depth"]),  # the default player's
    (["--server", "http://127.0.0.1:9/", "--games", "-1"], ["games"]),
])
def test_play_gopher_bad_arguments(bots_main, capsys, args, words):
    assert bots_main("play", "gopher", "--password", SECRET, *args) == 2
    line = error_line(capsys)
    for word in words:
        assert word in line
    assert SECRET not in line


def test_serve_gnd_without_game(bots_main, capsys):
    assert bots_main("serve", "gnd", "--size", "4", "--port", "0") == 2
    assert "--game" in error_line(capsys)


@pytest.mark.parametrize(("args", "word"), [
    (["--game", "gopher", "--size", "1", "--port", "0"], "size"),
    (["--game", "dodo", "--size", "4", "--layout", "nope", "--port", "0"], "nope"),
])
def test_serve_gnd_bad_config(bots_main, capsys, args, word):
    assert bots_main("serve", "gnd", *args) == 2
    assert word in error_line(capsys)


def test_arena_gnd_bad_player_and_size(bots_main, capsys):
    assert bots_main("arena", "gopher", "--a", "alphabeta", "--b", "nosuch", "--size", "3") == 2
    assert "nosuch" in error_line(capsys)
    assert bots_main("arena", "dodo", "--a", "mcts", "--b", "random", "--size", "1") == 2
    assert "size" in error_line(capsys)


# --- real runs (subprocess) ------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.e2e
def test_arena_gopher_prints_the_report():
    result = bots("--log-level", "warning", "arena", "gopher", "--a", "alphabeta", "--b", "random",
                  "--size", "3", "--games", "2", "--time", "3", timeout=60)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "2 games: 2 per board on 3; game gopher, clock 3.0" in out
    assert re.search(r"^3\s+2\s", out, re.MULTILINE), out  # the table row of board 3: 2 games
    assert re.search(r"^TOTAL\s+2\s", out, re.MULTILINE), out
    red = re.search(r"^A as red: won (\d+) of (\d+)$", out, re.MULTILINE)
    blue = re.search(r"^A as blue: won (\d+) of (\d+)$", out, re.MULTILINE)
    assert red and blue, out
    assert int(red.group(2)) == int(blue.group(2)) == 1  # colours alternate
    assert red.group(1) == "1"  # alphabeta as Red on size 3 plays the proven centre opening


@pytest.mark.e2e
def test_bench_gopher_prints_a_table():
    result = bots("--log-level", "warning", "bench", "gopher", "--sizes", "3", "--time", "0.1", timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("gopher: 0.1 s per search")
    assert re.match(r"size\s+position\s+player\s+depth\s+nodes\s+per second", lines[1].strip()), lines[1]
    rows = lines[2:]
    for name in ("alphabeta", "mcts", "playouts"):
        assert any(re.match(rf"\s*3\s+ply \d+\s+{name}\s", row) for row in rows), (name, result.stdout)


# --- the daemon's TOML -----------------------------------------------------------------------

GOPHER_BOT = """
[runner]
workers = 2

[[bot]]
name = "gopher12"
game = "gopher"
server = "http://localhost:8080/"
group = 12
members = "toto"
{password}
player = "alphabeta"
params = {{ max_depth = 8 }}
games = 3
"""


def write(tmp_path: Path, password_line: str) -> Path:
    path = tmp_path / "bots.toml"
    path.write_text(GOPHER_BOT.format(password=password_line), encoding="utf-8")
    return path


def test_daemon_toml_with_a_gopher_bot(tmp_path):
    loaded = settings.load(write(tmp_path, f'password = "{SECRET}"'))
    (entry,) = loaded.bots
    assert entry.game == "gopher" and entry.games == 3
    bot = entry.bot
    assert isinstance(bot, GndBot)
    assert (bot.server, bot.group, bot.members, bot.password, bot.name) == (
        "http://localhost:8080/", 12, "toto", SECRET, "gopher12")
    assert bot.player == "alphabeta" and dict(bot.params) == {"max_depth": 8} and bot.games == 3
    assert loaded.workers == 2
    assert SECRET not in repr(loaded) and SECRET not in str(loaded) and SECRET not in repr(bot)


def test_password_env_reads_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GOPHER12_PASSWORD", SECRET)
    loaded = settings.load(write(tmp_path, 'password_env = "GOPHER12_PASSWORD"'))
    assert loaded.bots[0].bot.password == SECRET
    assert SECRET not in repr(loaded)
    monkeypatch.delenv("GOPHER12_PASSWORD")
    with pytest.raises(SettingsError, match="GOPHER12_PASSWORD"):
        settings.load(write(tmp_path, 'password_env = "GOPHER12_PASSWORD"'))


def test_password_and_password_env_together(tmp_path, monkeypatch):
    monkeypatch.setenv("GOPHER12_PASSWORD", SECRET)
    path = write(tmp_path, f'password = "{SECRET}"\npassword_env = "GOPHER12_PASSWORD"')
    with pytest.raises(SettingsError) as info:
        settings.load(path)
    assert "password" in str(info.value) and "password_env" in str(info.value)
    assert SECRET not in str(info.value)
    with pytest.raises(SettingsError, match="password"):
        settings.load(write(tmp_path, ""))  # neither


@pytest.mark.parametrize(("change", "words"), [
    (("group = 12", 'group = "twelve"'), ["group"]),
    (('server = "http://localhost:8080/"', 'server = "localhost:8080"'), ["localhost:8080"]),
    (('player = "alphabeta"', 'player = "nosuch"'), ["nosuch"]),
    (("games = 3", "games = 3\nport = 8080"), ["port"]),
    (("max_depth = 8", 'max_depth = "deep"'), ["max_depth"]),
])
def test_settings_errors_never_show_the_password(tmp_path, change, words):
    text = GOPHER_BOT.format(password=f'password = "{SECRET}"').replace(*change)
    path = tmp_path / "bots.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError) as info:
        settings.load(path)
    message = str(info.value)
    for word in words:
        assert word in message
    assert SECRET not in message and "bot[0]" in message


def test_a_mistyped_password_is_not_echoed(tmp_path):
    with pytest.raises(SettingsError) as info:
        settings.load(write(tmp_path, "password = 31415926535"))
    assert "password" in str(info.value)
    assert "31415926535" not in str(info.value)
