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

from cfrlab.games.holdem.betting import DECISION, FOLDED, SHOWDOWN
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


@njit(cache=True, nogil=True, parallel=True)
def strategy_table(table, kind, rnd, child, base, stride, nseq):  # pragma: no cover - numba
    """Every infoset's regret-matching (or normalised average) strategy, in the table layout (a node's
    bucket sequences on numba's threads)."""
    out = np.zeros_like(table)
    for node in range(len(kind)):
        if kind[node] != DECISION:
            continue
        for s in prange(nseq[rnd[node]]):
            b = base[node] + stride[node] * s
            regret_matching(table, b, child[node], out[b : b + 3])
    return out


@njit(cache=True, nogil=True)
def chance_sampled_cfr(seq0, seq1, kind, rnd, player, child, spent, base, stride, div, showdown,
                       regret, average):  # pragma: no cover - numba
    """One CFR iteration per pair ``(seq0[i], seq1[i])`` of last-round bucket sequences."""
    n = len(kind)
    reach = np.empty((n, 2))
    sigma = np.zeros((n, 3))
    value = np.empty(n)
    for it in range(len(seq0)):
        deal_pass(seq0[it], seq1[it], 0, n, 1.0, 1.0, kind, rnd, player, child, spent, base, stride, div, showdown,
                  regret, regret, average, reach, sigma, value)


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


@njit(cache=True, nogil=True)
def _child_blocks(child, rnd, nbuckets, voff, node, out):  # pragma: no cover - numba
    """``_child_block`` of the three actions, as rows of ``out``."""
    for a in range(3):
        c, oc, expand = _child_block(child, rnd, nbuckets, voff, node, a, rnd[node])
        out[a, 0], out[a, 1], out[a, 2] = c, oc, expand


@njit(cache=True, nogil=True, parallel=True)
def forward_reach(probs, kind, rnd, player, child, base, stride, voff, nseq, nbuckets, reach):  # pragma: no cover - numba
    """Both players' reach vectors at every node when they follow ``probs``, from the roots' reaches the caller
    put in ``reach`` (ones at the game's root; the values received at a subtree's root). A node's bucket
    sequences run on numba's threads: each writes its own entries, so any thread count gives the same."""
    blocks = np.empty((3, 3), dtype=np.int64)
    for node in range(len(kind)):
        if kind[node] != DECISION:
            continue
        q = player[node]
        o = voff[node]
        _child_blocks(child, rnd, nbuckets, voff, node, blocks)
        for s in prange(nseq[rnd[node]]):
            for a in range(3):
                oc, expand = blocks[a, 1], blocks[a, 2]  # expand 0 where the action is not legal
                pr = probs[base[node] + stride[node] * s + a]
                for e in range(expand):
                    reach[q, oc + s * expand + e] = reach[q, o + s] * pr
                    reach[1 - q, oc + s * expand + e] = reach[1 - q, o + s]


@njit(cache=True, nogil=True, parallel=True)
def backward_values(p, mode, weight, probs, kind, rnd, player, child, base, stride, voff, nseq, nbuckets,
                    regret, average, reach, value, discount, prediction):  # pragma: no cover - numba
    """Player p's counterfactual values from the terminals' (already in ``value``) up; return p's root value.

    ``mode``: UPDATE_PLUS (regret matching+ update of p's regrets, average += weight * reach * probs),
    BEST_RESPONSE (p maximises), VALUES (p follows ``probs``, nothing updated). The update is the
    full-tree family's (``cfrlab.solvers.cfr``, one player's pass): R <- max(R + r, 0) times ``discount``
    (DCFR+'s factor of this iteration, 1 for CFR+), and where ``prediction`` has entries the instantaneous
    regret r is kept there for predictive regret matching (PCFR+, PDCFR+: the next strategy matches R + r).
    """
    n = len(kind)
    scratch = np.zeros((3, nseq[len(nseq) - 1]))
    blocks = np.empty((3, 3), dtype=np.int64)
    for node in range(n - 1, -1, -1):
        if kind[node] != DECISION:
            continue
        o = voff[node]
        mine = player[node] == p
        start = -np.inf if (mode == BEST_RESPONSE and mine) else 0.0
        update = mine and mode == UPDATE_PLUS
        _child_blocks(child, rnd, nbuckets, voff, node, blocks)
        for s in prange(nseq[rnd[node]]):  # each sequence's entries are its own: any thread count, same sums
            value[o + s] = start
            for a in range(3):
                if blocks[a, 0] >= 0:
                    oc, expand = blocks[a, 1], blocks[a, 2]
                    v = 0.0  # the child's values summed over the next round's buckets
                    for e in range(expand):
                        v += value[oc + s * expand + e]
                    scratch[a, s] = v
                    if not mine:
                        value[o + s] += v
                    elif mode == BEST_RESPONSE:
                        value[o + s] = max(value[o + s], v)
                    else:
                        value[o + s] += probs[base[node] + stride[node] * s + a] * v
            for a in range(3):
                if update and blocks[a, 0] >= 0:
                    b = base[node] + stride[node] * s + a
                    r = scratch[a, s] - value[o + s]
                    regret[b] = max(regret[b] + r, 0.0)
                    regret[b] *= discount  # rounded as stored, then discounted, as the full-tree solvers do
                    if len(prediction) > 0:
                        prediction[b] = r
                    average[b] += weight * reach[p, o + s] * probs[b]
    total = 0.0
    for s in range(nseq[rnd[0]]):
        total += value[voff[0] + s]
    return total
