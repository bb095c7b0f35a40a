"""The Dodo players, by name: random, alphabeta (seed 004), mcts, human (the person at
this terminal, bots.gnd.human)."""

from search.contracts import Player

from ..gnd import human, players as gnd
from . import rules as dodo_rules


class Random(gnd.Random):
    rules = dodo_rules


class AlphaBeta(gnd.AlphaBeta):
    rules = dodo_rules


class MCTS(gnd.MCTS):
    rules = dodo_rules


class Human(human.Human):
    game = "dodo"
    cells = 2
    rules_text = ("step one of your checkers to an empty neighbouring cell straight or diagonally "
                  "forward (red up, blue down); who cannot move WINS.")


PLAYERS: dict[str, type[Player]] = {"random": Random, "alphabeta": AlphaBeta, "mcts": MCTS, "human": Human}
