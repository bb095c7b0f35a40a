"""The game registry (bots.registry), every hook of every game checked against its type.

For every game in the registry:

1. every module it names (players, commands, session, render, practice, match, bench, record,
   rules) imports and satisfies each of its Protocols (bots.hooks, `Game.hooks()`): every data
   attribute present, of the annotated type where that is a class; every function present,
   callable as the Protocol's is (inspect.signature: its required arguments alone, all of them
   by position, each optional one by name) and a coroutine function exactly where the
   Protocol's is `async`.  An optional Protocol (bots.hooks.OPTIONAL: a players module's
   `warm`, a record module's SGF) is held whole or not at all;
2. no field names a module that no Protocol describes;
3. the hooks that are values work on the game's first setup: `start` gives a
   search.contracts.State, `fallback` a move our rules allow (bots.legal.refusal), another one
   when the context excludes it, `notation` a value a JSON log line can hold; `setups` are
   named, `default_player` is in PLAYERS, every PLAYERS class is a search.contracts.Player
   whose `choose` has the Protocol's arity, and `summary` is one line.

The last tests show the checks fail when a hook is missing, has the wrong arity, is not a
coroutine function, or is half of an optional Protocol.
"""

from __future__ import annotations

import inspect
import json
import typing
from dataclasses import fields
from functools import partial
from typing import Any, Protocol

import pytest

from bots import hooks, registry
from bots.legal import refusal
from search.contracts import Context, Player, State


def members(protocol: type) -> dict[str, Any]:
    """name -> the Protocol's function, or None for a data attribute (its bases' included)."""
    out: dict[str, Any] = {}
    for klass in reversed(protocol.__mro__):
        if klass in (object, Protocol, typing.Generic) or not getattr(klass, "_is_protocol", False):
            continue
        for name in vars(klass).get("__annotations__", {}):
            out[name] = None
        for name, value in vars(klass).items():
            if not name.startswith("_") and inspect.isfunction(value):
                out[name] = value
    return out


