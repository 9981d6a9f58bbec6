"""MCCFR's table stores: what differs between its execution paths, behind one interface.

An ``MCCFR`` solver (``cfrlab.solvers.mccfr.solver``) runs one loop, the seeds' iteration (sample each
traverser's pass, add its increments to the tables); its ``TableStore``, chosen once when the solver is built,
holds the tables and walks them:

* ``TreeStore``: per-sequence arrays over a compiled ``GameTree``, walked in numba (``tree_walk``); its
  iterations run in one numba call (``run``);
* ``DictStore``: rows by infoset key, created as the game-protocol walker (``sampling``) meets infosets, for
  games too large to compile.

Both take every number from ``arithmetic``, so they give the same tables bit for bit. Online Outcome Sampling's
back ends (``cfrlab.solvers.oos``) are stores of the same interface, with a target (``set_target``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.policy import TabularPolicy
from cfrlab.solvers.mccfr import tree_walk as tw
from cfrlab.solvers.mccfr.arithmetic import record_prediction, table_weight
from cfrlab.solvers.mccfr.replicas import sampled_tree
from cfrlab.solvers.mccfr.sampling import Increments, Sampler, Walker, chunk_ranges, table_strategy_fn
from cfrlab.solvers.regret import average_strategy, regret_matching

Row = tuple[list[int], NDArray[np.float64], NDArray[np.float64]]
"""(actions, cumulative regrets, strategy sums) of one infoset."""


class TableStore:
    """The tables of an MCCFR solver and the walk over them (module docstring); ``solver`` gives the game, the
    config, the random stream and the counters."""

    path = ""
    """The execution path's name ('tree', 'generic', or a back end's own)."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver

    def run(self, n: int) -> bool:
        """Run ``n`` iterations in one call where the store can (True); False: the solver iterates one by one."""
        return False

    def sample(self, traverser: int, pass_key: int) -> Any:
        """One in-process pass of ``traverser``: its increments, for ``apply``."""
        raise NotImplementedError(f"the {self.path} store runs its passes in ``run``")

    def apply(self, traverser: int, inc: Any, t: int, weight: float) -> None:
        """Add a pass's increments (``sample``'s, or the replicas') to the tables at iteration ``t``."""
        raise NotImplementedError(f"the {self.path} store applies its passes in ``run``")

    def set_target(self, key: str | None, player: int | None, delta: float, public: bool = False) -> None:
        """Steer a share ``delta`` of the passes through infoset ``key`` of ``player`` (Online Outcome Sampling)."""
        raise ValueError(f"the {self.path} store samples untargeted")

    def current_policy(self) -> TabularPolicy:
        """sigma^{t+1} by infoset key (a store whose rows are not keyed so, such as hashed ones: empty)."""
        return TabularPolicy([], np.zeros((0, self.solver.game.max_actions)),
                             np.zeros((0, self.solver.game.max_actions), dtype=bool))

    def average_policy(self) -> TabularPolicy:
        """The average strategy by infoset key (as ``current_policy``: empty where rows are not keyed)."""
        return self.current_policy()

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        """Cumulative regrets by infoset key (copies)."""
        raise NotImplementedError

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        """Strategy sums by infoset key (copies)."""
        raise NotImplementedError

    def row(self, key: str) -> Row | None:
        """(actions, cumulative regrets, strategy sums) of a stored infoset ``key``; None if not stored."""
        raise NotImplementedError

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The tables as named arrays (checkpoints)."""
        raise NotImplementedError

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Tables saved by ``state_arrays``."""
        raise NotImplementedError


