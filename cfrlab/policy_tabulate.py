"""Tabular policies built from a mapping or from any state-reading policy (a network), for exact evaluation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.policy import TabularPolicy
from cfrlab.tree.states import infoset_states

if TYPE_CHECKING:
    from cfrlab.game import Game, State
    from cfrlab.tree import GameTree


def policy_from_mapping(tree: GameTree, table: Mapping[str, Mapping[int, float]]) -> TabularPolicy:
    """Build a policy from ``{key: {action: prob}}``; missing infosets are uniform."""
    probs = np.zeros((tree.num_infosets, tree.max_actions))
    mask = np.zeros_like(probs, dtype=bool)
    mask[tree.sequence_infoset, tree.sequence_action] = True
    for i, key in enumerate(tree.infoset_keys):
        row = table.get(key)
        if row is None:
            probs[i, mask[i]] = 1.0 / mask[i].sum()
        else:
            for a, p in row.items():
                if not 0 <= a < tree.max_actions or not mask[i, a]:
                    raise ValueError(f"action {a} is not legal at infoset {key!r}")
                probs[i, a] = p
    return TabularPolicy(tree.infoset_keys, probs, mask)


def tabulate_policy(
    game: Game,
    tree: GameTree,
    action_probs: Callable[[Sequence[Any]], NDArray[np.float64]],
    batch_size: int = 4096,
    states: Sequence[State] | None = None,
) -> TabularPolicy:
    """Turn any state-reading policy into a ``TabularPolicy`` on ``tree``, for exact evaluation.

    ``action_probs(states)`` (states of ``game``, of its own ``State`` class) returns a
    (len(states), max_actions) array of probabilities over action ids (e.g. a network's softmax).
    Illegal actions are masked and each row renormalised (uniform if nothing legal is left).
    The policy reads one state per infoset: ``states`` in infoset order, by
    default ``infoset_states`` (the first one met breadth first, a real deal
    consistent with the infoset).
    """
    states = infoset_states(game, tree) if states is None else states
    probs = np.zeros((tree.num_infosets, tree.max_actions))
    for start in range(0, len(states), batch_size):
        chunk = states[start : start + batch_size]
        probs[start : start + len(chunk)] = np.asarray(action_probs(chunk), dtype=np.float64)[:, : tree.max_actions]
    return policy_from_rows(tree, probs)


def legal_mask(tree: GameTree) -> NDArray[np.bool_]:
    """(infosets, max actions): which actions of each infoset's row are legal."""
    mask = np.zeros((tree.num_infosets, tree.max_actions), dtype=bool)
    mask[tree.sequence_infoset, tree.sequence_action] = True
    return mask


def policy_from_rows(tree: GameTree, probs: NDArray[np.float64]) -> TabularPolicy:
    """A policy from one row of action probabilities per infoset of ``tree`` (in infoset order): illegal actions
    masked and each row renormalised (uniform if nothing legal is left)."""
    mask = legal_mask(tree)
    probs = np.where(mask, np.maximum(probs, 0.0), 0.0)
    sums = probs.sum(axis=1, keepdims=True)
    uniform = mask / mask.sum(axis=1, keepdims=True)
    probs = np.where(sums > 0, probs / np.where(sums > 0, sums, 1.0), uniform)
    return TabularPolicy(tree.infoset_keys, probs, mask)
