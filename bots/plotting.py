"""matplotlib, an optional extra (`pip install 'tournament-bots[plot]'`, or `'.[plot]'` from a
checkout): the PNG of `bots replay --to-png` and the charts of `bots tournament --report` need it,
nothing else does.  It is about 100 MiB of an install of about 430 MiB, so the Docker image and a
plain `pip install .` go without it (issue 28).  Commands that draw call `require()` before they
start work, so a missing extra is one error line, not a traceback after a tournament."""

from __future__ import annotations

import importlib.util
from typing import Any

MISSING = ("{what} needs matplotlib, which is not installed: "
           "pip install 'tournament-bots[plot]' (or '.[plot]' from a checkout)")


def require(what: str) -> None:
    """ImportError naming the extra when matplotlib cannot be imported."""
    if importlib.util.find_spec("matplotlib") is None:
        raise ImportError(MISSING.format(what=what))


def pyplot() -> Any:
    """matplotlib.pyplot on the file-only Agg backend (no display needed)."""
    require("drawing")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
