"""How every Go session picks our move: a budget from the clock, the search in a worker,
then our rules check, so an illegal move never leaves the process.

Used by the GTP engine, the CGOS session and the arena; the course drop-in, which has no
event loop, calls the player directly.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

from search.budget import Budget

from ..players import player_table, think
from ..runner import MoveReport, SearchRunner
from .board import State, point_name
from .players import random_move

OVERHEAD = 0.1  # seconds kept back per move for the wire and the event loop
MIN_SECONDS = 0.05
DEFAULT_SECONDS = 2.0  # per move when the session knows no clock


def move_seconds(state: State, time_left: float | None = None, per_move: float | None = None,
                 overhead: float = OVERHEAD) -> float:
    """Seconds to think about this move.

    `per_move` (a fixed time per move) wins; else `time_left` (our whole remaining clock) is
    spread over the moves we still expect to make: half the empty points (at least 10) plus
    10, so the share grows as the board fills; never more than a quarter of what is left.  With
    neither, DEFAULT_SECONDS.  The overhead is taken off; the result is at least MIN_SECONDS.
    """
    if per_move is not None:
        seconds = per_move
    elif time_left is not None:
        empties = state.board.count(0)
        seconds = min(time_left / (max(empties, 20) / 2 + 10), time_left / 4)
    else:
        seconds = DEFAULT_SECONDS
    return max(MIN_SECONDS, seconds - overhead)


def merge(reports: list[MoveReport]) -> MoveReport:
    """One report from the workers that searched the same position (root parallelism): the
    move with the most visits summed over the workers that voted, their nodes added up."""
    voted = [r for r in reports if r.votes and r.fallback is None]
    if len(reports) == 1 or not voted:
        return next((r for r in reports if r.fallback is None), reports[0])
    totals: dict[int, int] = {}
    for r in voted:
        for move, visits in r.votes:
            totals[move] = totals.get(move, 0) + visits
    best = max(totals, key=totals.__getitem__)
    return dataclasses.replace(voted[0], move=best, nodes=sum(r.nodes for r in voted),
                               used=max(r.used for r in reports), late_by=max(r.late_by for r in reports),
                               votes=tuple(sorted(totals.items())))


def _session(runner: SearchRunner) -> Any:
    """The caller's session on `runner`; None for a stand-in runner that has no sessions."""
    sessions = getattr(runner, "session", None)
    return sessions() if sessions is not None else None


async def decide(runner: SearchRunner, player: str, params: tuple, state: State, budget: Budget,
                 context: dict | None = None, log: Any = None) -> tuple[int, MoveReport]:
    """Our move for `state` (a point or PASS), always legal, and what the search did.

    A random legal non-eye move is computed first as the fallback (sent if the worker is late,
    dies or raises), and a move the search returns is checked against our rules.  A player
    whose class says `parallel = True` (mcts) searches in as many workers as the caller's
    session may take (SearchRunner.share: all of them when it plays alone, fewer while other
    bots play) and the votes are merged; the others use one worker.  The search runs in the
    caller's session, so its tree is kept for its next move and shared with no other bot.
    """
    fallback = random_move(state, random.Random(state.key()))
    session = _session(runner)
    parts = 1
    if getattr(player_table("go")[player], "parallel", False):
        parts = session.share() if session is not None else runner.workers
    key = session.key if session is not None else None
    reports = await asyncio.gather(*(runner.run(think, "go", player, params, state, context, key, budget=budget,
                                                fallback=fallback) for _ in range(parts)))
    report = merge(reports)
    move = report.move
    if not state.is_legal(move):
        if log is not None:
            log.error("search returned an illegal move; sending the fallback", move=repr(move))
        move = fallback
    if log is not None:
        log.info("move", move=point_name(move, state.size),
                 budget=round(report.budget, 3), used=round(report.used, 3), depth=report.depth,
                 nodes=report.nodes, late_by=round(report.late_by, 3), fallback=report.fallback)
    return move, report
