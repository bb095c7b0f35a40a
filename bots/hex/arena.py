"""Hex's rules for the shared engine arena (bots.engine_arena): our players, a person at the
terminal and external HTP engines (MoHex, Wolve, `bots htp hex`) meet under our rules.

Before each game an external engine gets `boardsize W H` (a new game) and, if it knows
`param_game`, the swap rule (`param_game allow_swap 1|0`) and the whole game's time
(`param_game game_time`, Benzene's clock: per_move seconds for each move it could make).
Moves and colours are spoken in Benzene's dialect (after a swap the players have exchanged
colours on an unchanged board; bots.hex.board.benzene translates).  Hex has no draws: a game
ends when a side joins its edges, or by resignation or a violation.

`opening(width, height, count, seed)`: the cells a game may start from (`bots arena hex
--opening-moves`), the same for both games of a sequential test's pair.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from .. import engine_arena as arena
from ..gtp_client import EngineError, GtpProcess
from .board import SWAP, State, benzene, cell_name, empty, parse_cell
from .htp import moves_left
from .sgf import game_sgf


def opening(width: int, height: int, count: int, seed: int) -> list[int]:
    """`count` random cells (no swap), the same for one seed: the start of both games of a
    pair (the seats swapped)."""
    rng = random.Random(seed)
    return rng.sample(range(width * height), min(count, width * height - 1))


@dataclass(frozen=True)
class HexRules:
    width: int = 11
    height: int = 11
    swap: bool = False
    game = "hex"
    prefix = "htp"

    @property
    def max_moves(self) -> int:
        return self.width * self.height + 1  # every cell and a swap: a Hex game always ends

    def start(self) -> State:
        return empty(self.width, self.height, self.swap)

    async def setup(self, proc: GtpProcess, per_move: float, game_time: float | None, log: Any) -> None:
        await proc.send("boardsize", self.width, self.height, timeout=arena.SETUP_TIMEOUT)
        if not await proc.known("param_game"):
            if self.swap:
                log.warning("engine has no param_game: it may not expect a swap", engine=proc.argv[0])
            return
        await proc.send("param_game", "allow_swap", int(self.swap), timeout=arena.SETUP_TIMEOUT)
        if game_time is None:  # Benzene's clock is for the whole game: per_move for each move it could make
            game_time = per_move * (self.width * self.height + 1) / 2
        try:
            await proc.send("param_game", "game_time", math.ceil(game_time), timeout=arena.SETUP_TIMEOUT)
        except EngineError as exc:
            if exc.reason != "refused":
                raise
            log.warning("engine refused param_game game_time", error=str(exc))

    async def tell_clock(self, proc: GtpProcess, state: State, colour: int, seconds: float) -> None:
        if await proc.known("time_left"):
            await proc.send("time_left", self.colour(state, colour), f"{max(0.0, seconds):.1f}",
                            timeout=arena.SETUP_TIMEOUT)

    def moves_left(self, state: State) -> float:
        return moves_left(state)

    def read(self, text: str, state: State) -> int | None:
        """The move of an engine's genmove answer in our canonical form, None for `resign`."""
        if text.strip().lower() == "resign":
            return None
        _, cell = benzene(state, state.to_move, parse_cell(text, self.width, self.height))
        return cell

    def write(self, move: int, state: State) -> str:
        _, cell = benzene(state, state.to_move, move)
        return "swap-pieces" if cell == SWAP else cell_name(cell, self.width)

    def colour(self, state: State, colour: int) -> str:
        return "bw"[benzene(state, colour)[0] - 1]

    def name(self, move: int, state: State) -> str:
        """Moves are recorded in our canonical form (`swap-pieces` for SWAP); the SGF file
        translates them."""
        return cell_name(move, self.width)

    def finish(self, state: State, ended: bool) -> tuple[int, str, str, None]:
        winner = state.winner() or 0
        return winner, f"{'BW'[winner - 1]}+" if winner else "0", "connection" if ended else "max moves", None

    def fields(self) -> dict:
        board = f"{self.width}x{self.height}"
        return {"map": board + ("+swap" if self.swap else ""), "width": self.width, "height": self.height,
                "swap": self.swap}

    def sgf(self, record: dict, black: str, white: str, comment: str) -> str:
        return game_sgf(self.width, self.height, black, white, record["moves"], record["result"], self.swap,
                        comment=comment, thinks=arena.move_thinks(record))
