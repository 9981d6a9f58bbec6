"""Exact best responses on a ``GameTree``, for any player of any N-player game.

One sweep over the nodes (``kernels.best_response_pass``): nodes are visited by
decreasing *own-depth* of the responding player (how many of its own decisions
lie above the node), so when the infosets of one own-depth choose their action,
every value they need is known. With perfect recall this is exact, and it costs
O(nodes) per player instead of OpenSpiel's recursion over states.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from cfrlab.tree import GameTree, kernels

SequenceProbs = NDArray[np.float64]


def _own_depth_order(tree: GameTree, player: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    cached = tree.cache.get(("br_order", player))
    if cached is not None:
        return cached
    n = tree.num_nodes
    own = np.zeros(n, dtype=np.int64)
    step = (tree.player[tree.parent[1:]] == player).astype(np.int64)
    bounds = np.searchsorted(tree.depth, np.arange(int(tree.depth.max()) + 2))
    for d in range(1, len(bounds) - 1):  # one vector op per depth level
        lo, hi = bounds[d], bounds[d + 1]
        own[lo:hi] = own[tree.parent[lo:hi]] + step[lo - 1 : hi - 1]
    order = np.lexsort((-np.arange(n), -own)).astype(np.int64)
    own_sorted = own[order]
    change = np.flatnonzero(np.diff(own_sorted)) + 1
    stage_start = np.concatenate([[0], change, [n]]).astype(np.int64)
    tree.cache[("br_order", player)] = (order, stage_start)
    return order, stage_start


def opponent_reach(tree: GameTree, sigma: SequenceProbs, player: int) -> NDArray[np.float64]:
    """pi_{-i}(h): chance times every other player's reach, per node (one array, one top-down sweep)."""
    out = np.empty(tree.num_nodes)
    kernels.opponent_reach(tree.parent, tree.player, tree.parent_sequence, tree.chance_prob, sigma, player, out)
    return out


def best_response(tree: GameTree, sigma: SequenceProbs, player: int) -> tuple[float, SequenceProbs]:
    """(value, strategy) of ``player``'s best response to the other players' part of ``sigma``.

    ``sigma`` holds one probability per sequence (``TabularPolicy.to_sequences``).
    The returned strategy is pure: one-hot per infoset of ``player``, and a copy
    of ``sigma`` elsewhere, so it can be evaluated as a profile directly.
    """
    if not 0 <= player < tree.num_players:
        raise ValueError(f"player must be in 0..{tree.num_players - 1}, got {player}")
    sigma = np.ascontiguousarray(sigma, dtype=np.float64)
    order, stage_start = _own_depth_order(tree, player)
    opp = opponent_reach(tree, sigma, player)
    q = np.zeros(tree.num_sequences)
    best = np.full(tree.num_infosets, -1, dtype=np.int64)
    values = np.zeros(tree.num_nodes)
    kernels.best_response_pass(
        order, stage_start, tree.parent, tree.player, tree.infoset, tree.infoset_offset, tree.child_ptr,
        tree.parent_sequence, tree.chance_prob, sigma, tree.utility, opp, player, q, best, values,
    )
    strategy = sigma.copy()
    own = tree.player_sequences(player)
    strategy[own] = 0.0
    chosen = best[best >= 0]
    strategy[chosen] = 1.0
    return float(values[0]) * tree.utility_scale, strategy


def best_response_values(tree: GameTree, sigma: SequenceProbs) -> NDArray[np.float64]:
    """Best-response value of every player against ``sigma``."""
    return np.array([best_response(tree, sigma, p)[0] for p in range(tree.num_players)])
