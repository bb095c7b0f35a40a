"""The course's callbacks backed by bots' players: a drop-in for the official `test_client.py`.

    from bots.gnd.course import initialize, strategy, final_result
    gndclient.start(server_url, group, members, password, games, initialize, strategy, final_result)

The official client calls `initialize(game, state, player, hex_size, total_time)` once
per game, `strategy(env, state, player, time_left) -> (env, action)` on every turn (again
with the same state after an HTTP 310) and `final_result(state, score, winner)` at the end
(docs/protocols/gnd.md section 3).  States are lists of ((q, r), 0|1|2) pairs; actions are
a cell for Gopher and a (from, to) pair of cells for Dodo.  The search runs in this
process (the official client is synchronous).  The player is the game's default
(bots.registry), or the one named in $BOTS_PLAYER ("mcts" or "alphabeta:max_depth=8").
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

import structlog

from search.contracts import Context, Player

from .. import clock, registry
from ..log import ensure_configured
from ..players import make_player, parse_spec
from .entry import rules
from .players import quick_move

log = structlog.get_logger("bots.gnd.course")


@dataclass
class Environment:
    """What `initialize` returns and `strategy` threads through."""

    game: str
    size: int
    us: int
    player: Player
    total_time: float
    previous: Any = None  # the position after our last move
    asked: Any = None  # the last position we were asked about and what we answered
    refused: set = field(default_factory=set)


def _player_from_env(game: str) -> Player:
    spec = os.environ.get("BOTS_PLAYER", "").strip()
    if not spec:
        return make_player(game, registry.get(game).default_player)
    return make_player(game, *parse_spec(spec))


def initialize(game: str, state: list, player: int, hex_size: int, total_time: float) -> Environment:
    ensure_configured()  # logs to stderr: stdout belongs to the course's client
    game = str(game).lower()
    rules(game)  # an unknown game fails here, with the known ones named
    env = Environment(game, int(hex_size), int(player), _player_from_env(game), float(total_time))
    log.info("game starts", game=game, size=env.size, player=env.us, clock=env.total_time,
             bots_player=type(env.player).__name__)
    return env


def strategy(env: Environment, state: list, player: int, time_left: float) -> tuple[Environment, Any]:
    arrived = time.monotonic()  # the move's time runs from here: reading the state and estimating are in it
    game_rules = rules(env.game)
    position = game_rules.State.from_cells(env.size, {tuple(c): v for c, v in state}, int(player))
    if env.asked is not None and env.asked[0] == position:
        env.refused.add(env.asked[1])  # same state again: the server refused our action (310)
        log.warning("action refused by the server; choosing another", action=env.asked[1])
    else:
        env.refused = set()
    context = Context(exclude=frozenset(env.refused), previous=env.previous)
    budget = clock.budget(arrived=arrived, time_left=float(time_left), moves_left=position.expected_moves(),
                          overhead=clock.OVERHEAD)
    try:
        move = env.player.choose(position, context, budget).move
    except Exception:  # a bug in a search must not cost the game
        log.exception("search failed; playing the quick move")
        move = None
    if move is None or move in env.refused or not position.is_legal(move):
        move = quick_move(game_rules, position, context)
    env.asked = (position, move)
    env.previous = position.play(move)
    return env, move


def final_result(state: list, score: int, player: int) -> None:
    """The official client passes the winner as the third argument (not us)."""
    log.info("game over", winner=player, score=score)
