"""search.minimax.search on tiny synthetic games, checked against a brute-force expectimax.

A model is any object with actions/outcomes/evaluate/is_terminal/maximizing/key/bound.
The reference below is plain depth-limited expectimax with no pruning and no table:
depth d means d decisions from the root (depth 1 evaluates the root's children).
"""

from __future__ import annotations

import math
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from search.budget import Budget, SearchResult
from search.minimax import search


def expectimax(model, state, depth: int) -> float:
    if depth <= 0 or model.is_terminal(state):
        return model.evaluate(state)
    actions = model.actions(state)
    if not actions:
        return model.evaluate(state)
    values = [action_value(model, state, a, depth) for a in actions]
    return max(values) if model.maximizing(state) else min(values)


def action_value(model, state, action, depth: int) -> float:
    """Expected value of `action` at `state` for a search of `depth` decisions from `state`."""
    return sum(p * expectimax(model, child, depth - 1) for p, child in model.outcomes(state, action))


def best_actions(model, root, depth: int) -> tuple[float, list]:
    values = {a: action_value(model, root, a, depth) for a in model.actions(root)}
    best = max(values.values()) if model.maximizing(root) else min(values.values())
    return best, [a for a, v in values.items() if v == best]


# -- Nim: take 1, 2 or 3 stones; whoever takes the last stone wins ---------------------------


class Nim:
    """State (stones, root_player_to_move, ply).  Values are from the root player's side.

    Non-terminal leaves get a pseudo-random heuristic in (-1, 1) so depth-limited values
    differ from depth to depth.  With `with_ply=False` the key leaves the ply out, so one
    position reached after different numbers of plies shares a table entry.
    `gamble=True` adds a chance action: take 1 stone (p=0.25) or 2 stones (p=0.75).
    """

    def __init__(self, seed: int = 0, with_ply: bool = True, gamble: bool = False, bound: float = 1.5) -> None:
        self.seed, self.with_ply, self.gamble, self._bound = seed, with_ply, gamble, bound

    def actions(self, s):
        n = s[0]
        out = [t for t in (1, 2, 3) if t <= n]
        if self.gamble and n >= 2:
            out.append("gamble")
        return out

    def outcomes(self, s, a):
        n, me, ply = s
        if a == "gamble":
            return [(0.25, (n - 1, not me, ply + 1)), (0.75, (n - 2, not me, ply + 1))]
        return [(1.0, (n - a, not me, ply + 1))]

    def is_terminal(self, s):
        return s[0] == 0

    def evaluate(self, s):
        n, me, ply = s
        if n == 0:
            return -1.0 if me else 1.0  # the player to move has no stone left to take: lost
        # A dyadic heuristic (k/64): sums of such values times 1/4, 3/4 are exact in floats.
        return random.Random(hash((self.seed, n, me, ply if self.with_ply else -1))).randint(-60, 60) / 64

    def maximizing(self, s):
        return s[1]

    def key(self, s):
        return s if self.with_ply else s[:2]

    def bound(self, s):
        return self._bound  # 1.5: every value strictly inside (see the bound bug below)


@pytest.mark.parametrize("stones", range(1, 14))
def test_nim_full_depth_plays_the_known_winning_move(stones):
    model = Nim(with_ply=False)  # transpositions across plies share the table
    result = search((stones, True, 0), model, Budget(30), max_depth=stones)
    if stones == 1:
        assert (result.move, result.depth) == (1, 0)  # a forced move: no search at all
    elif stones <= 3 or stones % 4:
        assert result.value == 1.0
        assert result.move == (stones if stones <= 3 else stones % 4)
        assert result.depth == stones
    else:
        assert result.value == -1.0  # a multiple of 4: every move loses against best play
        assert result.depth == stones


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("gamble", [False, True], ids=["deterministic", "with-chance"])
def test_nim_value_and_move_equal_brute_force_at_every_depth(seed, gamble):
    model = Nim(seed=seed, gamble=gamble)
    for stones in range(2, 11):
        root = (stones, True, 0)
        for depth in range(1, 7):
            result = search(root, model, Budget(30), max_depth=depth)
            best, moves = best_actions(model, root, depth)
            assert result.depth == depth
            assert result.value == pytest.approx(best, abs=1e-12), (stones, depth)
            assert result.move in moves, (stones, depth, result, moves)


