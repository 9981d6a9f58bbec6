"""Full-width extensive-form fictitious play (XFP; Heinrich, Lanctot & Silver 2015, seed 004 eq. 13-15).

Fictitious play averages best responses: pi^{t+1} = (1 - a_t) pi^t + a_t beta^{t+1}, with beta^{t+1}
a best response to pi^t. On a compiled tree:
  1. every player computes an exact best response beta_i to pi^t (one backward pass,
     ``cfrlab.tree.best_response``);
  2. realisation weights x_pi(h_I), x_beta(h_I): the player's own reach of infoset I (eq. 13);
  3. pi^{t+1}(I) = pi^t(I) + a x_beta / ((1 - a) x_pi + a x_beta) (beta(I) - pi^t(I)) (eq. 14-15),
     which is realisation-equivalent to mixing the two normal-form strategies with weights
     (1 - a, a); a = a_t = 1 / (t + 1) by default (pi^1 uniform), or a constant.
Where both x_pi(h_I) and x_beta(h_I) are 0 the mixing weight is a (any value is
realisation-equivalent there; a keeps unreached rows a plain running average).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.tree import GameTree, kernels, load_tree


@dataclasses.dataclass(frozen=True)
class XFPConfig(SolverConfig):
    """Full-width extensive-form fictitious play."""

    step_size: float | None = None
    """Mixing weight a_t of the new best response; None: 1 / (t + 1) (classical fictitious play)."""

    def __post_init__(self) -> None:
        if self.step_size is not None and not 0.0 < self.step_size <= 1.0:
            raise ValueError(f"step_size must be in (0, 1], got {self.step_size}")


class XFP(Solver):
    """Extensive-form fictitious play (seed 004 eq. 13-15) with exact best responses."""

    algorithm = "xfp"
    citation = ('full-width extensive-form fictitious play', 'Heinrich, Lanctot & Silver 2015')
    Config = XFPConfig
    config: XFPConfig
    tree: GameTree
    first_compile_seconds = 1.7
    default_sources = {"step_size": "paper (1 / (t + 1), classical fictitious play)", "seed": "unused (no sampling)"}

    def __init__(self, game: Game, config: XFPConfig | None = None, *, tree: GameTree | None = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.tree = tree if tree is not None else load_tree(game)
        if self.tree.fingerprint != game.fingerprint():
            raise ValueError("the tree was compiled from another game")
        t = self.tree
        counts = np.diff(t.infoset_offset)
        self.average = 1.0 / counts[t.sequence_infoset]  # pi^1: uniform
        self.best = self.average.copy()  # beta^t: the last best-response profile
        self._own = [t.player_sequences(p) for p in range(t.num_players)]
        self._reach = np.empty((t.num_players, t.num_nodes))
        self._infoset_player = t.infoset_player.astype(np.int64)

    def step_size(self, t: int) -> float:
        """a_t for the update that makes pi^{t+1} (t >= 1)."""
        return self.config.step_size if self.config.step_size is not None else 1.0 / (t + 1)

    def _own_realisation(self, sigma: NDArray[np.float64]) -> NDArray[np.float64]:
        """x_sigma(h_I) per infoset: the owner's own reach of I (eq. 13)."""
        t = self.tree
        kernels.reach_probabilities(t.parent, t.player, t.parent_sequence, sigma, self._reach)
        return self._reach[self._infoset_player, t.infoset_node]

    def _iterate_once(self) -> None:
        from cfrlab.tree.best_response import best_response

        tree = self.tree
        beta = np.empty_like(self.average)
        for p in range(tree.num_players):  # simultaneous: every beta_i answers pi^t
            _, br = best_response(tree, self.average, p)
            beta[self._own[p]] = br[self._own[p]]
        a = self.step_size(self.iterations + 1)
        x_pi, x_beta = self._own_realisation(self.average), self._own_realisation(beta)
        denom = (1.0 - a) * x_pi + a * x_beta
        weight = np.where(denom > 0.0, a * x_beta / np.where(denom > 0.0, denom, 1.0), a)
        self.average = self.average + weight[tree.sequence_infoset] * (beta - self.average)
        self.best = beta

    def current_policy(self) -> TabularPolicy:
        """The latest best-response profile beta^t (uniform before the first iteration)."""
        return TabularPolicy.from_sequences(self.tree, self.best)

    def average_policy(self) -> TabularPolicy:
        return TabularPolicy.from_sequences(self.tree, self.average)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"average": self.average, "best": self.best}

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("average", "best"):
            value = np.asarray(arrays[name], dtype=np.float64)
            if value.shape != (self.tree.num_sequences,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({self.tree.num_sequences},)")
            setattr(self, name, value.copy())


__all__ = ["XFP", "XFPConfig"]
