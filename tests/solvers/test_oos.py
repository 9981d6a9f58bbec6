"""Online Outcome Sampling (Lisy, Lanctot & Bowling 2015) against outcome sampling and exact quantities.

* with delta = 0 (and every visited infoset stored) it is outcome-sampling MCCFR: same tables, bit for bit;
* under targeting, the mixture importance weights keep every sampled regret and strategy-sum increment
  unbiased: the mean of many samples equals the exact value within 5 standard errors, at every infoset;
* targeted samples pass through the target infoset; incremental tables grow by at most one infoset a pass.
"""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import OutcomeSamplingMCCFR, Walker, table_strategy_fn
from cfrlab.solvers.oos import OnlineOutcomeSampling, OOSConfig, Target, TargetedSampler
from cfrlab.tree import load_tree
from cfrlab.tree.states import infoset_states
from tests.solvers.test_mccfr import _exact, _per_sample


@pytest.mark.parametrize("spec,iterations", [("kuhn", 400), ("leduc", 150), ("kuhn(players=3)", 200)])
def test_delta_zero_is_outcome_sampling(spec, iterations):
    game = load_game(spec)
    oos = OnlineOutcomeSampling(game, seed=11, delta=0.0, expansion="full", path="generic")
    oos.set_target(*_some_infoset(game, 3))
    oos.iterate(iterations)
    ref = OutcomeSamplingMCCFR(game, seed=11, path="generic").iterate(iterations)
    for mine, theirs in ((oos.regret_table(), ref.regret_table()), (oos.strategy_table(), ref.strategy_table())):
        assert list(mine) == list(theirs)
        assert all(np.array_equal(mine[k], theirs[k]) for k in mine)


def _some_infoset(game, index):
    tree = load_tree(game)
    state = infoset_states(game, tree)[index]
    p = state.current_player()
    return state.information_state_key(p), p


@pytest.mark.parametrize("spec,index", [("kuhn", 7), ("random_game(seed=3)", 5), ("kuhn(players=3)", 20)])
def test_targeted_estimates_are_unbiased(spec, index):
    game = load_game(spec)
    tree = load_tree(game)
    counts = np.diff(tree.infoset_offset)
    sigma = 0.5 * TabularPolicy.random(tree, np.random.default_rng(5)).to_sequences(tree)
    sigma += 0.5 * np.repeat(1.0 / counts, counts)
    config = OOSConfig(delta=0.8)
    target = Target.find(game, *_some_infoset(game, index))
    n = 8000
    for player in range(game.num_players):
        exact_r, exact_s = _exact(tree, sigma, player)
        regrets, strats = _per_sample(game, tree, sigma, player, config, n, TargetedSampler(config, target))
        for exact, samples in ((exact_r, regrets), (exact_s, strats)):
            mean = samples.mean(axis=0)
            se = samples.std(axis=0, ddof=1) / np.sqrt(n)
            assert np.all(np.abs(mean - exact) <= 5 * se + 1e-9), (player, np.abs(mean - exact) / (se + 1e-12))


def test_targeted_samples_pass_through_the_target(leduc):
    key, player = _some_infoset(leduc, 400)
    target = Target.find(leduc, key, player)
    config = OOSConfig(delta=1.0)
    sampler = TargetedSampler(config, target)
    walker = Walker(table_strategy_fn({}), 0, config, leduc, sampler)
    for j in range(50):
        walker.run(leduc, 99, j, j + 1)
        assert any(tuple(sampler.path[:len(m)]) == m for m in target.members)
    untargeted = TargetedSampler(OOSConfig(delta=0.0), target)
    walker = Walker(table_strategy_fn({}), 0, OOSConfig(delta=0.0), leduc, untargeted)
    hits = 0
    for j in range(50):
        walker.run(leduc, 99, j, j + 1)
        hits += any(tuple(untargeted.path[:len(m)]) == m for m in target.members)
    assert hits < 50  # the infoset is rare without targeting


@pytest.mark.parametrize("path", ["generic", "tree"])
def test_incremental_tables_grow_by_one_infoset_a_pass(leduc, path):
    oos = OnlineOutcomeSampling(leduc, seed=2, path=path)
    for t in range(1, 30):
        oos.iterate(1)
        assert len(oos.regret_table()) <= t * leduc.num_players


def test_config_and_target_errors(kuhn):
    with pytest.raises(ValueError, match="delta"):
        OOSConfig(delta=1.5)
    with pytest.raises(ValueError, match="outcome sampling"):
        OOSConfig(sampling="external")
    with pytest.raises(ValueError, match="no predictive"):
        OOSConfig(predictive=True)
    with pytest.raises(ValueError, match="no history"):
        Target.find(kuhn, "no such infoset", 0)
    with pytest.raises(ValueError, match="cannot walk|more than"):
        Target.find(load_game("koikoi"), "x", 0)