def test_nim_minimizing_root():
    """The root player need not be the maximiser: values stay from the maximiser's side."""
    model = Nim(seed=3)
    for stones in range(2, 10):
        root = (stones, False, 0)
        for depth in range(1, 6):
            result = search(root, model, Budget(30), max_depth=depth)
            best, moves = best_actions(model, root, depth)
            assert result.value == pytest.approx(best, abs=1e-12)
            assert result.move in moves


def test_nim_exact_values_by_hand():
    # 5 stones, full depth: take 1 leaves 4 (a lost position for the opponent): +1.
    model = Nim(with_ply=False)
    result = search((5, True, 0), model, Budget(30), 10)
    assert (result.move, result.value) == (1, 1.0)
    # Depth 1 on 3 stones: taking all 3 wins at once; the other moves get heuristic values < 1.
    result = search((3, True, 0), model, Budget(30), 1)
    assert (result.move, result.value, result.depth) == (3, 1.0, 1)


# -- explicit trees ---------------------------------------------------------------------------


class Tree:
    """An explicit game tree.  Nodes: ("leaf", value) or ("node", maximizing, actions, heuristic)
    where actions is a list of outcome lists [(probability, child), ...]."""

    def __init__(self, nodes: dict, root: int, bound: float) -> None:
        self.nodes, self.root, self._bound = nodes, root, bound

    def actions(self, s):
        node = self.nodes[s]
        return [] if node[0] == "leaf" else list(range(len(node[2])))

    def outcomes(self, s, a):
        return list(self.nodes[s][2][a])

    def evaluate(self, s):
        node = self.nodes[s]
        return node[1] if node[0] == "leaf" else node[3]

    def is_terminal(self, s):
        return self.nodes[s][0] == "leaf"

    def maximizing(self, s):
        return self.nodes[s][1]

    def key(self, s):
        return s

    def bound(self, s):
        return self._bound


def build(spec) -> Tree:
    """Nested spec: a number is a leaf; ("max"|"min", [action, ...]) a decision node, where an
    action is a child spec or ("chance", [(p, child spec), ...])."""
    nodes: dict = {}

    def add(x) -> int:
        i = len(nodes)
        nodes[i] = None
        if isinstance(x, (int, float)):
            nodes[i] = ("leaf", float(x))
            return i
        who, actions = x
        outs = []
        for a in actions:
            if isinstance(a, tuple) and a[0] == "chance":
                outs.append([(p, add(c)) for p, c in a[1]])
            else:
                outs.append([(1.0, add(a))])
        nodes[i] = ("node", who == "max", outs, 0.0)
        return i

    root = add(spec)
    return Tree(nodes, root, bound=10.0)


def test_chance_node_value_is_the_expectation():
    # safe: 0.2; gamble: 0.3 * 2 + 0.7 * (-0.5) = 0.25.
    tree = build(("max", [0.2, ("chance", [(0.3, 2.0), (0.7, -0.5)])]))
    result = search(tree.root, tree, Budget(10), max_depth=3)
    assert result.move == 1
    assert result.value == pytest.approx(0.25)
    # Make the safe action better than the gamble: the maximiser takes it.
    tree = build(("max", [0.3, ("chance", [(0.3, 2.0), (0.7, -0.5)])]))
    result = search(tree.root, tree, Budget(10), 3)
    assert (result.move, result.value) == (0, 0.3)


