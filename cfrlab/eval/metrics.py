"""Exact metrics of a policy profile on a compiled tree.

* ``nash_conv``: sum over players of (best-response value - on-policy value).
  For zero-sum games this is seed 004 eq. 17, the sum of best-response values.
* ``exploitability``: ``nash_conv / num_players``. This is OpenSpiel's
  convention; for two players it is the mean of the two best-response gains
  (half the "sum of best responses" some papers call exploitability).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.tree import GameTree, kernels, load_tree
from cfrlab.tree.best_response import best_response_values

PolicyLike = TabularPolicy | NDArray[np.float64]


def tree_of(game_or_tree: Game | GameTree) -> GameTree:
    """The compiled tree of a game (cached), or the tree itself."""
    return game_or_tree if isinstance(game_or_tree, GameTree) else load_tree(game_or_tree)


def _sigma(tree: GameTree, policy: PolicyLike) -> NDArray[np.float64]:
    if isinstance(policy, TabularPolicy):
        return policy.to_sequences(tree)
    sigma = np.ascontiguousarray(policy, dtype=np.float64)
    if sigma.shape != (tree.num_sequences,):
        raise ValueError(f"expected {tree.num_sequences} sequence probabilities, got shape {sigma.shape}")
    return sigma


def expected_values(game_or_tree: Game | GameTree, policy: PolicyLike) -> NDArray[np.float64]:
    """Expected return of every player when all play ``policy``."""
    tree = tree_of(game_or_tree)
    values = np.empty((tree.num_nodes, tree.num_players))
    kernels.expected_values(tree.parent, tree.parent_sequence, tree.chance_prob, _sigma(tree, policy),
                            tree.utility, values)
    return values[0] * tree.utility_scale


def nash_conv(game_or_tree: Game | GameTree, policy: PolicyLike) -> float:
    """Sum over players of what a best response gains over ``policy``."""
    tree = tree_of(game_or_tree)
    sigma = _sigma(tree, policy)
    gains = best_response_values(tree, sigma) - expected_values(tree, sigma)
    return float(np.maximum(gains, 0.0).sum())


def deviation_gains(game_or_tree: Game | GameTree, policy: PolicyLike) -> NDArray[np.float64]:
    """Per player: best-response value minus on-policy value (never negative up to rounding)."""
    tree = tree_of(game_or_tree)
    sigma = _sigma(tree, policy)
    return best_response_values(tree, sigma) - expected_values(tree, sigma)


def exploitability_report(game_or_tree: Game | GameTree, policy: PolicyLike) -> dict[str, float | list[float]]:
    """``exploitability``, ``nash_conv`` and each player's deviation gain (``gains``) from one best-response
    pass: the record the driver logs at each evaluation."""
    tree = tree_of(game_or_tree)
    gains = deviation_gains(tree, policy)
    nash = float(gains.clip(min=0).sum())
    return {"exploitability": nash / tree.num_players, "nash_conv": nash, "gains": [float(g) for g in gains]}


def exploitability(game_or_tree: Game | GameTree, policy: PolicyLike) -> float:
    """NashConv / num_players (OpenSpiel's convention)."""
    tree = tree_of(game_or_tree)
    return nash_conv(tree, policy) / tree.num_players


def loss_against(game_or_tree: Game | GameTree, policy: PolicyLike, reference: PolicyLike, player: int) -> float:
    """How much ``player`` loses by playing ``policy`` instead of ``reference`` when all others play ``reference``.

    Seed 004's "average loss against CFR+": the reference profile's value for
    ``player`` minus the value of the profile where only ``player`` switches.
    """
    tree = tree_of(game_or_tree)
    ref = _sigma(tree, reference)
    mixed = ref.copy()
    own = tree.player_sequences(player)
    mixed[own] = _sigma(tree, policy)[own]
    return float(expected_values(tree, ref)[player] - expected_values(tree, mixed)[player])


def action_frequency(game_or_tree: Game | GameTree, policy: PolicyLike, action: int) -> float:
    """Expected number of times ``action`` is taken in one play of the game when all play ``policy`` (chance
    included): e.g. how often an equilibrium calls KOI-KOI."""
    tree = tree_of(game_or_tree)
    reach = np.empty((tree.num_players, tree.num_nodes))
    kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, _sigma(tree, policy), reach)
    seq = tree.parent_sequence
    taken = (seq >= 0) & (tree.sequence_action[np.maximum(seq, 0)] == action)
    return float((reach.prod(axis=0) * tree.chance_reach)[taken].sum())