class TreeStore(TableStore):
    """Per-sequence tables over the solver's compiled tree, walked in numba (``tree_walk``)."""

    path = "tree"

    def __init__(self, solver: Any) -> None:
        super().__init__(solver)
        t, cfg = solver.tree, solver.config
        self.tree = t
        self.regret = np.zeros(t.num_sequences)
        self.strategy_sum = np.zeros(t.num_sequences)
        self.last_visit = np.zeros(t.num_infosets, dtype=np.int64)
        self.prediction = tw.new_prediction(t.num_sequences, t.num_infosets, t.num_players, cfg.predictive)
        """Predictive RM's prediction (empty arrays unless ``predictive``)."""
        self.flat = sampled_tree(t)
        self.tables = tw.Tables(self.regret, self.strategy_sum, self.last_visit, self.prediction)
        self.buf = tw.new_sums(t.num_sequences, t.num_infosets)
        self.sums = tw.new_sums(t.num_sequences, t.num_infosets, t.num_players)
        """Each traverser's summed increments of the pass being sampled."""
        self.stack = tw.new_stack(self.flat)

    def run(self, n: int) -> bool:
        """All ``n`` iterations in one numba call, with one key per (iteration, traverser): the same draws, in
        the same order, as the solver's loop."""
        s = self.solver
        cfg = s.config
        keys = s.rng.integers(0, 2**63 - 1, size=(int(n), self.tree.num_players))
        s.nodes_visited += tw.iterate_tree(self.flat, self.tables, s.iterations, keys, cfg.traversal, cfg.schedule,
                                           self.buf, self.sums, self.stack, tw.WHOLE)
        s.iterations += int(n)
        return True

    def apply(self, traverser: int, inc: Any, t: int, weight: float) -> None:
        """The replicas' pass, summed into ``sums`` (``inc`` is None), added to the tables."""
        s = self.solver
        tot = tw.sums_row(self.sums, traverser)
        if s._parallel is not None:
            s._parallel.updated(tot.touched[:tot.n[0]])
        tw.apply_increments(self.flat, traverser, tot, self.tables, s.config.schedule,
                            s.config.average_update == "lazy", weight, t)

    def current_policy(self) -> TabularPolicy:
        """sigma^{t+1}: regret matching of the regrets (predictive: of R + m where the prediction holds)."""
        played = self.regret
        if self.solver.config.predictive:
            t, m = self.tree, self.prediction
            holds = m.at == m.last_update[t.infoset_player]
            played = self.regret + np.where(holds[t.sequence_infoset], m.m, 0.0)
        return TabularPolicy.from_sequences(self.tree, regret_matching(played, self.tree.infoset_offset))

    def average_policy(self) -> TabularPolicy:
        return TabularPolicy.from_sequences(self.tree, average_strategy(self.strategy_sum, self.tree.infoset_offset))

    def _by_key(self, values: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        off = self.tree.infoset_offset
        return {k: values[off[i]:off[i + 1]].copy() for i, k in enumerate(self.tree.infoset_keys)}

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        return self._by_key(self.regret)

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        return self._by_key(self.strategy_sum)

    @functools.cached_property
    def index(self) -> dict[str, int]:
        """Infoset ids by key."""
        return {k: i for i, k in enumerate(self.tree.infoset_keys)}

    def row(self, key: str) -> Row | None:
        i = self.index.get(key)
        return None if i is None else self.row_of(i)

    def row_of(self, i: int) -> Row:
        """``row`` of infoset id ``i``."""
        lo, hi = self.tree.infoset_offset[i], self.tree.infoset_offset[i + 1]
        return [int(a) for a in self.tree.sequence_action[lo:hi]], self.regret[lo:hi], self.strategy_sum[lo:hi]

    def state_arrays(self) -> dict[str, np.ndarray]:
        arrays = {"regret": self.regret, "strategy_sum": self.strategy_sum, "last_visit": self.last_visit}
        if self.solver.config.predictive:
            m = self.prediction
            arrays.update(prediction=m.m, predicted_at=m.at, last_update=m.last_update)
        return arrays

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        m = self.prediction
        targets = [("regret", self.regret), ("strategy_sum", self.strategy_sum), ("last_visit", self.last_visit)]
        if self.solver.config.predictive:
            targets += [("prediction", m.m), ("predicted_at", m.at), ("last_update", m.last_update)]
        for name, target in targets:
            value = np.asarray(arrays[name])
            if value.shape != target.shape:
                raise ValueError(f"{name} has shape {value.shape}, expected {target.shape}; was it saved by the "
                                 "generic path? use the same path to resume")
            target[:] = value


class DictStore(TableStore):
    """Rows by infoset key, created as the game-protocol walker (``sampling.Walker``) meets infosets."""

    path = "generic"

    def __init__(self, solver: Any) -> None:
        super().__init__(solver)
        self.table_regret: dict[str, NDArray[np.float64]] = {}
        self.table_strategy: dict[str, NDArray[np.float64]] = {}
        self.table_actions: dict[str, tuple[int, ...]] = {}
        self.table_player: dict[str, int] = {}
        self.table_last: dict[str, int] = {}
        self.table_prediction: dict[str, NDArray[np.float64]] = {}
        self.table_predicted_at: dict[str, int] = {}
        self.last_update = np.zeros(solver.game.num_players, dtype=np.int64)
        """Per player, the iteration of its latest table update (predictive: where predictions hold)."""

    def sample(self, traverser: int, pass_key: int) -> Increments:
        """One pass of the game-protocol walker, chunk by chunk, with ``new_sampler``'s sampler."""
        s = self.solver
        cfg = s.config
        walker = Walker(table_strategy_fn(self.table_regret, self._held_prediction if cfg.predictive else None),
                        traverser, cfg, s.game, self.new_sampler())
        total = Increments()
        for start, stop in chunk_ranges(cfg.batch, cfg.chunk):
            total.add(walker.run(s.game, pass_key, start, stop))
        s.nodes_visited += walker.visited
        return total

    def new_sampler(self) -> Sampler:
        """The sampler of the next pass: the solver's (``MCCFR.new_sampler``, a subclass's hook)."""
        return self.solver.new_sampler()

    def _held_prediction(self, key: str) -> NDArray[np.float64] | None:
        """Predictive: the infoset's prediction where it holds (``arithmetic.prediction_holds``)."""
        at = self.table_predicted_at.get(key)
        if at is None or at != self.last_update[self.table_player[key]]:
            return None
        return self.table_prediction[key]

    def apply(self, traverser: int, inc: Increments, t: int, weight: float) -> None:
        s = self.solver
        cfg = s.config
        lazy = cfg.average_update == "lazy"
        if s._parallel is not None:
            s._parallel.updated(inc.keys())
        rule, update = s.rule, s.rule.definition.update
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
            # (the kernel's Python function: called as a kernel, the rule is typed at every row, 1.3 times slower)
            w = table_weight.py_func(rule, weight, lazy, owner, t, self.table_last[key])
            if lazy and not owner:
                self.table_last[key] = t
            update(rule.params, t, r, self.table_strategy[key], row.regret, row.strategy, w)
            if cfg.predictive and owner:
                self.table_prediction[key] = np.zeros(len(row.actions))
                record_prediction(self.table_prediction[key], row.regret)
                self.table_predicted_at[key] = t
        self.last_update[traverser] = t

    def current_policy(self) -> TabularPolicy:
        if not self.solver.config.predictive:
            return self._table_policy(self.table_regret)
        played_rows = {}
        for key, r in self.table_regret.items():
            m = self._held_prediction(key)
            played_rows[key] = r if m is None else r + m
        return self._table_policy(played_rows)

    def average_policy(self) -> TabularPolicy:
        """Normalised strategy sums of the infosets seen so far."""
        return self._table_policy(self.table_strategy)

    def _table_policy(self, table: Mapping[str, NDArray[np.float64]]) -> TabularPolicy:
        keys = list(self.table_actions)
        probs = np.zeros((len(keys), self.solver.game.max_actions))
        mask = np.zeros_like(probs, dtype=bool)
        for row, key in enumerate(keys):
            actions = list(self.table_actions[key])
            probs[row, actions] = regret_matching(table[key], np.array([0, len(actions)], dtype=np.int64))
            mask[row, actions] = True
        return TabularPolicy(keys, probs, mask)

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        return {k: v.copy() for k, v in self.table_regret.items()}

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        return {k: v.copy() for k, v in self.table_strategy.items()}

    def row(self, key: str) -> Row | None:
        actions = self.table_actions.get(key)
        return None if actions is None else (list(actions), self.table_regret[key], self.table_strategy[key])

    def state_arrays(self) -> dict[str, np.ndarray]:
        keys = list(self.table_actions)
        sizes = [len(self.table_actions[k]) for k in keys]
        cat = lambda tab: np.concatenate([tab[k] for k in keys]) if keys else np.zeros(0)  # noqa: E731
        arrays = {
            "keys": np.array(keys, dtype=np.str_),
            "offset": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "actions": np.array([a for k in keys for a in self.table_actions[k]], dtype=np.int64),
            "player": np.array([self.table_player[k] for k in keys], dtype=np.int64),
            "last_visit": np.array([self.table_last[k] for k in keys], dtype=np.int64),
            "regret": cat(self.table_regret),
            "strategy_sum": cat(self.table_strategy),
        }
        if self.solver.config.predictive:
            zeros = {k: np.zeros(len(self.table_actions[k])) for k in keys}
            arrays.update(prediction=cat({**zeros, **self.table_prediction}),
                          predicted_at=np.array([self.table_predicted_at.get(k, -1) for k in keys], dtype=np.int64),
                          last_update=self.last_update)
        return arrays

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
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
        if self.solver.config.predictive:
            self.last_update[:] = arrays["last_update"]
            for i, key in enumerate(keys):
                if arrays["predicted_at"][i] >= 0:
                    self.table_prediction[key] = np.array(arrays["prediction"][off[i]:off[i + 1]], dtype=np.float64)
                    self.table_predicted_at[key] = int(arrays["predicted_at"][i])
