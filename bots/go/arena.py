"""The Go arena: Go's rules for the shared engine arena (bots.engine_arena), where our players
and external GTP engines meet under our rules (docs/protocols/gtp.md sections 4 and 5).

Before each game an external engine gets `boardsize`, `clear_board`, `komi` and, if it knows
the command, `time_settings 0 <per_move> 1` (GTP wants whole seconds, so per_move is rounded
up there), or with a game clock `time_settings <game_time> 0 0` (sudden death) and its
`time_left` before each `genmove`.  Two passes end the game, scored by bare area (no dead-stone removal) with komi,
which is why GNU Go must run with `--chinese-rules --capture-all-dead`.

`opening(size, count, seed, start)`: the moves a game may start from (`bots arena go
--opening-moves`), the same for both games of a sequential test's pair.  With `--handicap N`
Black starts with N stones at GTP's fixed points, told to an engine with `fixed_handicap` (its
answer must be those points) or else `set_free_handicap`; White moves first.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from protocol.gtp import format_vertex, parse_vertex

from .. import engine_arena as arena
from ..engine_arena import EngineSide, OurSide, describe, match_side  # noqa: F401  (the Go arena's API)
from ..gtp_client import EngineError, GtpProcess
from ..runner import SearchRunner
from . import handicap
from .board import BLACK, PASS, WHITE, State, empty, point_name
from .clock import moves_left
from .sgf import game_sgf

GtpSide = EngineSide
AnySide = arena.AnySide


def opening(size: int, count: int, seed: int, start: State | None = None) -> list[int]:
    """`count` random legal moves from `start` (the empty board), from the third line inwards,
    the same for one seed: the start of both games of a pair (the seats swapped), so that a
    match of deterministic players is not one game played many times."""
    rng = random.Random(seed)
    state = empty(size) if start is None else start
    inner = [p for p in range(size * size) if min(p // size, p % size, size - 1 - p // size, size - 1 - p % size) >= 2]
    moves = []
    for _ in range(count):
        free = [p for p in inner if state.is_legal(p)]
        if not free:
            break
        moves.append(rng.choice(free))
        state = state.play(moves[-1])
    return moves


@dataclass(frozen=True)
class GoRules:
    size: int = 9
    komi: float = 7.5
    handicap: int = 0  # Black's stones, at GTP's fixed points (bots.go.handicap); White moves first
    game = "go"
    prefix = "gtp"

    @property
    def max_moves(self) -> int:
        return 3 * self.size * self.size

    @property
    def stones(self) -> list[int]:
        return handicap.fixed_points(self.size, self.handicap) if self.handicap else []

    def start(self) -> State:
        return handicap.position(self.size, self.stones, self.komi) if self.handicap else empty(self.size, self.komi)

    async def setup(self, proc: GtpProcess, per_move: float, game_time: float | None, log: Any) -> None:
        await proc.send("boardsize", self.size, timeout=arena.SETUP_TIMEOUT)
        await proc.send("clear_board", timeout=arena.SETUP_TIMEOUT)
        await proc.send("komi", float(self.komi), timeout=arena.SETUP_TIMEOUT)
        if self.handicap:
            names = [point_name(p, self.size) for p in self.stones]
            if await proc.known("fixed_handicap"):
                placed = await proc.send("fixed_handicap", self.handicap, timeout=arena.SETUP_TIMEOUT)
                if sorted(placed.upper().split()) != sorted(names):
                    raise EngineError(f"fixed_handicap {self.handicap} placed {placed!r}, not {' '.join(names)}",
                                      f"fixed_handicap {self.handicap}", "garbage")
            else:
                await proc.send("set_free_handicap", *names, timeout=arena.SETUP_TIMEOUT)
        if await proc.known("time_settings"):
            # sudden death: main time, no byo-yomi; else byo-yomi of per_move for each move
            args = (math.ceil(game_time), 0, 0) if game_time is not None else (0, max(1, math.ceil(per_move)), 1)
            try:
                await proc.send("time_settings", *args, timeout=arena.SETUP_TIMEOUT)
            except EngineError as exc:
                if exc.reason != "refused":
                    raise
                log.warning("engine refused time_settings", error=str(exc))

    async def tell_clock(self, proc: GtpProcess, state: State, colour: int, seconds: float) -> None:
        if await proc.known("time_left"):
            await proc.send("time_left", self.colour(state, colour), max(0, math.floor(seconds)), 0,
                            timeout=arena.SETUP_TIMEOUT)

    def moves_left(self, state: State) -> float:
        return moves_left(state)

    def read(self, text: str, state: State) -> int | None:
        """The point of an engine's genmove answer, PASS, or None for `resign`."""
        if text.strip().lower() == "resign":
            return None
        vertex = parse_vertex(text, self.size)
        return PASS if vertex is None else vertex[1] * self.size + vertex[0]

    def write(self, move: int, state: State) -> str:
        return format_vertex(None if move == PASS else (move % self.size, move // self.size), self.size)

    def colour(self, state: State, colour: int) -> str:
        return arena.LETTER[colour].lower()

    def name(self, move: int, state: State) -> str:
        return point_name(move, self.size)

    def finish(self, state: State, ended: bool) -> tuple[int, str, str, float]:
        score = state.score()
        winner = BLACK if score > 0 else WHITE if score < 0 else 0
        return winner, state.score_text(), "two passes" if ended else "max moves", score

    def fields(self) -> dict:
        stones = {"handicap": self.handicap} if self.handicap else {}
        return {"map": f"{self.size}x{self.size}", "size": self.size, "komi": self.komi, **stones}

    def sgf(self, record: dict, black: str, white: str, comment: str) -> str:
        return game_sgf(self.size, self.komi, black, white, record["moves"], record["result"], comment=comment,
                        thinks=arena.move_thinks(record), handicap=self.stones)


def parse_side(text: str, label: str) -> AnySide:
    """`gtp:<command>` (an external engine) or one of our Go players (`name[:k=v,...]`)."""
    return arena.parse_side("go", "gtp", text, label)


async def play_game(black: AnySide, white: AnySide, runner: SearchRunner, size: int = 9, komi: float = 7.5,
                    per_move: float = 2.0, max_moves: int | None = None, log: Any = None,
                    hard_timeout: float | None = None) -> dict:
    """One Go game (bots.engine_arena.play_game); at most 3 * size^2 moves by default."""
    return await arena.play_game(GoRules(size, komi), black, white, runner, per_move, max_moves, log, hard_timeout)
