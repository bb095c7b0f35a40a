"""`bots status`: the daemon's status page (bots.status_page) as a table in the terminal.

It reads the page's JSON (`/api/status`) and prints a line per bot (its state and why, today's
games, its game in progress, its latest error) and one for the worker pool.  Exit codes: 0
every bot is healthy, 1 a bot is failing (stopped on an error, or backing off too long), 3 the
page cannot be reached or answered something else than its JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from typing import Any

UNREACHABLE = 3


def fetch(url: str, token: str | None, timeout: float = 5.0) -> dict:
    """The page's JSON; OSError or ValueError saying what went wrong."""
    request = urllib.request.Request(url.rstrip("/") + "/api/status",
                                     headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            data = json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        hint = " (set the token: --token-env VARIABLE)" if exc.code == 401 else ""
        raise OSError(f"{url}: HTTP {exc.code} {exc.reason}{hint}") from None
    except urllib.error.URLError as exc:
        raise OSError(f"cannot reach the status page at {url}: {exc.reason}") from None
    except (TimeoutError, OSError) as exc:
        raise OSError(f"cannot reach the status page at {url}: {exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{url} did not answer with the status JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("bots"), list):
        raise ValueError(f"{url} did not answer with the status JSON")
    return data


def _ago(now: float, then: float | None) -> str:
    if not then:
        return ""
    seconds = max(0, int(now - then))
    return f"{seconds} s" if seconds < 120 else f"{seconds // 60} min" if seconds < 7200 else f"{seconds // 3600} h"


def table(data: dict) -> str:
    """The summary: a row per bot, then the pool."""
    now = data.get("time") or time.time()
    rows = [("bot", "game", "server", "state", "for", "today (won-lost-draw)", "in progress", "latest error")]
    for b in data["bots"]:
        r = b.get("results", {})
        today = f"{r.get('won', 0)}-{r.get('lost', 0)}-{r.get('draw', 0)}" + \
            (f" +{r['unknown']} unknown" if r.get("unknown") else "")
        game = b.get("playing")
        progress = f"{len(game['moves'])} moves" + (f", clock {game['clock']:.1f} s" if game.get("clock") else "") \
            if game else ""
        state = ("FAILING: " if b.get("failing") else "") + b["state"] + (f" ({b['why']})" if b.get("why") else "")
        rows.append((b["name"], b["game"], b["server"], state, _ago(now, b.get("since")), today, progress,
                     b.get("error") or ""))
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=False)) + "  " + str(row[-1])
             for row in rows]
    p: dict[str, Any] = data.get("pool", {})
    lines.append(f"pool: {p.get('workers', '?')} workers, {p.get('queued', 0)} queued searches; last hour: "
                 f"{p.get('fallbacks_last_hour', 0)} fallbacks, {p.get('late_last_hour', 0)} late moves")
    return "\n".join(line.rstrip() for line in lines)


def run(url: str, token_env: str | None, as_json: bool) -> int:
    token = os.environ.get(token_env) if token_env else None
    if token_env and not token:
        print(f"bots status: error: the environment variable {token_env} is not set", file=sys.stderr)
        return UNREACHABLE
    try:
        data = fetch(url, token)
    except (OSError, ValueError) as exc:
        print(f"bots status: error: {exc}", file=sys.stderr)
        return UNREACHABLE
    print(json.dumps(data, indent=2) if as_json else table(data))
    return 1 if any(b.get("failing") for b in data["bots"]) else 0
