"""Each numba kernel compiles once per process start with an empty cache.

numba compiles a kernel again for every new combination of argument types it is called with,
and a call from another kernel passes an int literal (`f(B, 2)`) as its own type, `Literal[int](2)`:
`ladder_after(..., LADDER_NODES)` and `ladder_after(..., LADDER_NODES_PLAYOUT)` were two
compiles, each with the whole ladder reader inside.  Before these were made one type each, the
Go warm-up with an empty cache took 67 s, and 27 s after (docs/benchmarks/startup.md).  A kernel
with more than one signature after a warm-up is a regression of that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

SCRIPT = """
import importlib, json, sys
import numba
importlib.import_module(sys.argv[1]).warm()
twice = {}
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith(("bots.", "search.")):
        for name, f in vars(module).items():
            if isinstance(f, numba.core.registry.CPUDispatcher) and len(f.signatures) > 1:
                twice[f"{f.__module__}.{name}"] = [str(s) for s in f.signatures]
print(json.dumps(twice))
"""


@pytest.mark.parametrize("players", ["bots.go.players", "bots.hex.players"])
def test_every_kernel_of_a_warm_up_compiles_for_one_signature(players, tmp_path):
    env = dict(os.environ, BOTS_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", SCRIPT, players], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    twice = json.loads(done.stdout.strip().splitlines()[-1])
    assert twice == {}, "kernels compiled for more than one signature:\n" + json.dumps(twice, indent=1)
