"""Local Best Response on a hold'em variant whose real game compiles: below the exact exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.eval import exploitability
from cfrlab.games.holdem.abstract_game import with_abstraction
from cfrlab.games.holdem.eval import lbr as lbr_module
from cfrlab.games.holdem.eval.lbr import _LBR, _with_hole, local_best_response
from cfrlab.games.holdem.game import CALL, FOLD, RAISE
from cfrlab.games.holdem.players.agents import AbstractionAgent, abstraction_action_probs
from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.registry import load_game
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


def published_with_the_call_added(pot: float, asked: float, bet: float, wp: float, fp: float) -> float:
    """The raise value with the amount to call also in the winning term (an earlier version of ``lbr.py``)."""
    return fp * pot + (1 - fp) * (wp * (pot + asked + bet) - (1 - wp) * (asked + bet))


@pytest.mark.parametrize("formula", ["paper", "call added"])
def test_lbr_below_the_exact_exploitability_of_an_abstract_strategy(real, formula, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Below the exact real-game exploitability with the paper's raise value and with the one that overvalues
    raising a bet (a lower bound either way: LBR plays some legal strategy)."""
    game, tree = real
    if formula == "call added":
        monkeypatch.setattr(lbr_module, "raise_value", published_with_the_call_added)
    abstract = with_abstraction(game, "ehs2:1,2,2")  # no pre-flop buckets: exploitable by 4.6 chips a hand
    agent = AbstractionAgent(abstract, VectorHoldemCFRPlus(abstract).iterate(100).average_policy())
    exact = exploitability(tree, tabulate_policy(game, tree, abstraction_action_probs(agent)))
    lbr = local_best_response(game, lambda state: agent.policy.action_probabilities(agent.key(state)), hands=200,
                              seed=1)
    assert lbr.low <= exact
    assert lbr.mean > 0  # the coarse abstraction is exploitable, and LBR finds some of it


def test_raise_value_is_the_exact_value_of_raise_then_fold_or_call() -> None:
    """On the last round, facing a bet, against a range folding with a fixed probability and else calling: the
    action values equal the real game's returns relative to folding, averaged over the range exactly."""
    game = load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],"
                     "max_raises=[2,2,2])")
    fold = 0.3
    state = game.new_initial_state()
    for step in (0, 5, CALL, CALL, 2, CALL, CALL, 7):  # cards 0 and 5 dealt, checks to the river (card 7)
        state = state.child(step)
    state = state.child(RAISE)  # the river's first player bets
    me = state.current_player()
    seen = set(state.hole(me)) | set(state.board())
    holes = [(c,) for c in range(game.deck_size) if c not in seen]
    weights = np.ones(len(holes))
    lbr = _LBR(game, lambda s: {FOLD: fold, CALL: 1 - fold}, rollouts=200, rng=np.random.default_rng(0))
    values = lbr.action_values(state, me, holes, weights)
    assert set(values) == {FOLD, CALL, RAISE}
    call, raised = [], []
    for hole in holes:
        deal = _with_hole(state, 1 - me, hole)
        base = deal.child(FOLD).returns()[me]
        call.append(deal.child(CALL).returns()[me] - base)
        after = deal.child(RAISE)
        raised.append(fold * after.child(FOLD).returns()[me] + (1 - fold) * after.child(CALL).returns()[me] - base)
    assert values[CALL] == pytest.approx(np.mean(call), abs=1e-12)
    assert values[RAISE] == pytest.approx(np.mean(raised), abs=1e-12)
    spent, wp = state.contributions(), lbr.equity(state, me, holes, weights)
    asked, bet = spent[1 - me] - spent[me], state.child(RAISE).contributions()[me] - spent[1 - me]
    assert asked == bet == 20 and 0 < wp < 1
    overvalued = published_with_the_call_added(sum(spent), asked, bet, wp, fold)
    assert overvalued == pytest.approx(np.mean(raised) + (1 - fold) * wp * asked)  # not the game's value
