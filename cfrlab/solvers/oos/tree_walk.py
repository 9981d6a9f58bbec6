"""Online Outcome Sampling over a compiled ``GameTree`` (numba): the targeted walk and incremental tables.

The compiled-tree twin of ``cfrlab.solvers.oos`` (Lisy, Lanctot & Bowling
2015; seed 000 sec. 8), for games whose tree compiles (Kuhn, Leduc, small
OpenSpiel games through the adapter). It walks like ``tree_walk.iterate_tree`` with
outcome sampling (its stack loop, on ``tree_walk``'s public names), takes every number
from ``arithmetic`` and ``mixture`` and every draw from ``streams``, in the order
``oos.sampling.TargetedSampler`` and ``sampling.Walker`` do, so both paths give
the same tables bit for bit for the same seed:

* information-set targeting (IST): ``target_mask`` marks the nodes that are a
  prefix or an extension of a history of the target infoset; a targeted sample
  draws, at each node, among the children so marked, with their untargeted
  probabilities renormalised;
* a sample is targeted with probability delta, and the walk carries the
  posterior weights of the two schemes (w_T, w_U), so the probability of each
  draw is the mixture's, w_T t_T(a) + w_U t_U(a), and the importance-weight
  denominator of every increment is delta q_T(z) + (1 - delta) q_U(z);
* incremental tables (``expand``): a pass stores at most one infoset not yet
  stored (the first it touched); elsewhere the players follow the playout
  policy (uniform: their regrets stay zero) and nothing is recorded.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from cfrlab.jit_timing import kernel
from cfrlab.solvers.mccfr import pass_order as po
from cfrlab.solvers.mccfr import tree_walk as tw
from cfrlab.solvers.mccfr.arithmetic import (
    LAZY,
    RHO,
    SIG,
    child_value,
    descend,
    enter_other,
    leave_traverser,
    start_walk,
)
from cfrlab.solvers.mccfr.mixture import draw_traverser_mixed, mix_draw, restrict, targeted_pass, traverser_policy
from cfrlab.solvers.mccfr.rules import rule_weight
from cfrlab.solvers.mccfr.stores import Row, TreeStore
from cfrlab.solvers.mccfr.streams import pick, stream_key, uniform
from cfrlab.tree import kernels
from cfrlab.tree.states import infoset_states

TERMINAL = -4
CHANCE = -1


class Targeting(NamedTuple):
    """How samples are steered: probability ``delta`` of a targeted sample, ``mask`` over the nodes (1 on the
    prefixes and extensions of the target's histories; all ones without a target), the searched ``infoset``
    (-1: none), which incremental tables always store."""

    delta: float
    mask: NDArray[np.int8]
    infoset: int


@kernel
def target_mask(parent, infoset, targets):
    """1 at the nodes that are a prefix (ancestor or self) or an extension (descendant) of a node of an infoset
    flagged in ``targets`` (per infoset); children have larger ids than their parents (BFS order)."""
    n = parent.shape[0]
    up = np.zeros(n, dtype=np.int8)
    down = np.zeros(n, dtype=np.int8)
    for v in range(n):
        if infoset[v] >= 0 and targets[infoset[v]] != 0:
            up[v] = 1
            down[v] = 1
    for v in range(n - 1, 0, -1):
        if up[v] != 0:
            up[parent[v]] = 1
    for v in range(1, n):
        if down[parent[v]] != 0:
            down[v] = 1
    for v in range(n):
        up[v] = up[v] | down[v]
    return up


@kernel(inline="always")
def _targeted_probs(c0, na, mask, untargeted, out):
    """``out[:na]`` = t_T over the children ``c0..c0+na-1``: ``untargeted`` restricted to the marked ones
    (``mixture.restrict``). Returns True (t_T is defined)."""
    for a in range(na):
        out[a] = 1.0 if mask[c0 + a] != 0 else 0.0
    restrict(untargeted, out, na)
    return True


def new_scratch(tree: tw.SampledTree) -> tuple[Any, ...]:
    """``tree_walk``'s stack, plus per depth: the pass ratio, w_T, w_U; and rows for t_T and a chance node's
    probabilities (as wide as the widest node, chance nodes included)."""
    sc = tw.new_stack(tree)
    levels = sc[1].shape[0]
    widest = int(np.diff(tree.child_ptr).max(initial=1))
    return sc, np.ones(levels), np.zeros(levels), np.zeros(levels), np.zeros(widest), np.zeros(widest)


def oos_walk(tree, regret, trav, opt, rule, targeting, pass_key, start, stop, buf, scratch):
    """Outcome-sampling traversals ``start..stop-1`` of traverser ``trav``'s pass keyed ``pass_key``, with IST,
    summed into ``buf``; the nodes visited (``oos_iterate`` with a ``part``; ``regret`` is read, never written;
    ``rule`` the solver's, for its kernel's signature)."""
    tables = tw.Tables(regret, np.zeros(0), np.zeros(0, dtype=np.int64), tw.new_prediction(0, 0, 0, False))
    keys = np.full((1, trav + 1), pass_key, dtype=np.int64)
    return oos_iterate(tree, tables, np.zeros(0, dtype=np.int8), 0, keys, opt, targeting,
                       tw.Schedule(1, 1, True, rule), False, buf, tw.new_sums(0, 0, 1), scratch,
                       (trav, start, stop))


@kernel
def expand(offset, tot, before, stored, incremental, searched):
    """Incremental tables: keep the increments of the infosets stored ``before`` the pass, of the first new one
    ``tot`` touched and of the ``searched`` one (flagged in ``stored``); drop the others (the playout region).
    ``incremental=False`` stores every touched infoset."""
    kept = 0
    new = False
    for j in range(tot.n[0]):
        i = tot.touched[j]
        if before[i] == 0 and incremental and new and i != searched:
            for s in range(offset[i], offset[i + 1]):
                tot.r[s] = 0.0
                tot.s[s] = 0.0
            tot.flag[i] = 0
            continue
        if before[i] == 0:
            stored[i] = 1
            new = True
        tot.touched[kept] = i
        kept += 1
    tot.n[0] = kept


@kernel
def oos_iterate(tree, tables, stored, t0, pass_keys, opt, targeting, sched, incremental, buf, tot, scratch, part):
    """Iterations t0+1 .. t0+len(pass_keys) of OOS (``tree_walk.iterate_tree``'s loop, in ``pass_order``,
    ``part`` included, with outcome-sampling traversals with IST and ``expand``), on ``scratch``
    (``new_scratch``); the nodes visited.
    ``stored`` flags the infosets in the tables.

    Each traversal is ``sampling.Walker.walk`` with ``oos.sampling.TargetedSampler``, as one iterative loop
    (``tree_walk.iterate_tree``'s, its names public there), every number from ``arithmetic`` and ``mixture``;
    written here, not in a kernel of its own, as ``iterate_tree``'s (numba would optimise its code twice).
    """
    sc, ratio, wt, wu, tt, tc = scratch
    F, node, kind, cidx, off2 = sc
    child_ptr, player, infoset, offset = tree.child_ptr, tree.player, tree.infoset, tree.offset
    regret = tables.regret
    mask = targeting.mask
    delta = targeting.delta
    num_players = tree.utility.shape[1]
    lazy = opt.scheme == LAZY
    eps = opt.eps
    visited = 0
    it, trav, j = po.first_traversal(part)
    while it < po.iterations(pass_keys, part):
        t = t0 + it + 1
        key = stream_key(pass_keys[it, trav], j)
        targeted, ctr = targeted_pass(delta, key)
        wt[0] = delta
        wu[0] = 1.0 - delta
        d = np.int64(0)  # int64 from the start: a literal 0 would compile draw_traverser_mixed twice
        node[0] = 0
        start_walk(F)
        mode = tw.ENTER
        ret = 0.0
        while True:
            if mode == tw.ENTER:
                visited += 1
                n = node[d]
                p = player[n]
                if p == TERMINAL:
                    ret = tree.utility[n, trav]
                    mode = tw.RETURN
                    continue
                c0 = child_ptr[n]
                na = child_ptr[n + 1] - c0
                if p != CHANCE:
                    i = np.int64(infoset[n])  # the int64 ids touch takes from add_chunk too
                    lo = offset[i]
                    off2[1] = na
                    sig = F[SIG, d, :na]
                    kernels.regret_matching(regret[lo:lo + na], off2, sig, np.bool_(False))
                    tw.touch(i, buf)
                if p == trav:
                    q = traverser_policy(F, d, na, eps)
                    has_t = wt[d] != 0.0 and _targeted_probs(c0, na, mask, q, tt)
                    a, rho_u, ctr = draw_traverser_mixed(F, d, na, eps, targeted and has_t, tt, key, ctr)
                    F[RHO, d, a], wt[d + 1], wu[d + 1] = mix_draw(wt[d], wu[d], tt[a] if has_t else 0.0,
                                                                  rho_u)
                    kind[d] = tw.FOLLOW | tw.TRAV
                    cidx[d] = -1
                elif p == CHANCE:  # (apart from the others' branch: faster; its probabilities copied:
                    # one array type for every draw, each helper compiled once)
                    tu = tc[:na]
                    for b in range(na):
                        tu[b] = tree.chance_prob[c0 + b]
                    has_t = wt[d] != 0.0 and _targeted_probs(c0, na, mask, tu, tt)
                    a = pick(tt[:na] if targeted and has_t else tu, uniform(key, ctr))
                    ctr += 1
                    m, wt[d + 1], wu[d + 1] = mix_draw(wt[d], wu[d], tt[a] if has_t else 0.0, tu[a])
                    ratio[d] = m / tu[a]
                    kind[d] = tw.PASS
                    node[d + 1] = c0 + a
                    descend(F, d, p, 0, ratio[d])
                    d += 1
                    continue
                else:
                    enter_other(F, d, na, buf.s[lo:lo + na], trav, p, num_players, True, opt.scheme)
                    has_t = wt[d] != 0.0 and _targeted_probs(c0, na, mask, sig, tt)
                    a = pick(tt[:na] if targeted and has_t else sig, uniform(key, ctr))
                    ctr += 1
                    m, wt[d + 1], wu[d + 1] = mix_draw(wt[d], wu[d], tt[a] if has_t else 0.0, sig[a])
                    ratio[d] = m / sig[a]
                    kind[d] = tw.PASS
                    node[d + 1] = c0 + a
                    descend(F, d, p, a, ratio[d])
                    d += 1
                    continue
            else:  # RETURN: ``ret`` is the value of the frame d that just finished
                if d == 0:
                    break
                d -= 1
                if kind[d] == tw.PASS:
                    ret = ret / ratio[d]
                    continue
                child_value(F, d, cidx[d], ret)
            # the traverser's frame at depth d: enter its one drawn child, or leave it
            if tw.enter_next(F, node, cidx, d, child_ptr, player):
                d += 1
                mode = tw.ENTER
                continue
            n = node[d]
            na = child_ptr[n + 1] - child_ptr[n]
            lo = offset[infoset[n]]
            ret = leave_traverser(F, d, na, buf.r[lo:lo + na], buf.s[lo:lo + na], trav, num_players,
                                  True, opt.scheme)
            mode = tw.RETURN
        end = po.closes(trav, j, sched, part, num_players)
        if end >= po.CHUNK_END:
            tw.add_chunk(offset, buf, tw.sums_row(tot, trav))
        if end >= po.PASS_END and sched.alternating:
            row = tw.sums_row(tot, trav)
            expand(offset, row, stored, stored, incremental, targeting.infoset)
            tw.apply_increments(tree, trav, row, tables, sched, lazy, rule_weight(sched.rule, t), t)
        if end == po.ITERATION_END and not sched.alternating:
            before = stored.copy()  # every traverser sampled the same tables
            for i in range(num_players):
                expand(offset, tw.sums_row(tot, i), before, stored, incremental, targeting.infoset)
            for i in range(num_players):
                tw.apply_increments(tree, i, tw.sums_row(tot, i), tables, sched, lazy, rule_weight(sched.rule, t), t)
        it, trav, j = po.advance(it, trav, j, end, part)
    return visited


class TreeSearch(TreeStore):
    """Online Outcome Sampling's back end over a compiled tree: ``TreeStore``'s tables, which infosets are stored,
    the current targeting, and the pass loop (``oos_iterate``)."""

    def __init__(self, solver: Any) -> None:
        super().__init__(solver)
        tree = self.tree
        self.stored = np.zeros(tree.num_infosets, dtype=np.int8)
        self.untargeted = Targeting(0.0, np.ones(tree.num_nodes, dtype=np.int8), -1)
        self.scratch = new_scratch(self.flat)
        self.targeting = self.untargeted
        self._public: NDArray[np.str_] | None = None

    def set_target(self, key: str | None, player: int | None, delta: float, public: bool = False) -> None:
        """Steer a share ``delta`` of the samples through infoset ``key`` of ``player`` (None: untargeted), or
        with ``public`` through its public state (every infoset of ``player`` with its ``public_state_key``)."""
        if key is None or player is None:  # (the solver refuses a key without its player)
            self.targeting = self.untargeted
            return
        tree = self.tree
        i = self.index.get(key)
        if i is None or int(tree.infoset_player[i]) != int(player):
            raise ValueError(f"no history has infoset {key!r} for player {player}")
        targets = np.zeros(tree.num_infosets, dtype=np.int8)
        targets[i] = 1
        if public:
            keys = self.public_keys()
            targets[(keys == keys[i]) & (tree.infoset_player == tree.infoset_player[i])] = 1
        self.targeting = Targeting(float(delta), target_mask(tree.parent, tree.infoset, targets), i)

    def public_keys(self) -> NDArray[np.str_]:
        """The ``public_state_key`` of each infoset (of its first history: all share it); ``ValueError`` for a game
        that defines no public states."""
        if self._public is None:
            game, tree = self.solver.game, self.tree
            try:
                self._public = np.array([s.public_state_key() for s in infoset_states(game, tree)])
            except NotImplementedError:
                raise ValueError(f"{game.spec()} defines no public states (State.public_state_key): "
                                 "use information-set targeting, targeting='ist'") from None
        return self._public

    def run(self, n: int) -> bool:
        """``n`` iterations of OOS over the tables (one numba call)."""
        s = self.solver
        cfg = s.config
        keys = s.rng.integers(0, 2**63 - 1, size=(int(n), self.tree.num_players))
        s.nodes_visited += oos_iterate(self.flat, self.tables, self.stored, s.iterations, keys, cfg.traversal,
                                       self.targeting, cfg.schedule, cfg.expansion == "incremental", self.buf,
                                       self.sums, self.scratch, tw.WHOLE)
        s.iterations += int(n)
        return True

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The tables and which infosets are stored (checkpoints)."""
        return {**super().state_arrays(), "stored": self.stored}

    def load_state_arrays(self, arrays: Any) -> None:
        super().load_state_arrays(arrays)
        self.stored[:] = arrays["stored"]

    def _stored_only(self, table: dict[str, NDArray[np.float64]]) -> dict[str, NDArray[np.float64]]:
        """``table`` (by infoset key, in tree order) restricted to the stored infosets."""
        return {k: v for k, v in table.items() if self.stored[self.index[k]]}

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        """Cumulative regrets of the stored infosets, by key."""
        return self._stored_only(super().regret_table())

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        """Strategy sums of the stored infosets, by key."""
        return self._stored_only(super().strategy_table())

    def row(self, key: str) -> Row | None:
        """(actions, cumulative regrets, strategy sums) of a stored infoset ``key``; None if not stored."""
        i = self.index.get(key)
        return None if i is None or not self.stored[i] else self.row_of(i)
