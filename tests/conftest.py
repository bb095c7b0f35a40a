import pytest

from bots import log
from bots.runner import SearchRunner


@pytest.fixture(autouse=True, scope="session")
def _quiet_logs():
    log.setup("json", "warning")


@pytest.fixture
async def runner():
    """A started SearchRunner with two workers, stopped after the test."""
    r = SearchRunner(workers=2, grace=0.1)
    await r.start()
    yield r
    r.close()
