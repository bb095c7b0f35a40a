"""SearchRunner: deadlines hold, a dead or late worker still yields the fallback move, and
bots that share the pool never wait on each other's clocks (issue 9 item 6)."""

import asyncio
import os
import signal
import time

import pytest

import bots.runner
from bots.go.board import empty
from bots.decide import decide
from bots.players import think
from bots.runner import MoveReport, SearchRunner, _init_worker
from bots.twilight.maps import load_map
from bots.twilight.players import greedy_action
from bots.twilight.rules import is_legal
from search.budget import Budget, SearchResult
from tests.helpers import alive, until, until_sync


def ignores_deadline(seconds: float, budget: Budget) -> SearchResult:
    time.sleep(seconds)
    return SearchResult("too late")


def dies(budget: Budget) -> SearchResult:
    os.kill(os.getpid(), signal.SIGKILL)
    return SearchResult("unreachable")


def raises(budget: Budget) -> SearchResult:
    raise RuntimeError("bug in a search")


def quick(budget: Budget) -> SearchResult:
    return SearchResult("ok", depth=3, nodes=42)


def holds(seconds: float, budget: Budget) -> SearchResult:
    """A search that keeps its worker busy for `seconds` (within its budget); its move is
    the pid of the worker."""
    time.sleep(seconds)
    return SearchResult(os.getpid())


def touch(path: str, budget: Budget) -> SearchResult:
    """Leaves a mark if it ever runs."""
    open(path, "w").close()
    return SearchResult("ran")


def player_identity(game: str, name: str, params: tuple, session: str, budget: Budget) -> SearchResult:
    """(worker pid, identity of the player bots.players.think would use for this session)."""
    from bots.players import _cached

    return SearchResult((os.getpid(), id(_cached(session, game, name, params))))


@pytest.mark.slow
async def test_result_of_a_search_is_returned_with_its_work(runner):
    report = await runner.run(quick, budget=Budget(1.0), fallback="fallback")
    assert (report.move, report.depth, report.nodes, report.fallback) == ("ok", 3, 42, None)
    assert report.late_by == 0.0


async def test_real_search_answers_within_budget_plus_grace(runner):
    state = load_map("testmap2")
    budget = Budget(0.3)
    report = await runner.run(think, "twilight", "expecti", (("max_depth", 30),), state, {}, runner.session().key,
                              budget=budget, fallback=greedy_action(state))
    assert report.fallback is None
    assert report.used <= 0.3 + runner.grace
    assert report.depth >= 1
    assert is_legal(state, state.to_move, report.move)


@pytest.mark.slow
async def test_search_that_runs_for_seconds_gets_the_fallback_in_time(runner):
    t0 = time.monotonic()
    report = await runner.run(ignores_deadline, 5.0, budget=Budget(0.3), fallback="fallback")
    assert time.monotonic() - t0 < 0.3 + runner.grace + 0.1
    assert report.move == "fallback" and report.fallback == "worker late"
    # The hung worker was replaced: the next search runs normally.
    assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"


@pytest.mark.slow
async def test_worker_killed_mid_search_still_yields_a_legal_move_and_costs_only_its_job(runner):
    state = load_map("map8")
    fallback = greedy_action(state)
    other = asyncio.ensure_future(runner.run(holds, 0.5, budget=Budget(1.5), fallback="fallback"))
    await asyncio.sleep(0)  # the other bot's search is sent first
    report = await runner.run(dies, budget=Budget(0.5), fallback=fallback)
    assert report.fallback == "worker died"
    assert is_legal(state, state.to_move, report.move)
    assert (await other).fallback is None  # the other worker's search was not touched
    assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"


async def test_search_that_raises_gets_the_fallback_and_keeps_the_pool(runner):
    report = await runner.run(raises, budget=Budget(0.5), fallback="fallback")
    assert report.move == "fallback" and "RuntimeError" in report.fallback
    assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"


def slow_init(*args) -> None:
    """The workers' initializer, taking 0.6 s longer: more than a 0.3 s budget + grace."""
    time.sleep(0.6)
    _init_worker(*args)


