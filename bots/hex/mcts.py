"""The `mcts` Hex player: UCT with RAVE and priors in the shared numba tree (search.uct) over
Hex's kernels (`SEARCH`: bots.hex.kernel's moves, priors and playouts, bots.hex.vc's
knowledge), with tactics and an exact solver in front of it.

One move:

1. Tactics: a cell that joins our edges at once is played; if the opponent can join theirs
   at exactly one cell, that cell is blocked (every other move loses at once; not while a
   swap is still possible, which changes the position).  With `mustplay`, when the opponent
   has semi-connections between its edges, only the cells in all their carriers are kept
   (bots.hex.vc: every other move loses).
   With `swap_table`, under the swap rule on a board bots.hex.swap's table holds, Black's
   first cell and White's decision to swap come from the table's measured values.
2. With few empty cells (`solve_empties`), the exact solver (bots.hex.solver) gets a share
   of the time; a proven winning move is played.
3. Otherwise (or when the solver proves nothing or a loss) the tree searches until the
   deadline, a node limit or an early stop, and the most visited move is played.  With
   `know` (visits), a node visited that often runs an H-search for the player who moved
   into it (`know_work` steps): a VC between its edges proves the node lost for the player to
   move, semi-connections leave it only their carriers' common cells (bots.hex.vc.knowledge),
   as MoHex's tree does at 256 visits.

The tree is kept between moves: when the new State is the old root followed by our move and
one reply (found from the boards, a swap included), that grandchild becomes the root.  Several
worker processes search the same State independently (root parallelism): `choose` returns its
root visit counts in `SearchResult.votes` and the caller adds them up; a move the tactics or
the solver proved gets SURE_VOTES, more than any search's visits.

Measured (one core, 11x11): about 115,000 iterations a second from the empty board; at 0.5 s
a move it won 20/20 games against random, a 0-1 BFS shortest-path greedy player and the
resistance player (bots.hex.resistance); with its priors against itself without them, 58/100
at 0.2 s a move (pairs of games from random two-move openings, colours exchanged).  The tree
takes about 11 new nodes an iteration early in an 11x11 game (16 on 13x13); its room
(`capacity`, search.uct.CAPACITY nodes by default) lasts about 15 seconds of one core's search
from the empty board, and takes memory only as it fills.  A tree that does fill up is not
kept: a fresh tree searches the time left, the root votes of both count (root parallelism
within the move), and the next move starts a new tree.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

import numpy as np

from search import uct
from search.budget import Budget, SearchResult
from search.contracts import Context

from . import gammas, kernel as K, swap as SW
from . import solver as S
from . import vc as VC
from .board import SWAP, WHITE, State, empty, transpose
from .kernel import padded, to_kernel, unpadded  # also imported from here by the tests

SAFETY = 0.01  # seconds kept back from the deadline for the return trip
SURE_VOTES = 1 << 30  # the votes of a move proven by the tactics or the solver
SOLVE_EMPTIES = 18  # the solver is tried with at most this many empty cells (measured: 0.5 s at most;
#                     up to 63 with its connections: even in self-play, docs/benchmarks/hex.md)
SOLVE_SHARE = 0.3  # ... for at most this share of the time left
SOLVE_NODES = 3_000_000  # ... and at most this many nodes
MUST_PLAY_LEFT = 0.1  # the root's must-play cells are looked for with at least this much time left
MUST_PLAY_SHARE = 0.05  # ... by an H-search of about this share of the time left
VC_STEPS_PER_SECOND = 15_000_000  # H-search's AND steps a second on 11x11 positions (50-90 ms for
#                                     1,000,000), fewer on larger boards (longer carriers)
MUST_PLAY_WORK = (VC.WORK, 2_000_000)  # ... but at least and at most this many steps
RESTART_SECONDS = 0.05  # a tree that fills up is followed by a fresh one if this much time is left

SEARCH = uct.Kernel(uct.GameKernels(K._to_move, K._copy, K.play, K._is_over, K.children, K._playout,
                                    VC.knowledge), "hex")


def moves_between(before: State, after: State) -> tuple[int, ...] | None:
    """The moves that lead from `before` to `after`: () for the same position, (theirs,) for one
    move (`after.last`), (ours, theirs) for two, or None if none of these does.  Ours of two is
    found on the board (a new stone of our colour, or the swap).  One move is a pondered
    position: our move played, or the reply to it (bots.players.ponder)."""
    if (before.width, before.height, before.swap) != (after.width, after.height, after.swap):
        return None
    if after.key() == before.key() and after.plies == before.plies:
        return ()
    if after.last is None:
        return None
    if after.plies == before.plies + 1:
        if before.is_legal(after.last) and before.play(after.last).key() == after.key():
            return (after.last,)
        return None
    if after.to_move != before.to_move or after.plies != before.plies + 2:
        return None
    me = before.to_move
    ours = [c for c in range(before.cells) if after.board[c] == me and not before.board[c]]
    if before.swap_allowed():
        ours.append(SWAP)
    if after.last == SWAP and before.plies == 0 and WHITE in after.board:  # our first stone, swapped
        ours.append(transpose(after.board.index(WHITE), after.height, after.width))
    for m1 in ours:
        if not before.is_legal(m1):
            continue
        mid = before.play(m1)
        if not mid.is_legal(after.last):
            continue
        if mid.play(after.last).board == after.board:
            return m1, after.last
    return None


def must_play(state: State, work: int = VC.WORK) -> list[int]:
    """The cells the side to move must play, by the opponent's semi-connections between its
    edges (bots.hex.vc.must_play; State cells, in order), or [] when they prove nothing."""
    pos = to_kernel(state)
    out = np.zeros(K.space(pos), np.int8)
    if VC.must_play(pos, work, out) != VC.MUST:
        return []
    return sorted(unpadded(int(p), state.width) for p in np.nonzero(out)[0])


def must_play_work(left: float, width: int = 11, height: int = 11) -> int:
    """The root's H-search steps with `left` seconds to go on a width x height board: about
    MUST_PLAY_SHARE of them, within MUST_PLAY_WORK.  Since the AND rule never joins through an
    edge, the search mostly ends (nothing left to try) before VC.WORK steps on 11x11; the work
    is a bound for larger boards and harder positions.  A step's cost grows with the carriers'
    words (the padded board)."""
    low, high = MUST_PLAY_WORK
    rate = VC_STEPS_PER_SECOND * 13 * 13 / ((width + 2) * (height + 2))
    return int(min(high, max(low, left * MUST_PLAY_SHARE * rate)))


def win_cells(state: State, colour: int) -> list[int]:
    """The empty cells where `colour` would join its edges at once (State cells, in order)."""
    pos = to_kernel(state)
    out = np.empty(K.space(pos), np.int32)
    n = K.win_cells(pos, colour, out)
    return sorted(unpadded(int(p), state.width) for p in out[:n])


@dataclass
class MCTS:
    """UCT + RAVE + priors, bridge-saving fill playouts, tactics, a solver, tree reuse."""

    playouts: int | None = None  # a cap on iterations per move (None: the clock decides)
    reuse: bool = True
    early_stop: bool = True
    capacity: int = uct.CAPACITY  # tree nodes (36 bytes each, taken as the tree fills)
    seed: int | None = None
    solver: bool = True
    priors: bool = True  # the children's priors (else an even prior for every move)
    bridges: bool = True  # playouts answer intrusions into bridges
    tactics: bool = True  # win at once, block a win in one
    mustplay: bool = False  # the root keeps only the cells the opponent's semi-connections leave (bots.hex.vc)
    inferior: bool = False  # leave dead, edge-captured and dominated cells out of the tree (kernel.left_out)
    learned: bool = True  # priors from learned move features (bots.hex.gammas), not the hand-set ones
    prior_weight: float = 20.0  # the learned priors' visits: the strongest cell wins them all
    gammas_file: str = ""  # a table of tools/hex_gammas.py for the learned priors ("": the shipped one)
    swap_table: bool = True  # the swap rule decided from measured first-stone values (bots.hex.swap)
    solve_empties: int = SOLVE_EMPTIES
    rave_equiv: float = uct.RAVE_EQUIV  # the tree policy: RAVE's weight fades after about this many visits
    expand_visits: int = uct.EXPAND_VISITS  # ... and a node gets children after this many
    know: int = 0  # ... and an H-search proves what it can at this many (0: never; bots.hex.vc.knowledge)
    know_work: int = 200_000  # ... of this many AND steps
    parallel = True  # workers may search the same State; their votes are added up

    _gammas: np.ndarray = field(default_factory=lambda: K.NO_GAMMAS, init=False, repr=False)
    _tree: uct.Tree | None = field(default=None, init=False, repr=False)
    _root_state: State | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.capacity < 10_000:
            raise ValueError("capacity must be at least 10000 nodes")
        if not 0 <= self.prior_weight <= 1000:
            raise ValueError("prior_weight must be between 0 and 1000 visits")
        if not 1 <= self.rave_equiv <= 1e7:
            raise ValueError("rave_equiv must be between 1 and 10000000 visits")
        if not 1 <= self.expand_visits <= 1000:
            raise ValueError("expand_visits must be between 1 and 1000 visits")
        if not (self.know == 0 or 16 <= self.know <= 10_000_000):
            raise ValueError("know must be 0 (off) or between 16 and 10000000 visits")
        if not 1_000 <= self.know_work <= 100_000_000:
            raise ValueError("know_work must be between 1000 and 100000000 AND steps")
        if self.learned and self.priors:
            self._gammas = gammas.load(self.gammas_file) if self.gammas_file else gammas.shipped()
        K.seed(self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "little"))

    # -- the move -------------------------------------------------------------------------
    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        """Our move for `state` (None only when the game is over or nothing is allowed)."""
        start = time.monotonic()
        if state.is_terminal():
            return SearchResult(None, float(state.winner() == state.to_move), 0, 0, 0.0)
        exclude = (context or Context()).exclude
        legal = [m for m in state.legal_moves() if m not in exclude]
        if not legal:
            return SearchResult(None)
        allowed = set(legal)
        tree = self._root_for(state)  # kept in step with the game even when no search runs

        def sure(move: int, value: float, nodes: int = 0) -> SearchResult:
            return SearchResult(move, value, 0, nodes, time.monotonic() - start, ((move, SURE_VOTES),))

        me = state.to_move
        if self.tactics:
            wins = [m for m in win_cells(state, me) if m in allowed]
            if wins:
                return sure(wins[0], 1.0)
            if not state.swap_allowed():
                threats = win_cells(state, 3 - me)
                if len(threats) == 1 and threats[0] in allowed:
                    return sure(threats[0], 0.5)
        if self.swap_table:
            decided = SW.table_move(state, allowed)
            if decided is not None:
                return sure(*decided)
            if state.swap_allowed() and SW.values_for(state) is not None:  # the table keeps this stone
                legal = [m for m in legal if m != SWAP]
                allowed.discard(SWAP)
        left = budget.deadline - time.monotonic()
        if self.mustplay and not state.swap_allowed() and left > MUST_PLAY_LEFT:
            must = must_play(state, must_play_work(left, state.width, state.height))
            if must and set(must) & allowed:
                legal = [m for m in legal if m in must]
                allowed = set(legal)
        if self.solver and state.board.count(0) <= self.solve_empties:
            left = budget.deadline - SAFETY - time.monotonic()
            nodes = SOLVE_NODES if budget.nodes is None else min(SOLVE_NODES, 100 * budget.nodes)
            proof = S.solve(state, nodes=nodes, seconds=max(0.0, SOLVE_SHARE * left))
            if proof.winner == me and proof.move in allowed:
                return sure(proof.move, 1.0, proof.nodes)
            if proof.winner == me:  # the move it found is excluded: another winning one?
                left = budget.deadline - SAFETY - time.monotonic()
                wins = S.winning_moves(state, nodes=nodes, seconds=max(0.0, SOLVE_SHARE * left)) or []
                wins = [m for m in wins if m in allowed]
                if wins:
                    return sure(wins[0], 1.0, proof.nodes)
        return self._search(state, tree, legal, allowed, budget, start, self.early_stop)

    def ponder(self, state: State, budget: Budget) -> SearchResult:
        """Search `state`, the opponent to move, until the budget ends (no tactics, solver or
        early stop): the tree this player keeps for its next move grows while the opponent
        thinks (bots.players.ponder).  The move it returns is the opponent's likeliest."""
        start = time.monotonic()
        if state.is_terminal() or not self.reuse:
            return SearchResult(None)
        legal = state.legal_moves()
        return self._search(state, self._root_for(state), legal, set(legal), budget, start, False)

    def _search(self, state: State, tree: uct.Tree, legal: list, allowed: set, budget: Budget,
                start: float, early_stop: bool) -> SearchResult:
        w = state.width
        pos = to_kernel(state)
        space = K.space(pos)
        if len(legal) < len(state.legal_moves()):  # the caller excluded some moves
            mask = np.zeros(space, np.uint8)
            for m in legal:
                if m != SWAP:
                    mask[padded(m, w)] = 1
            uct.restrict_root(tree, mask)  # a reused root: its children were listed without it
        else:
            mask = np.zeros(0, np.uint8)
        params = self._params()
        scratch = SEARCH.scratch(space)
        limit = self.playouts if self.playouts is not None else budget.nodes
        deadline = budget.deadline - SAFETY
        done = 0
        totals: dict[int, int] = {}  # the root votes of the trees that filled up during this move
        while True:
            got, full = SEARCH.search(tree, pos, params, mask, scratch, deadline,
                                      None if limit is None else limit - done, early_stop,
                                      policy=(self.expand_visits, self.rave_equiv, self.know, 0))
            done += got
            if not full:
                break
            # the tree is full: its votes count, and a fresh tree searches on for the time left
            # (root parallelism within the move); a full tree is never kept for the next move
            for m, v in uct.root_votes(tree):
                totals[m] = totals.get(m, 0) + v
            self._tree = self._root_state = None
            if deadline - time.monotonic() < RESTART_SECONDS or (limit is not None and done >= limit):
                break
            tree = self._tree = uct.new_tree(self.capacity)  # (the search applies the mask)
            self._root_state = state
        if not full:  # the last tree: its votes too
            for m, v in uct.root_votes(tree):
                totals[m] = totals.get(m, 0) + v
        votes = [(move, visits) for move, visits in ((unpadded(m, w), v) for m, v in totals.items())
                 if move in allowed]
        if not votes:  # no playout finished (a tiny budget): the move the priors like best
            move, value = self._by_prior(tree, pos, params, mask, scratch, state, allowed), 0.5
        else:
            move = max(votes, key=lambda mv: mv[1])[0]
            node = int(uct.child_of(tree.I, uct.root(tree), padded(move, w)))
            value = uct.value(tree, node) if node >= 0 else 0.5
        return SearchResult(move, value, 0, done, time.monotonic() - start, tuple(votes))

    def _params(self) -> tuple[int, bool, np.ndarray, float, int]:
        """The search's params (bots.hex.kernel: the priors' features and F_INFERIOR, bridge
        replies, the learned priors' gammas and weight; bots.hex.vc.knowledge: its AND steps)."""
        features = (K.PRIORS if self.priors else 0) | (K.F_INFERIOR if self.inferior else 0)
        return features, bool(self.bridges), self._gammas, float(self.prior_weight), int(self.know_work)

    def _root_for(self, state: State) -> uct.Tree:
        """The tree for `state`: the old one re-rooted if it leads here, else a new one."""
        old, self._root_state = self._root_state, state
        if self.reuse and self._tree is not None and old is not None:
            moves = moves_between(old, state)
            if moves == ():  # the same root (pondered again) is kept until the tree is full
                return self._tree
            if moves is not None and uct.reroot(self._tree, [padded(m, state.width) for m in moves]):
                return self._tree
        self._tree = uct.new_tree(self.capacity)
        return self._tree

    @staticmethod
    def _by_prior(tree: uct.Tree, pos, params, mask, scratch, state: State, allowed: set) -> int:
        """The root child its priors like best (the most prior wins, then the best prior rate);
        the root is expanded for it if no iteration did; a random allowed move if even that
        cannot be done."""
        SEARCH.expand(tree, uct.root(tree), pos, params, mask, scratch)
        V, I = tree.V, tree.I
        scored = [((float(V[uct.PW, ch]), (V[uct.PW, ch] + 1.0) / (V[uct.PN, ch] + 2.0)),
                   unpadded(int(I[uct.IMOVE, ch]), state.width)) for ch in uct.children(tree, uct.root(tree))]
        scored = [(score, move) for score, move in scored if move in allowed]
        if scored:
            return max(scored)[1]
        return random.Random(hash(state.key())).choice(sorted(allowed))


def warm() -> None:
    """Compile (or load from the disk cache) every kernel the player uses: a search, the
    priors' move, a swap position, the tactics, the solver and the bench's playouts; the
    worker pool calls it in each worker at start, so no move pays for it."""
    state = empty(4, swap=True)
    MCTS(capacity=10_000, seed=1).choose(state, None, Budget(10.0, nodes=200))
    MCTS(capacity=10_000, seed=1).choose(state.play(5), None, Budget(10.0, nodes=200))  # the swap
    MCTS(capacity=10_000, seed=1, solver=False, tactics=False).choose(state, None, Budget(0.0))  # priors
    MCTS(capacity=10_000, seed=1).choose(state.play(5).play(6).play(9), None, Budget(10.0, nodes=200))
    S.warm()
    must_play(state.play(5))
    K.playouts(K.new_position(3, 3, False), 1, False)
    K.playouts(K.new_position(3, 3, False), 1, True)
