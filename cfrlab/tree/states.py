"""Representative states of a compiled tree's infosets (for policies that read states, e.g. networks)."""

from __future__ import annotations

from collections import deque
from typing import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL, Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.tree.arrays import GameTree


def infoset_states(game: Game, tree: GameTree) -> list[State]:
    """One state per infoset of ``tree`` (the first in breadth-first order), in infoset order."""
    cached = tree.cache.get("infoset_states")
    if cached is not None:
        return cached
    found: list[State | None] = [None] * tree.num_infosets
    missing = tree.num_infosets
    queue: deque[State] = deque([game.new_initial_state()])
    while queue and missing:
        state = queue.popleft()
        player = state.current_player()
        if player == TERMINAL:
            continue
        if player == CHANCE:
            queue.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        i = tree.infoset_index(state.information_state_key(player))
        if found[i] is None:
            found[i] = state
            missing -= 1
        queue.extend(state.child(a) for a in state.legal_actions())
    tree.cache["infoset_states"] = found
    return found  # type: ignore[return-value]


def tabulate_policy(
    game: Game,
    tree: GameTree,
    action_probs: Callable[[Sequence[State]], NDArray[np.float64]],
    batch_size: int = 4096,
) -> TabularPolicy:
    """Turn any state-reading policy into a ``TabularPolicy`` on ``tree``, for exact evaluation.

    ``action_probs(states)`` returns a (len(states), max_actions) array of
    probabilities over action ids (e.g. a network's softmax). Illegal actions
    are masked and each row renormalised (uniform if nothing legal is left).
    """
    states = infoset_states(game, tree)
    probs = np.zeros((tree.num_infosets, tree.max_actions))
    for start in range(0, len(states), batch_size):
        chunk = states[start : start + batch_size]
        probs[start : start + len(chunk)] = np.asarray(action_probs(chunk), dtype=np.float64)[:, : tree.max_actions]
    mask = np.zeros_like(probs, dtype=bool)
    mask[tree.sequence_infoset, tree.sequence_action] = True
    probs = np.where(mask, np.maximum(probs, 0.0), 0.0)
    sums = probs.sum(axis=1, keepdims=True)
    uniform = mask / mask.sum(axis=1, keepdims=True)
    probs = np.where(sums > 0, probs / np.where(sums > 0, sums, 1.0), uniform)
    return TabularPolicy(tree.infoset_keys, probs, mask)
