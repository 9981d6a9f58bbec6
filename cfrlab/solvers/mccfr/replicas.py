"""Parallel mini-batches of MCCFR (seed 000 sec. 7.1): long-lived replicas on Ray workers.

Each replica (a Ray actor, ``WorkerPool.actors``) holds the game or the compiled
tree and a copy of the regret table. Each pass sends them the regret rows the
driver changed since their last pass (new values, so the copies are exact) and
one contiguous run of chunks each; they return every chunk's increments
(sparse: the infosets touched), which the driver adds in chunk order, as one
process does. The first replica's chunks are a prefix of that order, so on the
generic path it sums them itself. Results therefore do not depend on the
number of workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.distributed import split_evenly
from cfrlab.solvers.mccfr import tree_walk as tw
from cfrlab.solvers.mccfr.config import MCCFRConfig
from cfrlab.solvers.mccfr.sampling import Increments, InfosetIncrement, Walker, chunk_ranges, table_strategy_fn

Packed = tuple[list[str], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64],
               NDArray[np.float64]]
"""``Increments`` as flat arrays (keys, players, sizes, actions, regret, strategy): cheap to pickle."""


def pack(inc: Increments) -> Packed:
    """``inc`` as flat arrays."""
    rows = list(inc.values())
    return (list(inc), np.array([r.player for r in rows], dtype=np.int64),
            np.array([len(r.actions) for r in rows], dtype=np.int64), _concat([r.actions for r in rows], np.int64),
            _concat([r.regret for r in rows], np.float64), _concat([r.strategy for r in rows], np.float64))


def _concat(xs: list[Any], dtype: type[np.generic]) -> np.ndarray:
    return np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype)


def add_packed(total: Increments, packed: Packed) -> None:
    """``total.add`` of a packed ``Increments`` (the same arithmetic: a new key is copied, others added)."""
    keys, players, sizes, actions, regret, strategy = packed
    rows, pos = Increments(), 0
    for key, player, n in zip(keys, players.tolist(), sizes.tolist()):
        stop = pos + n
        rows[key] = InfosetIncrement(player, tuple(actions[pos:stop].tolist()), regret[pos:stop], strategy[pos:stop])
        pos = stop
    total.add(rows)


class GenericReplica:
    """A worker's copy of the game and of the regret table (generic path)."""

    def __init__(self, spec: str, config: MCCFRConfig) -> None:
        from cfrlab.registry import load_game

        self.game = load_game(spec)
        self.config = config
        self.regret: dict[str, NDArray[np.float64]] = {}
        self.strategy = table_strategy_fn(self.regret)

    def run(self, sync: tuple[bool, list[str], NDArray[np.int64], NDArray[np.float64]], traverser: int,
            pass_key: int, ranges: Sequence[tuple[int, int]], merge: bool) -> tuple[list[Packed], int]:
        """Update the regret copy with ``sync`` (the whole table if its flag is set), then sample the chunks
        ``ranges`` (summed if ``merge``)."""
        full, keys, sizes, values = sync
        if full:
            self.regret.clear()  # in place: ``self.strategy`` reads this dict
        pos = 0
        for key, n in zip(keys, sizes.tolist()):
            self.regret[key] = values[pos:pos + n].copy()
            pos += n
        walker = Walker(self.strategy, traverser, self.config, self.game)
        parts = [walker.run(self.game, pass_key, a, b) for a, b in ranges]
        if merge and parts:
            total = Increments()
            for part in parts:
                total.add(part)
            parts = [total]
        return [pack(p) for p in parts], walker.visited


class TreeReplica:
    """A worker's copy of the compiled tree and of the regret array (tree path)."""

    def __init__(self, tree: Any, config: MCCFRConfig) -> None:
        # own read-only copies, as the solver's tree arrays are (``cfrlab.tree.arrays``): the walk then runs the
        # signature compiled (and cached) in process instead of compiling another (4 CPU-seconds a fresh worker)
        self.tree = tw.SampledTree._make([*(_read_only(a) for a in sampled_tree(tree)[:-1]), int(tree.depth.max())])
        self.config = config
        self.regret = np.zeros(tree.num_sequences)
        self.buf = tw.new_sums(tree.num_sequences, tree.num_infosets)
        self.no_prediction = tw.new_prediction(0, 0, 0, False)  # (predictive MCCFR runs in one process)

    def run(self, sync: tuple[NDArray[np.int64], NDArray[np.float64]], traverser: int, pass_key: int,
            ranges: Sequence[tuple[int, int]]) -> tuple[NDArray[np.int64], NDArray[np.float64],
                                                        NDArray[np.float64], int]:
        """Update the regret copy with ``sync``, then sample the chunks ``ranges``; their sparse sums, in order."""
        seqs, values = sync
        self.regret[seqs] = values
        opt, rule = self.config.traversal, self.config.schedule.rule
        ids: list[np.ndarray] = []
        r: list[np.ndarray] = []
        s: list[np.ndarray] = []
        visited = 0
        for a, b in ranges:
            visited += tw.run_chunk(self.tree, self.regret, self.no_prediction, traverser, opt, rule, pass_key, a, b,
                                    self.buf)
            for out, part in zip((ids, r, s), tw.take_chunk(self.tree.offset, self.buf)):
                out.append(part)
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), 0
        return np.concatenate(ids), np.concatenate(r), np.concatenate(s), int(visited)


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    copy = np.array(array)
    copy.setflags(write=False)
    return copy


