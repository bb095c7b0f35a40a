"""The one move path of every session: search in the workers, our rules check, one log line.

    move, report = await decide(runner, "go", "mcts", params, state, budget, Context(...), log=log)

1. The game's fallback move (bots.registry: Game.fallback, cheap and legal) is computed in a
   thread while the search runs, so nothing heavier than a message runs on the event loop.
2. The search runs in the caller's runner session: one worker, or for a player whose class
   says `parallel = True` (root parallelism) as many as the session's share, and the root
   votes are added up (`merge`).
3. The move is checked by our rules (bots.legal.refusal: `state.play(move)` must not raise
   IllegalMove, and it must not be one the server refused this turn: `Context.exclude`);
   a failed, late or illegal search gives the fallback.
4. One log line per move: the move, budget, used, depth, nodes, late_by, fallback reason.

A person at the keyboard (a player class marked `interactive`, bots.human) is asked here, in
this process, in a daemon thread: never in a worker, with no fallback computed and no deadline
watched, so that a person's thinking time never turns into a fallback move or a killed worker.
The move is sent as typed (the server decides if its time ran out), after the same rules check.

How long to think (the budget) is the session's business: it knows the server's clock.  What
else it knows about the move (its clock, the moves the server refused) is the move's
`search.contracts.Context`; without one, every search, fallback and check gets `Context()`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time
from typing import Any

from search.budget import Budget
from search.contracts import Context, State
from search.root import merge_votes

from . import registry
from .human import is_person
from .legal import refusal
from .threads import in_daemon_thread
from .players import make_player, parts, think
from .runner import MoveReport, SearchRunner
from .session import MOVE


def merge(reports: list[MoveReport]) -> MoveReport:
    """One report from the workers that searched the same position (root parallelism): the
    move with the most visits summed over the workers that voted, their nodes added up."""
    voted = [r for r in reports if r.votes and r.fallback is None]
    if len(reports) == 1 or not voted:
        return next((r for r in reports if r.fallback is None), reports[0])
    best, totals = merge_votes(r.votes for r in voted)
    return dataclasses.replace(voted[0], move=best, nodes=sum(r.nodes for r in voted),
                               used=max(r.used for r in reports), late_by=max(r.late_by for r in reports),
                               votes=totals)


async def decide(runner: SearchRunner, game: str, player: str, params: tuple, state: State, budget: Budget,
                 context: Context | None = None, log: Any = None, **fields: Any) -> tuple[Any, MoveReport]:
    """Our move for `state`, always legal by our rules, and what the search did (`fields` are
    added to the move's log line)."""
    info = registry.get(game)
    context = context or Context()
    if is_person(game, player):
        fallback, who = None, "the person"
        report = await _asked(game, player, params, state, budget, context)
    else:
        fallback, who = asyncio.ensure_future(asyncio.to_thread(info.fallback, state, context)), "the search"
        session = runner.session()
        reports = await asyncio.gather(*(runner.run(think, game, player, params, state, context, session.key,
                                                    budget=budget, fallback=None)
                                         for _ in range(parts(game, player, session.share()))))
        report = merge(list(reports))
    move, reason = report.move, report.fallback
    if reason is None:
        refused = refusal(state, move, context)
        if refused is not None:
            if log is not None:
                log.error(f"{who} returned a move our rules refuse; sending the fallback",
                          move=repr(move)[:200], reason=refused)
            reason = f"illegal move from {who} ({refused})"
    if reason is not None:
        move = await (fallback or asyncio.to_thread(info.fallback, state, context))
    elif fallback is not None:
        fallback.cancel()  # not needed (the thread finishes on its own; its result is dropped)
    report = dataclasses.replace(report, move=move, fallback=reason)
    if log is not None:
        timed = math.isfinite(report.budget)  # a person with no clock has an infinite budget
        log.info(MOVE, move=info.notation(state, move), budget=round(report.budget, 3) if timed else None,
                 used=round(report.used, 3), depth=report.depth, nodes=report.nodes,
                 late_by=round(report.late_by, 3), fallback=reason, **fields)
    return move, report


async def _asked(game: str, player: str, params: tuple, state: State, budget: Budget,
                 context: Context) -> MoveReport:
    """A person's move (see the module docstring): a person's player keeps asking until our
    rules allow the move, and decide checks it again, as it checks a search's."""
    person = make_player(game, player, dict(params))
    result = await in_daemon_thread(person.choose, state, context, budget)
    used = time.monotonic() - budget.start
    late_by = max(0.0, used - budget.seconds) if math.isfinite(budget.seconds) else 0.0
    return MoveReport(result.move, budget.seconds, used, 0, 0, late_by)
