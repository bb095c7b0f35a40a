"""The `mcts` Go player: UCT with RAVE and priors in the shared numba tree (search.uct) over
Go's kernels (bots.go.kernel.SEARCH).

One search: the root is the State (its moves filtered by the full rules, superko included),
iterations run in chunks until the deadline, a node limit or an early stop (search.root:
the most visited move can no longer be overtaken in the time left, or it wins almost surely), and
the most visited legal move is played.  The tree is kept between moves: when the new
State is the old root followed by our move and one reply, that grandchild becomes the
root.  Several worker processes search the same State independently (root parallelism);
`choose` returns its root visit counts in `SearchResult.votes` and the caller adds them up.

Passing: a pass ends the game after the opponent's pass, so when the opponent has just
passed and the board as it stands (dead stones count as alive) wins for us, we pass at
once.  Otherwise PASS is one more root move with a losing prior, and the playouts (which
play on until only eyes are left) score it honestly; so the player captures dead stones
and fills its own area before passing, as CGOS, the course referee and GNU Go's
--capture-all-dead rules require.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

from search import uct
from search.budget import Budget, SearchResult
from search.contracts import Context

from . import book, gammas, kernel as K
from .board import PASS, WHITE, State
from .fallback import best_by_priors, legal_mask, random_move
from .kernel import padded, to_kernel, unpadded  # also imported from here by the tests

SAFETY = 0.01  # seconds kept back from the deadline for the return trip

# Dynamic komi (`mcts:dynkomi`): extra points the playouts count for us, moved after each search
# so that our win rate at the root stays inside this band, where the search still tells good
# moves from bad ones (docs/benchmarks/go.md, "Dynamic komi").
DYNKOMI_BAND = (0.3, 0.7)
DYNKOMI_MIN_ITERATIONS = 256  # a root value from fewer iterations does not move it


def komi_step(size: int) -> int:
    """Points the extra komi moves by after one search: 3 on 9x9, 6 on 13x13, 13 on 19x19."""
    return max(1, round(size * size / 27))


def komi_cap(size: int) -> int:
    """The most extra points either way: about a handicap stone (13 on 9x9, 28 on 13x13)."""
    return size * size // 6


def next_bonus(bonus: int, value: float, step: int, cap: int) -> int:
    """The extra points for us after a search valued our move at `value` with `bonus` counted:
    winning big, we ask for more (a negative bonus: no slack moves while ahead); losing big, we
    count some points as ours (the search then keeps the game close instead of trying anything);
    a bonus that has put the win rate on its other side of even is taken back a step."""
    low, high = DYNKOMI_BAND
    if value > high or (bonus > 0 and value > 0.5):
        bonus -= step
    elif value < low or (bonus < 0 and value < 0.5):
        bonus += step
    return max(-cap, min(cap, bonus))


def bonus_ceiling(state: State, cap: int) -> int:
    """The most points a side behind may count as its own: all of `cap` on the empty board,
    none once half the board is filled (a bonus in the endgame would accept a lost game)."""
    return int(cap * max(0.0, 2.0 * state.board.count(0) / len(state.board) - 1.0))


def _same(a: State, b: State) -> bool:
    return a.board == b.board and a.to_move == b.to_move and a.passes == b.passes and a.ko == b.ko


def moves_between(before: State, after: State) -> tuple[int, ...] | None:
    """The moves that lead from `before` to `after`: () for the same position, (theirs,) for one
    move (the last, `after.last`), (ours, theirs) for two, or None if none of these does.
    (Our move of two is found on the board; the merged vote of several workers may not be the
    move this worker preferred, so it is not remembered.)  One move is a pondered position:
    our move played, or the reply to it (bots.players.ponder)."""
    if before.size != after.size:
        return None
    if _same(before, after):
        return ()
    if after.last is None:
        return None
    if after.to_move != before.to_move:
        if before.is_legal(after.last) and _same(before.play(after.last), after):
            return (after.last,)
        return None
    me = before.to_move
    ours = [p for p in range(len(after.board)) if after.board[p] == me and not before.board[p]]
    for m1 in ours or [PASS]:
        if not before.is_legal(m1):
            continue
        mid = before.play(m1)
        if mid.is_legal(after.last) and _same(mid.play(after.last), after):
            return m1, after.last
    return None


@dataclass
class MCTS:
    """UCT + RAVE + priors, heavy playouts, ladder reading, tree reuse, early stop, book openings."""

    playouts: int | None = None  # a cap on iterations per move (None: the clock decides)
    heavy: bool = True  # playouts answer the last move and avoid self-atari
    ladders: bool = True  # read ladders: priors for working ones, no runs into them in playouts
    learned: bool = True  # on 9x9, priors from learned move features (bots.go.gammas), not michi's
    prior_weight: float = 20.0  # the learned priors' visits: the strongest move wins them all
    amaf_distance: float = 3.0  # AMAF counts a move played soon up to 1 + this times (Pachi's distance_rave; 0: once)
    throwins: bool = True  # heavy playouts play self-ataris of one stone (they refuse most others)
    gammas_file: str = ""  # a table of tools/go_gammas.py for the learned priors ("": the shipped one)
    use_book: bool = True
    reuse: bool = True
    early_stop: bool = True
    dynkomi: bool = False  # dynamic komi in handicap-like positions (see next_bonus)
    score_bonus: float = 0.0  # a playout's worth also grows with its margin, by up to this much (kernel.reward)
    capacity: int = uct.CAPACITY  # tree nodes (36 bytes each, taken as the tree fills)
    seed: int | None = None
    parallel = True  # workers may search the same State; their votes are added up

    _tree: uct.Tree | None = field(default=None, init=False, repr=False)
    _root_state: State | None = field(default=None, init=False, repr=False)
    _ours: int | None = field(default=None, init=False, repr=False)
    _table: gammas.Table = field(default=gammas.NONE, init=False, repr=False)
    _bonus: int = field(default=0, init=False, repr=False)  # dynkomi: extra points for us, this game

    def __post_init__(self) -> None:
        if self.capacity < 10_000:
            raise ValueError("capacity must be at least 10000 nodes")
        if not 0 <= self.prior_weight <= 1000:
            raise ValueError("prior_weight must be between 0 and 1000 visits")
        if not 0 <= self.amaf_distance <= 100:
            raise ValueError("amaf_distance must be between 0 and 100")
        if not 0 <= self.score_bonus <= 0.5:
            raise ValueError("score_bonus must be between 0 and 0.5")
        if self.learned:
            self._table = gammas.load(self.gammas_file) if self.gammas_file else gammas.shipped()
        K.seed(self.seed if self.seed is not None else int.from_bytes(os.urandom(4), "little"))

    # -- the search -----------------------------------------------------------------------
    def choose(self, state: State, context: Context | None, budget: Budget) -> SearchResult:
        start = time.monotonic()
        if state.is_terminal():
            return SearchResult(PASS)
        if state.passes == 1 and self._wins_now(state):
            return SearchResult(PASS, 1.0, 0, 0, time.monotonic() - start)
        if self.use_book:
            move = book.lookup(state)
            if move is not None:
                return SearchResult(move, 0.5, 0, 0, time.monotonic() - start, ((move, 1),))
        return self._search(state, budget, self.early_stop, start)

    def ponder(self, state: State, budget: Budget) -> SearchResult:
        """Search `state`, the opponent to move, until the budget ends (no early stop): the
        tree this player keeps for its next move grows while the opponent thinks
        (bots.players.ponder).  The move it returns is the opponent's likeliest."""
        start = time.monotonic()
        if state.is_terminal() or not self.reuse:
            return SearchResult(None)
        return self._search(state, budget, False, start, ponder=True)

    def _search(self, state: State, budget: Budget, early_stop: bool, start: float,
                ponder: bool = False) -> SearchResult:
        tree = self._root_for(state)
        size = state.size
        legal = state.legal_moves()
        mask = legal_mask(size, legal)
        uct.restrict_root(tree, mask)  # a reused root: forbid the children the full rules forbid
        B, S = to_kernel(state, self._ours)
        table = self._table if size == gammas.SIZE else gammas.NONE
        bonus = min(self._bonus, bonus_ceiling(state, komi_cap(size))) if self._bonus > 0 else self._bonus
        me = state.to_move if not ponder else 3 - state.to_move  # dynkomi's points are ours
        komi = state.komi + (bonus if me == WHITE else -bonus)
        pos, params = (B, S), (komi, self.heavy, self.ladders, table.gammas, float(self.prior_weight),
                               table.shapes, self.throwins, float(self.score_bonus))
        scratch = K.SEARCH.scratch(mask.shape[0])
        limit = self.playouts if self.playouts is not None else budget.nodes
        expand, rave, know, _ = K.SEARCH.policy
        done, full = K.SEARCH.search(tree, pos, params, mask, scratch, budget.deadline - SAFETY, limit,
                                     early_stop, policy=(expand, rave, know, self.amaf_distance))
        if full:  # start afresh next time
            self._tree = None
        allowed = set(legal)
        votes = [(move, visits) for move, visits in ((unpadded(m, size), v) for m, v in uct.root_votes(tree))
                 if move in allowed]
        if not votes:  # no playout finished (a tiny budget): the move the priors like best
            move, value = self._by_prior(pos, params, mask, state), 0.5
        else:
            move = max(votes, key=lambda mv: mv[1])[0]
            value = uct.value(tree, int(uct.child_of(tree.I, uct.root(tree), padded(move, size))))
            if self.dynkomi and not ponder and done >= DYNKOMI_MIN_ITERATIONS:
                self._bonus = next_bonus(bonus, value, komi_step(size), komi_cap(size))
        return SearchResult(move, value, 0, done, time.monotonic() - start, tuple(votes))

    def _wins_now(self, state: State) -> bool:
        s = state.score()
        return s > 0 if state.to_move == 1 else s < 0

    def _root_for(self, state: State) -> uct.Tree:
        """The tree for `state`: the old one re-rooted if it leads here (one move or two), else
        a new one."""
        old, self._root_state = self._root_state, state
        moves = moves_between(old, state) if old is not None else None
        if moves is None:  # not our game's next position: a new game
            self._ours, self._bonus = None, 0
        elif moves:  # the move before the last, for the priors
            self._ours = moves[-2] if len(moves) == 2 else old.last
        if self.reuse and self._tree is not None and moves is not None and old.komi == state.komi \
                and (moves == () or uct.reroot(self._tree, [padded(m, state.size) for m in moves])):
            return self._tree  # the same root (pondered again) is kept until the tree is full
        self._tree = uct.new_tree(self.capacity)
        return self._tree

    @staticmethod
    def _by_prior(pos, params, mask, state: State) -> int:
        """The move the priors like best (captures, escapes, patterns, nearness to the last
        move: bots.go.fallback.best_by_priors); a random non-eye move if there is none."""
        move = best_by_priors(pos, params, mask, state.size)
        return move if move is not None else random_move(state, random.Random(state.key()))
