"""The Hex search's learned priors: one gamma per move feature of `bots.hex.kernel`.

A move's strength is the product of its features' gammas (Coulom's generalized Bradley-Terry
model, 2007); the search gives each cell prior wins by its strength against the strongest
cell's (bots.hex.kernel.children).  `data/gammas.json` holds them, learned offline by
`tools/hex_gammas.py` from recorded games (its `source` says which); nothing is learned or
downloaded at run time.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from .. import gammas as tables
from . import kernel as K


def check(table: dict) -> np.ndarray:
    """The gammas of a table as `tools/hex_gammas.py` writes it; ValueError if it was learned
    for other features than the kernel's or is malformed."""
    return tables.checked(table, K.FEATURE_SIZES, K.NFEATURES)


def load(path: str | Path) -> np.ndarray:
    """A table from a file (`mcts:gammas_file=`); ValueError naming the file if it is not one."""
    return tables.load(path, check, "tools/hex_gammas.py")


@cache
def shipped() -> np.ndarray:
    """The gammas shipped with the package."""
    return tables.shipped("bots.hex", check)
