"""The full-tree CFR family over a compiled ``GameTree``.

One iteration of CFR (seed 000 Alg. 1-2, Zinkevich et al. 2008):
  1. walk the tree with the current profile sigma^t, computing each player's
     reach and the expected value of every node;
  2. add to every infoset's cumulative regret r_I[a] the counterfactual regret
     pi_{-i}(h) (v(ha) - v(h)), summed over the histories h in I;
  3. add sigma^t, weighted by the player's own reach, to the strategy sum s_I;
  4. regret-match: sigma^{t+1}(I) proportional to max(r_I, 0).
The *average* strategy (normalised s_I) converges to a Nash equilibrium in
two-player zero-sum games; in N-player games its NashConv is what we measure.

Variants are options of one ``CFRConfig`` (the update rule, the traversal and the
averaging are separate, ``cfrlab.solvers.regret``):
* ``alternating``: players are updated one after the other, each pass seeing the
  others' newest strategies (seed 000 Alg. 3 line 42).
* ``regret_matching_plus``: RM+ (seed 000 Alg. 4).
* ``averaging`` / ``delay``: weight max(t - d, 0) for CFR+ (seed 000 sec. 5).
* ``average_in``: in alternating mode, accumulate each player's strategy sum in its
  own pass (``"own"``, OpenSpiel and seed 001 Alg. 1) or in the preceding
  player's pass (``"next"``, seed 000 Alg. 3 line 30: the non-traverser's
  strategy is accumulated while the traverser walks). The weight is always the
  accumulating player's own reach: seed 000 suggests pi_i (the traverser's) may
  be meant at CFR+ paper line 37, but only the owner's reach gives a
  realisation-equivalent average, which the exact exploitability tests confirm.
* ``dcfr_alpha/beta/gamma``: discounted CFR; linear CFR is (1, 1, 1).

Chance-sampling CFR (seed 001 Alg. 1) samples the tree instead of sweeping it,
so it lives with the other samplers: ``--algo chance`` (``cfrlab.solvers.mccfr``).

Everything runs in numba kernels over flat arrays (``cfrlab.solvers.kernels``);
no Python executes per node.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np

from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.solvers import kernels
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.solvers.regret import AVERAGING_SCHEMES, average_strategy, averaging_weight, dcfr_factors
from cfrlab.tree import GameTree, load_tree


@dataclasses.dataclass(frozen=True)
class CFRConfig(SolverConfig):
    """Every variant of full-tree CFR."""

    alternating: bool = False
    """Update players one at a time (True) or all from the same profile (False, vanilla CFR)."""
    regret_matching_plus: bool = False
    """Clamp cumulative regrets at zero (regret matching+, CFR+)."""
    averaging: str = "uniform"
    """Weight of iteration t in the average: 'uniform' (1), 'linear' (max(t-d,0)), 'quadratic'."""
    delay: int = 0
    """Averaging delay d: iterations t <= d get no weight."""
    average_in: str = "own"
    """Alternating mode: accumulate a player's average in its 'own' pass or the 'next' pass (seed 000 Alg. 3)."""
    dcfr_alpha: float | None = None
    """Discounted CFR: positive-regret exponent (None: no discounting)."""
    dcfr_beta: float = 0.0
    """Discounted CFR: negative-regret exponent."""
    dcfr_gamma: float = 2.0
    """Discounted CFR: strategy-sum exponent."""

    def __post_init__(self) -> None:
        if self.averaging not in AVERAGING_SCHEMES:
            raise ValueError(f"averaging must be one of {AVERAGING_SCHEMES}, got {self.averaging!r}")
        if self.average_in not in ("own", "next"):
            raise ValueError(f"average_in must be 'own' or 'next', got {self.average_in!r}")
        if self.delay < 0:
            raise ValueError(f"delay must be >= 0, got {self.delay}")