def test_chance_under_the_minimiser():
    # a: the minimiser chooses between a gamble worth 0.3*4 + 0.7*(-2) = -0.2 and 0.5 -> -0.2.
    # b: -1.  The root takes a, worth -0.2.
    spec = ("max", [("min", [("chance", [(0.3, 4.0), (0.7, -2.0)]), 0.5]), -1.0])
    tree = build(spec)
    result = search(tree.root, tree, Budget(10), max_depth=4)
    assert result.move == 0 and result.value == pytest.approx(-0.2)
    # Depth 1 only looks at the heuristic of the minimiser's node (0.0) and at the leaf -1.
    result = search(tree.root, tree, Budget(10), max_depth=1)
    assert (result.move, result.value, result.depth) == (0, 0.0, 1)


def test_three_outcome_chance_and_nested_chance():
    # 0.5 * 1 + 0.25 * (0.5 * 4 + 0.5 * -4) + 0.25 * -2 = 0.0 ; the other action is -0.1.
    inner = ("min", [("chance", [(0.5, 4.0), (0.5, -4.0)]), 6.0])
    tree = build(("max", [-0.1, ("chance", [(0.5, 1.0), (0.25, inner), (0.25, -2.0)])]))
    result = search(tree.root, tree, Budget(10), 5)
    assert (result.move, result.value) == (1, 0.0)


# -- random trees: Star1 equals plain expectimax -----------------------------------------------


def random_tree(seed: int, height: int, bound: float, values: str) -> Tree:
    """values: 'dyadic' (k/16 strictly inside the bound, exact arithmetic) or 'float'."""
    rng = random.Random(seed)
    nodes: dict = {}
    probabilities = [(0.5, 0.5), (0.25, 0.75), (0.75, 0.25), (0.25, 0.25, 0.5), (0.5, 0.25, 0.25)]

    def value() -> float:
        if values == "dyadic":
            return rng.randint(-int(bound * 16) + 1, int(bound * 16) - 1) / 16
        return rng.uniform(-bound, bound) * 0.999

    def add(h: int, maximizing: bool) -> int:
        i = len(nodes)
        nodes[i] = None
        if h == 0 or rng.random() < 0.1:
            nodes[i] = ("leaf", value())
            return i
        outs = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                if values == "dyadic":
                    ps = rng.choice(probabilities)
                else:
                    ws = [rng.random() + 0.05 for _ in range(rng.randint(2, 3))]
                    ps = [w / sum(ws) for w in ws]
                outs.append([(p, add(h - 1, not maximizing)) for p in ps])
            else:
                outs.append([(1.0, add(h - 1, not maximizing))])
        nodes[i] = ("node", maximizing, outs, value())
        return i

    root = add(height, rng.random() < 0.7)
    return Tree(nodes, root, bound)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), height=st.integers(1, 4), depth=st.integers(1, 5))
def test_star1_matches_plain_expectimax_on_random_trees(seed, height, depth):
    tree = random_tree(seed, height, bound=4.0, values="dyadic")
    if len(tree.actions(tree.root)) < 2:
        return  # a forced move is returned without search (tested below)
    result = search(tree.root, tree, Budget(30), max_depth=depth)
    best, moves = best_actions(tree, tree.root, depth)
    assert result.depth == depth
    assert result.value == best  # dyadic values: exact arithmetic on both sides
    assert result.move in moves


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), height=st.integers(1, 4), depth=st.integers(1, 5))
def test_star1_root_value_matches_expectimax_with_arbitrary_probabilities(seed, height, depth):
    tree = random_tree(seed, height, bound=4.0, values="float")
    if len(tree.actions(tree.root)) < 2:
        return
    result = search(tree.root, tree, Budget(30), max_depth=depth)
    assert result.value == pytest.approx(expectimax(tree, tree.root, depth), abs=1e-9)


def test_star1_many_seeded_trees_full_depth():
    """Deterministic companion of the hypothesis tests: 300 fixed trees searched to the leaves."""
    for seed in range(300):
        tree = random_tree(seed, 4, bound=2.0, values="dyadic")
        if len(tree.actions(tree.root)) < 2:
            continue
        result = search(tree.root, tree, Budget(30), max_depth=6)
        best, moves = best_actions(tree, tree.root, 6)
        assert (result.value, result.move in moves) == (best, True), seed


