"""Where bots keeps what it computes once and reuses (numba's compiled kernels).

Never inside the installed package: a cache written next to the sources of a non-editable
install survives `pip uninstall`, turns `site-packages/bots/` into a namespace package and
shadows a later editable install (issue 11).  The directory is, in order:
`$NUMBA_CACHE_DIR` as set by the user (the Docker image sets it), `$BOTS_CACHE_DIR/numba`,
`$XDG_CACHE_HOME/bots/numba`, `~/.cache/bots/numba`, and a per-user temporary directory
when none of those can be written.  numba keys its files by source path and modification
time inside it, so each install compiles once.
"""

from __future__ import annotations

import os
import sys
import tempfile


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK)


def user_cache_dir() -> str:
    """The per-user cache directory of bots (created if missing)."""
    base = os.environ.get("BOTS_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "bots")
    if _writable(base):
        return base
    fallback = os.path.join(tempfile.gettempdir(), f"bots-cache-{os.getuid()}")
    os.makedirs(fallback, exist_ok=True)
    return fallback


def configure_numba() -> str:
    """Point numba's disk cache at the per-user directory; returns the directory in use.
    Call it before numba is imported; if something imported numba first, numba is made to
    read the directory now (functions it already defined keep the cache they had)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(user_cache_dir(), "numba")
    numba = sys.modules.get("numba")
    if numba is not None and numba.config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:
        numba.config.reload_config()
    return os.environ["NUMBA_CACHE_DIR"]
