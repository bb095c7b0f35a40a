"""`bots soak`: the daemon's main use, measured.  Several bots share one pool of search
workers in one process, each on its game's practice ground (bots.registry: Game.practice, a
local server of ours), until they have made `moves` moves together.  The default is four bots
of three games: two Twilight bots (each against a greedy sparring partner that thinks outside
the pool), one Go bot (mcts, root-parallel over its share of the workers) against our CGOS
server's random player, one Gopher bot against our gnd server's random player.

It prints a table per bot: moves, fallbacks (and why), the latency of our moves (p50, p99,
max: as our log measures it, from the server's message to our answer), the most a search ran
past its budget (the overhead kept back from the server's limit covers it), and the servers'
own count of time-outs; then what the pool had to do (workers killed, queued jobs withdrawn,
pools replaced).  A fair pool shows no time-out, no fallback and no kill.

`neighbours` busy processes (a Python loop each, at our priority) compete for the cores
while it runs: a machine that does other work too (issue 28).  With `page` the bots report to a
monitor, as the daemon's do, whose status page (bots.status_page) is open in headless Chromium
all along: the page's cost, live updates and board drawings included (issue 32).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

import structlog

from . import log as logsetup
from . import registry
from .monitor import Monitor
from .playing import BotSettings, keep_playing
from .runner import SearchRunner
from .session import MOVE

GAMES = ("twilight", "twilight", "go", "gopher")
MOVES: dict[str, list[dict]] = defaultdict(list)  # the move log lines of each bot under test


def _tap(event: dict) -> None:
    """Keep every move line of the bots under test; show only warnings and errors."""
    bot = str(event.get("bot", ""))
    if event.get("event") == MOVE and bot in MOVES:
        MOVES[bot].append(event)
    if event.get("level") not in ("warning", "error", "critical"):
        raise structlog.DropEvent


def _busy(count: int) -> list[subprocess.Popen]:
    """`count` processes that each keep a core busy until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(count)]


def _stop_group(proc: subprocess.Popen) -> None:
    """Kill a process started in its own session, and every process it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _stop(processes: list[subprocess.Popen]) -> None:
    for proc in processes:
        proc.kill()
        proc.wait()


def browser() -> str:
    """The Chromium that keeps the page open; OSError when none is installed."""
    found = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if found is None:
        raise OSError("--page needs Chromium (apt-get install chromium)")
    return found


async def _open_page(stack: contextlib.AsyncExitStack, monitor: Monitor) -> Counter:
    """Serve the monitor's page on a free loopback port and open it in headless Chromium; what
    the page served (bots.status_page.SERVED), counted while the soak runs."""
    from .status_page import SERVED, serve

    site = await serve(monitor, "127.0.0.1", 0)  # a free port, chosen by the OS
    port = site.addresses[0][1]
    stack.push_async_callback(site.cleanup)
    # An operator's browser runs on their own machine; here it shares ours, so at the lowest priority.
    profile = stack.enter_context(tempfile.TemporaryDirectory(prefix="bots-soak-chromium-"))
    viewer = subprocess.Popen(["nice", "-n", "19", browser(), "--headless", "--no-sandbox", "--disable-gpu",
                               f"--user-data-dir={profile}", "--remote-debugging-port=0", f"http://127.0.0.1:{port}/"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)  # its renderers are killed with it (_stop_group)
    stack.callback(_stop_group, viewer)
    return site.app[SERVED]


async def soak(games: tuple[str, ...], moves: int, workers: int, move_time: float, neighbours: int = 0,
               page: bool = False) -> str:
    names = [f"{game}-{i + 1}" for i, game in enumerate(games)]
    MOVES.clear()
    MOVES.update({name: [] for name in names})
    async with contextlib.AsyncExitStack() as stack:
        grounds = [await stack.enter_async_context(
            registry.get(game).module("practice").practice(game, name, move_time, i + 1))
            for i, (game, name) in enumerate(zip(games, names, strict=True))]
        runner = SearchRunner(workers, games=set(games), bots=len(games))
        stack.callback(runner.close)
        await runner.start()
        stack.callback(_stop, _busy(neighbours))
        monitor = Monitor(runner)
        served = await _open_page(stack, monitor) if page else None
        started = time.monotonic()
        tasks = [asyncio.ensure_future(keep_playing(BotSettings(game, bot), runner,
                                                    watch=monitor.watch(bot.name, game, bot.address, bot.player)))
                 for game, (bot, _) in zip(games, grounds, strict=True)]
        try:
            while sum(len(m) for m in MOVES.values()) < moves and not any(t.done() for t in tasks):
                await asyncio.sleep(0.5)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        timeouts = {name: count() for name, (_, count) in zip(names, grounds, strict=True)}
        viewed = "no status page" if served is None else \
            f"status page open in Chromium ({served['events']} events streamed, {served['boards']} boards drawn)"
        return _table(names, time.monotonic() - started, workers, runner.failures, timeouts, move_time, neighbours,
                      viewed)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _table(names: list[str], elapsed: float, workers: int, failures: Counter, timeouts: dict[str, int],
           move_time: float, neighbours: int = 0, viewed: str = "no status page") -> str:
    total = sum(len(m) for m in MOVES.values())
    fallbacks = sum(1 for m in MOVES.values() for line in m if line.get("fallback"))
    lines = [f"bots soak: {total} moves in {elapsed:.0f} s, {workers} workers shared by {len(names)} bots "
             f"(Twilight {move_time:g} s per move), {neighbours} busy neighbour process(es), {viewed}; "
             f"fallbacks {fallbacks} ({100 * fallbacks / max(1, total):.2f}%)",
             f"{'bot':<12}{'moves':>7}{'fallbacks':>10}  {'used p50':>9}{'p99':>8}{'max':>8}{'late_by max':>12}"
             f"{'server time-outs':>18}  fallback reasons"]
    for bot in names:
        moves = MOVES[bot]
        used = [m.get("used", 0.0) for m in moves]
        reasons = Counter(m["fallback"] for m in moves if m.get("fallback"))
        late = max((m.get("late_by", 0.0) for m in moves), default=0.0)
        lines.append(f"{bot:<12}{len(moves):>7}{sum(reasons.values()):>10}  {_quantile(used, 0.5):>9.3f}"
                     f"{_quantile(used, 0.99):>8.3f}{max(used, default=0):>8.3f}{late:>12.3f}{timeouts[bot]:>18}  "
                     + (", ".join(f"{r} ({n})" for r, n in reasons.items()) or "-"))
    lines.append("pool: " + (", ".join(f"{r}: {n}" for r, n in failures.items()) or
                             "no worker killed, no job withdrawn, no pool replaced"))
    return "\n".join(lines)


def run(games: tuple[str, ...], moves: int, workers: int, move_time: float, log_format: str,
        neighbours: int = 0, page: bool = False) -> str:
    """The soak, with the logs tapped: only warnings and errors are shown."""
    from .loop import run as run_loop

    logsetup.setup(log_format, "info", tap=_tap)
    return run_loop(soak(games, moves, workers, move_time, neighbours, page))
