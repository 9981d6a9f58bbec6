"""cfrlab: near-equilibrium strategies of imperfect-information games.

    >>> import cfrlab
    >>> result = cfrlab.solve("kuhn", "cfr+", iterations=500)
    >>> round(float(cfrlab.expected_values(cfrlab.load_game("kuhn"), result.policy)[0]), 3)
    -0.056
"""

from cfrlab.driver import make_solver, solve
from cfrlab.eval import best_response, expected_values, exploitability, nash_conv
from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, IllegalActionError, State
from cfrlab.policy import TabularPolicy
from cfrlab.registry import list_games, load_game, register_game
from cfrlab.tree import GameTree, compile_tree, load_tree

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameDefinitionError",
    "GameTree",
    "IllegalActionError",
    "State",
    "TabularPolicy",
    "best_response",
    "compile_tree",
    "expected_values",
    "exploitability",
    "list_games",
    "load_game",
    "load_tree",
    "make_solver",
    "nash_conv",
    "register_game",
    "solve",
]
