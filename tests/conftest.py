import pytest

from bots import log


@pytest.fixture(autouse=True, scope="session")
def _quiet_logs():
    log.setup("json", "warning")
