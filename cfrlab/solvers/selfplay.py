"""What the sampling fictitious-play solvers share: episodes on a ``Game`` with one seeded generator.

Batch FSP (``cfrlab.solvers.fictitious.batch``) and the anticipatory loop of NFSP and softmax FSP
(``cfrlab.solvers.neural.anticipatory``) both play episodes on the game itself, draw every action and
chance outcome from the solver's one generator (same seed, same episodes), and evaluate their
policies exactly on the compiled tree, which is built on first use only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, Game, State
from cfrlab.seeding import as_generator
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.tree import GameTree, load_tree

BR, AVG = 1, 0
"""Which policy a player follows in an episode: its best response or its average policy."""


def masked_softmax(logits: NDArray[np.float64], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
    """softmax over the legal entries of each row (illegal entries get probability 0)."""
    z = np.where(legal, logits, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.where(legal, np.exp(z), 0.0)
    return e / e.sum(axis=-1, keepdims=True)


class SelfPlaySolver(Solver):
    """Episodes on a ``Game`` with one seeded generator; exact evaluation on the compiled tree."""

    any_payoff_range = False  # step sizes are tuned for payoffs near 1

    def __init__(self, game: Game, config: SolverConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.num_players = game.num_players
        self.num_actions = game.max_actions
        self.rng = as_generator(self.config.seed)
        self._tree: GameTree | None = None

    @property
    def tree(self) -> GameTree:
        """The compiled tree (built on first use, for evaluation only)."""
        if self._tree is None:
            self._tree = load_tree(self.game)
        return self._tree

    @tree.setter
    def tree(self, tree: GameTree | None) -> None:
        self._tree = tree

    def _legal_mask(self, state: State) -> NDArray[np.bool_]:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[state.legal_actions()] = True
        return mask

    def _sample(self, probs: NDArray[np.float64]) -> int:
        """One action id drawn from ``probs`` (inverse CDF with one uniform draw)."""
        c = np.cumsum(probs)
        return int(min(np.searchsorted(c, self.rng.random() * c[-1], side="right"), len(probs) - 1))

    def _chance(self, state: State) -> State:
        outcomes = state.chance_outcomes()
        u = self.rng.random()
        acc = 0.0
        for action, prob in outcomes:
            acc += prob
            if u < acc:
                return state.child(action)
        return state.child(outcomes[-1][0])

    def _next_decision(self, state: State) -> tuple[State, int]:
        """The first state from ``state`` that is not a chance node (chance drawn by ``_chance``), and its player
        (``TERMINAL`` at the end of the episode): the step of every sampled episode."""
        p = state.current_player()
        while p == CHANCE:
            state = self._chance(state)
            p = state.current_player()
        return state, p

    def _extra_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        if "rng" in extra:
            self.rng.bit_generator.state = extra["rng"]


__all__ = ["SelfPlaySolver", "masked_softmax", "BR", "AVG"]
