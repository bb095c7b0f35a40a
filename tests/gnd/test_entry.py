"""bots/gnd reaches Gopher's and Dodo's rules through the registry (bots.gnd.entry), never by
importing them: the entry of each names its rules module and its default player."""

import pytest

from bots import registry
from bots.dodo import rules as dodo_rules
from bots.gnd import entry
from bots.gnd.server import ServerConfig
from bots.gopher import rules as gopher_rules


def test_the_gnd_games_and_their_rules_come_from_the_registry():
    assert entry.names() == ("gopher", "dodo")
    assert entry.rules("gopher") is gopher_rules and entry.rules("dodo") is dodo_rules
    assert registry.get("gopher").rules == "bots.gopher.rules" and registry.get("twilight").rules is None


@pytest.mark.parametrize("name", ["go", "twilight", "chess"])
def test_another_game_is_no_gnd_game(name):
    with pytest.raises(ValueError, match=r"unknown gnd game .* \(known: gopher, dodo\)"):
        entry.rules(name)


def test_the_default_players_are_the_strongest_measured():
    assert registry.get("gopher").default_player == "alphabeta"
    assert registry.get("dodo").default_player == "mcts"


def test_the_starting_layouts_are_the_rules():
    assert dodo_rules.LAYOUTS == ("gnd", "steere") and gopher_rules.LAYOUTS == ()
    assert ServerConfig("dodo", 4, 1.0, layout="steere").initial() == dodo_rules.start(4, "steere")
    assert ServerConfig("dodo", 4, 1.0).initial() == dodo_rules.start(4) == registry.get("dodo").start("4")
    with pytest.raises(ValueError, match="unknown Dodo layout"):
        ServerConfig("dodo", 4, 1.0, layout="nope")
    # Gopher has one start: a layout, which the server takes for either game, changes nothing
    assert ServerConfig("gopher", 4, 1.0, layout="steere").initial() == gopher_rules.start(4) == \
        registry.get("gopher").start("4")
