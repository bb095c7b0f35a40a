import sys

import pytest

from bots import log
from bots.runner import SearchRunner


@pytest.fixture(autouse=True)
def _quiet_logs():
    """Warnings and errors only, as JSON, on the real stderr: before each test, and again after
    it, since a test that runs `bots.cli.main` in-process points the logs at its own captured
    stream, which is closed once that test is over."""
    log.setup("json", "warning", stream=sys.__stderr__)
    yield
    log.setup("json", "warning", stream=sys.__stderr__)


@pytest.fixture
async def runner():
    """A started SearchRunner with two workers, stopped after the test."""
    r = SearchRunner(workers=2, grace=0.1)
    await r.start()
    yield r
    r.close()


@pytest.fixture
async def serve(monkeypatch):
    """serve(**ServerConfig fields, on_ply=None) -> (our gnd server, its base URL without a
    trailing slash); every server is closed after the test.  Password hashing is made cheap."""
    from bots.gnd import server as server_mod

    monkeypatch.setitem(server_mod.SCRYPT, "n", 16)
    servers = []

    async def make(**kwargs):
        on_ply = kwargs.pop("on_ply", None)
        server = server_mod.GndServer(server_mod.ServerConfig(**kwargs), on_ply=on_ply)
        port = await server.start()
        servers.append(server)
        return server, f"http://127.0.0.1:{port}"

    yield make
    for s in servers:
        await s.close()
