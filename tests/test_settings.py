"""bots.settings.load: the shipped config, and malformed configs rejected with clear errors."""

from pathlib import Path

import pytest

from bots.settings import BotSettings, Settings, SettingsError, load
from bots.twilight.session import TwilightBot

SHIPPED = Path(__file__).resolve().parents[1] / "config" / "bots.toml"

GOOD_BOT = """\
[[bot]]
name = "alpha"
game = "twilight"
host = "127.0.0.1"
port = 5555
"""


def bot_with(**fields) -> str:
    """A [[bot]] table: GOOD_BOT's keys, with `fields` replacing or adding keys (None drops one)."""
    values = {"name": '"alpha"', "game": '"twilight"', "host": '"127.0.0.1"', "port": "5555"}
    values.update(fields)
    return "[[bot]]\n" + "".join(f"{k} = {v}\n" for k, v in values.items() if v is not None)


def write(tmp_path: Path, text: str | bytes, name: str = "bots.toml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- the shipped config ---------------------------------------------------------------------


def test_shipped_config_loads():
    settings = load(SHIPPED)
    assert isinstance(settings, Settings)
    assert settings.workers == 2
    assert settings.grace == pytest.approx(0.1)
    assert settings.log_format == "auto" and settings.log_level == "info"
    assert [b.bot.name for b in settings.bots] == ["towelie", "seed000", "gopher12", "bots-go9"]
    towelie, seed000, gopher, go = settings.bots
    assert go.game == "go" and (go.bot.host, go.bot.port, go.bot.player) == ("127.0.0.1", 6809, "mcts")
    assert all(isinstance(b, BotSettings) and b.game == "twilight" for b in (towelie, seed000))
    assert gopher.game == "gopher" and gopher.bot.group == 12 and gopher.bot.player is None
    assert gopher.bot.password == "change-me" and "change-me" not in repr(gopher)
    assert isinstance(towelie.bot, TwilightBot)
    assert (towelie.bot.host, towelie.bot.port, towelie.bot.player) == ("127.0.0.1", 5555, "planner")
    assert dict(towelie.bot.params) == {}
    assert (towelie.bot.move_time, towelie.bot.overhead, towelie.games) == (2.0, 0.3, 0)
    assert (seed000.bot.port, seed000.bot.player, seed000.bot.params) == (5556, "alphabeta", ())
    # Defaults fill what the file leaves out.
    assert (seed000.bot.overhead, seed000.bot.max_plies, seed000.games) == (0.3, 200, 0)


def test_minimal_config_gets_the_documented_defaults(tmp_path):
    settings = load(write(tmp_path, GOOD_BOT))
    assert settings.workers is None and settings.grace == 0.1
    assert (settings.log_format, settings.log_level) == ("auto", "info")
    (entry,) = settings.bots
    assert entry.games == 0
    assert entry.bot == TwilightBot(name="alpha", host="127.0.0.1", port=5555, player="planner", params=(),
                                    move_time=2.0, overhead=0.3, max_plies=200)


def test_full_config_values_are_read(tmp_path):
    text = """\
[runner]
workers = 3
grace = 0.25

[log]
format = "json"
level = "WARNING"

""" + bot_with(player='"expecti"', params="{ max_depth = 5, max_groups = 2 }", move_time="1.5",
               overhead="0.2", games="7", max_plies="50")
    settings = load(write(tmp_path, text))
    assert (settings.workers, settings.grace, settings.log_format, settings.log_level) == (3, 0.25, "json", "WARNING")
    (entry,) = settings.bots
    assert entry.games == 7
    assert entry.bot.params == (("max_depth", 5), ("max_groups", 2))  # sorted pairs
    assert (entry.bot.move_time, entry.bot.overhead, entry.bot.max_plies) == (1.5, 0.2, 50)
    assert isinstance(entry.bot.move_time, float)


def test_integer_move_time_is_accepted_as_float(tmp_path):
    settings = load(write(tmp_path, bot_with(move_time="3", overhead="1")))
    assert settings.bots[0].bot.move_time == 3.0 and isinstance(settings.bots[0].bot.move_time, float)


# -- malformed configs ----------------------------------------------------------------------

BAD = [
    # (id, file text, words the message must contain)
    ("not-toml", "this is = = not toml\n[[bot]\n", ["not valid TOML"]),
    ("not-utf8", b"\xff\xfe[[bot]]\n", ["not valid TOML"]),
    ("no-bot", "[runner]\nworkers = 2\n", ["no [[bot]] entries"]),
    ("empty-file", "", ["no [[bot]] entries"]),
    ("bot-is-a-table-not-an-array", "[bot]\nname = \"a\"\n", ["no [[bot]] entries"]),
    ("bot-is-not-a-table", "bot = [1, 2]\n", ["bot[0]", "expected a table"]),
    ("unknown-section", "[server]\nport = 1\n" + GOOD_BOT, ["unknown section [server]"]),
    ("unknown-bot-key", bot_with(colour='"red"'), ["bot[0]", "unknown key 'colour'"]),
    ("missing-name", bot_with(name=None), ["bot[0]", "missing key 'name'"]),
    ("missing-host", bot_with(host=None), ["bot[0]", "missing key 'host'"]),
    ("missing-port", bot_with(port=None), ["bot[0]", "missing key 'port'"]),
    ("missing-game", bot_with(game=None), ["bot[0]", "missing key 'game'"]),
    ("port-zero", bot_with(port="0"), ["bot[0]", "port=0", "is not a TCP port"]),
    ("port-too-big", bot_with(port="65536"), ["bot[0]", "port=65536", "is not a TCP port"]),
    ("port-negative", bot_with(port="-1"), ["bot[0]", "port=-1", "is not a TCP port"]),
    ("port-string", bot_with(port='"5555"'), ["bot[0]", "port must be int", "'5555'"]),
    ("port-float", bot_with(port="5555.0"), ["bot[0]", "port must be int"]),
    ("port-bool", bot_with(port="true"), ["bot[0]", "port must be int", "True"]),
    ("name-not-a-string", bot_with(name="3"), ["bot[0]", "name must be str"]),
    ("unknown-player", bot_with(player='"nosuch"'), ["bot[0]", "unknown twilight player 'nosuch'"]),
    ("unknown-player-option", bot_with(params="{ depth = 3 }"),
     ["bot[0]", "player 'planner' has no option 'depth'"]),
    ("bad-option-value", bot_with(params='{ max_depth = "x" }'), ["bot[0]", "planner.max_depth", "'x'"]),
    ("fractional-int-option", bot_with(params="{ max_depth = 4.5 }"), ["bot[0]", "planner.max_depth", "4.5"]),
    ("option-out-of-range", bot_with(params="{ max_depth = 0 }"), ["bot[0]", "max_depth must be at least 1"]),
    ("params-not-a-table", bot_with(params='"max_depth=3"'), ["bot[0]", "params must be dict"]),
    ("duplicate-names", GOOD_BOT + GOOD_BOT.replace("5555", "5556"), ["bot names must be unique", "alpha"]),
    ("other-game", bot_with(game='"chess"'), ["bot[0]", "game 'chess' is not supported"]),
    ("negative-games", bot_with(games="-1"), ["bot[0]", "games=-1", "must be >= 0"]),
    ("games-not-int", bot_with(games='"many"'), ["bot[0]", "games must be int"]),
    ("bad-log-format", '[log]\nformat = "xml"\n' + GOOD_BOT, ["[log]", "format='xml'", "auto, console or json"]),
    ("bad-log-level", '[log]\nlevel = "loud"\n' + GOOD_BOT, ["[log]", "level='loud'"]),
    ("workers-zero", "[runner]\nworkers = 0\n" + GOOD_BOT, ["[runner]", "workers=0", "must be >= 1"]),
    ("workers-string", '[runner]\nworkers = "2"\n' + GOOD_BOT, ["[runner]", "workers must be int"]),
    ("negative-grace", "[runner]\ngrace = -0.5\n" + GOOD_BOT, ["[runner]", "grace=-0.5", "must be >= 0"]),
    ("move-time-equals-overhead", bot_with(move_time="0.3", overhead="0.3"),
     ["bot[0]", "move_time 0.3 leaves nothing after overhead 0.3"]),
    ("move-time-below-overhead", bot_with(move_time="0.2", overhead="0.5"),
     ["bot[0]", "leaves nothing after overhead"]),
    ("move-time-zero", bot_with(move_time="0"), ["bot[0]", "move_time=0", "must be positive"]),
    ("negative-overhead", bot_with(overhead="-0.1"), ["bot[0]", "overhead=-0.1", "must be >= 0"]),
    ("max-plies-zero", bot_with(max_plies="0"), ["bot[0]", "max_plies=0", "must be positive"]),
    ("second-bot-is-bad", GOOD_BOT + bot_with(name='"beta"', port="70000"), ["bot[1]", "is not a TCP port"]),
]


@pytest.mark.parametrize("text, words", [(t, w) for _, t, w in BAD], ids=[i for i, _, _ in BAD])
def test_malformed_config_is_rejected_with_file_and_problem(tmp_path, text, words):
    path = write(tmp_path, text)
    with pytest.raises(SettingsError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert "\n" not in message  # one line, as the CLI prints it


def test_missing_file_is_a_settings_error(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(SettingsError) as info:
        load(path)
    assert str(info.value).startswith(f"{path}: cannot read")
    assert "No such file" in str(info.value)


def test_a_directory_is_a_settings_error(tmp_path):
    with pytest.raises(SettingsError) as info:
        load(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}: cannot read")


def test_settings_error_is_a_value_error():
    assert issubclass(SettingsError, ValueError)


def test_load_accepts_a_string_path(tmp_path):
    path = write(tmp_path, GOOD_BOT)
    assert load(str(path)).bots[0].bot.name == "alpha"


# -- bugs -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fields", [{"port": '"5555"'}, {"port": "0"}, {"name": None}, {"move_time": "-1"}],
                         ids=["port-string", "port-zero", "missing-name", "negative-move-time"])
def test_location_is_named_once(tmp_path, fields):
    path = write(tmp_path, bot_with(**fields))
    with pytest.raises(SettingsError) as info:
        load(path)
    assert str(info.value).count(f"{path}: bot[0]: ") == 1, str(info.value)


def test_runner_that_is_not_a_table_is_a_settings_error(tmp_path):
    path = write(tmp_path, "runner = 5\n" + GOOD_BOT)
    with pytest.raises(SettingsError) as info:
        load(path)
    assert str(info.value).startswith(f"{path}: ")


# -- go (CGOS) bots ---------------------------------------------------------------------------

GO_PASSWORD = "pw-Zq9.x"


def go_bot_with(**fields) -> str:
    """A go [[bot]] table with `fields` replacing or adding keys (None drops one)."""
    values = {"name": '"cgos-bot"', "game": '"go"', "host": '"127.0.0.1"', "password": f'"{GO_PASSWORD}"'}
    values.update(fields)
    return "[[bot]]\n" + "".join(f"{k} = {v}\n" for k, v in values.items() if v is not None)


def test_go_bot_gets_the_documented_defaults(tmp_path):
    from bots.go.cgos_session import CgosBot

    (entry,) = load(write(tmp_path, go_bot_with())).bots
    assert entry.game == "go" and entry.games == 0
    assert entry.bot == CgosBot(name="cgos-bot", host="127.0.0.1", port=6809, password=GO_PASSWORD, player="mcts",
                                params=(), overhead=0.2, games=0)
    assert GO_PASSWORD not in repr(entry)


def test_go_bot_values_and_password_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CGOS_TEST_PASSWORD", GO_PASSWORD)
    text = go_bot_with(password=None, password_env='"CGOS_TEST_PASSWORD"', port="1919", player='"random"',
                       overhead="0.5", games="3")
    (entry,) = load(write(tmp_path, text)).bots
    bot = entry.bot
    assert (bot.host, bot.port, bot.player, bot.overhead, bot.games, entry.games) == ("127.0.0.1", 1919, "random",
                                                                                       0.5, 3, 3)
    assert bot.password == GO_PASSWORD and isinstance(bot.overhead, float)


def test_go_and_twilight_bots_side_by_side(tmp_path):
    settings = load(write(tmp_path, GOOD_BOT + "\n" + go_bot_with(player='"random"')))
    assert [(b.game, b.bot.name) for b in settings.bots] == [("twilight", "alpha"), ("go", "cgos-bot")]


BAD_GO = [
    ("missing-host", go_bot_with(host=None), ["bot[0]", "missing key 'host'"]),
    ("empty-host", go_bot_with(host='""'), ["bot[0]", "host=''", "must not be empty"]),
    ("missing-name", go_bot_with(name=None), ["bot[0]", "missing key 'name'"]),
    ("short-name", go_bot_with(name='"ab"'), ["bot[0]", "name must be 3-18 characters", "'ab'"]),
    ("name-with-space", go_bot_with(name='"my bot"'), ["bot[0]", "name must be 3-18 characters"]),
    ("bad-password", go_bot_with(password='"a b"'), ["bot[0]", "password must be 3-16 characters"]),
    ("password-not-a-string", go_bot_with(password="1234"), ["bot[0]", "password must be a string"]),
    ("no-password", go_bot_with(password=None), ["bot[0]", "give exactly one of password and password_env"]),
    ("two-passwords", go_bot_with(password_env='"X"'), ["bot[0]", "give exactly one of password and password_env"]),
    ("unset-env", go_bot_with(password=None, password_env='"BOTS_SURELY_UNSET_VAR"'),
     ["bot[0]", "password_env names 'BOTS_SURELY_UNSET_VAR', which is not set"]),
    ("port-zero", go_bot_with(port="0"), ["bot[0]", "port=0", "is not a TCP port"]),
    ("port-string", go_bot_with(port='"6809"'), ["bot[0]", "port must be int"]),
    ("unknown-key", go_bot_with(move_time="2.0"), ["bot[0]", "unknown key 'move_time' for go"]),
    ("unknown-player", go_bot_with(player='"nosuch"'), ["bot[0]", "unknown go player 'nosuch'"]),
    ("unknown-option", go_bot_with(player='"random"', params="{ depth = 3 }"),
     ["bot[0]", "player 'random' has no option 'depth'"]),
    ("negative-overhead", go_bot_with(overhead="-1"), ["bot[0]", "overhead=-1", "must be >= 0"]),
    ("negative-games", go_bot_with(games="-2"), ["bot[0]", "games=-2", "must be >= 0"]),
]


@pytest.mark.parametrize("text, words", [(t, w) for _, t, w in BAD_GO], ids=[i for i, _, _ in BAD_GO])
def test_malformed_go_bot_is_rejected_without_showing_the_password(tmp_path, text, words, monkeypatch):
    monkeypatch.delenv("BOTS_SURELY_UNSET_VAR", raising=False)
    path = write(tmp_path, text)
    with pytest.raises(SettingsError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: bot[0]: "), message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert GO_PASSWORD not in message and "'a b'" not in message  # neither password is echoed
    assert "\n" not in message
