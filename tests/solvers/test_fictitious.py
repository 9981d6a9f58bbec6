"""Fictitious play: XFP against exact evaluation and the realisation-equivalence theorem; table and softmax FSP.

Convergence of table-lookup and softmax FSP with their CLI defaults: ``tests/cli/test_cli_defaults.py``."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.eval import best_response, exploitability, nash_conv
from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.fictitious import XFP, SoftmaxFSP, TableFSP
from cfrlab.solvers.fictitious.batch import KeyIndex
from cfrlab.solvers.selfplay import masked_softmax
from cfrlab.tree import load_tree


# XFP -------------------------------------------------------------------------------------------------
def test_xfp_two_player_kuhn_below_one_percent(kuhn: Game) -> None:
    solver = XFP(kuhn).iterate(1000)
    assert exploitability(kuhn, solver.average_policy()) < 1e-2


def test_xfp_first_iteration_is_the_half_mixture_of_uniform_and_best_response(kuhn: Game) -> None:
    """pi^2 must be realisation-equivalent to 1/2 uniform + 1/2 beta (eq. 14 with lambda = 1/2)."""
    tree = load_tree(kuhn)
    uniform = TabularPolicy.uniform(tree).to_sequences(tree)
    solver = XFP(kuhn).iterate(1)
    beta = solver.best
    for p in range(tree.num_players):
        _, br = best_response(tree, uniform, p)
        own = tree.player_sequences(p)
        np.testing.assert_allclose(beta[own], br[own])
    # realisation plans (reach of every node by the owner's own actions) mix linearly
    from cfrlab.tree import kernels

    def plans(sigma: np.ndarray) -> np.ndarray:
        reach = np.empty((tree.num_players, tree.num_nodes))
        kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, sigma, reach)
        return reach

    np.testing.assert_allclose(plans(solver.average), 0.5 * plans(uniform) + 0.5 * plans(beta), atol=1e-12)


@pytest.mark.parametrize("step", [None, 0.2])
def test_xfp_mixture_is_realisation_equivalent_on_leduc(leduc: Game, step: float | None) -> None:
    """After any iteration, x_{pi^{t+1}} = (1 - a) x_{pi^t} + a x_{beta} on every node (eq. 14-15)."""
    tree = load_tree(leduc)
    from cfrlab.tree import kernels

    def plans(sigma: np.ndarray) -> np.ndarray:
        reach = np.empty((tree.num_players, tree.num_nodes))
        kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, sigma, reach)
        return reach

    solver = XFP(leduc, step_size=step).iterate(3)
    before = solver.average.copy()
    solver.iterate(1)
    a = solver.step_size(4)
    np.testing.assert_allclose(plans(solver.average), (1 - a) * plans(before) + a * plans(solver.best), atol=1e-12)


def test_xfp_three_player_kuhn_nash_conv_decreases(kuhn3: Game) -> None:
    solver = XFP(kuhn3)
    values = [nash_conv(kuhn3, solver.average_policy())]
    for _ in range(4):
        solver.iterate(25)
        values.append(nash_conv(kuhn3, solver.average_policy()))
    assert values[-1] < 0.1 < values[0]
    assert all(b < a for a, b in zip(values, values[1:])), values


def test_xfp_rejects_bad_step_size(kuhn: Game) -> None:
    with pytest.raises(ValueError, match="step_size"):
        XFP(kuhn, step_size=1.5)


# helpers ---------------------------------------------------------------------------------------------
def test_masked_softmax_ignores_illegal_entries() -> None:
    probs = masked_softmax(np.array([[1.0, 100.0, 1.0]]), np.array([[True, False, True]]))
    np.testing.assert_allclose(probs, [[0.5, 0.0, 0.5]])


def test_key_index_interns_in_order() -> None:
    idx = KeyIndex(["a", "b"])
    assert idx.id("b") == 1 and idx.id("c") == 2 and len(idx) == 3


# table-lookup FSP ------------------------------------------------------------------------------------
def test_counting_model_is_the_visit_weighted_average_of_best_responses(kuhn: Game) -> None:
    """Alg. 7: N(u, a) accumulates beta(u, a) at every visit, so pi(u) = sum beta / visits."""
    solver = TableFSP(kuhn, seed=0, episodes_simultaneous=0, episodes_alternating=5)
    solver.iterate(1)
    counts = solver.sl[0].counts.table
    visited = counts.sum(axis=1) > 0
    # every visit adds a probability vector: the row sums are integer visit counts
    np.testing.assert_allclose(counts[visited].sum(axis=1), np.round(counts[visited].sum(axis=1)))
    assert counts[visited].sum() > 0


# softmax FSP -----------------------------------------------------------------------------------------
def test_anticipatory_mixing_samples_the_right_policy(kuhn: Game) -> None:
    """With eta = 1 every SL sample comes from eps-greedy(Q); with eta = 0 the SL memory stays empty."""
    solver = SoftmaxFSP(kuhn, seed=0, eta=0.0).iterate(200)
    assert all(len(m) == 0 for m in solver.sl_memory)
    solver = SoftmaxFSP(kuhn, seed=0, eta=1.0, epsilon_start=0.0, epsilon_end=0.0, min_buffer=10**9)
    solver.iterate(200)
    # no learning happened (min_buffer), so Q = 0 and greedy picks the first legal action: pass (0)
    for mem in solver.sl_memory:
        assert len(mem) > 0 and np.all(mem.data()["action"] == 0)
    # the fraction of best-response episodes is eta
    solver = SoftmaxFSP(kuhn, seed=0, eta=0.3, min_buffer=10**9)
    modes = []
    for _ in range(4000):
        solver.iterate(1)
        modes.append(solver.modes.copy())
    assert np.mean(modes) == pytest.approx(0.3, abs=0.02)