def sampled_tree(tree: Any) -> tw.SampledTree:
    """The arrays of a ``GameTree`` that the sampled walk reads."""
    return tw.SampledTree(tree.child_ptr, tree.player, tree.infoset, tree.infoset_offset, tree.infoset_player,
                          tree.utility, tree.chance_prob, int(tree.depth.max()))


class ParallelSampler:
    """The replicas of one solver, and the regret rows they have not seen yet."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver
        self.pool: Any = None
        self.replicas: Any = None
        self.sync_all = True  # the replicas' regret copies need the whole table
        self.dirty: list[NDArray[np.int64]] = []  # tree: infosets updated since the replicas' last pass
        self.dirty_keys: set[str] = set()  # generic: the same, by key

    def sample(self, traverser: int, pass_key: int) -> Increments | None:
        """One pass on the replicas: generic path, its increments; tree path, summed into ``solver.sums``."""
        solver, cfg = self.solver, self.solver.config
        replicas = self._start()
        groups = split_evenly(chunk_ranges(cfg.batch, cfg.chunk), replicas.size)
        sync = self._take_sync()
        if solver.tree is None:
            total = Increments()
            results = replicas.call("run", [(traverser, pass_key, g, j == 0) for j, g in enumerate(groups)],
                                    common=(sync,))
            for packs, visited in results:
                for packed in packs:  # chunk order (the first replica's chunks arrive summed: a prefix)
                    add_packed(total, packed)
                solver.nodes_visited += visited
            return total
        tot = tw.sums_row(solver.store.sums, traverser)
        for ids, r, s, visited in replicas.call("run", [(traverser, pass_key, g) for g in groups], common=(sync,)):
            tw.add_sparse(solver.tree.infoset_offset, ids, r, s, tot)  # chunk order, as in process
            solver.nodes_visited += visited
        return None

    def _start(self) -> Any:
        if self.replicas is None:
            from cfrlab import distributed

            solver, cfg = self.solver, self.solver.config
            if self.pool is None:
                self.pool = distributed.WorkerPool(cfg.workers, address=cfg.address)
            if solver.tree is None:
                self.replicas = self.pool.actors(GenericReplica, solver.game.spec(), cfg)
            else:
                self.replicas = self.pool.actors(TreeReplica, solver.tree, cfg)
            self.sync_all = True
        return self.replicas

    def _take_sync(self) -> Any:
        """The regret rows changed since the replicas' last pass (all rows after a start or a load)."""
        solver = self.solver
        if solver.tree is not None:
            if self.sync_all:
                seqs = np.arange(solver.tree.num_sequences, dtype=np.int64)
            else:
                ids = np.unique(np.concatenate(self.dirty)) if self.dirty else np.zeros(0, dtype=np.int64)
                seqs = tw.infoset_sequences(solver.tree.infoset_offset, ids.astype(np.int64))
            self.dirty, self.sync_all = [], False
            return seqs, solver.store.regret[seqs]
        full = self.sync_all
        keys = list(solver.store.table_regret) if full else list(self.dirty_keys)
        rows = [solver.store.table_regret[k] for k in keys]
        self.dirty_keys, self.sync_all = set(), False
        return (full, keys, np.array([len(r) for r in rows], dtype=np.int64),
                np.concatenate(rows) if rows else np.zeros(0))

    def updated(self, rows: Any) -> None:
        """Note rows the driver changed (tree: infoset ids; generic: keys), to send at the next pass."""
        if self.replicas is None:
            return
        if isinstance(rows, np.ndarray):
            self.dirty.append(rows.copy())
        else:
            self.dirty_keys.update(rows)

    def close(self) -> None:
        """Release the worker pool and its replicas."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None
        self.replicas = None
        self.dirty, self.dirty_keys, self.sync_all = [], set(), True
