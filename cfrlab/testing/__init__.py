"""Public conformance checks, as scikit-learn's ``check_estimator``: what every game and every solver must pass.

``check_game(game)`` holds a game, built-in or user-written, to the protocol of ``cfrlab.game``;
``check_solver(algorithm_or_class, game)`` holds a solver, registered or a class of your own, to the contract
of ``cfrlab.solvers.base``.
"""

from cfrlab.testing.games import CheckReport, check_game
from cfrlab.testing.same_game import assert_same_game
from cfrlab.testing.solvers import check_solver

__all__ = ["CheckReport", "assert_same_game", "check_game", "check_solver"]
