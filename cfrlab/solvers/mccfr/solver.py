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

Two execution paths: ``path="tree"`` runs the numba walker over a compiled
``GameTree`` (``tree_walk``, no Python per node); ``path="generic"`` walks the
game protocol (``sampling``) and never enumerates the tree, for games too large
to compile (OpenSpiel games through the adapter included). The generic path is
"a table store + ``sample_iteration``", the function that Double Neural CFR
reuses with networks in place of the tables.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers.base import Solver
from cfrlab.solvers.mccfr import tree_walk as tw
from cfrlab.solvers.mccfr.arithmetic import record_prediction, table_weight, update_row
from cfrlab.solvers.mccfr.config import AUTO_MAX_NODES, MCCFRConfig
from cfrlab.solvers.mccfr.replicas import ParallelSampler, sampled_tree
from cfrlab.solvers.mccfr.sampling import Increments, Sampler, Walker, chunk_ranges, draw_pass_key, table_strategy_fn
from cfrlab.solvers.regret import average_strategy, averaging_weight, regret_matching


class MCCFR(Solver):
    """Monte Carlo CFR over a compiled tree (numba) or the game protocol; the configurable core of the family."""

    algorithm = "mccfr"
    Config = MCCFRConfig
    first_compile_seconds = 10.5  # the sampled walk: one kernel for every sampling scheme and update rule
    default_sources = {"predictive": "measured (off: no gain on Leduc, BENCHMARKS.md)"}

    def __init__(self, game: Game, config: MCCFRConfig | None = None, *, tree: Any = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        cfg = self.config
        self.rng = as_generator(cfg.seed)
        self.tree = tree if tree is not None else self._compile(game, cfg.path)
        if self.tree is not None and self.tree.fingerprint != game.fingerprint():
            raise ValueError("the tree was compiled from another game")
        self._parallel = ParallelSampler(self) if cfg.workers > 1 or cfg.address is not None else None
        self.nodes_visited = 0
        """Nodes entered by this process's traversals (a throughput measure; not checkpointed)."""
        if self.tree is not None:
            t = self.tree
            self.regret = np.zeros(t.num_sequences)
            self.strategy_sum = np.zeros(t.num_sequences)
            self.last_visit = np.zeros(t.num_infosets, dtype=np.int64)
            self.prediction = tw.new_prediction(t.num_sequences, t.num_infosets, t.num_players, cfg.predictive)
            """Predictive RM's prediction (empty arrays unless ``predictive``)."""
            self._tree = sampled_tree(t)
            self._tables = tw.Tables(self.regret, self.strategy_sum, self.last_visit, self.prediction)
            self._buf = tw.new_sums(t.num_sequences, t.num_infosets)
            self.sums = tw.new_sums(t.num_sequences, t.num_infosets, t.num_players)
            """Each traverser's summed increments of the pass being sampled (tree path)."""
        else:
            self.table_regret: dict[str, NDArray[np.float64]] = {}
            self.table_strategy: dict[str, NDArray[np.float64]] = {}
            self.table_actions: dict[str, tuple[int, ...]] = {}
            self.table_player: dict[str, int] = {}
            self.table_last: dict[str, int] = {}
            self.table_prediction: dict[str, NDArray[np.float64]] = {}
            self.table_predicted_at: dict[str, int] = {}
            self.last_update = np.zeros(game.num_players, dtype=np.int64)
            """Per player, the iteration of its latest table update (predictive: where predictions hold)."""

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
        """The execution path in use: 'tree' or 'generic'."""
        return "tree" if self.tree is not None else "generic"

    # iterations --------------------------------------------------------------------------------
    def _run_iterations(self, n: int) -> None:
        """On a compiled tree in process, all ``n`` iterations in one numba call; else one by one."""
        cfg = self.config
        if self.tree is None or self._parallel is not None or n <= 0:
            super()._run_iterations(n)
            return
        # one key per (iteration, traverser): the same draws, in the same order, as ``_iterate_once``
        keys = self.rng.integers(0, 2**63 - 1, size=(int(n), self.tree.num_players))
        self.nodes_visited += tw.iterate_tree(self._tree, self._tables, self.iterations, keys, cfg.traversal,
                                              cfg.schedule, self._buf, self.sums)
        self.iterations += int(n)

    def _iterate_once(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        weight = averaging_weight(t, cfg.averaging, cfg.delay)
        players = range(self.game.num_players)
        if cfg.alternating:
            for i in players:
                self._apply(i, self._sample(i, draw_pass_key(self.rng)), t, weight)
        else:
            results = [(i, self._sample(i, draw_pass_key(self.rng))) for i in players]
            for i, inc in results:
                self._apply(i, inc, t, weight)

    def _sample(self, traverser: int, pass_key: int) -> Any:
        cfg = self.config
        if self._parallel is not None:
            return self._parallel.sample(traverser, pass_key)
        if self.tree is None:
            walker = Walker(table_strategy_fn(self.table_regret, self._held_prediction if cfg.predictive else None),
                            traverser, cfg, self.game, self.new_sampler())
            total = Increments()
            for start, stop in chunk_ranges(cfg.batch, cfg.chunk):
                total.add(walker.run(self.game, pass_key, start, stop))
            self.nodes_visited += walker.visited
            return total
        raise AssertionError("in-process tree passes run in iterate_tree")

    def _held_prediction(self, key: str) -> NDArray[np.float64] | None:
        """Generic path, predictive: the infoset's prediction where it holds (``arithmetic.prediction_holds``)."""
        at = self.table_predicted_at.get(key)
        if at is None or at != self.last_update[self.table_player[key]]:
            return None
        return self.table_prediction[key]

    def new_sampler(self) -> Sampler:
        """The generic path's ``Sampler`` for the next pass (a hook: a subclass that samples otherwise, such as a
        targeted search, returns its own; the replicas of ``workers > 1`` use MCCFR's)."""
        return Sampler(self.config)

    def _apply(self, traverser: int, inc: Any, t: int, weight: float) -> None:
        cfg = self.config
        lazy = cfg.average_update == "lazy"
        if self.tree is not None:
            tot = tw.sums_row(self.sums, traverser)
            if self._parallel is not None:
                self._parallel.updated(tot.touched[:tot.n[0]])
            tw.apply_increments(self._tree, traverser, tot, self._tables, cfg.schedule, lazy, weight, t)
            return
        if self._parallel is not None:
            self._parallel.updated(inc.keys())
        avg_scheme, plus = cfg.schedule.avg_scheme, cfg.regret_matching_plus
        for key, row in inc.items():
            r = self.table_regret.get(key)
            if r is None:
                n = len(row.actions)
                r = self.table_regret[key] = np.zeros(n)
                self.table_strategy[key] = np.zeros(n)
                self.table_actions[key] = row.actions
                self.table_player[key] = row.player
                self.table_last[key] = 0
            owner = row.player == traverser
            w = table_weight(weight, lazy, owner, t, self.table_last[key], avg_scheme, cfg.delay)
            if lazy and not owner:
                self.table_last[key] = t
            update_row(r, self.table_strategy[key], row.regret, row.strategy, plus, w)
            if cfg.predictive and owner:
                self.table_prediction[key] = np.zeros(len(row.actions))
                record_prediction(self.table_prediction[key], row.regret)
                self.table_predicted_at[key] = t
        self.last_update[traverser] = t

    def close(self) -> None:
        """Release the worker pool and its replicas (if any)."""
        if self._parallel is not None:
            self._parallel.close()

    # policies ----------------------------------------------------------------------------------
    def current_policy(self) -> TabularPolicy:
        """sigma^{t+1}: regret matching of the regrets (predictive: of R + m where the prediction holds)."""
        if self.tree is not None:
            played = self.regret
            if self.config.predictive:
                t, m = self.tree, self.prediction
                holds = m.at == m.last_update[t.infoset_player]
                played = self.regret + np.where(holds[t.sequence_infoset], m.m, 0.0)
            return TabularPolicy.from_sequences(self.tree, regret_matching(played, self.tree.infoset_offset))
        if not self.config.predictive:
            return self._table_policy(self.table_regret)
        played_rows = {}
        for key, r in self.table_regret.items():
            m = self._held_prediction(key)
            played_rows[key] = r if m is None else r + m
        return self._table_policy(played_rows)

    def average_policy(self) -> TabularPolicy:
        """Normalised strategy sums (uniform where never accumulated); generic path: the infosets seen so far."""
        if self.tree is not None:
            return TabularPolicy.from_sequences(self.tree,
                                                average_strategy(self.strategy_sum, self.tree.infoset_offset))
        return self._table_policy(self.table_strategy)

    def _table_policy(self, table: Mapping[str, NDArray[np.float64]]) -> TabularPolicy:
        keys = list(self.table_actions)
        probs = np.zeros((len(keys), self.game.max_actions))
        mask = np.zeros_like(probs, dtype=bool)
        for row, key in enumerate(keys):
            actions = list(self.table_actions[key])
            values = table[key]
            probs[row, actions] = regret_matching(values, np.array([0, len(actions)], dtype=np.int64))
            mask[row, actions] = True
        return TabularPolicy(keys, probs, mask)

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        """Cumulative regrets by infoset key (either path), for tests and inspection."""
        if self.tree is None:
            return {k: v.copy() for k, v in self.table_regret.items()}
        off = self.tree.infoset_offset
        return {k: self.regret[off[i]:off[i + 1]].copy() for i, k in enumerate(self.tree.infoset_keys)}

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        """Strategy sums by infoset key (either path)."""
        if self.tree is None:
            return {k: v.copy() for k, v in self.table_strategy.items()}
        off = self.tree.infoset_offset
        return {k: self.strategy_sum[off[i]:off[i + 1]].copy() for i, k in enumerate(self.tree.infoset_keys)}

    # state -------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        if self.tree is not None:
            arrays = {"regret": self.regret, "strategy_sum": self.strategy_sum, "last_visit": self.last_visit}
            if self.config.predictive:
                m = self.prediction
                arrays.update(prediction=m.m, predicted_at=m.at, last_update=m.last_update)
            return arrays
        keys = list(self.table_actions)
        sizes = [len(self.table_actions[k]) for k in keys]
        cat = lambda tab: np.concatenate([tab[k] for k in keys]) if keys else np.zeros(0)  # noqa: E731
        if self.config.predictive:
            zeros = {k: np.zeros(len(self.table_actions[k])) for k in keys}
            return {**self._table_arrays(keys, sizes, cat), "prediction": cat({**zeros, **self.table_prediction}),
                    "predicted_at": np.array([self.table_predicted_at.get(k, -1) for k in keys], dtype=np.int64),
                    "last_update": self.last_update}
        return self._table_arrays(keys, sizes, cat)

    def _table_arrays(self, keys: list[str], sizes: list[int], cat: Any) -> dict[str, np.ndarray]:
        """The generic path's tables as flat arrays (rows in ``keys`` order)."""
        return {
            "keys": np.array(keys, dtype=np.str_),
            "offset": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "actions": np.array([a for k in keys for a in self.table_actions[k]], dtype=np.int64),
            "player": np.array([self.table_player[k] for k in keys], dtype=np.int64),
            "last_visit": np.array([self.table_last[k] for k in keys], dtype=np.int64),
            "regret": cat(self.table_regret),
            "strategy_sum": cat(self.table_strategy),
        }

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        if self._parallel is not None:
            self._parallel.sync_all = True
        if self.tree is not None:
            m = self.prediction
            targets = [("regret", self.regret), ("strategy_sum", self.strategy_sum), ("last_visit", self.last_visit)]
            if self.config.predictive:
                targets += [("prediction", m.m), ("predicted_at", m.at), ("last_update", m.last_update)]
            for name, target in targets:
                value = np.asarray(arrays[name])
                if value.shape != target.shape:
                    raise ValueError(f"{name} has shape {value.shape}, expected {target.shape}; was it saved by the "
                                     "generic path? use the same path to resume")
                target[:] = value
            return
        if "keys" not in arrays:
            raise ValueError("checkpoint holds compiled-tree tables; resume it with path='tree'")
        keys = [str(k) for k in arrays["keys"]]
        off = np.asarray(arrays["offset"], dtype=np.int64)
        acts, regret, strat = arrays["actions"], arrays["regret"], arrays["strategy_sum"]
        self.table_regret, self.table_strategy, self.table_actions = {}, {}, {}
        self.table_player, self.table_last = {}, {}
        for i, key in enumerate(keys):
            lo, hi = off[i], off[i + 1]
            self.table_actions[key] = tuple(int(a) for a in acts[lo:hi])
            self.table_regret[key] = np.array(regret[lo:hi], dtype=np.float64)
            self.table_strategy[key] = np.array(strat[lo:hi], dtype=np.float64)
            self.table_player[key] = int(arrays["player"][i])
            self.table_last[key] = int(arrays["last_visit"][i])
        self.table_prediction, self.table_predicted_at = {}, {}
        if self.config.predictive:
            self.last_update[:] = arrays["last_update"]
            for i, key in enumerate(keys):
                if arrays["predicted_at"][i] >= 0:
                    self.table_prediction[key] = np.array(arrays["prediction"][off[i]:off[i + 1]], dtype=np.float64)
                    self.table_predicted_at[key] = int(arrays["predicted_at"][i])

    def _extra_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        if "rng" in extra:
            self.rng.bit_generator.state = extra["rng"]


# presets -----------------------------------------------------------------------------------------
def _preset(name: str, algorithm: str, citation: tuple[str, str], doc: str, **defaults: Any) -> type[MCCFR]:
    """``MCCFR`` registered as ``algorithm`` with other config defaults."""
    return type(name, (MCCFR,), {"algorithm": algorithm, "citation": citation, "defaults": defaults,
                                 "__doc__": doc, "__module__": __name__, "__qualname__": name})


ExternalSamplingMCCFR = _preset(
    "ExternalSamplingMCCFR", "external", ("external-sampling Monte Carlo CFR", "Lanctot, Waugh, Zinkevich & Bowling 2009"),
    "External-sampling MCCFR (seed 001 Alg. 3): the traverser explores all actions, the rest is sampled.",
    sampling="external")
OutcomeSamplingMCCFR = _preset(
    "OutcomeSamplingMCCFR", "outcome", ("outcome-sampling Monte Carlo CFR", "Lanctot, Waugh, Zinkevich & Bowling 2009"),
    "Outcome-sampling MCCFR (seed 001 Alg. 4): one sampled terminal history per traversal, eps-exploration.",
    sampling="outcome")
RobustSamplingMCCFR = _preset(
    "RobustSamplingMCCFR", "robust",
    ("robust-sampling Monte Carlo CFR (k actions per traverser node)", "Li et al. 2020"),
    "Robust-sampling MCCFR (seed 000 sec. 6.6-6.7): the traverser draws min(k, |A(I)|) actions.",
    sampling="robust")
ChanceSamplingMCCFR = _preset(
    "ChanceSamplingMCCFR", "chance", ("chance-sampling CFR", "Zinkevich et al. 2008; Lanctot et al. 2009"),
    "Chance-sampling MCCFR: chance sampled once per node, every player action explored.",
    sampling="chance")
MiniBatchMCCFRPlus = _preset(
    "MiniBatchMCCFRPlus", "mccfr+", ("mini-batch MCCFR+ with robust sampling", "Li et al. 2020"),
    "Mini-batch MCCFR+ with robust sampling (seed 000 Alg. 5-6): RM+, linear averaging, batch b.",
    sampling="robust", k=3, regret_matching_plus=True, averaging="linear", batch=16)
MiniBatchMCCFRPlus.default_iterations = 6_000  # below 5e-3 on Kuhn for seeds 0-2 (Leduc: 40,000 to about 0.04)
MiniBatchMCCFRPlus.default_sources = {  # k = 3: BENCHMARKS.md, "Learned defaults" (k = 1 was 5x worse on Leduc)
    "k": "measured (k = 1 before)", "sampling": "seed 000 Alg. 5-6", "regret_matching_plus": "seed 000 Alg. 5-6",
    "averaging": "seed 000 Alg. 5-6", "batch": "ours (the seed gives none)",
    "*": "the MCCFR default"}
