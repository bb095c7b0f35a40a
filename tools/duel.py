"""A/B of Twilight players at node budgets, in-process: results that do not depend on the load.

    python tools/duel.py planner expecti --nodes 12000 --nodes-b 30000 --maps gen/*.xml
    python tools/duel.py planner:risk=0.4 expecti --nodes 12000 --nodes-b 30000 --maps gen/*.xml
    git show e00ae8c:bots/twilight/planner.py > /tmp/planner_old.py
    python tools/duel.py planner old --old /tmp/planner_old.py --nodes 12000 --maps gen/*.xml

Every map is played once per species and battle seed (the same seeds for every A, so two runs
of this command are paired); each player gets a node budget per move (`--nodes` for A,
`--nodes-b` for B) and a generous wall-clock cap.  Each player sees what the session tells it
(the most groups the opponent has had).  Every move is checked by the rules engine.  Prints one
row per map and the total with its 95% Wilson interval.  `bots arena` is the real thing (sockets,
the 2 s clock); this is for comparing ideas quickly and reproducibly.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from multiprocessing import Pool

from bots.players import make_player, parse_spec, player_table
from bots.stats import wilson
from bots.twilight.maps import load_map
from bots.twilight.rules import Species, validate
from search.budget import Budget
from search.contracts import Context

CAP_SECONDS = 60.0  # the node budget decides; this only stops a runaway search


def register_old(path: str) -> None:
    """Make the `Planner` of an older planner.py the player `old`."""
    table = player_table("twilight")
    if "old" not in table:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from planner_speed import load_old

        table["old"] = load_old(path)


def game(job: tuple) -> tuple:
    map_name, a, b, a_species, seed, nodes, old = job
    if old:
        register_old(old)
    state = load_map(map_name)
    rng = random.Random(seed)
    players = {Species(a_species): (make_player("twilight", *parse_spec(a)), nodes[0]),
               Species(1 - a_species): (make_player("twilight", *parse_spec(b)), nodes[1])}
    most = {Species.VAMPIRES: 1, Species.WEREWOLVES: 1}
    while not state.is_terminal():
        for species in most:
            most[species] = max(most[species], len(state.groups(species)))
        player, budget = players[state.to_move]
        result = player.choose(state, Context(opponent_max_groups=most[state.to_move.other]),
                               Budget(CAP_SECONDS, nodes=budget))
        validate(state, state.to_move, result.move)
        state = state.play(result.move, rng)
    winner = state.winner()
    score = 0.5 if winner is None else float(winner == Species(a_species))
    return (os.path.basename(map_name), a_species, seed, score, state.ply,
            state.population(Species(a_species)), state.population(Species(1 - a_species)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="player A, e.g. planner or planner:risk=0.4")
    parser.add_argument("b", help="player B")
    parser.add_argument("--maps", nargs="+", required=True, help="map names or XML files")
    parser.add_argument("--nodes", type=int, default=12000, help="A's nodes per move (12000)")
    parser.add_argument("--nodes-b", type=int, help="B's nodes per move (default: --nodes)")
    parser.add_argument("--seeds", type=int, default=1, help="battle seeds per map and species (1)")
    parser.add_argument("--procs", type=int, default=2, help="games at once (2)")
    parser.add_argument("--old", help="an older planner.py, playable as the player `old`")
    args = parser.parse_args(argv)
    nodes = (args.nodes, args.nodes_b or args.nodes)
    try:  # a bad player, option or map fails here, in one line, not in a worker
        if args.old:
            register_old(args.old)
        for spec in (args.a, args.b):
            make_player("twilight", *parse_spec(spec))
        for name in args.maps:
            load_map(name)
    except Exception as exc:
        parser.error(str(exc))
    jobs = [(m, args.a, args.b, species, seed, nodes, args.old)
            for m in args.maps for species in (0, 1) for seed in range(args.seeds)]
    start = time.monotonic()
    with Pool(args.procs) as pool:
        results = pool.map(game, jobs, chunksize=1)
    print(f"{args.a} (A, {nodes[0]} nodes) against {args.b} ({nodes[1]} nodes): "
          "per game, A's species, score, A's and B's units at the end, plies")
    rows: dict[str, list] = {}
    for r in results:
        rows.setdefault(r[0], []).append(r)
    for name, games in rows.items():
        cells = " ".join(f"{'VW'[g[1]]} {g[3]:.1f} ({g[5]}-{g[6]}@{g[4]})" for g in games)
        print(f"{name:<32} {sum(g[3] for g in games):4.1f}/{len(games)}  {cells}")
    total = sum(r[3] for r in results)
    low, high = wilson(total, len(results))
    by_species = [sum(r[3] for r in results if r[1] == s) for s in (0, 1)]
    print(f"TOTAL {total:g}/{len(results)} = {100 * total / len(results):.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
          f"  as V {by_species[0]:g}, as W {by_species[1]:g}  wall {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