@pytest.mark.parametrize("edge", [-10.0, 10.0])
def test_star1_with_values_at_the_bound(edge):
    if edge < 0:
        # a: 0.5 * -10 + 0.5 * 0 = -5 ; b: -2 -> b, -2.
        spec, want = ("max", [("chance", [(0.5, edge), (0.5, 0.0)]), -2.0]), (1, -2.0)
    else:
        # a: 0.5 * 10 + 0.5 * 0 = 5 ; b: 3 -> a, 5.
        spec, want = ("max", [("chance", [(0.5, edge), (0.5, 0.0)]), 3.0]), (0, 5.0)
    tree = build(spec)  # bound 10: the docstring allows every value inside [-B, B]
    result = search(tree.root, tree, Budget(10), max_depth=2)
    assert (result.move, result.value) == want


def test_nim_with_chance_and_a_tight_bound():
    model = Nim(seed=0, gamble=True, bound=1.0)  # every value is inside [-1, 1], as documented
    root = (4, True, 0)
    result = search(root, model, Budget(30), max_depth=2)
    best, moves = best_actions(model, root, 2)
    assert (result.value, result.move in moves) == (best, True), (result, best, moves)


def test_fail_low_bound_rounding_does_not_pick_a_worse_move():
    # safe: -0.1.  gamble: 0.7 * x + 0.3 * -1 = -0.7, where x is exactly the child window's lower
    # edge (alpha - left * B) / p as the search computes it.  Rounding makes the fail-low bound
    # 0.7 * x + 0.3 evaluate to -0.09999999999999998 > -0.1.
    p, alpha = 0.7, -0.1
    x = (alpha - 0.0 - (1.0 - p) * 1.0) / p
    tree = build(("max", [alpha, ("chance", [(p, x), (1.0 - p, -1.0)])]))
    tree._bound = 1.0
    assert action_value(tree, tree.root, 1, 1) == pytest.approx(-0.7)
    result = search(tree.root, tree, Budget(10), max_depth=1)
    assert result.move == 0 and result.value == -0.1


# -- the deadline ---------------------------------------------------------------------------------


class SlowTree:
    """An endless b-ary deterministic tree with pseudo-random leaf values; evaluate() sleeps."""

    def __init__(self, seed: int, branching: int = 4, delay: float = 0.0002) -> None:
        self.seed, self.branching, self.delay = seed, branching, delay
        self.evaluations = 0

    def actions(self, s):
        return list(range(self.branching))

    def outcomes(self, s, a):
        return [(1.0, s + (a,))]

    def evaluate(self, s):
        self.evaluations += 1
        if self.delay:
            time.sleep(self.delay)
        return random.Random(hash((self.seed,) + s)).random()

    def is_terminal(self, s):
        return False

    def maximizing(self, s):
        return len(s) % 2 == 0

    def key(self, s):
        return s

    def bound(self, s):
        return 1.0


@pytest.mark.parametrize("seed", range(4))
def test_deadline_returns_the_last_completed_iteration(seed):
    model = SlowTree(seed)
    t0 = time.monotonic()
    result = search((), model, Budget(0.2), max_depth=30)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.2 + 0.15, elapsed  # the clock is read every 256 nodes
    assert 1 <= result.depth < 30
    assert result.elapsed == pytest.approx(elapsed, abs=0.01)
    fast = SlowTree(seed, delay=0.0)
    best, moves = best_actions(fast, (), result.depth)
    assert moves == [result.move], (result, best, moves)
    assert result.value == best


