"""OOS's conditioned first chance node (seed 000 sec. 10.1) against exact values and plain targeting.

The statistical test: under a fixed strategy profile sigma (half random, half uniform), the sampled regret and
strategy-sum increments of one traversal are averaged over n traversals, for plain targeting (the infoset's
histories enumerated) and for the conditioned deal (the game's proposal, weighted by f_c / sigma'_c); both means
must equal the exact values computed on the compiled tree within 5 standard errors (about 1 failure in 1.7
million for a correct sampler), at the target infoset and in three random projections over every sequence.
Games: Leduc (the game's proposal and a deliberately skewed one), koikoi_mini with its listed deals, and
koikoi_mini with its deal sampled as the full game's is (never listed: the full game's code path, which no other
game has). Full Koi-Koi's targeted samples: tests/games/koikoi/solvers/test_oos_deal_koikoi.py.
Public-subgame targeting through the conditioned deal (the deal proposed from the public cards only) on Leduc
and koikoi_mini: unbiased against exact values and against PST over the enumerated histories, and detectably
biased when the proposal reports another proposal's weights.
"""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.leduc import LeducDeal
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import sample_chunk
from cfrlab.solvers.oos import ConditionedTarget, OOSConfig, Target, find_target, sampler_for
from cfrlab.tree import load_tree
from tests.solvers.test_mccfr import _exact

N_SAMPLES = 1200
PROJECTIONS = 3


class SkewedLeducDeal(LeducDeal):
    """Leduc's proposal with each card's weight multiplied by (1 + card id): sigma'_c far from f_c restricted."""

    def propose(self, state, uniform):
        if not state.private:
            return self.pick(list(self.first), [w * (1 + c) for c, w in self.first.items()], uniform)
        row = self.rows[state.private[0]]
        return self.pick(list(row), [w * (1 + c) for c, w in row.items()], uniform)

    def ratio(self, state, action):
        if not state.private:
            if action not in self.first:
                return 0.0
            f0 = dict(self.game.deal(()))[action]
            return self.first[action] * (1 + action) / sum(w * (1 + c) for c, w in self.first.items()) / f0
        row = self.rows.get(state.private[0], {})
        return (1 + action) / sum(w * (1 + c) for c, w in row.items()) if action in row else 0.0


def _sigma(tree):
    counts = np.diff(tree.infoset_offset)
    sigma = 0.5 * TabularPolicy.random(tree, np.random.default_rng(5)).to_sequences(tree)
    return sigma + 0.5 * np.repeat(1.0 / counts, counts)


def _statistics(game, tree, sigma, player, sampler, target_key, weights, n):
    """Per traversal: the increments at the target's sequences, then their projections on ``weights``."""
    policy = TabularPolicy.from_sequences(tree, sigma)

    def strategy(key, legal):
        probs = policy.action_probabilities(key)
        return np.array([probs[a] for a in legal])

    config = OOSConfig(delta=0.8)
    t = tree.infoset_index(target_key)
    lo, hi = tree.infoset_offset[t], tree.infoset_offset[t + 1]
    out = np.zeros((n, 2, hi - lo + len(weights)))
    for j in range(n):
        for key, row in sample_chunk(game, strategy, player, config, 777, j, j + 1, sampler).items():
            i = tree.infoset_index(key)
            a, b = tree.infoset_offset[i], tree.infoset_offset[i + 1]
            for plane, values in ((0, row.regret), (1, row.strategy)):
                if i == t:
                    out[j, plane, :hi - lo] += values
                out[j, plane, hi - lo:] += weights[:, a:b] @ values
    return out, (lo, hi)


def _exact_statistics(tree, sigma, player, lohi, weights):
    lo, hi = lohi
    return np.stack([np.concatenate([x[lo:hi], weights @ x]) for x in _exact(tree, sigma, player)])


