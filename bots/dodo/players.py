"""The Dodo players, by name: random, alphabeta (seed 004), mcts."""

from ..gnd import players as gnd
from . import rules as dodo_rules


class Random(gnd.Random):
    rules = dodo_rules


class AlphaBeta(gnd.AlphaBeta):
    rules = dodo_rules


class MCTS(gnd.MCTS):
    rules = dodo_rules


PLAYERS = {"random": Random, "alphabeta": AlphaBeta, "mcts": MCTS}
