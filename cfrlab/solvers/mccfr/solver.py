"""Monte Carlo CFR: chance, external, outcome and robust sampling, mini-batches, MCCFR+.

One iteration t, for each traverser i (alternating: i's tables are updated
before the next traverser samples; simultaneous: all sample sigma^t first):
  1. draw b sampled blocks Q_j (a mini-batch): chance and the other players
     sample one action by their strategy; i keeps min(k, |A(I)|) actions drawn
     from sigma'_i = eps * uniform + (1 - eps) * sigma_i (seed 000 Alg. 5
     l. 5-15; k = 1 is outcome sampling, k = inf external sampling; chance
     sampling explores every player action and samples chance only);
  2. walk each Q_j depth first, returning the sampled value
     V(h) = sum_{a in A^rs} sigma(a) V(ha) / rho(a), where rho(a) is the
     probability that a is among the drawn actions (sigma^rs(a|I), seed 000 sec. 6.6);
  3. add to r_I[a] the sampled counterfactual regret
     (1 / pi_i^rs(h)) * (1{a drawn} V(ha) / rho(a) - V(h)) (seed 000 sec. 6.7),
     summed over the b blocks (sec. 6.8), clamped at 0 for MCCFR+ (sec. 6.9);
  4. add the current strategy of the other players' visited infosets to the
     strategy sum (see ``average_update``), times the averaging weight w_t;
  5. sigma^{t+1} = regret matching(+) of r (``cfrlab.solvers.regret``); with ``predictive``, of r + m,
     m the infoset's sampled regret from its owner's latest update (Farina, Kroer & Sandholm 2021's
     prediction, on sampled regrets; 0 where that update did not reach, which is the sampled regret there).
The average strategy converges to a Nash equilibrium in two-player zero-sum
games: each sampled regret is an unbiased estimate of the exact one (seed 000
sec. 6.3, Lanctot et al. 2009 Lemma 1), which ``tests/solvers/test_mccfr.py`` checks.

Sources: seed 000 sec. 6-7 (Alg. 5-6: robust sampling, mini-batch MCCFR+),
seed 001 Alg. 3-4 (external and outcome sampling; the lazy strategy sum with c_I).

Deviations from the pseudo-code, and why:
* Regret at traverser nodes with k > 1: seed 000 Alg. 5 l. 32 adds
  (1 - sigma(a)) u_sigma / (pi_i sigma(a)) with u_sigma the sum over *all* drawn
  actions; that equals the estimator of sec. 6.7 only when one action is drawn
  (its derivation sums z through h where it means z through ha). We add
  (V(ha)/rho(a) - V(h)) / pi_i^rs(h), which is unbiased for every k and reduces
  to seed 001 Alg. 3 (k = inf) and Alg. 4 (k = 1). Like the seed's note on
  F = 0, actions not drawn are updated too (with -V(h)/pi_i^rs(h)).
* Values are carried as "value given h was reached" (V above), so no division
  by sigma(a) or pi_i(h) happens: actions of probability 0 stay finite.
* Seed 000 Alg. 6 l. 43-47 traverses both players and then regret-matches
  once; ``alternating=True`` (default) regret-matches after each traverser,
  ``alternating=False`` is the seed's order.
* Strategy sums (``average_update``): ``"stochastic"`` (default) adds
  pi_j(h) sigma_j(I) / q(h) at the other players' visited nodes, q(h) the
  probability the sampler reached h (chance excluded): unbiased for every
  scheme and any number of players; in two-player external sampling it equals
  ``"simple"`` (seed 001 Alg. 3 l. 23: add sigma_j(I)), which is exact in
  expectation only there (OpenSpiel's note). ``"lazy"`` is seed 001 Alg. 4
  l. 27-30: (W(t) - W(c_I)) pi_{-i} sigma(I), c_I <- t, with W the cumulative
  averaging weight (t - c_I for uniform weights); an optimistic, biased
  scheme. ``"traverser"`` is seed 000 Alg. 5 l. 36: pi_i(h) sigma_i(I) at the
  traverser's own nodes; its expectation is weighted by the others' reach of I.
* Randomness: counter-based streams keyed by one draw per pass from the
  solver's Generator (``streams``), so the compiled and generic paths, and any
  number of workers, give the same tables bit for bit; both walkers take every
  number from the same per-infoset functions (``arithmetic``).
  Per-traversal sums are added chunk by chunk (``chunk`` traversals each) in
  chunk order, which fixes the floating-point summation order.
* Parallel mini-batches (seed 000 sec. 7.1; ``workers > 1`` or ``address``):
  long-lived replicas on Ray workers (``replicas``), results independent of
  their number.

Two execution paths, one loop: they differ only in their table store and its
walker (``stores``), chosen once when the solver is built. ``path="tree"``
(``TreeStore``) runs the numba walker over a compiled ``GameTree``
(``tree_walk``, no Python per node); ``path="generic"`` (``DictStore``) walks
the game protocol (``sampling``) and never enumerates the tree, for games too
large to compile (OpenSpiel games through the adapter included). The generic
path is "a table store + ``sample_iteration``", the function that Double
Neural CFR reuses with networks in place of the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers.base import Solver
from cfrlab.solvers.mccfr.config import AUTO_MAX_NODES, MCCFRConfig
from cfrlab.solvers.mccfr.replicas import ParallelSampler
from cfrlab.solvers.mccfr.rules import mccfr_rule, rule_weight
from cfrlab.solvers.mccfr.sampling import Sampler, draw_pass_key
from cfrlab.solvers.mccfr.stores import DictStore, TableStore, TreeStore


class MCCFR(Solver):
    """Monte Carlo CFR over a compiled tree (numba) or the game protocol; the configurable core of the family.

    One loop for every path: the paths differ only in their table store and its walker (``stores``), chosen
    once here (``new_store``)."""

    algorithm = "mccfr"
    Config = MCCFRConfig
    config: MCCFRConfig
    first_compile_seconds = 8.5  # the sampled walk: one kernel for every sampling scheme and update rule
    default_sources = {"predictive": "measured (off: no gain on Leduc, BENCHMARKS.md)"}

    def __init__(self, game: Game, config: MCCFRConfig | None = None, *, tree: Any = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        cfg = self.config
        self.rng = as_generator(cfg.seed)
        self.rule = mccfr_rule(cfg)
        """The update rule with its numbers (``rules``), made once."""
        self.tree = tree if tree is not None else self._compile(game, cfg.path)
        if self.tree is not None and self.tree.fingerprint != game.fingerprint():
            raise ValueError("the tree was compiled from another game")
        self.nodes_visited = 0
        """Nodes entered by this process's traversals (a throughput measure; not checkpointed)."""
        self.store: TableStore = self.new_store()
        """The tables and their walker (``stores``)."""
        self._parallel = ParallelSampler(self) if cfg.workers > 1 or cfg.address is not None else None

    def new_store(self) -> TableStore:
        """The table store of this solver's path: over the compiled tree if there is one, else by infoset key."""
        return TreeStore(self) if self.tree is not None else DictStore(self)

    @staticmethod
    def _compile(game: Game, path: str) -> Any:
        """The compiled tree for ``path`` ('auto': if the game enumerates within ``AUTO_MAX_NODES``), or None."""
        if path == "generic":
            return None
        from cfrlab.tree import load_tree

        if path == "tree":
            return load_tree(game)
        return load_tree(game, max_nodes=AUTO_MAX_NODES, or_none=True)

    @property
    def path(self) -> str:
        """The execution path in use: 'tree', 'generic' (or a store's own, such as an OOS back end's)."""
        return self.store.path

    # iterations --------------------------------------------------------------------------------
    def _run_iterations(self, n: int) -> None:
        """In process, all ``n`` iterations in one call where the store can (numba); else one by one."""
        if n > 0 and self._parallel is None and self.store.run(n):
            return
        super()._run_iterations(n)

    def _iterate_once(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        weight = rule_weight(self.rule, t)
        players = range(self.game.num_players)
        if cfg.alternating:
            for i in players:
                self._apply(i, self._sample(i, draw_pass_key(self.rng)), t, weight)
        else:
            results = [(i, self._sample(i, draw_pass_key(self.rng))) for i in players]
            for i, inc in results:
                self._apply(i, inc, t, weight)

    def _sample(self, traverser: int, pass_key: int) -> Any:
        if self._parallel is not None:
            return self._parallel.sample(traverser, pass_key)
        return self.store.sample(traverser, pass_key)

    def new_sampler(self) -> Sampler:
        """The generic path's ``Sampler`` for the next pass (a hook: a subclass that samples otherwise returns its
        own; the replicas of ``workers > 1`` use MCCFR's)."""
        return Sampler(self.config)

    def _apply(self, traverser: int, inc: Any, t: int, weight: float) -> None:
        self.store.apply(traverser, inc, t, weight)

    def close(self) -> None:
        """Release the worker pool and its replicas (if any)."""
        if self._parallel is not None:
            self._parallel.close()

    # policies ----------------------------------------------------------------------------------
    def current_policy(self) -> TabularPolicy:
        """sigma^{t+1}: regret matching of the regrets (predictive: of R + m where the prediction holds)."""
        return self.store.current_policy()

    def average_policy(self) -> TabularPolicy:
        """Normalised strategy sums (uniform where never accumulated); generic path: the infosets seen so far."""
        return self.store.average_policy()

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        """Cumulative regrets by infoset key (either path), for tests and inspection."""
        return self.store.regret_table()

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        """Strategy sums by infoset key (either path)."""
        return self.store.strategy_table()

    # state -------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        return self.store.state_arrays()

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        if self._parallel is not None:
            self._parallel.sync_all = True
        self.store.load_state_arrays(arrays)

    def _extra_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        if "rng" in extra:
            self.rng.bit_generator.state = extra["rng"]


# presets -----------------------------------------------------------------------------------------
class ExternalSamplingMCCFR(MCCFR):
    """External-sampling MCCFR (seed 001 Alg. 3): the traverser explores all actions, the rest is sampled."""

    algorithm = "external"
    citation = ("external-sampling Monte Carlo CFR", "Lanctot, Waugh, Zinkevich & Bowling 2009")
    defaults = {"sampling": "external"}


class OutcomeSamplingMCCFR(MCCFR):
    """Outcome-sampling MCCFR (seed 001 Alg. 4): one sampled terminal history per traversal, eps-exploration."""

    algorithm = "outcome"
    citation = ("outcome-sampling Monte Carlo CFR", "Lanctot, Waugh, Zinkevich & Bowling 2009")
    defaults = {"sampling": "outcome"}


class RobustSamplingMCCFR(MCCFR):
    """Robust-sampling MCCFR (seed 000 sec. 6.6-6.7): the traverser draws min(k, |A(I)|) actions."""

    algorithm = "robust"
    citation = ("robust-sampling Monte Carlo CFR (k actions per traverser node)", "Li et al. 2020")
    defaults = {"sampling": "robust"}


class ChanceSamplingMCCFR(MCCFR):
    """Chance-sampling MCCFR: chance sampled once per node, every player action explored."""

    algorithm = "chance"
    citation = ("chance-sampling CFR", "Zinkevich et al. 2008; Lanctot et al. 2009")
    defaults = {"sampling": "chance"}


class MiniBatchMCCFRPlus(MCCFR):
    """Mini-batch MCCFR+ with robust sampling (seed 000 Alg. 5-6): RM+, linear averaging, batch b."""

    algorithm = "mccfr+"
    citation = ("mini-batch MCCFR+ with robust sampling", "Li et al. 2020")
    defaults = {"sampling": "robust", "k": 3, "regret_matching_plus": True, "averaging": "linear", "batch": 16}
    default_iterations = 6_000  # below 5e-3 on Kuhn for seeds 0-2 (Leduc: 40,000 to about 0.04)
    default_sources = {  # k = 3: BENCHMARKS.md, "Learned defaults" (k = 1 was 5x worse on Leduc)
        "k": "measured (k = 1 before)", "sampling": "seed 000 Alg. 5-6", "regret_matching_plus": "seed 000 Alg. 5-6",
        "averaging": "seed 000 Alg. 5-6", "batch": "ours (the seed gives none)",
        "*": "the MCCFR default"}