def _target_state(game, seed, earlier=2):
    """A decision with at least two actions after ``earlier`` decisions or more, on a random path."""
    rng = np.random.default_rng(seed)
    while True:
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = None if hasattr(state, "sample_chance") else state.chance_outcomes()
                state = state.child(state.sample_chance(rng) if outcomes is None else
                                    outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            legal = state.legal_actions()
            if decisions >= earlier and len(legal) >= 2:
                player = state.current_player()
                return state.information_state_key(player), player
            decisions += 1
            state = state.child(legal[int(rng.integers(len(legal)))])


def _sampled_deal_mini():
    """koikoi_mini whose deal is sampled as the full game's (``draw``, never listed): the same game."""
    game = load_game("koikoi_mini")
    game.engine.deals_enumerable = False
    return game


CASES = [  # (game spec, seed of the target's path, which targets to compare)
    ("leduc", 3, ("plain", "conditioned", "skewed")),
    ("koikoi_mini", 4, ("plain", "conditioned")),
    ("koikoi_mini(sampled deal)", 4, ("conditioned",)),
]


@pytest.mark.parametrize("spec,seed,kinds", CASES)
def test_conditioned_deal_and_plain_targeting_are_unbiased(spec, seed, kinds):
    sampled = spec.endswith("(sampled deal)")
    listed = load_game(spec.split("(")[0])
    game = _sampled_deal_mini() if sampled else listed
    tree = load_tree(listed)
    sigma = _sigma(tree)
    key, owner = _target_state(listed, seed)
    weights = np.random.default_rng(1).normal(size=(PROJECTIONS, tree.num_sequences))
    targets = {"plain": lambda: Target.find(listed, key, owner),
               "conditioned": lambda: find_target(game, key, owner),
               "skewed": lambda: ConditionedTarget(key, owner, SkewedLeducDeal(game, key, owner))}
    for player in range(2):
        for kind in kinds:
            target = targets[kind]()
            assert isinstance(target, Target if kind == "plain" else ConditionedTarget)
            samples, lohi = _statistics(game, tree, sigma, player, sampler_for(target, OOSConfig(delta=0.8)), key,
                                        weights, N_SAMPLES)
            exact = _exact_statistics(tree, sigma, player, lohi, weights)
            mean = samples.mean(axis=0)
            se = samples.std(axis=0, ddof=1) / np.sqrt(N_SAMPLES)
            z = np.abs(mean - exact) / (se + 1e-12)
            assert np.all((z <= 5.0) | (np.abs(mean - exact) <= 1e-9)), (kind, player, z)
            if player == owner:  # the target is sampled: its regrets are estimated, not just zero
                lo, hi = lohi
                assert np.count_nonzero(samples[:, 0, :hi - lo].any(axis=1)) > N_SAMPLES // 4


class BrokenWeights:
    """PST's proposal reporting the weights of IST's (the infoset's deal): the draws and the weights disagree."""

    def __init__(self, public_deal, infoset_deal):
        self.deal, self.weights, self.length = public_deal, infoset_deal, public_deal.length

    def ratio(self, state, action):
        return self.weights.ratio(state, action)

    def __getattr__(self, name):
        return getattr(self.deal, name)


def _z_scores(game, tree, sigma, key, player, target, weights):
    samples, lohi = _statistics(game, tree, sigma, player, sampler_for(target, OOSConfig(delta=0.8)), key,
                                weights, N_SAMPLES)
    exact = _exact_statistics(tree, sigma, player, lohi, weights)
    mean = samples.mean(axis=0)
    se = samples.std(axis=0, ddof=1) / np.sqrt(N_SAMPLES)
    return np.where(np.abs(mean - exact) <= 1e-9, 0.0, np.abs(mean - exact) / (se + 1e-12)), samples, lohi


@pytest.mark.parametrize("spec,seed", [("leduc", 3), ("koikoi_mini", 4)])
def test_public_subgame_targeting_through_the_conditioned_deal_is_unbiased(spec, seed):
    """PST (every history of the infoset's public state) with the deal proposed from the public cards only, and
    PST by the enumerated histories of the public state: both unbiased; with the proposal's weights broken the
    same statistics are more than 5 standard errors off."""
    game = load_game(spec)
    tree = load_tree(game)
    sigma = _sigma(tree)
    key, owner = _target_state(game, seed)
    weights = np.random.default_rng(1).normal(size=(PROJECTIONS, tree.num_sequences))
    conditioned = find_target(game, key, owner, public=True)
    plain = find_target(game, key, owner, conditioned=False, public=True)
    assert isinstance(conditioned, ConditionedTarget) and isinstance(plain, Target)
    assert len({m[:conditioned.deal.length] for m in plain.members}) > 1  # other own hands/cards: a wider target
    for player in range(2):
        for target in (conditioned, plain):
            z, samples, (lo, hi) = _z_scores(game, tree, sigma, key, player, target, weights)
            assert np.all(z <= 5.0), (player, type(target).__name__, z)
            if player == owner:  # the infoset is one of several of its public state: sampled less often
                assert np.count_nonzero(samples[:, 0, :hi - lo].any(axis=1)) > N_SAMPLES // 20
        broken = ConditionedTarget(key, owner, BrokenWeights(conditioned.deal, find_target(game, key, owner).deal))
        assert np.max(_z_scores(game, tree, sigma, key, player, broken, weights)[0]) > 5.0, player


def test_conditioned_deal_errors():
    with pytest.raises(ValueError, match="no history has infoset"):
        find_target(load_game("leduc"), "0:Qh:rrrrr", 0)
