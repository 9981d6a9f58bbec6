"""Exact best response and metrics: brute force on random games, OpenSpiel's own numbers, closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cfrlab.eval import best_response, deviation_gains, expected_values, exploitability, loss_against, nash_conv
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from cfrlab.tree import load_tree


def brute_force_best_response(tree, sigma, player):
    """Max over every pure strategy of ``player`` of its expected value (no cleverness at all)."""
    own = [i for i in range(tree.num_infosets) if tree.infoset_player[i] == player]
    choices = [range(int(tree.infoset_offset[i + 1] - tree.infoset_offset[i])) for i in own]
    best = -np.inf
    for pure in itertools.product(*choices):
        s = sigma.copy()
        for i, k in zip(own, pure):
            lo, hi = tree.infoset_offset[i], tree.infoset_offset[i + 1]
            s[lo:hi] = 0.0
            s[lo + k] = 1.0
        best = max(best, expected_values(tree, s)[player])
    return best


@pytest.mark.parametrize("seed", range(12))
def test_best_response_equals_brute_force_on_random_games(seed):
    players = 2 + seed % 2
    game = load_game(f"random_game(seed={seed},players={players},zero_sum={'true' if seed % 3 else 'false'})")
    tree = load_tree(game)
    rng = np.random.default_rng(seed)
    for player in range(players):
        own = [i for i in range(tree.num_infosets) if tree.infoset_player[i] == player]
        if np.prod([tree.infoset_offset[i + 1] - tree.infoset_offset[i] for i in own]) > 20000:
            continue
        sigma = TabularPolicy.random(tree, rng).to_sequences(tree)
        value, strategy = best_response(tree, sigma, player)
        assert value == pytest.approx(brute_force_best_response(tree, sigma, player), abs=1e-9)
        # the returned pure strategy achieves the value
        assert expected_values(tree, strategy)[player] == pytest.approx(value, abs=1e-9)


def test_uniform_kuhn_nash_conv_is_eleven_twelfths(kuhn):
    assert nash_conv(kuhn, TabularPolicy.uniform(load_tree(kuhn))) == pytest.approx(11 / 12, abs=1e-12)


def _openspiel_policies(spec: str):
    game = load_game(f"openspiel:{spec}")
    tree = load_tree(game)
    rng = np.random.default_rng(1)
    yield "uniform", game, tree, TabularPolicy.uniform(tree)
    yield "random", game, tree, TabularPolicy.random(tree, rng)
    yield "solved", game, tree, CFRPlus(game).iterate(50).average_policy()


@pytest.mark.parametrize("spec", ["kuhn_poker", "kuhn_poker(players=3)", "leduc_poker"])
def test_agrees_with_openspiel_exploitability(spec):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_exploitability

    os_game = pyspiel.load_game(spec)
    for label, game, tree, policy in _openspiel_policies(spec):
        os_policy = policy.to_openspiel(os_game)
        expected = os_exploitability.nash_conv(os_game, os_policy)
        assert nash_conv(tree, policy) == pytest.approx(expected, abs=1e-9), label
        if game.num_players == 2:
            assert exploitability(tree, policy) == pytest.approx(
                os_exploitability.exploitability(os_game, os_policy), abs=1e-9), label
        # per player: best-response value minus on-policy value
        os_result = os_exploitability.nash_conv(os_game, os_policy, return_only_nash_conv=False)
        np.testing.assert_allclose(deviation_gains(tree, policy), os_result.player_improvements, atol=1e-9)


def test_openspiel_policy_round_trip(leduc):
    pyspiel = pytest.importorskip("pyspiel")
    game = load_game("openspiel:leduc_poker")
    tree = load_tree(game)
    policy = TabularPolicy.random(tree, np.random.default_rng(3))
    back = TabularPolicy.from_openspiel(policy.to_openspiel(pyspiel.load_game("leduc_poker")), tree)
    np.testing.assert_allclose(back.to_sequences(tree), policy.to_sequences(tree))


def test_deviation_gains_never_negative(kuhn3):
    tree = load_tree(kuhn3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        assert (deviation_gains(tree, TabularPolicy.random(tree, rng)) >= -1e-12).all()


def test_loss_against_reference(kuhn3):
    tree = load_tree(kuhn3)
    ref = CFRPlus(kuhn3).iterate(200).average_policy()
    assert loss_against(tree, ref, ref, 0) == pytest.approx(0.0, abs=1e-12)
    uniform = TabularPolicy.uniform(tree)
    losses = [loss_against(tree, uniform, ref, p) for p in range(3)]
    # against a near-equilibrium, deviating to uniform cannot gain more than the reference's NashConv
    assert min(losses) > -nash_conv(tree, ref) - 1e-9
    assert max(losses) > 0.01


def test_best_response_rejects_bad_player(kuhn):
    tree = load_tree(kuhn)
    with pytest.raises(ValueError, match="player"):
        best_response(tree, TabularPolicy.uniform(tree).to_sequences(tree), 2)
