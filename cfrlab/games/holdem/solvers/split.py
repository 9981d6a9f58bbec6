"""Abstract hold'em split by first-round betting sequence, for Ray workers; chance-sampled CFR's passes.

Zinkevich et al. (2008, sec. 4) parallelise their chance-sampled CFR this way:
betting is public, so the later rounds that follow one first-round betting
sequence form a subtree whose information sets no other subtree shares. Here:

1. A pass takes ``pass_deals`` consecutive sampled deals. The first round plays
   the regret-matching strategy of the regrets at the pass's start (``snapshot``),
   so each deal's reaches at the subtree roots are known at once (``first_round``).
2. Each subtree runs the deals one by one, exactly as the one-process solver
   (``deal_pass``), on a replica (``SubtreeReplica``) that owns the subtree's
   regret and average entries, and returns the root values.
3. The first round's regrets and averages are then updated deal by deal from
   those values, still with the snapshot's strategy.

With one deal per pass this is the one-process solver bit for bit. Subtrees
share nothing, so the tables never depend on how subtrees are spread over
workers: any number of workers gives the same result for the same ``pass_deals``.
Replicas keep their entries between passes; the driver fetches them only
to evaluate or checkpoint (``pull``) and sends them after a load (``push``).
``SubtreeSplit`` holds what any solver split this way needs (the first round,
the subtrees, the replicas); ``cfrlab.games.holdem.solvers.vector`` splits CFR+'s
full-width passes the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.distributed import WorkerPool, split_evenly
from cfrlab.games.holdem.rules.betting import DECISION
from cfrlab.games.holdem.solvers.kernels import LEAF, deal_pass


@njit(cache=True, nogil=True)
def first_round(seq0, seq1, leaves, kind, rnd, player, child, spent, base, stride, div, showdown, snapshot,
                root_values, regret, average, root_reach):  # pragma: no cover - numba
    """Per deal i, one pass over the first round (nodes renumbered from 0, the subtree roots ``LEAF`` nodes
    ``leaves``, worth ``root_values[i]``) playing the strategy of ``snapshot``; the roots' reaches go to
    ``root_reach[i]`` (pass zero values and scratch tables when only the reaches are wanted)."""
    n = len(kind)
    reach = np.empty((n, 2))
    sigma = np.zeros((n, 3))
    value = np.empty(n)
    for i in range(len(seq0)):
        for r in range(len(leaves)):
            value[leaves[r]] = root_values[i, r]
        deal_pass(seq0[i], seq1[i], np.int64(0), n, 1.0, 1.0, kind, rnd, player, child, spent, base, stride, div,
                  showdown, snapshot, regret, average, reach, sigma, value)
        for r in range(len(leaves)):
            root_reach[i, r, 0] = reach[leaves[r], 0]
            root_reach[i, r, 1] = reach[leaves[r], 1]


@njit(cache=True, nogil=True)
def subtrees_cfr(seq0, seq1, root_reach, starts, kind, rnd, player, child, spent, base, stride, div, showdown,
                 regret, average):  # pragma: no cover - numba
    """Deal by deal, one CFR iteration on each subtree ``starts[r] .. starts[r + 1] - 1``; the roots' values."""
    n = starts[len(starts) - 1]
    reach = np.empty((n, 2))
    sigma = np.zeros((n, 3))
    value = np.empty(n)
    out = np.empty((len(seq0), len(starts) - 1))
    for i in range(len(seq0)):
        for r in range(len(starts) - 1):
            out[i, r] = deal_pass(seq0[i], seq1[i], starts[r], starts[r + 1], root_reach[i, r, 0],
                                  root_reach[i, r, 1], kind, rnd, player, child, spent, base, stride, div, showdown,
                                  regret, regret, average, reach, sigma, value)
    return out


@dataclass(frozen=True)
class LocalTree:
    """Some subtrees renumbered from 0 (each contiguous, breadth first) with their own compact tables;
    ``global_index[e]`` is the entry of the whole game's table that local entry ``e`` stands for."""

    starts: NDArray[np.int64]
    kind: NDArray[np.int8]
    rnd: NDArray[np.int64]
    player: NDArray[np.int64]
    child: NDArray[np.int64]
    spent: NDArray[np.float64]
    base: NDArray[np.int64]
    stride: NDArray[np.int64]
    global_index: NDArray[np.int64]


