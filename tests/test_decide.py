"""bots.decide, the one move path, for every registered game: a move our rules refuse, a
failed search and a move the server refused are replaced by the game's fallback, which is
computed off the event loop; one log line per move."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from bots import registry
from bots.decide import decide
from bots.legal import refusal
from bots.runner import MoveReport
from search.budget import Budget
from search.contracts import Context
from tests.helpers import ScriptedRunner

LATE = MoveReport(None, 1.0, 0.01, 3, 100, 0.0, "worker late")  # a search that failed: the fallback


class Log:
    def __init__(self):
        self.lines = []

    def info(self, event, **kw):
        self.lines.append(("info", event, kw))

    def error(self, event, **kw):
        self.lines.append(("error", event, kw))


def positions(game):
    """A start position and the first legal move the game's fallback would not play."""
    state = game.start(game.setups[0])
    return state, game.fallback(state, Context())


@pytest.mark.parametrize("name", registry.names())
async def test_a_legal_search_move_is_sent_and_logged_once(name):
    game = registry.get(name)
    state, move = positions(game)
    log = Log()
    sent, report = await decide(ScriptedRunner(then=move), name, game.default_player or "random", (), state,
                                Budget(1.0), log=log, extra=7)
    assert sent == move and report.fallback is None and refusal(state, sent, Context()) is None
    (line,) = log.lines
    assert line[:2] == ("info", "move")
    assert {"move", "budget", "used", "depth", "nodes", "late_by", "fallback"} <= set(line[2])
    assert line[2]["extra"] == 7 and line[2]["move"] == game.notation(state, move)


@pytest.mark.parametrize("name", registry.names())
async def test_a_move_our_rules_refuse_is_replaced_by_the_fallback(name, monkeypatch):
    game = registry.get(name)
    state, move = positions(game)
    threads = []
    real = game.fallback

    def watched(s, context):
        threads.append(threading.get_ident())
        return real(s, context)

    monkeypatch.setitem(registry.games(), name, dataclasses.replace(game, fallback=watched))
    later = state.play(move)
    bad = real(later, Context())  # legal after `move`, so (in every game here) not from `state`
    if refusal(state, bad, Context()) is None:
        bad = object()  # the game allowed it: a malformed move instead
    log = Log()
    sent, report = await decide(ScriptedRunner(then=bad), name, game.default_player or "random", (), state,
                                Budget(1.0), log=log)
    assert refusal(state, sent, Context()) is None
    assert report.fallback.startswith("illegal move from the search")
    assert [line[0] for line in log.lines] == ["error", "info"]
    assert threads and threads[0] != threading.get_ident()  # the fallback ran off the event loop


@pytest.mark.parametrize("name", registry.names())
async def test_a_failed_search_and_a_refused_move_get_the_fallback(name):
    game = registry.get(name)
    state, move = positions(game)
    sent, report = await decide(ScriptedRunner(then=LATE), name, game.default_player or "random", (), state,
                                Budget(1.0))
    assert refusal(state, sent, Context()) is None and report.fallback == "worker late"
    context = Context(exclude={move})
    assert refusal(state, move, context) == "the server refused it this turn"
    sent, report = await decide(ScriptedRunner(then=move), name, game.default_player or "random", (), state,
                                Budget(1.0), context)
    assert report.fallback == "illegal move from the search (the server refused it this turn)"
    assert refusal(state, sent, context) is None  # the fallback is not the refused move either