class CFR(Solver):
    """Vanilla CFR with simultaneous updates (seed 000 Alg. 1-2); the configurable core of the family."""

    algorithm = "cfr"
    Config = CFRConfig

    def __init__(self, game: Game, config: CFRConfig | None = None, *, tree: GameTree | None = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.tree = tree if tree is not None else load_tree(game)
        if self.tree.fingerprint != game.fingerprint():
            raise ValueError("the tree was compiled from another game")
        t = self.tree
        self.regret = np.zeros(t.num_sequences)
        self.strategy_sum = np.zeros(t.num_sequences)
        self.sigma = np.empty(t.num_sequences)
        kernels.regret_matching(self.regret, t.infoset_offset, self.sigma, False)
        self._reach = np.empty((t.num_players, t.num_nodes))
        self._values = np.empty(t.num_nodes)
        self._all_values = np.empty((t.num_nodes, t.num_players))
        self._decision_nodes = [np.flatnonzero(t.player == p).astype(np.int64) for p in range(t.num_players)]
        self._seq_player = t.infoset_player[t.sequence_infoset].astype(np.int64)

    # one iteration ---------------------------------------------------------------------------------
    def _iterate_once(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        w = averaging_weight(t, cfg.averaging, cfg.delay)
        if cfg.alternating:
            for player in range(self.tree.num_players):
                self._alternating_pass(player, w)
        else:
            self._simultaneous_pass(w)
        if cfg.dcfr_alpha is not None:
            pos, neg, strat = dcfr_factors(t, cfg.dcfr_alpha, cfg.dcfr_beta, cfg.dcfr_gamma)
            kernels.discount(self.regret, self._seq_player, -1, pos, neg)
            self.strategy_sum *= strat

    def _alternating_pass(self, player: int, weight: float) -> None:
        tree, cfg = self.tree, self.config
        kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, self.sigma, self._reach)
        kernels.player_values(tree.parent, tree.parent_sequence, tree.chance_prob, self.sigma, tree.utility, player,
                              self._values)
        kernels.accumulate_regrets(self._decision_nodes[player], tree.infoset, tree.infoset_offset, tree.child_ptr,
                                   self._reach, tree.chance_reach, self._values, player, 1.0, self.regret)
        avg_player = player if cfg.average_in == "own" else (player + 1) % tree.num_players
        if weight > 0.0:
            kernels.accumulate_strategy(tree.infoset_offset, tree.infoset_player, tree.infoset_node, self._reach,
                                        self.sigma, avg_player, weight, self.strategy_sum)
        kernels.regret_matching_player(self.regret, tree.infoset_offset, tree.infoset_player, player, self.sigma,
                                       cfg.regret_matching_plus)

    def _simultaneous_pass(self, weight: float) -> None:
        tree = self.tree
        kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, self.sigma, self._reach)
        kernels.expected_values(tree.parent, tree.parent_sequence, tree.chance_prob, self.sigma, tree.utility,
                                self._all_values)
        for player in range(tree.num_players):
            kernels.accumulate_regrets(self._decision_nodes[player], tree.infoset, tree.infoset_offset,
                                       tree.child_ptr, self._reach, tree.chance_reach, self._all_values[:, player],
                                       player, 1.0, self.regret)
        if weight > 0.0:
            kernels.accumulate_strategy(tree.infoset_offset, tree.infoset_player, tree.infoset_node, self._reach,
                                        self.sigma, -1, weight, self.strategy_sum)
        kernels.regret_matching(self.regret, tree.infoset_offset, self.sigma, self.config.regret_matching_plus)

    # policies --------------------------------------------------------------------------------------
    def current_policy(self) -> TabularPolicy:
        return TabularPolicy.from_sequences(self.tree, self.sigma)

    def average_policy(self) -> TabularPolicy:
        return TabularPolicy.from_sequences(self.tree, average_strategy(self.strategy_sum, self.tree.infoset_offset))

    # state -----------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"regret": self.regret, "strategy_sum": self.strategy_sum, "sigma": self.sigma}

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("regret", "strategy_sum", "sigma"):
            value = np.asarray(arrays[name], dtype=np.float64)
            if value.shape != (self.tree.num_sequences,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({self.tree.num_sequences},)")
            getattr(self, name)[:] = value


class AlternatingCFR(CFR):
    """Vanilla CFR with alternating updates."""

    algorithm = "cfr-alt"
    defaults = {"alternating": True}


class CFRPlus(CFR):
    """CFR+ (seed 000 Alg. 3-4): RM+, alternating updates, averaging weight max(t - d, 0)."""

    algorithm = "cfr+"
    defaults = {"alternating": True, "regret_matching_plus": True, "averaging": "linear", "average_in": "next"}


class LinearCFR(CFR):
    """Linear CFR (Brown & Sandholm 2019): iteration t weighted by t in regrets and average."""

    algorithm = "linear-cfr"
    defaults = {"alternating": True, "dcfr_alpha": 1.0, "dcfr_beta": 1.0, "dcfr_gamma": 1.0}


class DCFR(CFR):
    """Discounted CFR with the recommended (alpha, beta, gamma) = (1.5, 0, 2)."""

    algorithm = "dcfr"
    defaults = {"alternating": True, "dcfr_alpha": 1.5, "dcfr_beta": 0.0, "dcfr_gamma": 2.0}