def _descendants(child: NDArray[np.int64], root: int) -> NDArray[np.int64]:
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(int(c) for c in child[node] if c >= 0)
    return np.sort(np.array(nodes, dtype=np.int64))  # breadth-first ids: parents before children


def local_tree(layout: Any, roots: NDArray[np.int64], rounds: int = 1) -> LocalTree:
    """The subtrees under ``roots`` (nodes of ``layout``, a ``cfrlab.games.holdem.solvers.cfr.Layout``, in round
    ``rounds`` or later) as a ``LocalTree``."""
    parts = [_descendants(layout.child, int(r)) for r in roots]
    nodes = np.concatenate(parts)
    local = np.full(len(layout.kind), -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    child = np.where(layout.child[nodes] >= 0, local[np.maximum(layout.child[nodes], 0)], -1)
    base = np.full(len(nodes), -1, dtype=np.int64)
    stride = np.zeros(len(nodes), dtype=np.int64)
    index, offset = [], 0
    rnd = layout.round[nodes]
    for k in range(rounds, len(layout.nseq)):
        mine = np.flatnonzero((layout.kind[nodes] == DECISION) & (rnd == k))
        count = len(mine)
        base[mine] = offset + 3 * np.arange(count)
        stride[mine] = 3 * count
        g = nodes[mine]
        s = np.arange(int(layout.nseq[k]))
        index.append((layout.base[g][None, :, None] + layout.stride[g][None, :, None] * s[:, None, None]
                      + np.arange(3)[None, None, :]).ravel())
        offset += 3 * count * int(layout.nseq[k])
    return LocalTree(np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64),
                     layout.kind[nodes], rnd, layout.player[nodes], child, layout.spent[nodes], base, stride,
                     np.concatenate(index).astype(np.int64))