def call_problem(hook: Any, spec: Any, where: str) -> str | None:
    """Why `hook` cannot be called as the Protocol's function `spec` is, or None."""
    if not callable(hook):
        return f"{where} is {type(hook).__name__}, not a function"
    want = list(inspect.signature(spec).parameters.values())[1:]  # without self
    try:
        got = inspect.signature(hook)
    except (TypeError, ValueError):
        return None  # a builtin without a signature: nothing to check
    positional = [p for p in want if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    keywords = {p.name: None for p in want if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    calls = [((None,) * len(required), keywords), ((None,) * len(positional), keywords)]
    calls += [((None,) * len(required), {**keywords, p.name: None}) for p in want
              if p.default is not p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for args, kwargs in calls:
        try:
            got.bind(*args, **kwargs)
        except TypeError as exc:
            return (f"{where}{got} cannot be called as {spec.__name__}{inspect.signature(spec)} says "
                    f"({len(args)} arguments{', ' + ', '.join(kwargs) + ' by name' if kwargs else ''}: {exc})")
    if inspect.iscoroutinefunction(spec) != inspect.iscoroutinefunction(hook):
        return f"{where} must {'' if inspect.iscoroutinefunction(spec) else 'not '}be a coroutine function (async def)"
    return None


def kind_of(annotation: Any) -> type | None:
    """The class a value of this annotation is an instance of, when there is one to check."""
    origin = typing.get_origin(annotation) or annotation
    return origin if isinstance(origin, type) and origin is not typing.Any else None


def protocol_problems(module: Any, protocol: type, where: str) -> list[str]:
    """What `module` lacks of `protocol` (empty: it satisfies it)."""
    problems = []
    hints = typing.get_type_hints(protocol)
    for name, spec in members(protocol).items():
        if not hasattr(module, name):
            problems.append(f"{where} has no {name} ({protocol.__name__})")
            continue
        value = getattr(module, name)
        if spec is None:
            kind = kind_of(hints.get(name))
            if kind is not None and not isinstance(value, kind):
                problems.append(f"{where}.{name} is {type(value).__name__}, not {kind.__name__} ({protocol.__name__})")
        else:
            problem = call_problem(value, spec, f"{where}.{name}")
            if problem is not None:
                problems.append(f"{problem} ({protocol.__name__})")
    return problems


def hook_problems(game: registry.Game) -> list[str]:
    """Every way the modules `game` names fall short of their Protocols (1 and 2)."""
    problems = []
    named = {f.name for f in fields(game) if isinstance(getattr(game, f.name), str)
             and getattr(game, f.name).startswith("bots.")}
    required = game.hooks()
    problems += [f"{game.name}.{field} names a module no Protocol describes (bots.hooks.MODULES)"
                 for field in sorted(named - set(required))]
    for field, protocols in required.items():
        where = f"{game.name}.{field} ({getattr(game, field)})"
        try:
            module = game.module(field)
        except ImportError as exc:
            problems.append(f"{where} does not import: {exc}")
            continue
        for protocol in protocols:
            problems += protocol_problems(module, protocol, where)
        for protocol in hooks.OPTIONAL.get(field, ()):
            held = [name for name in members(protocol) if hasattr(module, name)]
            if held:  # all of it or none of it
                problems += protocol_problems(module, protocol, where)
    return problems


def value_problems(game: registry.Game) -> list[str]:
    """Every way the hooks that are values fail on the game's first setup (3)."""
    problems = []
    name = game.name
    if not (game.setups and all(isinstance(s, str) and s for s in game.setups)):
        return [f"{name}: setups {game.setups!r} are not names"]
    if not (isinstance(game.summary, str) and game.summary.strip() and "\n" not in game.summary):
        problems.append(f"{name}: summary {game.summary!r} is not one line")
    table = game.player_table()
    if not table:
        problems.append(f"{name}: empty player table")
    if game.default_player not in table:
        problems.append(f"{name}: default player {game.default_player!r} is not in {sorted(table)}")
    for player, cls in table.items():
        if not (isinstance(cls, type) and issubclass(cls, Player)):
            problems.append(f"{name}: PLAYERS[{player!r}] = {cls!r} is not a search.contracts.Player class")
        else:
            problem = call_problem(partial(cls.choose, None), Player.choose, f"{name}: PLAYERS[{player!r}].choose")
            if problem is not None:
                problems.append(problem)
    state = game.start(game.setups[0])
    if not isinstance(state, State):
        return problems + [f"{name}: start({game.setups[0]!r}) is {type(state).__name__}, not a search.contracts.State"]
    move = game.fallback(state, Context())
    why = refusal(state, move, Context())
    if why is not None:
        problems.append(f"{name}: the fallback's move {move!r} is refused: {why}")
    elif len(state.legal_moves()) > 1:
        other = game.fallback(state, Context(exclude={move}))
        why = refusal(state, other, Context(exclude={move}))
        if why is not None:
            problems.append(f"{name}: with {move!r} excluded, the fallback's move {other!r} is refused: {why}")
    try:
        json.dumps(game.notation(state, move))
    except (TypeError, ValueError) as exc:
        problems.append(f"{name}: notation of {move!r} is not JSON: {exc}")
    return problems


@pytest.mark.parametrize("name", registry.names())
def test_every_hook_module_satisfies_its_protocols(name):
    problems = hook_problems(registry.get(name))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", registry.names())
def test_every_value_hook_works_on_the_first_setup(name):
    problems = value_problems(registry.get(name))
    assert not problems, "\n".join(problems)


def test_registry_is_consistent():
    games = registry.games()
    assert games and tuple(games) == registry.names()
    assert set(hooks.MODULES) <= {f.name for f in fields(registry.Game)}, "a Protocol for no Game field"
    for name, game in games.items():
        assert game.name == name and registry.get(name) is game
        assert game.has_server == (game.session is not None)
        assert (game.practice is None) or game.has_server, f"{name}: a practice ground with no session"
        for setup in game.setups:
            text = game.draw(game.start(setup))
            assert isinstance(text, str) and text.strip(), f"{name} {setup}: draw() is empty"
    with pytest.raises(registry.UnknownGame) as info:
        registry.get("nosuch")
    assert "nosuch" in str(info.value)
    for name in games:
        assert name in str(info.value), f"the UnknownGame message does not name {name}"
    with pytest.raises(LookupError, match="hex has no session module"):
        registry.get("hex").module("session")
    with pytest.raises(LookupError, match="hex has no server"):
        registry.get("hex").play_hooks()


# -- the checks are live -----------------------------------------------------------------------


def test_a_missing_hook_is_caught(monkeypatch):
    from bots.go import bench

    monkeypatch.delattr(bench, "run")
    assert hook_problems(registry.get("go")) == [
        "go.bench (bots.go.bench) has no run (BenchModule)"]


def test_a_missing_players_table_and_play_hook_are_caught(monkeypatch):
    from bots.gnd import match
    from bots.gopher import players

    monkeypatch.delattr(players, "PLAYERS")
    monkeypatch.delattr(match, "play_table")
    problems = hook_problems(registry.get("gopher"))
    assert "gopher.players (bots.gopher.players) has no PLAYERS (PlayersModule)" in problems
    assert "gopher.match (bots.gnd.match) has no play_table (PlayHooks)" in problems


def test_a_wrong_arity_a_sync_coroutine_and_a_wrong_type_are_caught(monkeypatch):
    from bots.twilight import display, session
    from bots.twilight import match

    monkeypatch.setattr(display, "render", lambda state: "")  # no colour
    monkeypatch.setattr(session, "play", lambda bot, runner, on_state=None, log=None, stop=None: [])  # not async
    monkeypatch.setattr(match, "SETUP", 3)
    problems = "\n".join(hook_problems(registry.get("twilight")))
    assert "twilight.render (bots.twilight.display).render(state) cannot be called as render" in problems
    assert "twilight.session (bots.twilight.session).play must be a coroutine function" in problems
    assert "twilight.match (bots.twilight.match).SETUP is int, not str (MatchHooks)" in problems


def test_half_an_optional_protocol_is_caught(monkeypatch):
    from bots.hex import record

    monkeypatch.delattr(record, "from_sgf")  # SGF_GM stays: it claims SGF records
    assert hook_problems(registry.get("hex")) == ["hex.record (bots.hex.record) has no from_sgf (SgfRecord)"]


def test_broken_value_hooks_are_caught(monkeypatch):
    import dataclasses

    game = registry.get("go")
    state = game.start(game.setups[0])
    first = game.fallback(state, Context())
    broken = dataclasses.replace(game, default_player="nobody",
                                 fallback=lambda s, context: first,  # ignores the exclusions
                                 notation=lambda s, move: object())
    problems = "\n".join(value_problems(broken))
    assert "default player 'nobody' is not in" in problems
    assert "excluded, the fallback's move" in problems and "the server refused it this turn" in problems
    assert "notation of" in problems and "not JSON" in problems
    monkeypatch.setitem(game.player_table(), "odd", object)
    assert value_problems(game) == ["go: PLAYERS['odd'] = <class 'object'> is not a search.contracts.Player class"]
