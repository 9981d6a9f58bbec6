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
* ``dcfr_alpha/beta/gamma``: discounted CFR; linear CFR is (1, 1, 1). With RM+ the
  regrets are never negative and only alpha's discount remains: DCFR+ (Xu et al. 2024).
* ``predictive``: predictive regret matching (Farina, Kroer & Sandholm 2021): the next
  strategy regret-matches R + m, the prediction m being the last instantaneous
  regret (discounted R where DCFR discounting is on, Xu et al. 2024's PDCFR+).
* ``symmetric``: sweep the game's declared symmetry quotient (``Game.symmetry_quotient``:
  Leduc with suits merged) and expand strategies back to the full game
  (``TabularPolicy.expand``); iterates are the full game's, for a fifth of the work.
* ``precision``: float64 or float32 regrets, strategy sums and strategies (float32
  halves the solver's memory; reaches and values stay float64).

The three pieces of the predictive/discounted family are independent options:
prediction (``predictive``), regret discount (``dcfr_alpha``) and averaging weight
(``averaging`` or the ``dcfr_gamma`` discount). PCFR+, DCFR+ and PDCFR+ are presets.

Chance-sampling CFR (seed 001 Alg. 1) samples the tree instead of sweeping it,
so it lives with the other samplers: ``--algo chance`` (``cfrlab.solvers.mccfr``).

Everything runs in numba kernels over flat arrays (``cfrlab.tree.kernels``);
no Python executes per node.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.solvers.regret import AVERAGING_SCHEMES, PRECISIONS, average_strategy, averaging_weight, dcfr_factors
from cfrlab.tree import GameTree, kernels, load_tree

MAX_DCFR_EXPONENT = 64
"""Largest magnitude of a discount exponent: t^a / (t^a + 1) is 1 in float64 for every t >= 2 once a >= 53, and
(t / (t + 1))^g below 2^-64 from t = 1 is no weight: larger exponents mean nothing more (``--dcfr-alpha -1e308`` was
accepted, and discarded every regret)."""


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
    """Discounted CFR: strategy-sum exponent (iteration t weighs t^gamma in the average)."""
    predictive: bool = False
    """Predictive regret matching: play RM(R + r), r the last instantaneous regret (PCFR+, PDCFR+)."""
    precision: str = "float64"
    """'float64' or 'float32' regrets, strategy sums and strategies ('float32' halves their memory)."""
    symmetric: bool = True
    """Sweep the game's symmetry quotient where it declares one (Leduc: suits merged, a fifth of the nodes)."""

    def __post_init__(self) -> None:
        if self.averaging not in AVERAGING_SCHEMES:
            raise ValueError(f"averaging must be one of {AVERAGING_SCHEMES}, got {self.averaging!r}")
        if self.average_in not in ("own", "next"):
            raise ValueError(f"average_in must be 'own' or 'next', got {self.average_in!r}")
        if self.delay < 0:
            raise ValueError(f"delay must be >= 0, got {self.delay}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {self.precision!r}")
        exponents = {"dcfr_alpha": self.dcfr_alpha or 0.0, "dcfr_beta": self.dcfr_beta, "dcfr_gamma": self.dcfr_gamma}
        for name, value in exponents.items():
            if not (math.isfinite(value) and abs(value) <= MAX_DCFR_EXPONENT):
                raise ValueError(f"--{name.replace('_', '-')} must be a finite number in [-{MAX_DCFR_EXPONENT}, "
                                 f"{MAX_DCFR_EXPONENT}], got {value} (beyond, its discount is 0 or 1 in float64)")
        if self.dcfr_alpha is not None and self.dcfr_alpha < 0:  # t^a / (t^a + 1) < 1/2: positive regrets vanish
            raise ValueError(f"--dcfr-alpha must be >= 0, got {self.dcfr_alpha}: below, positive regrets shrink by "
                             "more than half every iteration and the strategy forgets what it learnt")
        if self.dcfr_gamma < 0:  # (t / (t+1))^gamma > 1 would grow the strategy sums without bound
            raise ValueError(f"--dcfr-gamma must be >= 0, got {self.dcfr_gamma}")


class CFR(Solver):
    """Vanilla CFR with simultaneous updates (seed 000 Alg. 1-2); the configurable core of the family."""

    algorithm = "cfr"
    citation = ('vanilla CFR, simultaneous updates', 'Zinkevich, Johanson, Bowling & Piccione 2008')
    Config = CFRConfig
    config: CFRConfig
    tree: GameTree
    first_compile_seconds = 3.0  # BENCHMARKS.md, "First run": 2.6-3.5 CPU-seconds on Leduc (cfr+, cfr, dcfr)

    def __init__(self, game: Game, config: CFRConfig | None = None, *, tree: GameTree | None = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        quotient = game.symmetry_quotient() if self.config.symmetric else None
        self.solved_game = quotient or game
        """The game the kernels sweep: ``game`` itself or its symmetry quotient."""
        self.tree = tree if tree is not None else load_tree(self.solved_game)
        if self.tree.fingerprint != self.solved_game.fingerprint():
            raise ValueError(f"the tree was compiled from another game than {self.solved_game.spec()}")
        t = self.tree
        dtype = np.dtype(self.config.precision)
        self.regret = np.zeros(t.num_sequences, dtype=dtype)
        self.strategy_sum = np.zeros(t.num_sequences, dtype=dtype)
        self.sigma = np.empty(t.num_sequences, dtype=dtype)
        kernels.regret_matching(self.regret, t.infoset_offset, self.sigma, False)
        self._inst = np.zeros(t.num_sequences, dtype=dtype) if self.config.predictive else self.regret
        """Instantaneous regrets of the pass (predictive only; zero between passes, so never saved)."""
        self._values = np.empty(t.num_nodes)
        self._node_values = np.empty(t.num_nodes) if self.config.alternating else self._values
        self._seq_player = t.infoset_player[t.sequence_infoset].astype(np.int64)
        if self.config.alternating:
            self._own_reach = np.empty(t.num_infosets)
            self._parent_seq = np.empty(t.num_infosets, dtype=np.int64)
            kernels.infoset_parent_sequences(t.parent, t.player, t.parent_sequence, t.infoset_player,
                                             t.infoset_node, self._parent_seq)
        else:
            self._reach = np.empty((t.num_players, t.num_nodes))
            self._all_values = np.empty((t.num_nodes, t.num_players))
            self._decision_nodes = [np.flatnonzero(t.player == p).astype(np.int64) for p in range(t.num_players)]

    # one iteration ---------------------------------------------------------------------------------
    def _iterate_once(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        w = averaging_weight(t, cfg.averaging, cfg.delay)
        # the discount applied to R after this iteration, which the prediction anticipates
        pos, neg, strat = (1.0, 1.0, 1.0) if cfg.dcfr_alpha is None else dcfr_factors(
            t, cfg.dcfr_alpha, cfg.dcfr_beta, cfg.dcfr_gamma)
        if cfg.alternating:
            for player in range(self.tree.num_players):
                self._alternating_pass(player, w, pos, neg)
        else:
            self._simultaneous_pass(w, pos, neg)
        if cfg.dcfr_alpha is not None:
            kernels.discount(self.regret, self._seq_player, -1, pos, neg)
            self.strategy_sum *= strat

    def _alternating_pass(self, player: int, weight: float, pos: float, neg: float) -> None:
        """Two sweeps: opponents' reach top-down, then values and regrets bottom-up (zero-reach subtrees skipped)."""
        tree, cfg = self.tree, self.config
        kernels.opponent_reach(tree.parent, tree.player, tree.parent_sequence, tree.chance_prob, self.sigma, player,
                               self._values)
        kernels.values_and_regrets(tree.player, tree.child_ptr, tree.infoset, tree.infoset_offset, tree.chance_prob,
                                   tree.utility, self.sigma, self._values, player, self._node_values, self._inst)
        avg_player = player if cfg.average_in == "own" else (player + 1) % tree.num_players
        if weight > 0.0:
            kernels.accumulate_own_strategy(tree.infoset_offset, tree.infoset_player, self._parent_seq,
                                            tree.sequence_infoset, self.sigma, avg_player, weight, self._own_reach,
                                            self.strategy_sum)
        self._match(player, pos, neg)

    def _simultaneous_pass(self, weight: float, pos: float, neg: float) -> None:
        tree = self.tree
        kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, self.sigma, self._reach)
        kernels.expected_values(tree.parent, tree.parent_sequence, tree.chance_prob, self.sigma, tree.utility,
                                self._all_values)
        for player in range(tree.num_players):
            kernels.accumulate_regrets(self._decision_nodes[player], tree.infoset, tree.infoset_offset,
                                       tree.child_ptr, self._reach, tree.chance_reach, self._all_values[:, player],
                                       player, 1.0, self._inst)
        if weight > 0.0:
            kernels.accumulate_strategy(tree.infoset_offset, tree.infoset_player, tree.infoset_node, self._reach,
                                        self.sigma, -1, weight, self.strategy_sum)
        self._match(-1, pos, neg)

    def _match(self, player: int, pos: float, neg: float) -> None:
        """The next strategy of ``player`` (all if -1) from the regrets the pass accumulated."""
        tree, plus = self.tree, self.config.regret_matching_plus
        if self.config.predictive:
            kernels.predictive_regret_matching(self.regret, self._inst, tree.infoset_offset, tree.infoset_player,
                                               player, plus, pos, neg, self.sigma)
        elif player < 0:
            kernels.regret_matching(self.regret, tree.infoset_offset, self.sigma, plus)
        else:
            kernels.regret_matching_player(self.regret, tree.infoset_offset, tree.infoset_player, player, self.sigma,
                                           plus)

    # policies --------------------------------------------------------------------------------------
    def current_policy(self) -> TabularPolicy:
        return self._policy(self.sigma)

    def average_policy(self) -> TabularPolicy:
        return self._policy(self._average())

    def solved_policy(self) -> tuple[TabularPolicy, Game]:
        """The average policy over the swept tree's infosets (the quotient's, when symmetric), and its game."""
        return TabularPolicy.from_sequences(self.tree, self._average()), self.solved_game

    def _average(self) -> np.ndarray:
        return average_strategy(self.strategy_sum, self.tree.infoset_offset)

    def _policy(self, seq_probs: np.ndarray) -> TabularPolicy:
        """A policy of ``game``: the quotient's strategy expanded to every symmetric infoset (no full tree)."""
        policy = TabularPolicy.from_sequences(self.tree, seq_probs)
        return policy if self.solved_game is self.game else policy.expand(self.game)

    # state -----------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"regret": self.regret, "strategy_sum": self.strategy_sum, "sigma": self.sigma}

    def _check_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Strategy sums are sums of non-negative weights; regret matching+ keeps regrets at or above zero."""
        signed = ("strategy_sum", "regret") if self.config.regret_matching_plus else ("strategy_sum",)
        for name in signed:  # other dtypes are refused by _load_state_arrays
            value = np.asarray(arrays.get(name, 0.0))
            if value.dtype.kind in "iuf" and (value < 0).any():
                raise ValueError(f"{name} holds negative values, which {self.algorithm} never makes")

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("regret", "strategy_sum", "sigma"):
            value = np.asarray(arrays[name])
            if value.dtype != self.regret.dtype:
                raise ValueError(f"{name} is {value.dtype}, this solver keeps {self.regret.dtype}")
            if value.shape != (self.tree.num_sequences,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({self.tree.num_sequences},)")
            getattr(self, name)[:] = value


class AlternatingCFR(CFR):
    """Vanilla CFR with alternating updates."""

    algorithm = "cfr-alt"
    citation = ('vanilla CFR, alternating updates', 'Zinkevich et al. 2008; Burch, Moravcik & Schmid 2019')
    defaults = {"alternating": True}


class CFRPlus(CFR):
    """CFR+ (seed 000 Alg. 3-4): RM+, alternating updates, averaging weight max(t - d, 0)."""

    algorithm = "cfr+"
    citation = ('CFR+: regret matching+, alternating updates, linear averaging',
                'Tammelin, Burch, Johanson & Bowling 2015')
    defaults = {"alternating": True, "regret_matching_plus": True, "averaging": "linear", "average_in": "next"}


class LinearCFR(CFR):
    """Linear CFR (Brown & Sandholm 2019): iteration t weighted by t in regrets and average."""

    algorithm = "linear-cfr"
    citation = ('linear CFR: iteration t weighted by t', 'Brown & Sandholm 2019')
    defaults = {"alternating": True, "dcfr_alpha": 1.0, "dcfr_beta": 1.0, "dcfr_gamma": 1.0}


class DCFR(CFR):
    """Discounted CFR with the recommended (alpha, beta, gamma) = (1.5, 0, 2)."""

    algorithm = "dcfr"
    citation = ('discounted CFR, (alpha, beta, gamma) = (1.5, 0, 2)', 'Brown & Sandholm 2019')
    defaults = {"alternating": True, "dcfr_alpha": 1.5, "dcfr_beta": 0.0, "dcfr_gamma": 2.0}



class PCFRPlus(CFR):
    """Predictive CFR+ (Farina, Kroer & Sandholm 2021): PRM+ with the last instantaneous regret as the
    prediction, alternating updates, quadratic averaging (their experiments' setting)."""

    algorithm = "pcfr+"
    citation = ('predictive CFR+', 'Farina, Kroer & Sandholm 2021')
    defaults = {"alternating": True, "regret_matching_plus": True, "predictive": True, "averaging": "quadratic"}


class DCFRPlus(CFR):
    """DCFR+ (Xu et al. 2024): RM+ whose regrets are discounted by t^1.5/(t^1.5+1) after iteration t,
    iteration t weighing t^4 in the average; alternating updates."""

    algorithm = "dcfr+"
    citation = ("RM+ with DCFR's regret discount", 'Xu et al. 2024')
    defaults = {"alternating": True, "regret_matching_plus": True, "dcfr_alpha": 1.5, "dcfr_gamma": 4.0}


class PDCFRPlus(CFR):
    """PDCFR+ (Xu et al. 2024): DCFR+'s discount (alpha 2.3) with PCFR+'s prediction, averaging weight t^5."""

    algorithm = "pdcfr+"
    citation = ('predictive discounted CFR+', 'Xu et al. 2024')
    defaults = {"alternating": True, "regret_matching_plus": True, "predictive": True, "dcfr_alpha": 2.3,
                "dcfr_gamma": 5.0}
