import pytest
import structlog

from bots import cli


@pytest.fixture
def bots_main():
    """bots.cli.main in-process; the logging set-up it does is undone after the test."""
    saved = structlog.get_config()
    processors = list(saved["processors"])

    def run(*argv: str) -> int:
        return cli.main(list(argv))

    yield run
    structlog.configure(processors=processors, wrapper_class=saved["wrapper_class"],
                        logger_factory=saved["logger_factory"], context_class=saved["context_class"],
                        cache_logger_on_first_use=saved["cache_logger_on_first_use"])
