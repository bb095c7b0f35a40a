"""The learned priors' weights: one gamma per move feature of `bots.go.kernel.move_features`.

A move's strength is the product of its features' gammas (Coulom's generalized Bradley-Terry
model, 2007); the search gives each child prior wins by its strength against the strongest
move's (bots.go.kernel.children).  `data/gammas.json` holds them, learned offline by
`tools/go_gammas.py` from recorded games (its `source` says which); nothing is learned or
downloaded at run time.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from . import kernel as K

FILE = "gammas.json"
SIZE = 9  # the board the shipped gammas were learned and tested on; other sizes keep michi's priors


def check(table: dict) -> np.ndarray:
    """The gamma vector of a gammas table (as `tools/go_gammas.py` writes it); ValueError if it
    was learned for other features than the kernel's."""
    sizes = tuple(table.get("sizes", ()))
    if sizes != K.FEATURE_SIZES:
        raise ValueError(f"the gammas were learned for feature groups {sizes}, the kernel has {K.FEATURE_SIZES}")
    gammas = np.asarray(table["gammas"], np.float64)
    if gammas.shape != (K.NFEATURES,) or not np.all(np.isfinite(gammas)) or np.any(gammas <= 0):
        raise ValueError(f"the gammas must be {K.NFEATURES} positive numbers")
    return gammas


@cache
def shipped() -> np.ndarray:
    """The gammas shipped with the package."""
    return check(json.loads(resources.files("bots.go").joinpath("data", FILE).read_text()))
