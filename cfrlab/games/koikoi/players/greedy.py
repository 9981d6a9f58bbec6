"""The greedy Koi-Koi agent: the greedy heuristic (``rules.heuristic``) as a player.

Specification in cfrlab: ``GreedyAgent`` reads only the player's view; ``koikoi_below=0`` gives an always-STOP
agent. The uniform agent is generic.
"""

from __future__ import annotations

import numpy as np

from cfrlab.games.koikoi.rules.heuristic import greedy_action


class GreedyAgent:
    """Captures by value and stops unless the score is small (``rules.heuristic``)."""

    def __init__(self, koikoi_below: int = 4, min_hand: int = 3, name: str = "greedy") -> None:
        self.koikoi_below = koikoi_below
        self.min_hand = min_hand
        self.name = name

    def act(self, state, rng: np.random.Generator | None) -> int:  # a KoiKoiState; rng unused
        return greedy_action(state, self.koikoi_below, self.min_hand)