class ReplicaTables:
    """A worker's subtrees and their regret and average entries (kept between passes); the replicas of each
    solver add how they are set up and run."""

    def take(self, tree: LocalTree) -> None:
        """Own (writable) copies of ``tree``'s arrays, and zero tables."""
        self.tree = LocalTree(*(np.array(getattr(tree, f)) for f in tree.__dataclass_fields__))
        self.regret = np.zeros(len(tree.global_index))
        self.average = np.zeros(len(tree.global_index))

    def load(self, regret: NDArray[np.float64], average: NDArray[np.float64]) -> None:
        self.regret, self.average = np.array(regret, dtype=np.float64), np.array(average, dtype=np.float64)

    def tables(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return self.regret, self.average


class SubtreeReplica(ReplicaTables):
    """Chance-sampled CFR on a worker's subtrees."""

    def setup(self, div: NDArray[np.int64], showdown: NDArray[np.float64], tree: LocalTree) -> None:
        self.take(tree)
        self.div, self.showdown = np.array(div), np.array(showdown)

    def run(self, seq0: NDArray[np.int64], seq1: NDArray[np.int64],
            root_reach: NDArray[np.float64]) -> NDArray[np.float64]:
        t = self.tree
        # writable and contiguous, as in process: Ray's arrays are read-only, for which numba would compile again
        seq0, seq1 = np.require(seq0, requirements=["C", "W"]), np.require(seq1, requirements=["C", "W"])
        root_reach = np.require(root_reach, requirements=["C", "W"])
        return subtrees_cfr(seq0, seq1, root_reach, t.starts, t.kind, t.rnd, t.player, t.child,
                            t.spent, t.base, t.stride, self.div, self.showdown, self.regret, self.average)


def subtree_roots(kind: NDArray[np.int8], rnd: NDArray[np.int64], child: NDArray[np.int64],
                  rounds: int = 1) -> NDArray[np.int64]:
    """The subtree roots below the first ``rounds`` betting rounds: the nodes of round ``rounds`` that
    decisions of earlier rounds lead to (one per betting sequence of those rounds), in node order."""
    top = np.flatnonzero((rnd < rounds) & (kind == DECISION))
    kids = child[top].ravel()
    kids = kids[kids >= 0]
    return np.unique(kids[rnd[kids] >= rounds])


def subtree_of(layout: Any, rounds: int = 1) -> NDArray[np.int64]:
    """Per node, the index of the subtree below the first ``rounds`` rounds holding it (-1: those rounds)."""
    part = np.full(len(layout.kind), -1, dtype=np.int64)
    for r, root in enumerate(subtree_roots(layout.kind, layout.round, layout.child, rounds)):
        part[_descendants(layout.child, int(root))] = r
    return part


class SubtreeSplit:
    """The driver's side of a split by betting sequence of the first ``rounds`` rounds (1: the paper's split):
    those rounds in process (the "top", renumbered from 0, the subtree roots last as ``LEAF`` nodes, its table
    entries the first ``top_size`` of the game's table), the subtrees spread evenly over ``workers``
    replicas of ``replica`` (in process for 1) that own their entries."""

    replica: type = SubtreeReplica

    def __init__(self, layout: Any, workers: int = 1, address: str | None = None, rounds: int = 1) -> None:
        if len(layout.nseq) <= rounds:
            raise ValueError("splitting by first-round betting needs a game of two or more betting rounds"
                             if rounds == 1 else f"splitting below {rounds} betting rounds needs more rounds")
        self.layout = layout
        first = np.flatnonzero(layout.round < rounds)
        self.roots = subtree_roots(layout.kind, layout.round, layout.child, rounds)
        nodes = np.concatenate([first, self.roots])
        local = np.full(len(layout.kind), -1, dtype=np.int64)
        local[nodes] = np.arange(len(nodes))
        kind = layout.kind[nodes].copy()
        kind[len(first):] = LEAF
        self.top = (kind, layout.round[nodes], layout.player[nodes],
                    np.where(layout.child[nodes] >= 0, local[np.maximum(layout.child[nodes], 0)], -1),
                    layout.spent[nodes], layout.base[nodes], layout.stride[nodes])
        self.leaves = np.arange(len(first), len(nodes), dtype=np.int64)
        # the table is round by round: the top's rounds lead it
        self.top_size = sum(3 * len(layout.round_nodes[k]) * int(layout.nseq[k]) for k in range(rounds))
        self.groups = [g for g in split_evenly(list(range(len(self.roots))), workers) if g]
        self.trees = [local_tree(layout, self.roots[g], rounds) for g in self.groups]
        self.workers, self.address = workers, address
        self.pool: Any = None
        self.replicas: Any = None

    def _setup_calls(self) -> tuple[list[tuple], tuple]:
        """Per replica, then common to all: the arguments of ``replica.setup``."""
        return [(t,) for t in self.trees], (self.layout.div, self.layout.showdown)

    def _start(self) -> Any:
        """The replicas, started with zero tables (``push`` fills them)."""
        if self.replicas is None:
            self.pool = WorkerPool(len(self.groups), address=self.address)
            self.replicas = self.pool.actors(self.replica)
            items, common = self._setup_calls()
            self.replicas.call("setup", items, common=common)
        return self.replicas

    @property
    def started(self) -> bool:
        return self.replicas is not None

    def push(self, regret: NDArray[np.float64], average: NDArray[np.float64]) -> None:
        """Send each replica its entries of the tables (after a start or a load)."""
        self._start().call("load", [(regret[t.global_index], average[t.global_index]) for t in self.trees])

    def pull(self, regret: NDArray[np.float64], average: NDArray[np.float64]) -> None:
        """Write the replicas' entries into the tables."""
        if self.replicas is None:
            return
        for t, (r, a) in zip(self.trees, self.replicas.call("tables", [() for _ in self.trees])):
            regret[t.global_index] = r
            average[t.global_index] = a

    def close(self) -> None:
        """Stop the replicas (their entries are lost: ``pull`` first)."""
        if self.pool is not None:
            self.pool.close()
        self.pool, self.replicas = None, None


class SplitRunner(SubtreeSplit):
    """Chance-sampled CFR split by first-round betting (steps 1 to 3 of the module docstring)."""

    def run_pass(self, seq0: NDArray[np.int64], seq1: NDArray[np.int64], snapshot: NDArray[np.float64],
                 regret: NDArray[np.float64], average: NDArray[np.float64]) -> None:
        """One pass (steps 1 to 3 of the module docstring) over the deals ``(seq0[i], seq1[i])``."""
        lay = self.layout
        root_reach = np.zeros((len(seq0), len(self.roots), 2))
        tree = (seq0, seq1, self.leaves, *self.top, lay.div, lay.showdown, snapshot)
        scratch = np.zeros(self.top_size)
        first_round(*tree, np.zeros((len(seq0), len(self.roots))), scratch, scratch.copy(), root_reach)
        parts = self._start().call("run", [(root_reach[:, g],) for g in self.groups], common=(seq0, seq1))
        first_round(*tree, np.concatenate(parts, axis=1), regret, average, root_reach)
