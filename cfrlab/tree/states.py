"""Representative states of a compiled tree's infosets (for policies that read states, e.g. networks)."""

from __future__ import annotations

from collections import deque

from cfrlab.game import CHANCE, TERMINAL, Game, State
from cfrlab.tree.arrays import GameTree


def infoset_states(game: Game, tree: GameTree, last: bool = False) -> list[State]:
    """One state per infoset of ``tree`` (the first in breadth-first order, or with ``last`` the last: another
    deal of the hidden cards wherever the infoset has several), in infoset order."""
    cached = tree.cache.get("infoset_states")
    if cached is not None and not last:
        return cached
    found: list[State | None] = [None] * tree.num_infosets
    missing = tree.num_infosets
    queue: deque[State] = deque([game.new_initial_state()])
    while queue and (missing or last):
        state = queue.popleft()
        player = state.current_player()
        if player == TERMINAL:
            continue
        if player == CHANCE:
            queue.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        i = tree.infoset_index(state.information_state_key(player))
        if found[i] is None or last:
            missing -= found[i] is None
            found[i] = state
        queue.extend(state.child(a) for a in state.legal_actions())
    if last:
        return found  # type: ignore[return-value]
    tree.cache["infoset_states"] = found
    return found  # type: ignore[return-value]
