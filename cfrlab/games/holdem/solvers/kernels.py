"""numba passes over the betting tree of abstract limit hold'em (``holdem_ehs2``).

Tables are flat: the infoset of decision node ``d`` for bucket sequence ``s``
(of the acting player, up to the node's round) owns entries
``base[d] + stride[d] * s + a`` for actions a = fold, call, raise (illegal ones stay 0).
Per-node vectors over bucket sequences (reach, values) start at ``voff[node]``
and have ``nseq[round[node]]`` entries. Nodes are in breadth-first order, so a
forward loop sees parents first and a backward loop children first.

* ``chance_sampled_cfr``: Zinkevich et al. (2008), sec. 4.2 and appendix A.4:
  per iteration one joint bucket sequence drawn from chance, then one pass of
  vanilla CFR (regret matching, simultaneous updates) over that deal's betting
  tree, the "player view tree" of the paper's appendix.
* ``forward_reach`` and ``backward_values``: one full-width pass for one player
  with reach and value vectors over all bucket sequences at once (the chance
  table is applied at the terminals in between, as matrix products, by
  ``cfrlab.games.holdem.solvers.cfr.Layout``), used by CFR+ (Tammelin 2014: regret
  matching+, alternating updates, linear averaging) and by the exact best
  response.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from cfrlab.games.holdem.rules.betting import DECISION, FOLDED, SHOWDOWN

UPDATE_PLUS, BEST_RESPONSE, VALUES = 0, 1, 2
LEAF = 3
"""A node kind of the solvers' own: a subtree's root seen from above, its value given by the caller."""


@njit(cache=True, nogil=True)
def regret_matching(table, b, row, out):  # pragma: no cover - numba
    """Normalised positive part of ``table[b:b+3]`` over the legal actions (uniform if none)."""
    total, legal = 0.0, 0
    for a in range(3):
        out[a] = 0.0
        if row[a] >= 0:
            legal += 1
            if table[b + a] > 0.0:
                out[a] = table[b + a]
                total += table[b + a]
    for a in range(3):
        if row[a] >= 0:
            out[a] = out[a] / total if total > 0.0 else 1.0 / legal


def decision_levels(kind: NDArray[np.int8], child: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The decision nodes by depth (``levels``, level d from ``start[d]`` to ``start[d + 1]``): no node of a
    level is another's ancestor, so a pass runs a level's (node, bucket sequence) items on numba's threads."""
    depth = np.zeros(len(kind), dtype=np.int64)
    for node in range(len(kind)):  # breadth first: parents before children
        kids = child[node][child[node] >= 0]
        depth[kids] = depth[node] + 1
    nodes = np.flatnonzero(kind == DECISION)
    levels = nodes[np.argsort(depth[nodes], kind="stable")].astype(np.int64)
    start = np.concatenate([[0], np.cumsum(np.bincount(depth[levels]))]).astype(np.int64)
    return levels, start


@njit(cache=True, nogil=True)
def _level_items(levels, lo, hi, rnd, nseq):  # pragma: no cover - numba
    """Offsets of each node's bucket sequences among the items of ``levels[lo:hi]``."""
    cum = np.zeros(hi - lo + 1, dtype=np.int64)
    for j in range(lo, hi):
        cum[j - lo + 1] = cum[j - lo] + nseq[rnd[levels[j]]]
    return cum


@njit(cache=True, nogil=True, parallel=True)
def strategy_table(table, out, who, player, rnd, child, base, stride, nseq, levels, start):  # pragma: no cover
    """Regret matching (or the normalised average) of ``table`` into ``out``, in the table layout: at every
    infoset (``who`` -1) or at player ``who``'s only (the rest of ``out`` left as it is)."""
    for d in range(len(start) - 1):
        cum = _level_items(levels, start[d], start[d + 1], rnd, nseq)
        for i in prange(cum[-1]):
            j = np.searchsorted(cum, i, side="right") - 1
            node = levels[start[d] + j]
            if who >= 0 and player[node] != who:
                continue
            b = base[node] + stride[node] * (i - cum[j])
            regret_matching(table, b, child[node], out[b : b + 3])


