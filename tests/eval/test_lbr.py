"""Local Best Response on a hold'em variant whose real game compiles: below the exact exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.holdem.players.agents import AbstractionAgent, abstraction_action_probs
from cfrlab.eval import exploitability
from cfrlab.games.holdem.eval.lbr import local_best_response
from cfrlab.games.holdem.abstract_game import with_abstraction
from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.registry import load_game
from cfrlab.games.holdem.solvers.cfr import VectorHoldemCFRPlus
from cfrlab.tree import load_tree

REAL = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


@pytest.fixture(scope="module")
def real():  # type: ignore[no-untyped-def]
    game = load_game(REAL)
    return game, load_tree(game)


def test_lbr_against_always_call_nears_the_best_response(real) -> None:  # type: ignore[no-untyped-def]
    game, tree = real
    calls = tabulate_policy(game, tree, lambda states: np.tile([0.0, 1.0, 0.0], (len(states), 1)))
    exact = exploitability(tree, calls)
    lbr = local_best_response(game, lambda state: {1: 1.0}, hands=300, seed=0)
    assert lbr.low <= exact  # a lower bound (in expectation)
    assert lbr.high >= 0.8 * exact  # and a tight one against a player who never folds nor raises


def test_lbr_below_the_exact_exploitability_of_an_abstract_strategy(real) -> None:  # type: ignore[no-untyped-def]
    game, tree = real
    abstract = with_abstraction(game, "ehs2:1,2,2")  # no pre-flop buckets: exploitable by 4.6 chips a hand
    agent = AbstractionAgent(abstract, VectorHoldemCFRPlus(abstract).iterate(100).average_policy())
    exact = exploitability(tree, tabulate_policy(game, tree, abstraction_action_probs(agent)))
    lbr = local_best_response(game, lambda state: agent.policy.action_probabilities(agent.key(state)), hands=200,
                              seed=1)
    assert lbr.low <= exact
    assert lbr.mean > 0  # the coarse abstraction is exploitable, and LBR finds some of it
