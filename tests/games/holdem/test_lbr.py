"""Local Best Response on a hold'em variant whose real game compiles: below the exact exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.eval import exploitability
from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
from cfrlab.games.holdem.eval import lbr as lbr_module
from cfrlab.games.holdem.eval.lbr import _LBR, _with_hole, local_best_response
from cfrlab.games.holdem.players.agents import AbstractionAgent, abstraction_action_probs
from cfrlab.games.holdem.rules.game import CALL, FOLD, RAISE
from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.registry import load_game
from cfrlab.tree import load_tree

REAL = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


@pytest.fixture(scope="module")
def real():
    game = load_game(REAL)
    return game, load_tree(game)


def test_lbr_against_always_call_nears_the_best_response(real) -> None:
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
def test_lbr_below_the_exact_exploitability_of_an_abstract_strategy(real, formula, monkeypatch) -> None:
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



def test_raise_value_is_exact_when_the_fold_depends_on_the_cards() -> None:
    """On the last round, facing a bet, against a range whose weak cards fold more: the raise's value (its
    equity taken against the hands that call) equals the real game's mean return relative to folding."""
    game = load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],"
                     "max_raises=[2,2,2])")
    state = game.new_initial_state()
    for step in (0, 5, CALL, CALL, 2, CALL, CALL, 7, RAISE):  # checks to the river (card 7), then a bet
        state = state.child(step)
    me = state.current_player()

    def fold_of(hole: tuple[int, ...]) -> float:
        return 0.9 if hole[0] < 4 else 0.1

    lbr = _LBR(game, lambda s: {FOLD: fold_of(s.hole(s.current_player())),
                                CALL: 1 - fold_of(s.hole(s.current_player()))},
               rollouts=200, rng=np.random.default_rng(0))
    seen = set(state.hole(me)) | set(state.board())
    holes = [(c,) for c in range(game.deck_size) if c not in seen]
    raised = []
    for hole in holes:
        deal = _with_hole(state, 1 - me, hole)
        base, after = deal.child(FOLD).returns()[me], deal.child(RAISE)
        fold = fold_of(hole)
        raised.append(fold * after.child(FOLD).returns()[me] + (1 - fold) * after.child(CALL).returns()[me] - base)
    values = lbr.action_values(state, me, holes, np.ones(len(holes)))
    assert values[RAISE] == pytest.approx(np.mean(raised), abs=1e-12)
    whole_range = lbr_module.raise_value(sum(state.contributions()), 20, 20, lbr.equity(state, me, holes,
                                         np.ones(len(holes))), float(np.mean([fold_of(h) for h in holes])))
    assert abs(whole_range - np.mean(raised)) > 1  # the paper's equity against the whole range is not exact

def test_a_showdown_scores_the_range_average_of_the_real_returns() -> None:
    """At a showdown LBR scores the posterior-weighted mean of the real game's returns over the opponent's
    hands (each hand weighted by the strategy's probabilities of the actions it took), not one hand's."""
    game = load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],"
                     "max_raises=[2,2,2])")
    probs = {FOLD: 0.2, CALL: 0.5, RAISE: 0.3}

    def strategy(state):  # depends on the actor's card: a non-flat posterior
        card = state.hole(state.current_player())[0]
        legal = state.legal_actions()
        p = np.array([probs[a] * (1 + card % 3) ** a for a in legal])
        return dict(zip(legal, p / p.sum()))

    steps = (RAISE, CALL, 2, RAISE, CALL, 7, CALL, RAISE, CALL)  # after cards 0 (mine) and 5 (the opponent's)
    me = 0
    state = game.new_initial_state().child(0).child(5)
    for step in steps:
        state = state.child(step)
    assert state.is_terminal() and not state.folded()
    holes = [(c,) for c in range(game.deck_size) if c not in (0, 2, 7)]
    weights, returns = [], []
    for hole in holes:  # the opponent's card replayed: its weight is the strategy's probability of its actions
        node, weight = game.new_initial_state().child(0).child(hole[0]), 1.0
        for step in steps:
            if node.current_player() == 1 - me:
                weight *= strategy(node)[step]
            node = node.child(step)
        weights.append(weight)
        returns.append(node.returns()[me])
    lbr = _LBR(game, strategy, rollouts=200, rng=np.random.default_rng(0))
    expected = np.average(returns, weights=weights)
    assert lbr.showdown_value(state, me, holes, np.array(weights)) == pytest.approx(expected, abs=1e-12)
    assert len(set(returns)) > 1  # the opponent's card matters to the result


def test_scoring_showdowns_by_the_range_keeps_the_mean() -> None:
    """On the same deals, scoring showdowns by the range and by the dealt hand agree in mean (the range is the
    exact posterior): the difference stays within three standard errors of zero."""
    game = load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],"
                     "max_raises=[2,2,2])")

    def strategy(state):
        card = state.hole(state.current_player())[0]
        legal = state.legal_actions()
        p = np.array([(1.0 + (card // 2 >= 2) * a) for a in legal])
        return dict(zip(legal, p / p.sum()))

    ranged, dealt = [], []
    for seq in np.random.SeedSequence(5).spawn(400):
        deal = [int(c) for c in np.random.default_rng(seq).permutation(game.deck_size)[:4]]
        for me in (0, 1):
            by_range = _LBR(game, strategy, rollouts=200, rng=np.random.default_rng(seq))
            ranged.append(by_range.hand(deal, me))
            by_hand = _LBR(game, strategy, rollouts=200, rng=np.random.default_rng(seq))
            by_hand.showdown_value = lambda state, me, holes, weights: state.returns()[me]
            dealt.append(by_hand.hand(deal, me))
    diff = np.array(ranged) - np.array(dealt)
    assert np.any(diff != 0)
    assert abs(diff.mean()) <= 3 * diff.std() / np.sqrt(len(diff))
    assert np.var(ranged) < np.var(dealt)
