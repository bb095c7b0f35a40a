"""Tables of learned prior gammas, shipped as data: the checks and loading that Go's and Hex's
tables share (bots.go.gammas, bots.hex.gammas; `load` and `shipped` also read Hex's swap
table, bots.hex.swap).

A table is the JSON a tool writes (tools/go_gammas.py, tools/hex_gammas.py): the feature
groups' `sizes` it was learned for, the `gammas` (one positive number per feature), and where
the games came from.  A table learned for other features than the kernel's is refused, so a
kernel change fails loudly instead of reading wrong weights.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TypeVar

import numpy as np

T = TypeVar("T")
FILE = "gammas.json"


def checked(table: dict, sizes: tuple[int, ...], n: int) -> np.ndarray:
    """The table's gammas; ValueError unless it was learned for feature groups `sizes` and
    holds `n` positive numbers."""
    learned = tuple(table.get("sizes", ()))
    if learned != sizes:
        raise ValueError(f"the gammas were learned for feature groups {learned}, the kernel has {sizes}")
    gammas = np.asarray(table["gammas"], np.float64)
    if gammas.shape != (n,) or not np.all(np.isfinite(gammas)) or np.any(gammas <= 0):
        raise ValueError(f"the gammas must be {n} positive numbers")
    return gammas


def load(path: str | Path, check: Callable[[dict], T], tool: str, kind: str = "gammas") -> T:
    """A table from a file (`mcts:gammas_file=`); ValueError naming the file if it is not one."""
    try:
        return check(json.loads(Path(path).read_text()))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a {kind} table of {tool}: {e}") from None


def shipped(package: str, check: Callable[[dict], T], file: str = FILE) -> T:
    """The table `file` shipped in `package`'s data directory."""
    return check(json.loads(resources.files(package).joinpath("data", file).read_text()))