@njit(cache=True, nogil=True)
def chance_sampled_cfr(seq0, seq1, kind, rnd, player, child, spent, base, stride, div, showdown,
                       regret, average):  # pragma: no cover - numba
    """One CFR iteration per pair ``(seq0[i], seq1[i])`` of last-round bucket sequences."""
    n = len(kind)
    reach = np.empty((n, 2))
    sigma = np.zeros((n, 3))
    value = np.empty(n)
    for it in range(len(seq0)):
        deal_pass(seq0[it], seq1[it], np.int64(0), n, 1.0, 1.0, kind, rnd, player, child, spent, base, stride, div,
                  showdown, regret, regret, average, reach, sigma, value)


@njit(cache=True, nogil=True)
def deal_pass(s0, s1, lo, hi, r0, r1, kind, rnd, player, child, spent, base, stride, div, showdown,
              strategy, regret, average, reach, sigma, value):  # pragma: no cover - numba
    """One vanilla CFR iteration on the deal ``(s0, s1)`` over nodes ``lo .. hi - 1`` (a whole tree or one
    subtree, breadth first, root ``lo`` entered with reaches ``r0, r1``), playing regret matching of
    ``strategy`` (``regret`` itself, or a snapshot) and adding to ``regret`` and ``average``; ``LEAF`` nodes
    keep the value the caller put in ``value``. Returns the root's value for player 0."""
    reach[lo, 0] = r0
    reach[lo, 1] = r1
    for node in range(lo, hi):
        if kind[node] != DECISION:
            continue
        p = player[node]
        b = base[node] + stride[node] * ((s0 if p == 0 else s1) // div[rnd[node]])
        regret_matching(strategy, b, child[node], sigma[node])
        for a in range(3):
            c = child[node, a]
            if c >= 0:
                reach[c, 0] = reach[node, 0]
                reach[c, 1] = reach[node, 1]
                reach[c, p] *= sigma[node, a]
    for node in range(hi - 1, lo - 1, -1):
        if kind[node] == FOLDED:
            value[node] = -spent[node, 0] if player[node] == 0 else spent[node, 1]
        elif kind[node] == SHOWDOWN:
            value[node] = spent[node, 0] * showdown[s0, s1]
        elif kind[node] == DECISION:
            v = 0.0
            for a in range(3):
                if child[node, a] >= 0:
                    v += sigma[node, a] * value[child[node, a]]
            value[node] = v
            p = player[node]
            sign = 1.0 if p == 0 else -1.0
            b = base[node] + stride[node] * ((s0 if p == 0 else s1) // div[rnd[node]])
            for a in range(3):
                c = child[node, a]
                if c >= 0:
                    regret[b + a] += sign * reach[node, 1 - p] * (value[c] - v)
                    average[b + a] += reach[node, p] * sigma[node, a]
    return value[lo]


@njit(cache=True, inline="always")
def _child_block(child, rnd, nbuckets, voff, node, a, k):  # pragma: no cover - numba
    """(child of action a, its value offset, the child's values per sequence of ``node``: the next round's
    bucket count when a round ends there, else 1); child -1 when the action is not legal."""
    c = child[node, a]
    if c < 0:
        return -1, 0, 0
    return c, voff[c], (nbuckets[rnd[c]] if rnd[c] > k else 1)


@njit(cache=True, nogil=True, inline="always")
def _child_sum(child, rnd, nbuckets, voff, value, node, a, k, s):  # pragma: no cover - numba
    """Action a's child's values for sequence s of ``node``, summed over the next round's buckets (0 if illegal)."""
    c, oc, expand = _child_block(child, rnd, nbuckets, voff, node, a, k)
    v = 0.0
    for e in range(expand):
        v += value[oc + s * expand + e]
    return v


@njit(cache=True, nogil=True, parallel=True)
def forward_reach(who, probs, kind, rnd, player, child, base, stride, voff, nseq, nbuckets, levels, start,
                  reach):  # pragma: no cover - numba
    """Both players' reach vectors (``who`` -1; else player ``who``'s only) at every node when they follow
    ``probs``, from the roots' reaches the caller put in ``reach`` (ones at the game's root; the values received
    at a subtree's root). Level by level (``decision_levels``), a level's (node, sequence) items on numba's
    threads: each writes its own entries, so any thread count gives the same."""
    for d in range(len(start) - 1):
        cum = _level_items(levels, start[d], start[d + 1], rnd, nseq)
        for i in prange(cum[-1]):
            j = np.searchsorted(cum, i, side="right") - 1
            node = levels[start[d] + j]
            s = i - cum[j]
            q, o, k = player[node], voff[node], rnd[node]
            mover, waiter = who < 0 or who == q, who < 0 or who == 1 - q
            for a in range(3):
                c, oc, expand = _child_block(child, rnd, nbuckets, voff, node, a, k)
                pr = probs[base[node] + stride[node] * s + a]
                for e in range(expand):
                    if mover:
                        reach[q, oc + s * expand + e] = reach[q, o + s] * pr
                    if waiter:
                        reach[1 - q, oc + s * expand + e] = reach[1 - q, o + s]


@njit(cache=True, nogil=True, parallel=True)
def backward_values(p, mode, weight, probs, kind, rnd, player, child, base, stride, voff, nseq, nbuckets, levels,
                    start, regret, average, reach, value, discount, prediction):  # pragma: no cover - numba
    """Player p's counterfactual values from the terminals' (already in ``value``) up; return p's root value.

    ``mode``: UPDATE_PLUS (regret matching+ update of p's regrets, average += weight * reach * probs),
    BEST_RESPONSE (p maximises), VALUES (p follows ``probs``, nothing updated). The update is the
    full-tree family's (``cfrlab.solvers.cfr``, one player's pass): R <- max(R + r, 0) times ``discount``
    (DCFR+'s factor of this iteration, 1 for CFR+), and where ``prediction`` has entries the instantaneous
    regret r is kept there for predictive regret matching (PCFR+, PDCFR+: the next strategy matches R + r).
    Deepest level first, a level's items on numba's threads, as ``forward_reach``.
    """
    for d in range(len(start) - 2, -1, -1):
        cum = _level_items(levels, start[d], start[d + 1], rnd, nseq)
        for i in prange(cum[-1]):
            j = np.searchsorted(cum, i, side="right") - 1
            node = levels[start[d] + j]
            s = i - cum[j]
            k, o, b = rnd[node], voff[node], base[node] + stride[node] * s
            mine = player[node] == p
            v0 = _child_sum(child, rnd, nbuckets, voff, value, node, 0, k, s)
            v1 = _child_sum(child, rnd, nbuckets, voff, value, node, 1, k, s)
            v2 = _child_sum(child, rnd, nbuckets, voff, value, node, 2, k, s)
            total = -np.inf if (mode == BEST_RESPONSE and mine) else 0.0
            for a in range(3):
                if child[node, a] >= 0:
                    v = v0 if a == 0 else (v1 if a == 1 else v2)
                    if not mine:
                        total += v
                    elif mode == BEST_RESPONSE:
                        total = max(total, v)
                    else:
                        total += probs[b + a] * v
            value[o + s] = total
            if mine and mode == UPDATE_PLUS:
                for a in range(3):
                    if child[node, a] >= 0:
                        r = (v0 if a == 0 else (v1 if a == 1 else v2)) - total
                        regret[b + a] = max(regret[b + a] + r, 0.0)
                        regret[b + a] *= discount  # rounded as stored, then discounted, as the full-tree solvers do
                        if len(prediction) > 0:
                            prediction[b + a] = r
                        average[b + a] += weight * reach[p, o + s] * probs[b + a]
    total = 0.0
    for s in range(nseq[rnd[0]]):
        total += value[voff[0] + s]
    return total