@pytest.mark.slow
async def test_searches_wait_for_a_slow_replacement_without_killing_it(monkeypatch):
    """A hung worker is killed and replaced.  Searches that arrive while the replacement is
    still warming up stay queued and are withdrawn at their deadline: the warming worker is
    never killed (killing it used to cascade: every later move was a fallback)."""
    monkeypatch.setattr(bots.runner, "_init_worker", slow_init)
    async with SearchRunner(1, grace=0.1) as runner:
        first = await runner.run(ignores_deadline, 5.0, budget=Budget(0.2), fallback="fallback")
        assert first.fallback == "worker late"
        reasons = []
        for _ in range(30):
            report = await runner.run(quick, budget=Budget(0.3), fallback="fallback")
            reasons.append(report.fallback)
            if report.fallback is None:
                break
        assert reasons[-1] is None and report.move == "ok", reasons
        assert set(reasons[:-1]) <= {"queued past its deadline"}, reasons  # nothing else was killed
        pids = runner.worker_pids()
        assert (await runner.run(quick, budget=Budget(0.3), fallback="fallback")).fallback is None
        assert runner.worker_pids() == pids


# -- fairness: several bots share one pool (issue 9 item 6) -------------------------------------

@pytest.mark.slow
async def test_a_fan_out_takes_only_its_share_and_the_other_bot_runs_meanwhile(runner):
    """Session A fans out over its share of a 2-worker pool (one worker while B plays); B's
    search, sent meanwhile, finds a free worker: no fallback, nothing killed."""
    a, b = runner.open_session("A"), runner.open_session("B")
    assert runner.share(a) == a.share() == 1
    pids = runner.worker_pids()
    fan_out = [asyncio.ensure_future(runner.run(holds, 0.8, budget=Budget(1.0), fallback="fallback"))
               for _ in range(a.share())]
    await asyncio.sleep(0)  # A's search is sent first
    # B's 0.1 s job must not queue behind A's 0.8 s one: a budget between the two tells them
    # apart, with room for a busy machine's slow round trip
    report = await runner.run(holds, 0.1, budget=Budget(0.6), fallback="fallback")
    assert report.fallback is None and report.used < 0.6
    a_reports = await asyncio.gather(*fan_out)
    assert [r.fallback for r in a_reports] == [None]
    assert {r.move for r in a_reports} <= set(pids) and runner.worker_pids() == pids
    b.close()
    assert a.share() == 2  # alone again: every worker
    a.close()


async def test_every_caller_counts_as_a_session_even_without_opening_one(runner):
    assert runner.share() == 2  # this test's task is a session of its own
    other = runner.open_session("other")
    assert runner.share() == 1
    with runner.open_session("inner") as inner:
        assert runner.session() is inner and runner.share() == 1  # 2 workers, 3 sessions
    assert not inner.open and runner.session() is not inner
    other.close()

    async def elsewhere():
        return runner.session()

    assert await asyncio.create_task(elsewhere()) is not runner.session()  # another task, another bot
    await asyncio.sleep(0)  # that task's session closed with it
    assert runner.share() == 2


class Recording(SearchRunner):
    """A SearchRunner whose searches are recorded and answered at once with the fallback."""

    def __init__(self) -> None:
        super().__init__(2)
        self.calls = []

    async def run(self, job, *args, budget, fallback):
        self.calls.append(args)
        return MoveReport(fallback, budget.seconds, 0.0, 0, 1, 0.0)


async def test_go_searches_fan_out_over_the_share_of_their_session():
    runner = Recording()
    await decide(runner, "go", "mcts", (), empty(9), Budget(1.0))
    assert len(runner.calls) == 2  # alone: every worker
    runner.calls.clear()
    other = runner.open_session("another bot")
    await decide(runner, "go", "mcts", (), empty(9), Budget(1.0))
    assert len(runner.calls) == 1
    assert runner.calls[0][5] == runner.session().key != other.key  # think's session argument
    other.close()


@pytest.mark.slow
async def test_a_job_queued_past_its_deadline_is_withdrawn_and_kills_nothing(runner, tmp_path):
    pids = runner.worker_pids()
    busy = [asyncio.ensure_future(runner.run(holds, 0.6, budget=Budget(2.0), fallback="fallback"))
            for _ in range(runner.workers)]
    await asyncio.sleep(0)  # every worker is taken first
    marker = tmp_path / "ran"
    report = await runner.run(touch, str(marker), budget=Budget(0.2), fallback="fallback")
    assert report.move == "fallback" and report.fallback == "queued past its deadline"
    assert report.used < 0.2 + runner.grace  # answered at its deadline
    assert [r.fallback for r in await asyncio.gather(*busy)] == [None] * runner.workers
    for _ in range(runner.workers):
        assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"
    assert not marker.exists()  # the worker that took it skipped it
    assert runner.worker_pids() == pids  # no worker was killed