def test_deadline_with_a_move_that_changes_with_depth():
    """The next iteration's partial best is never returned: check against every depth."""
    fast = SlowTree(11, delay=0.0)
    per_depth = {d: best_actions(fast, (), d)[1] for d in range(1, 6)}
    assert len({tuple(m) for m in per_depth.values()}) > 1  # the best move does change with depth
    for budget in (0.02, 0.05, 0.1, 0.2):
        result = search((), SlowTree(11), Budget(budget), max_depth=30)
        assert result.depth >= 1
        if result.depth not in per_depth:
            per_depth[result.depth] = best_actions(fast, (), result.depth)[1]
        assert [result.move] == per_depth[result.depth], (budget, result)


@pytest.mark.slow
def test_node_cap_limits_the_work_and_keeps_the_last_completed_iteration():
    fast = SlowTree(5, delay=0.0)
    per_depth = {0: [0]}
    per_depth.update({d: best_actions(fast, (), d)[1] for d in range(1, 7)})
    seen_depths = set()
    for cap in list(range(1, 60)) + list(range(60, 3000, 37)):
        model = SlowTree(5, delay=0.0)
        result = search((), model, Budget(30, nodes=cap), max_depth=30)
        assert result.nodes <= cap
        assert result.depth < 30
        assert [result.move] == per_depth[result.depth], (cap, result)
        seen_depths.add(result.depth)
    assert {0, 1, 2, 3, 4} <= seen_depths  # the caps cut the search at many different points


def test_node_cap_is_reported_exactly_when_hit():
    model = SlowTree(2, delay=0.0)
    result = search((), model, Budget(30, nodes=500), max_depth=30)
    assert result.nodes == 500
    uncapped = search((), SlowTree(2, delay=0.0), Budget(30), max_depth=3)
    assert uncapped.depth == 3 and uncapped.nodes < 500
    assert search((), SlowTree(2, delay=0.0), Budget(30, nodes=500), max_depth=3).nodes == uncapped.nodes


# -- degenerate roots -------------------------------------------------------------------------------


class OneMove(SlowTree):
    def actions(self, s):
        return ["only"]

    def outcomes(self, s, a):
        return [(1.0, s + (0,))]


def test_single_action_returns_at_once_with_depth_zero():
    model = OneMove(1, delay=0.05)
    t0 = time.monotonic()
    result = search((), model, Budget(5.0), max_depth=20)
    assert time.monotonic() - t0 < 0.5
    assert isinstance(result, SearchResult)
    assert (result.move, result.depth, result.nodes) == ("only", 0, 0)
    assert model.evaluations <= 1


def test_no_action_is_an_error():
    class Empty(SlowTree):
        def actions(self, s):
            return []

    with pytest.raises(ValueError):
        search((), Empty(0, delay=0.0), Budget(1.0), max_depth=3)


def test_zero_budget_still_completes_depth_one():
    """Depth 1 is always attempted; with no time it may be abandoned, and then the first action stands."""
    result = search((), SlowTree(9, delay=0.0), Budget(0.0), max_depth=10)
    assert result.depth <= 1
    if result.depth == 1:
        assert [result.move] == best_actions(SlowTree(9, delay=0.0), (), 1)[1]
    else:
        assert result.move == 0
    assert math.isfinite(result.value)


@pytest.mark.slow
def test_partial_iterations_keep_exact_values_and_reach_deeper():
    """partial=True: an iteration cut after its first root action still counts; the move it
    returns has exactly the value reported at the depth reported, and is no worse than the
    previous best searched at that depth."""
    deeper = 0
    for cap in range(40, 3000, 23):
        plain = search((), SlowTree(5, delay=0.0), Budget(30, nodes=cap), max_depth=30)
        model = SlowTree(5, delay=0.0)
        result = search((), model, Budget(30, nodes=cap), max_depth=30, partial=True)
        assert result.depth >= plain.depth
        deeper += result.depth > plain.depth
        if result.depth > 0:
            exact = action_value(SlowTree(5, delay=0.0), (), result.move, result.depth)
            assert math.isclose(result.value, exact)
            best, _ = best_actions(SlowTree(5, delay=0.0), (), result.depth)
            assert result.value <= best + 1e-12  # a maximising root: never above the true best
    assert deeper > 10
