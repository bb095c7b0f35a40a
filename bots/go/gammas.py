"""The learned priors' weights: one gamma per move feature of `bots.go.kernel.move_features`.

A move's strength is the product of its features' gammas (Coulom's generalized Bradley-Terry
model, 2007); the search gives each child prior wins by its strength against the strongest
move's (bots.go.kernel.children).  `data/gammas.json` holds them, learned offline by
`tools/go_gammas.py` from recorded games (its `source` says which); nothing is learned or
downloaded at run time.  A table may also list large patterns (`shapes`: the sorted codes of
`bots.go.kernel.large_codes` it learned a gamma for, after the fixed groups' gammas).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import gammas as tables
from . import kernel as K

SIZE = 9  # the board the shipped gammas were learned and tested on; other sizes keep michi's priors


class Table(NamedTuple):
    gammas: np.ndarray  # NFEATURES fixed groups' gammas, then 1 + len(shapes) large patterns'
    shapes: np.ndarray  # sorted int64 codes of the known large patterns (maybe none)


NONE = Table(K.NO_GAMMAS, K.NO_SHAPES)  # no learned priors: the search uses michi's hand-set ones


def check(table: dict) -> Table:
    """The gammas and shapes of a table as `tools/go_gammas.py` writes it; ValueError if it
    was learned for other features than the kernel's or is malformed."""
    shapes = np.asarray(table.get("shapes", []), np.int64)
    if shapes.ndim != 1 or np.any(np.diff(shapes) <= 0):
        raise ValueError("the shapes must be a list of distinct codes in increasing order")
    if len(table.get("gammas", ())) == K.NFEATURES and not len(shapes):  # written before the large patterns
        table = {**table, "gammas": [*table["gammas"], 1.0]}  # their slot weighs 1
    return Table(tables.checked(table, K.FEATURE_SIZES, K.NFEATURES + 1 + len(shapes)), shapes)


def load(path: str | Path) -> Table:
    """A table from a file (`mcts:gammas_file=`); ValueError naming the file if it is not one."""
    return tables.load(path, check, "tools/go_gammas.py")


@cache
def shipped() -> Table:
    """The gammas shipped with the package."""
    return tables.shipped("bots.go", check)
