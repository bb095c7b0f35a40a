"""SearchRunner: deadlines hold, a dead or late worker still yields the fallback move."""

import os
import signal
import time


from bots.players import think
from bots.runner import SearchRunner
from bots.twilight.maps import load_map
from bots.twilight.players import greedy_action
from bots.twilight.rules import is_legal
from search.budget import Budget, SearchResult


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


async def test_result_of_a_search_is_returned_with_its_work(runner):
    report = await runner.run(quick, budget=Budget(1.0), fallback="fallback")
    assert (report.move, report.depth, report.nodes, report.fallback) == ("ok", 3, 42, None)
    assert report.late_by == 0.0


async def test_real_search_answers_within_budget_plus_grace(runner):
    state = load_map("testmap2")
    budget = Budget(0.3)
    report = await runner.run(think, "twilight", "expecti", (("max_depth", 30),), state, {},
                              budget=budget, fallback=greedy_action(state))
    assert report.fallback is None
    assert report.used <= 0.3 + runner.grace
    assert report.depth >= 1
    assert is_legal(state, state.to_move, report.move)


async def test_search_that_runs_for_seconds_gets_the_fallback_in_time(runner):
    t0 = time.monotonic()
    report = await runner.run(ignores_deadline, 5.0, budget=Budget(0.3), fallback="fallback")
    assert time.monotonic() - t0 < 0.3 + runner.grace + 0.1
    assert report.move == "fallback" and report.fallback == "worker late"
    # The pool was rebuilt: the next search runs normally.
    assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"


async def test_worker_killed_mid_search_still_yields_a_legal_move(runner):
    state = load_map("map8")
    fallback = greedy_action(state)
    report = await runner.run(dies, budget=Budget(0.5), fallback=fallback)
    assert report.fallback == "worker died"
    assert is_legal(state, state.to_move, report.move)
    assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"


async def test_search_that_raises_gets_the_fallback_and_keeps_the_pool(runner):
    report = await runner.run(raises, budget=Budget(0.5), fallback="fallback")
    assert report.move == "fallback" and "RuntimeError" in report.fallback
    assert (await runner.run(quick, budget=Budget(1.0), fallback="fallback")).move == "ok"


async def test_a_slow_rebuild_is_waited_for_not_killed_again(monkeypatch):
    """After a late search the pool is rebuilt.  Searches that arrive while its workers are
    still starting wait for them within their budget and then fall back, without killing
    them again (which used to cascade: every later move was a fallback)."""
    from concurrent.futures import ProcessPoolExecutor

    def slow_pool(self):  # every worker takes 0.6 s to start: more than a 0.3 s budget + grace
        return ProcessPoolExecutor(self.workers, mp_context=self._ctx, initializer=time.sleep, initargs=(0.6,))

    monkeypatch.setattr(SearchRunner, "_new_pool", slow_pool)
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
    assert "worker late" not in reasons, reasons  # no search was sent to a pool that was not ready


def worker_state(budget: Budget) -> SearchResult:
    import gc

    return SearchResult((os.getpid(), gc.isenabled(), signal.getsignal(signal.SIGINT) == signal.SIG_IGN))


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


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


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
        assert len(pids) == 2 and all(_running(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 5.0
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in pids)
