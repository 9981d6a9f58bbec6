"""Full-width vector passes on abstract hold'em, in one process or split by betting sequence for Ray workers.

A pass for player p (``cfrlab.games.holdem.solvers.kernels``) carries both players'
reach vectors over bucket sequences forward, applies the chance table at the
terminals (``VectorTree.backward``: one matrix product per group of terminals)
and carries p's counterfactual values backward, updating p's regrets (CFR+,
Tammelin 2014), maximising (best response) or following the strategy.

``VectorSplitRunner`` splits such passes the way Zinkevich et al. (2008,
sec. 4) split chance-sampled CFR: betting is public, so the subtree after
each betting sequence of the first rounds shares no information set with
another. It splits below the first round, as the paper does (7 subtrees of
equal size on the full deck), or below the first ``rounds`` rounds (2: 63
subtrees, for more than a few workers).

1. The driver runs the first rounds forward and sends each subtree root's two
   reach vectors (over the bucket sequences of the root's round) to the
   replica owning that subtree (``VectorReplica``, its regret and average
   entries kept between passes).
2. Each replica runs the pass on its subtrees and returns each root's value
   vector.
3. The driver runs the first rounds backward from those values.

Terminals are grouped by subtree, round and kind in the one-process pass as on
the replicas, so both compute the same matrix products of the same operands,
and every other step is element by element in the same order: with the split's
replica in process the tables are the one-process solver's bit for bit. On Ray
workers they are the same up to floating-point reassociation: OpenBLAS rounds
a product's rows differently with another thread count (Ray gives each worker
one) or another CPU's kernel; with one BLAS thread in the driver too
(``OPENBLAS_NUM_THREADS=1``) they are bit for bit on one machine. Per pass,
3 vectors over the root round's bucket sequences travel per subtree (25 on
CFR5 below the first round, 125 below the second).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.games.holdem.rules.betting import FOLDED, SHOWDOWN
from cfrlab.games.holdem.solvers.kernels import (
    UPDATE_PLUS,
    backward_values,
    decision_levels,
    forward_reach,
    strategy_table,
)
from cfrlab.games.holdem.solvers.split import LocalTree, ReplicaTables, SubtreeSplit

Group = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]


def terminal_groups(kind: NDArray[np.int8], rnd: NDArray[np.int64], player: NDArray[np.int64],
                    spent: NDArray[np.float64], voff: NDArray[np.int64], nseq: NDArray[np.int64],
                    part: NDArray[np.int64], joints: list[NDArray[np.float64]],
                    win: NDArray[np.float64]) -> list[Group]:
    """Terminals grouped by subtree (``part``), round and kind: value indices, player 0's chips, chance table
    (the round's joint bucket table after a fold, joint times showdown result at a showdown)."""
    groups = []
    for q in np.unique(part):
        for k in range(len(nseq)):
            for what in (FOLDED, SHOWDOWN):
                nodes = np.flatnonzero((kind == what) & (rnd == k) & (part == q))
                if len(nodes) == 0:
                    continue
                paid = spent[nodes]
                u0 = np.where(player[nodes] == 0, -paid[:, 0], paid[:, 1]) if what == FOLDED else paid[:, 0]
                index = voff[nodes][:, None] + np.arange(nseq[k])[None, :]
                groups.append((index, u0, joints[k] if what == FOLDED else win))
    return groups


@dataclass(frozen=True)
class VectorTree:
    """A betting tree (or forest, or the first round with ``LEAF`` roots) with its value-vector offsets and
    terminal groups; ``base`` and ``stride`` address the table its passes read and update."""

    kind: NDArray[np.int8]
    rnd: NDArray[np.int64]
    player: NDArray[np.int64]
    child: NDArray[np.int64]
    base: NDArray[np.int64]
    stride: NDArray[np.int64]
    voff: NDArray[np.int64]
    nseq: NDArray[np.int64]
    nbuckets: NDArray[np.int64]
    groups: list[Group]
    levels: NDArray[np.int64]
    level_start: NDArray[np.int64]

    @classmethod
    def build(cls, kind: NDArray[np.int8], rnd: NDArray[np.int64], player: NDArray[np.int64],
              child: NDArray[np.int64], spent: NDArray[np.float64], base: NDArray[np.int64],
              stride: NDArray[np.int64], nbuckets: NDArray[np.int64], part: NDArray[np.int64],
              joints: list[NDArray[np.float64]], win: NDArray[np.float64]) -> VectorTree:
        nseq = np.cumprod(nbuckets)
        voff = np.concatenate([[0], np.cumsum(nseq[rnd])[:-1]]).astype(np.int64)
        # a writable copy: Ray hands a replica read-only arrays, for which numba would compile the kernels again
        return cls(kind, rnd, player, child, base, stride, voff, nseq, np.array(nbuckets, dtype=np.int64),
                   terminal_groups(kind, rnd, player, spent, voff, nseq, part, joints, win),
                   *decision_levels(kind, child))

    @property
    def size(self) -> int:
        """Entries of a reach or value vector over all nodes."""
        return int(self.voff[-1] + self.nseq[self.rnd[-1]])

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                               np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (self.kind, self.rnd, self.player, self.child, self.base, self.stride, self.voff, self.nseq,
                self.nbuckets, self.levels, self.level_start)

    def strategy(self, table: NDArray[np.float64], out: NDArray[np.float64] | None = None,
                 who: int = -1) -> NDArray[np.float64]:
        """Regret matching of (or the normalised) ``table`` at this tree's decisions, in the table's layout: into
        ``out`` (default: a new table of zeros), at player ``who``'s decisions only unless ``who`` is -1."""
        out = np.zeros_like(table) if out is None else out
        strategy_table(table, out, who, self.player, self.rnd, self.child, self.base, self.stride, self.nseq,
                       self.levels, self.level_start)
        return out

    def forward(self, probs: NDArray[np.float64], reach: NDArray[np.float64], who: int = -1) -> None:
        """Reach vectors at every node (player ``who``'s only unless -1) from those the caller put at the roots."""
        forward_reach(who, probs, *self._arrays(), reach)

    def backward(self, p: int, mode: int, weight: float, probs: NDArray[np.float64], regret: NDArray[np.float64],
                 average: NDArray[np.float64], reach: NDArray[np.float64], value: NDArray[np.float64],
                 discount: float = 1.0, prediction: NDArray[np.float64] | None = None) -> float:
        """Terminal values, then p's values up the tree (``backward_values``: regrets discounted by ``discount``,
        instantaneous regrets kept in ``prediction`` if given); p's value at node 0's root."""
        for index, u0, table in self.groups:
            # v0[s0] = u0 * sum_s1 table[s0, s1] r1[s1];  v1[s1] = -u0 * sum_s0 table[s0, s1] r0[s0]
            # (in the table's precision: the large tables are float32, whose products cost half as much)
            other = reach[1 - p][index].astype(table.dtype, copy=False)
            sign = u0 if p == 0 else -u0
            live = np.flatnonzero(other.any(axis=1))  # a terminal the opponent never reaches is worth 0: skipped
            if len(live) < len(other):
                value[index] = 0.0
                index, sign, other = index[live], sign[live], other[live]
            value[index] = sign[:, None] * (other @ (table.T if p == 0 else table))
        kept = np.zeros(0, dtype=regret.dtype) if prediction is None else prediction
        return backward_values(p, mode, weight, probs, *self._arrays(), regret, average, reach, value, discount, kept)


class VectorReplica(ReplicaTables):
    """A worker's subtrees as a ``VectorTree`` forest, with their regret and average entries."""

    def setup(self, nbuckets: NDArray[np.int64], joints: list[NDArray[np.float64]], win: NDArray[np.float64],
              tree: LocalTree) -> None:
        self.take(tree)
        t = self.tree
        part = np.repeat(np.arange(len(t.starts) - 1), np.diff(t.starts))
        self.vectors = VectorTree.build(t.kind, t.rnd, t.player, t.child, t.spent, t.base, t.stride,
                                        np.asarray(nbuckets), part, joints, win)
        size = int(self.vectors.nseq[t.rnd[0]])  # every root is in the same round
        self.roots = self.vectors.voff[t.starts[:-1]][:, None] + np.arange(size)[None, :]
        self.reach, self.value = np.zeros((2, self.vectors.size)), np.zeros(self.vectors.size)

    def run(self, p: int, mode: int, weight: float, root_reach: NDArray[np.float64]) -> NDArray[np.float64]:
        """One pass for p on the subtrees (reaches at their roots: subtree, player, sequence); the roots' values.
        CFR+ updates (``UPDATE_PLUS``) play the regrets; best responses and values play the averages."""
        probs = self.vectors.strategy(self.regret if mode == UPDATE_PLUS else self.average)
        self.reach[:, self.roots] = np.transpose(root_reach, (1, 0, 2))
        self.vectors.forward(probs, self.reach)
        self.vectors.backward(p, mode, weight, probs, self.regret, self.average, self.reach, self.value)
        return self.value[self.roots]


class VectorSplitRunner(SubtreeSplit):
    """Full-width passes with the first rounds in process and the subtrees on replicas (module docstring)."""

    replica = VectorReplica

    def __init__(self, layout: Any, workers: int = 1, address: str | None = None) -> None:
        super().__init__(layout, workers, address, layout.split_rounds)
        kind, rnd, player, child, spent, base, stride = self.top
        self.vectors = VectorTree.build(kind, rnd, player, child, spent, base, stride, layout.nbuckets,
                                        np.full(len(kind), -1), layout.joints, layout.win)
        size = int(layout.nseq[rnd[self.leaves[0]]])
        self.root_values = self.vectors.voff[self.leaves][:, None] + np.arange(size)[None, :]
        self.reach, self.value = np.zeros((2, self.vectors.size)), np.zeros(self.vectors.size)

    def _setup_calls(self) -> tuple[list[tuple], tuple]:
        return [(t,) for t in self.trees], (self.layout.nbuckets, self.layout.joints, self.layout.win)

    def pass_values(self, p: int, mode: int, weight: float, regret: NDArray[np.float64],
                    average: NDArray[np.float64]) -> float:
        """As ``Layout.pass_values`` on the strategy of ``regret`` (``UPDATE_PLUS``) or of ``average`` (the
        others), whose entries of the first rounds are here and later ones on the replicas; p's root value."""
        top = self.vectors
        probs = top.strategy((regret if mode == UPDATE_PLUS else average)[: self.top_size])
        self.reach[:, : int(self.layout.nseq[0])] = 1.0
        top.forward(probs, self.reach)
        root_reach = np.transpose(self.reach[:, self.root_values], (1, 0, 2))
        parts = self._start().call("run", [(root_reach[g],) for g in self.groups], common=(p, mode, weight))
        self.value[self.root_values] = np.concatenate(parts)  # groups are contiguous runs of the roots, in order
        return top.backward(p, mode, weight, probs, regret, average, self.reach, self.value)
