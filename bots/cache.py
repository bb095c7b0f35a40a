"""Where bots keeps what it computes once and reuses (numba's compiled kernels).

Never inside the installed package: a cache written next to the sources of a non-editable
install survives `pip uninstall`, turns `site-packages/bots/` into a namespace package and
shadows a later editable install (issue 11).  The preferred directory is, in order:
`$NUMBA_CACHE_DIR` as set by the user, `$BOTS_CACHE_DIR/numba` (the Docker image and the
systemd unit set it), `$XDG_CACHE_HOME/bots/numba`, `~/.cache/bots/numba`.

The cache can never crash or mislead (issue 28): when the preferred directory cannot be
written (a read-only image, `--user 12345` with no home, a service's read-only tree), a
per-user temporary directory is used instead, seeded with what the preferred one holds (so a
read-only image still starts warm); when nothing at all can be written, nothing is cached
and every start compiles.  `NOTE` then says so in one sentence, which the search runner logs
once.  The choice is made once, in the first process, and handed to every child through the
environment.

numba keys its files by the source file's path and modification time, and by the CPU it
compiled for: `NUMBA_CPU_NAME=generic` (the Docker image sets it) makes a cache that any
x86-64 host can load.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

CHOSEN = "BOTS_NUMBA_CACHE_CHOSEN"  # the inputs and the choice: a child with the same inputs keeps it
NOTE = ""  # why the cache is not the preferred directory, if it is not (logged by the runner)


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


def _inputs(directory: str) -> str:
    """The environment the choice was made from, and the choice."""
    return "\n".join(os.environ.get(name, "") for name in ("BOTS_CACHE_DIR", "XDG_CACHE_HOME", "HOME")) + \
        "\n" + directory


def preferred_dir() -> str:
    """Where the kernels should be cached (see the module docstring), writable or not."""
    mine = os.environ.get(CHOSEN, "").rsplit("\n", 1)[-1]  # what a parent chose, if one did
    if os.environ.get("NUMBA_CACHE_DIR") and os.environ["NUMBA_CACHE_DIR"] != mine:  # the user's own
        return os.environ["NUMBA_CACHE_DIR"]
    base = os.environ.get("BOTS_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "bots")
    return os.path.join(base, "numba")


def temporary_dir() -> str:
    return os.path.join(tempfile.gettempdir(), f"bots-cache-{os.getuid()}", "numba")


def choose() -> tuple[str, str]:
    """(the directory to cache in, or "" for none; a note when it is not the preferred one)."""
    preferred = preferred_dir()
    if _writable(preferred):
        return preferred, ""
    fallback = temporary_dir()
    if not _writable(fallback):
        return "", (f"no writable cache directory ({preferred} nor {fallback}): "
                    "the kernels compile at every start")
    seeded = os.path.isdir(preferred) and any(os.scandir(preferred))
    if seeded:
        try:
            shutil.copytree(preferred, fallback, dirs_exist_ok=True)
        except (OSError, shutil.Error):
            seeded = False
    if seeded:
        return fallback, f"cache {preferred} is read-only: using a copy in {fallback}"
    return fallback, f"cache {preferred} cannot be written: using {fallback}; this start compiles the kernels"


def configure_numba() -> str:
    """Point numba's disk cache at the chosen directory (see the module docstring); returns it
    ("" when nothing is cached).  Call it before numba is imported; if something imported
    numba first, numba is made to read the directory now (functions it already defined keep
    the cache they had)."""
    global NOTE
    if os.environ.get(CHOSEN) != _inputs(os.environ.get("NUMBA_CACHE_DIR", "")):
        directory, NOTE = choose()
        os.environ["NUMBA_CACHE_DIR"] = directory
        os.environ[CHOSEN] = _inputs(directory)
    numba = sys.modules.get("numba")
    if numba is not None and numba.config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:
        numba.config.reload_config()
    return os.environ["NUMBA_CACHE_DIR"]


def caching() -> bool:
    """Does numba cache to disk (a kernel module's `cache=` argument)?  Only to a directory
    chosen here: never next to the sources."""
    return bool(configure_numba())
