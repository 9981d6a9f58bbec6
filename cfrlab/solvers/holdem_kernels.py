"""numba passes over the betting tree of abstract limit hold'em (``holdem_ehs2``).

Tables are flat: the infoset of decision node ``d`` for bucket sequence ``s``
(of the acting player, up to the node's round) owns entries
``base[d] + 3 * s + a`` for actions a = fold, call, raise (illegal ones stay 0).
Per-node vectors over bucket sequences (reach, values) start at ``voff[node]``
and have ``nseq[round[node]]`` entries. Nodes are in breadth-first order, so a
forward loop sees parents first and a backward loop children first.

* ``chance_sampled_cfr``: Zinkevich et al. (2008), sec. 4.2 and appendix A.4:
  per iteration one joint bucket sequence drawn from chance, then one pass of
  vanilla CFR (regret matching, simultaneous updates) over that deal's betting
  tree, the "player view tree" of the paper's appendix.
* ``vector_pass``: one full-width pass for one player with reach and value
  vectors over all bucket sequences at once (the chance table applied at the
  terminals as matrix-vector products), used by CFR+ (Tammelin 2014:
  regret matching+, alternating updates, linear averaging) and by the exact best
  response.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FOLDED, SHOWDOWN, DECISION = 0, 1, 2
UPDATE_PLUS, BEST_RESPONSE, VALUES = 0, 1, 2


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


@njit(cache=True, nogil=True)
def strategy_table(table, kind, rnd, child, base, nseq):  # pragma: no cover - numba
    """Every infoset's regret-matching (or normalised average) strategy, in the table layout."""
    out = np.zeros_like(table)
    row = np.empty(3)
    for node in range(len(kind)):
        if kind[node] != DECISION:
            continue
        for s in range(nseq[rnd[node]]):
            b = base[node] + 3 * s
            regret_matching(table, b, child[node], row)
            for a in range(3):
                out[b + a] = row[a]
    return out


@njit(cache=True, nogil=True)
def chance_sampled_cfr(seq0, seq1, kind, rnd, player, child, spent, base, div, showdown,
                       regret, average):  # pragma: no cover - numba
    """One CFR iteration per pair ``(seq0[i], seq1[i])`` of last-round bucket sequences."""
    n = len(kind)
    reach = np.empty((n, 2))
    sigma = np.zeros((n, 3))
    value = np.empty(n)
    for it in range(len(seq0)):
        s_last = (seq0[it], seq1[it])
        reach[0, 0] = 1.0
        reach[0, 1] = 1.0
        for node in range(n):
            if kind[node] != DECISION:
                continue
            p = player[node]
            b = base[node] + 3 * (s_last[p] // div[rnd[node]])
            regret_matching(regret, b, child[node], sigma[node])
            for a in range(3):
                c = child[node, a]
                if c >= 0:
                    reach[c, 0] = reach[node, 0]
                    reach[c, 1] = reach[node, 1]
                    reach[c, p] *= sigma[node, a]
        for node in range(n - 1, -1, -1):
            if kind[node] == FOLDED:
                value[node] = -spent[node, 0] if player[node] == 0 else spent[node, 1]
            elif kind[node] == SHOWDOWN:
                value[node] = spent[node, 0] * showdown[s_last[0], s_last[1]]
            else:
                v = 0.0
                for a in range(3):
                    if child[node, a] >= 0:
                        v += sigma[node, a] * value[child[node, a]]
                value[node] = v
                p = player[node]
                sign = 1.0 if p == 0 else -1.0
                b = base[node] + 3 * (s_last[p] // div[rnd[node]])
                for a in range(3):
                    c = child[node, a]
                    if c >= 0:
                        regret[b + a] += sign * reach[node, 1 - p] * (value[c] - v)
                        average[b + a] += reach[node, p] * sigma[node, a]


@njit(cache=True, nogil=True)
def _terminal(node, p, kind, player, spent, rnd, nseq, jflat, joff, win, reach, voff, out):  # pragma: no cover
    """Counterfactual values of player p at a terminal: utility times the chance table times opponent reach."""
    k = rnd[node]
    size = nseq[k]
    if kind[node] == FOLDED:
        u0 = -spent[node, 0] if player[node] == 0 else spent[node, 1]
        table, start = jflat, joff[k]
    else:
        u0 = spent[node, 0]
        table, start = win, 0
    u = u0 if p == 0 else -u0
    o = voff[node]
    for s in range(size):
        acc = 0.0
        for t in range(size):
            if p == 0:
                acc += table[start + s * size + t] * reach[1, o + t]
            else:
                acc += table[start + t * size + s] * reach[0, o + t]
        out[o + s] = u * acc


@njit(cache=True, nogil=True)
def vector_pass(p, mode, weight, probs, kind, rnd, player, child, spent, base, voff, nseq, nbuckets,
                jflat, joff, win, regret, average, reach, value):  # pragma: no cover - numba
    """Forward reach vectors under ``probs``, then player p's values backward; return p's root value.

    ``mode``: UPDATE_PLUS (regret matching+ update of p's regrets, average += weight * reach * probs),
    BEST_RESPONSE (p maximises), VALUES (p follows ``probs``, nothing updated).
    """
    n = len(kind)
    for s in range(nseq[rnd[0]]):
        reach[0, voff[0] + s] = 1.0
        reach[1, voff[0] + s] = 1.0
    for node in range(n):
        if kind[node] != DECISION:
            continue
        q = player[node]
        k = rnd[node]
        o = voff[node]
        for a in range(3):
            c = child[node, a]
            if c < 0:
                continue
            expand = nbuckets[rnd[c]] if rnd[c] > k else 1
            oc = voff[c]
            for s in range(nseq[k]):
                pr = probs[base[node] + 3 * s + a]
                for e in range(expand):
                    reach[q, oc + s * expand + e] = reach[q, o + s] * pr
                    reach[1 - q, oc + s * expand + e] = reach[1 - q, o + s]
    scratch = np.zeros((3, nseq[len(nseq) - 1]))
    for node in range(n - 1, -1, -1):
        if kind[node] != DECISION:
            _terminal(node, p, kind, player, spent, rnd, nseq, jflat, joff, win, reach, voff, value)
            continue
        k = rnd[node]
        o = voff[node]
        mine = player[node] == p
        for s in range(nseq[k]):
            value[o + s] = -np.inf if (mode == BEST_RESPONSE and mine) else 0.0
        for a in range(3):
            c = child[node, a]
            if c < 0:
                continue
            expand = nbuckets[rnd[c]] if rnd[c] > k else 1
            oc = voff[c]
            for s in range(nseq[k]):
                v = 0.0  # the child's values summed over the next round's buckets
                for e in range(expand):
                    v += value[oc + s * expand + e]
                scratch[a, s] = v
                if not mine:
                    value[o + s] += v
                elif mode == BEST_RESPONSE:
                    value[o + s] = max(value[o + s], v)
                else:
                    value[o + s] += probs[base[node] + 3 * s + a] * v
        if not mine or mode != UPDATE_PLUS:
            continue
        for a in range(3):
            if child[node, a] < 0:
                continue
            for s in range(nseq[k]):
                b = base[node] + 3 * s + a
                regret[b] = max(regret[b] + scratch[a, s] - value[o + s], 0.0)
                average[b] += weight * reach[p, o + s] * probs[b]
    total = 0.0
    for s in range(nseq[rnd[0]]):
        total += value[voff[0] + s]
    return total
