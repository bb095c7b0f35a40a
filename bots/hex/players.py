"""The Hex players, by name: the seed's four computer players (random, path, mind-path,
bruteforce), a middle player (resistance: alpha-beta on the electrical evaluation), mcts
(the strong one) and the seed's fifth player, `human`: the person at the keyboard
(bots.hex.human; it reads the terminal, so bots.decide asks it here, never in a worker).

Every player takes an immutable `State` and a `Budget` and returns a `SearchResult` whose
move is legal on that State (a cell, or SWAP where the rule allows it).
"""

from __future__ import annotations

from search.contracts import Player

from .human import Human
from .mcts import MCTS
from .resistance import Resistance
from .seed import Bruteforce, MindPath, Path, Random

PLAYERS: dict[str, type[Player]] = {"random": Random, "path": Path, "mind-path": MindPath, "bruteforce": Bruteforce,
                                    "resistance": Resistance, "mcts": MCTS, "human": Human}


def warm() -> None:
    """Compile (or load from the disk cache) the kernels of mcts; the runner calls it in each
    worker at start, so no move pays for it."""
    from .mcts import warm as warm_mcts

    warm_mcts()
