"""The daemon's status page, served on its own event loop by aiohttp ([status] in the config,
bots.settings; off when absent).

    /              the page (HTML and script only: it holds no data, so it needs no token)
    /api/status    every bot, its game in progress and the pool, as JSON (`bots status` reads it)
    /events        the same JSON as server-sent events, one at each change (the page's live view)
    /board/NAME    the board of NAME's game in progress: SVG drawn by the game's record module
                   (the pictures of `bots replay --to-png`) when matplotlib is installed, else
                   the text board of `--show`
    /records/NAME/FILE   a finished game's record (only files the bot itself recorded)
    /metrics       Prometheus text format (bots.monitor.Metrics)
    /healthz       200 when every bot is connected or backing off within its policy, else 503

With a token (required off loopback) every path but `/` asks for `Authorization: Bearer
TOKEN`; the page's script sends it (it takes the token from the address's `#token=...` part,
which browsers never send to the server, or asks for it).  Nothing secret is on any path:
bots are shown by name, game, server address and player (bots.monitor).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import multiprocessing
import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from . import registry
from .monitor import Monitor

log = structlog.get_logger("bots.status")
THROTTLE = 1.0  # seconds between two events of one stream
BOARD_EVERY = 1.0  # seconds: a bot's board is drawn again at most this often (a newer position waits)
RENDER_NICE = 10  # the renderer's niceness: about a tenth of a core against busy searches
KEEPALIVE = 15.0  # seconds of silence before a comment line keeps a stream open
MONITOR: web.AppKey[Monitor] = web.AppKey("monitor", Monitor)
BOARDS: web.AppKey[dict] = web.AppKey("boards", dict)
RENDERER: web.AppKey[list] = web.AppKey("renderer", list)
SERVED: web.AppKey[Counter] = web.AppKey("served", Counter)  # events streamed, boards drawn


def _low_priority() -> None:
    os.nice(RENDER_NICE)  # the boards wait; the searches do not


def _renderer(app: web.Application) -> ProcessPoolExecutor:
    """One process that draws the boards, started at the first board asked for, at a low
    priority: drawing takes tens of ms of CPU, which must not come from the searches or hold
    the event loop's GIL while a move is being answered.  (At nice 19 it starved: with both
    cores searching, no board was drawn in a 200-move soak.)"""
    if not app[RENDERER]:
        app[RENDERER].append(ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"),
                                                 initializer=_low_priority))
    return app[RENDERER][0]


async def _stop_renderer(app: web.Application) -> None:
    for pool in app[RENDERER]:
        pool.shutdown(wait=False, cancel_futures=True)


def draw_board(game: str, state: Any) -> tuple[str, bytes]:
    """(content type, body): the board as the game's record module draws it, as SVG (or the
    text board when matplotlib is not installed).  Runs in the renderer process."""
    info = registry.get(game)
    try:
        from matplotlib.figure import Figure  # the object API: no pyplot state
    except ImportError:
        return "text/plain; charset=utf-8", info.draw(state).encode()
    import io

    fig = Figure(figsize=(6, 6))
    info.module("record").draw(state, fig.add_subplot())
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="svg")
    return "image/svg+xml", out.getvalue()


def make_app(monitor: Monitor, token: str | None = None) -> web.Application:
    app = web.Application(middlewares=[_auth(token)])
    app[MONITOR] = monitor
    app[BOARDS] = {}  # bot -> ((its game's start, position version), when drawn, content type, body)
    app[RENDERER] = []
    app[SERVED] = Counter()
    app.on_cleanup.append(_stop_renderer)
    app.router.add_get("/", page)
    app.router.add_get("/api/status", status)
    app.router.add_get("/events", events)
    app.router.add_get("/board/{bot}", board)
    app.router.add_get("/records/{bot}/{file}", record)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/healthz", healthz)
    return app


def _auth(token: str | None) -> Any:
    @web.middleware
    async def check(request: web.Request, handler: Any) -> web.StreamResponse:
        if token is not None and request.path != "/":
            given = request.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                raise web.HTTPUnauthorized(text="a token is required: Authorization: Bearer TOKEN\n",
                                           headers={"WWW-Authenticate": "Bearer"})
        return await handler(request)

    return check


def _json(data: Any) -> str:
    return json.dumps(data, default=str, separators=(",", ":"))


async def page(request: web.Request) -> web.Response:
    html = resources.files("bots").joinpath("status.html").read_text(encoding="utf-8")
    return web.Response(text=html, content_type="text/html")


async def status(request: web.Request) -> web.Response:
    return web.Response(text=_json(request.app[MONITOR].snapshot()), content_type="application/json")


async def events(request: web.Request) -> web.StreamResponse:
    monitor = request.app[MONITOR]
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    version = -1
    try:
        while True:
            seen = await monitor.wait(version, KEEPALIVE)
            if seen == version:
                await response.write(b": still here\n\n")
                continue
            version = seen
            await response.write(f"data: {_json(monitor.snapshot())}\n\n".encode())
            request.app[SERVED]["events"] += 1
            await asyncio.sleep(THROTTLE)  # a burst of changes becomes one event
    except (ConnectionResetError, asyncio.CancelledError):
        return response


async def board(request: web.Request) -> web.Response:
    monitor, name = request.app[MONITOR], request.match_info["bot"]
    status = monitor.bots.get(name)
    view = status.playing if status else None
    if view is None or view.state is None:
        raise web.HTTPNotFound(text=f"{name}: no game in progress\n")
    cache, now, shown = request.app[BOARDS], time.monotonic(), (view.started, view.version)
    drawn_of, drawn_at, kind, body = cache.get(name, (None, 0.0, "", b""))
    if drawn_of != shown and (drawn_of is None or drawn_of[0] != view.started or now - drawn_at >= BOARD_EVERY):
        loop = asyncio.get_running_loop()
        kind, body = await loop.run_in_executor(_renderer(request.app), draw_board, status.game, view.state)
        cache[name] = (shown, now, kind, body)
        request.app[SERVED]["boards"] += 1
    return web.Response(body=body, headers={"Content-Type": kind, "Cache-Control": "no-store"})


async def record(request: web.Request) -> web.FileResponse:
    monitor, name, wanted = request.app[MONITOR], request.match_info["bot"], request.match_info["file"]
    status = monitor.bots.get(name)
    paths = [Path(g["record"]) for g in status.finished if g.get("record")] if status else []
    path = next((p for p in paths if p.name == wanted), None)
    if path is None or not path.is_file():
        raise web.HTTPNotFound(text=f"{name}: no record {wanted!r}\n")
    kind = "application/json" if path.suffix == ".json" else "application/x-go-sgf"
    return web.FileResponse(path, headers={"Content-Type": kind})


async def metrics(request: web.Request) -> web.Response:
    body = generate_latest(request.app[MONITOR].metrics.registry)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def healthz(request: web.Request) -> web.Response:
    ok, bots = request.app[MONITOR].health()
    return web.Response(text=_json({"ok": ok, "bots": bots}), status=200 if ok else 503,
                        content_type="application/json")


async def serve(monitor: Monitor, host: str, port: int, token: str | None = None) -> web.AppRunner:
    """Start the page; OSError (e.g. the address is in use) names the address."""
    runner = web.AppRunner(make_app(monitor, token), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        await runner.cleanup()
        raise OSError(exc.errno, f"cannot serve the status page on {host}:{port}: {exc.strerror or exc}") from None
    port = runner.addresses[0][1]  # the one the OS chose, for port 0
    log.info("status page", url=f"http://{host if ':' not in host else f'[{host}]'}:{port}/",
             token="required" if token else "none (loopback)")
    return runner
