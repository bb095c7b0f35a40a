"""The Gopher players, by name: random, alphabeta (seed 004), mcts, human (the person at
this terminal, bots.gnd.human)."""

from search.contracts import Player

from ..gnd import human, players as gnd
from . import rules as gopher_rules


class Random(gnd.Random):
    rules = gopher_rules


class AlphaBeta(gnd.AlphaBeta):
    rules = gopher_rules


class MCTS(gnd.MCTS):
    rules = gopher_rules


class Human(human.Human):
    game = "gopher"
    cells = 1
    rules_text = ("place a stone on an empty cell that touches exactly one enemy stone and no stone"
                  " of yours (Red's first stone goes anywhere); who cannot place loses.")


PLAYERS: dict[str, type[Player]] = {"random": Random, "alphabeta": AlphaBeta, "mcts": MCTS, "human": Human}
