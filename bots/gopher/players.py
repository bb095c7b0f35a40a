"""The Gopher players, by name: random, alphabeta (seed 004), mcts."""

from ..gnd import players as gnd
from . import rules as gopher_rules


class Random(gnd.Random):
    rules = gopher_rules


class AlphaBeta(gnd.AlphaBeta):
    rules = gopher_rules


class MCTS(gnd.MCTS):
    rules = gopher_rules


PLAYERS = {"random": Random, "alphabeta": AlphaBeta, "mcts": MCTS}
