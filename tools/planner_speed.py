"""Side by side: the Twilight planner of this checkout against an older planner.py, in one process.

    git show da61049:bots/twilight/planner.py > /tmp/planner_old.py
    python tools/planner_speed.py /tmp/planner_old.py 6000

Both search the same positions (the scaling maps of `bots bench twilight --scaling` and the shipped
maps, from the start and after 8 plies of greedy self-play) with the same node budget.  A change
meant only for speed must give the same move, value and node count everywhere; the table shows
nodes per CPU second of each and the ratio.
"""

from __future__ import annotations

import importlib.util
import random
import sys
import time

from bots.twilight.mapgen import generate
from bots.twilight.maps import load_map, shipped_maps
from bots.twilight.planner import Planner
from bots.twilight.players import greedy_action
from search.budget import Budget
from search.contracts import Context


def load_old(path: str):
    spec = importlib.util.spec_from_file_location("bots.twilight.planner_old", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module.Planner


def positions():
    starts = [(f"{n}x{n}, {h} camps", generate(n, n, h, 1)) for n in (10, 20, 30) for h in (10, 25, 40)]
    starts += [(m, load_map(m)) for m in sorted(shipped_maps()) if m != "all_in"]
    for name, start in starts:
        state, rng = start, random.Random(1)
        for _ in range(8):
            if not state.is_terminal():
                state = state.play(greedy_action(state), rng)
        for label, position in (("start", start), (f"ply {state.ply}", state)):
            if not position.is_terminal():
                yield name, label, position


def main(old_file: str, nodes: int) -> int:
    players = (("old", load_old(old_file)()), ("new", Planner()))
    print(f"{'map':<18}{'position':<9}{'old nodes/s':>12}{'new nodes/s':>12}{'ratio':>7}  same result")
    cpu = {"old": 0.0, "new": 0.0}
    same = rows = 0
    for name, label, position in positions():
        out = {}
        for tag, player in players:
            t0 = time.process_time()
            result = player.choose(position, Context(), Budget(600, nodes=nodes))
            used = time.process_time() - t0
            out[tag] = (result, used)
            cpu[tag] += used
        (old, t_old), (new, t_new) = out["old"], out["new"]
        ok = (old.move, old.value, old.nodes) == (new.move, new.value, new.nodes)
        same += ok
        rows += 1
        print(f"{name:<18}{label:<9}{old.nodes / t_old:>12.0f}{new.nodes / t_new:>12.0f}{t_old / t_new:>7.2f}"
              f"  {'yes' if ok else 'NO'}")
    print(f"CPU time: old {cpu['old']:.1f} s, new {cpu['new']:.1f} s, ratio {cpu['old'] / cpu['new']:.2f}; "
          f"same result on {same}/{rows} positions")
    return 0 if same == rows else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