@pytest.mark.slow
async def test_a_hung_worker_is_killed_alone_and_the_other_search_runs_on(runner):
    pids = runner.worker_pids()
    other = asyncio.ensure_future(runner.run(holds, 0.8, budget=Budget(1.5), fallback="fallback"))
    await asyncio.sleep(0)  # the other bot's search is sent first
    t0 = time.monotonic()
    # A budget long enough for the parent to hear that the job started on a loaded machine
    # (else it is withdrawn as queued, which is right, but not what this test is about).
    hung = await runner.run(ignores_deadline, 30.0, budget=Budget(1.0), fallback="fallback")
    assert hung.fallback == "worker late" and time.monotonic() - t0 < 1.0 + runner.grace + 0.1
    report = await other
    assert report.fallback is None
    survivor = report.move
    (killed,) = set(pids) - {survivor}
    await until(lambda: not alive(killed) and len(runner.worker_pids()) == runner.workers, timeout=10,
                what="the hung worker killed and replaced")
    assert survivor in runner.worker_pids()
    for _ in range(20):  # until a job reaches the replacement, which takes none before its warm-up
        reports = await asyncio.gather(*(runner.run(state_after, 0.2, budget=Budget(5.0), fallback=None)
                                         for _ in range(runner.workers)))
        assert [r.fallback for r in reports] == [None] * runner.workers
        seen = {r.move[0]: r.move[1:] for r in reports}
        if set(seen) - {survivor}:
            break
    (replacement,) = set(seen) - {survivor}
    assert replacement in runner.worker_pids() and seen[replacement] == (False, True)  # warmed


async def test_worker_caches_belong_to_one_session():
    """Two bots with the same player settings never share a cached player (a Go tree); one
    bot's later moves reuse its own."""
    settings = ("twilight", "expecti", (("max_depth", 3),))
    async with SearchRunner(1) as runner:
        a, b = runner.open_session("A"), runner.open_session("B")
        first = await runner.run(player_identity, *settings, a.key, budget=Budget(5.0), fallback=None)
        again = await runner.run(player_identity, *settings, a.key, budget=Budget(5.0), fallback=None)
        other = await runner.run(player_identity, *settings, b.key, budget=Budget(5.0), fallback=None)
    assert first.fallback is None and first.move == again.move
    assert other.move[0] == first.move[0] and other.move != first.move


async def test_close_leaves_no_worker_behind():
    runner = SearchRunner(2)
    await runner.start()
    pids = runner.worker_pids()
    assert len(pids) == 2
    runner.close()
    assert runner.worker_pids() == [] and not any(alive(p) for p in pids)


def worker_state(budget: Budget) -> SearchResult:
    import gc

    return SearchResult((os.getpid(), gc.isenabled(), signal.getsignal(signal.SIGINT) == signal.SIG_IGN))


def state_after(seconds: float, budget: Budget) -> SearchResult:
    time.sleep(seconds)
    return worker_state(budget)


async def test_every_worker_is_warmed_before_its_first_job(runner):
    """The warm-up is the executor's initializer: no worker can take a job cold (issue 11)."""
    seen = {}
    for _ in range(40):
        report = await runner.run(worker_state, budget=Budget(1.0), fallback=None)
        pid, gc_enabled, ignores_ctrl_c = report.move
        seen[pid] = (gc_enabled, ignores_ctrl_c)
    assert set(seen) <= set(runner.worker_pids())
    assert all(state == (False, True) for state in seen.values()), seen


OWNER = """
import asyncio, sys, time
from bots import log
from bots.runner import SearchRunner

async def main():
    log.setup("json", "warning")
    runner = SearchRunner(2, games=[])
    await runner.start()
    print(" ".join(map(str, runner.worker_pids())), flush=True)
    time.sleep(120)

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_workers_die_with_a_killed_owner(tmp_path):
    """kill -9 of the bots process leaves no search worker behind (issue 11)."""
    import subprocess
    import sys

    script = tmp_path / "owner.py"
    script.write_text(OWNER)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    until_sync(lambda: not any(alive(p) for p in pids), timeout=5.0, what=f"workers {pids} gone")


async def test_a_runner_for_more_bots_than_cores_has_a_process_per_bot():
    """No bot's move waits in a queue behind another bot's search: with more bots than
    workers the pool has one process per bot (they share the cores), while a fan-out search
    still takes only its share of the workers."""
    async with SearchRunner(1, bots=3, games=[]) as runner:
        assert len(runner.worker_pids()) == 3
        with runner.open_session("a"), runner.open_session("b"):
            assert runner.share() == 1
