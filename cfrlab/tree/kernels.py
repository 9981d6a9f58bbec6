"""Numba passes over a compiled tree: reach, values, regret matching and accumulation, best response.

Each kernel walks the flat ``GameTree`` arrays in id order (top-down) or in
reverse id order (bottom-up); breadth-first numbering makes both valid. No
Python runs per node. They are checked through their users: full-tree CFR
iterate for iterate against a plain-Python transcription of the paper's
pseudo-code (``tests/solvers/reference_cfr.py``), the best response against
OpenSpiel's (``tests/tree/test_best_response.py``).
"""

from __future__ import annotations

from cfrlab.jit_timing import kernel

TERMINAL = -4


@kernel
def regret_matching(regret, offset, out, plus):
    """out = RM(regret) per infoset (uniform where no positive regret); RM+ clamps regret first."""
    for i in range(offset.shape[0] - 1):
        lo, hi = offset[i], offset[i + 1]
        total = 0.0
        for s in range(lo, hi):
            r = regret[s]
            if plus and r < 0.0:
                regret[s] = 0.0
                r = 0.0
            if r > 0.0:
                total += r
        for s in range(lo, hi):
            if total > 0.0:
                out[s] = max(regret[s], 0.0) / total
            else:
                out[s] = 1.0 / (hi - lo)


@kernel
def regret_matching_player(regret, offset, infoset_player, player, out, plus):
    """``regret_matching`` restricted to the infosets of ``player``."""
    for i in range(offset.shape[0] - 1):
        if infoset_player[i] != player:
            continue
        lo, hi = offset[i], offset[i + 1]
        total = 0.0
        for s in range(lo, hi):
            if plus and regret[s] < 0.0:
                regret[s] = 0.0
            if regret[s] > 0.0:
                total += regret[s]
        for s in range(lo, hi):
            out[s] = max(regret[s], 0.0) / total if total > 0.0 else 1.0 / (hi - lo)


@kernel
def predictive_regret_matching(regret, inst, offset, infoset_player, player, plus, positive, negative, out):
    """Predictive RM(+) over ``player``'s infosets (all if -1), consuming the instantaneous regrets ``inst``.

    R <- R + r (clamped at zero with ``plus``); out = RM(d(R) + r) with the last instantaneous regret r as
    the prediction (Farina, Kroer & Sandholm 2021) and d the discount the next iteration will apply to R
    (``positive`` / ``negative`` factors, 1 without discounting; Xu et al. 2024). ``inst`` is reset to 0.
    """
    for i in range(offset.shape[0] - 1):
        if player >= 0 and infoset_player[i] != player:
            continue
        lo, hi = offset[i], offset[i + 1]
        total = 0.0
        for s in range(lo, hi):
            r = regret[s] + inst[s]
            if plus and r < 0.0:
                r = 0.0
            regret[s] = r
            r = regret[s]  # as stored (float32 regrets round here)
            q = r * (positive if r > 0.0 else negative) + inst[s]
            if q > 0.0:
                total += q
        for s in range(lo, hi):
            r = regret[s]
            q = r * (positive if r > 0.0 else negative) + inst[s]
            out[s] = max(q, 0.0) / total if total > 0.0 else 1.0 / (hi - lo)
            inst[s] = 0.0


@kernel
def reach_probabilities(parent, player, parent_sequence, sigma, out):
    """out[p, n] = product of player p's action probabilities on the path to n (chance excluded)."""
    out[:, 0] = 1.0
    for n in range(1, parent.shape[0]):
        par = parent[n]
        for p in range(out.shape[0]):
            out[p, n] = out[p, par]
        s = parent_sequence[n]
        if s >= 0:
            out[player[par], n] *= sigma[s]


@kernel
def expected_values(parent, parent_sequence, chance_weight, sigma, utility, out):
    """out[n, :] = expected returns below n under sigma (chance edges weighted by ``chance_weight``)."""
    for n in range(out.shape[0]):  # loops, not ``out[:, :] = utility``: numba compiles that copy's error path
        for p in range(out.shape[1]):  # (shape-mismatch message formatting) for seconds on first use
            out[n, p] = utility[n, p]
    for n in range(parent.shape[0] - 1, 0, -1):
        s = parent_sequence[n]
        w = sigma[s] if s >= 0 else chance_weight[n]
        if w != 0.0:
            par = parent[n]
            for p in range(out.shape[1]):
                out[par, p] += w * out[n, p]


@kernel
def player_values(parent, parent_sequence, chance_weight, sigma, utility, player, out):
    """Like ``expected_values`` for one player's returns only."""
    for n in range(parent.shape[0]):
        out[n] = utility[n, player]
    for n in range(parent.shape[0] - 1, 0, -1):
        s = parent_sequence[n]
        w = sigma[s] if s >= 0 else chance_weight[n]
        if w != 0.0:
            out[parent[n]] += w * out[n]


@kernel
def opponent_reach(parent, player, parent_sequence, chance_prob, sigma, traverser, out):
    """out[n] = pi_{-i}(n): chance times every player but ``traverser``'s action probabilities to n."""
    out[0] = 1.0
    for n in range(1, parent.shape[0]):
        par = parent[n]
        pl = player[par]
        if pl == traverser:
            out[n] = out[par]
        elif pl < 0:
            out[n] = out[par] * chance_prob[n]
        else:
            out[n] = out[par] * sigma[parent_sequence[n]]


@kernel
def values_and_regrets(player, child_ptr, infoset, offset, chance_prob, utility, sigma, opp, traverser, values,
                       regret):
    """One bottom-up sweep: ``traverser``'s value of every node, and regret[I, a] += pi_{-i}(h) (v(ha) - v(h)).

    Nodes the other players and chance never reach (opp == 0) are skipped: nothing above them uses their
    value, and they add no regret, so the pruning is exact (regret-based pruning's zero-reach case).
    """
    for n in range(player.shape[0] - 1, -1, -1):
        pl = player[n]
        if pl == TERMINAL:
            values[n] = utility[n, traverser]
            continue
        o = opp[n]
        if o == 0.0:
            values[n] = 0.0
            continue
        c0 = child_ptr[n]
        c1 = child_ptr[n + 1]
        v = 0.0
        if pl < 0:
            for c in range(c0, c1):
                v += chance_prob[c] * values[c]
        else:
            base = offset[infoset[n]] - c0
            for c in range(c0, c1):
                v += sigma[base + c] * values[c]
            if pl == traverser:
                for c in range(c0, c1):
                    regret[base + c] += o * (values[c] - v)
        values[n] = v


@kernel
def infoset_parent_sequences(parent, player, parent_sequence, infoset_player, infoset_node, out):
    """out[I] = the owner's last own sequence above infoset I (-1 for its first decision); perfect recall."""
    for i in range(infoset_node.shape[0]):
        p = infoset_player[i]
        n = infoset_node[i]
        out[i] = -1
        while parent[n] >= 0:
            par = parent[n]
            if player[par] == p:
                out[i] = parent_sequence[n]
                break
            n = par


@kernel
def accumulate_own_strategy(offset, infoset_player, parent_seq, sequence_infoset, sigma, player, weight, reach,
                            strategy_sum):
    """s[I, a] += weight * pi_i(I) * sigma(I, a) over ``player``'s infosets, pi_i chained along own sequences.

    Infosets come after the infoset of their parent sequence (breadth-first ids), so one pass fills
    ``reach`` (pi_i per infoset) as it goes; O(sequences), independent of the number of nodes.
    """
    for i in range(offset.shape[0] - 1):
        if infoset_player[i] != player:
            continue
        s0 = parent_seq[i]
        r = 1.0 if s0 < 0 else reach[sequence_infoset[s0]] * sigma[s0]
        reach[i] = r
        r *= weight
        if r == 0.0:
            continue
        for s in range(offset[i], offset[i + 1]):
            strategy_sum[s] += r * sigma[s]


@kernel
def accumulate_regrets(nodes, infoset, offset, child_ptr, reach, chance_reach, values, player, weight, regret):
    """regret[I, a] += weight * pi_{-i}(h) * (v(ha) - v(h)) over the decision nodes of ``player``.

    ``values`` is the value vector of ``player`` (one entry per node); pi_{-i}
    includes chance (seed 000 Alg. 1 line 32, Alg. 3 line 28).
    """
    num_players = reach.shape[0]
    for j in range(nodes.shape[0]):
        n = nodes[j]
        cf = chance_reach[n] * weight
        for p in range(num_players):
            if p != player:
                cf *= reach[p, n]
        if cf == 0.0:
            continue
        base = offset[infoset[n]]
        c0 = child_ptr[n]
        v = values[n]
        for k in range(child_ptr[n + 1] - c0):
            regret[base + k] += cf * (values[c0 + k] - v)


@kernel
def accumulate_strategy(offset, infoset_player, infoset_node, reach, sigma, player, weight, strategy_sum):
    """s[I, a] += weight * pi_i(I) * sigma(I, a) over the infosets of ``player`` (all players if -1)."""
    for i in range(offset.shape[0] - 1):
        p = infoset_player[i]
        if player >= 0 and p != player:
            continue
        r = reach[p, infoset_node[i]] * weight
        if r == 0.0:
            continue
        for s in range(offset[i], offset[i + 1]):
            strategy_sum[s] += r * sigma[s]


@kernel
def discount(values, seq_player, player, positive, negative):
    """Multiply ``player``'s entries by ``positive`` where > 0, by ``negative`` elsewhere (DCFR)."""
    for s in range(values.shape[0]):
        if player >= 0 and seq_player[s] != player:
            continue
        if values[s] > 0.0:
            values[s] *= positive
        else:
            values[s] *= negative


@kernel
def best_response_pass(order, stage_start, parent, player, infoset, offset, child_ptr, parent_sequence,
                       chance_prob, sigma, utility, opp_reach, br_player, q, best, values):
    """Exact best response of ``br_player`` against ``sigma`` in one sweep.

    ``order`` lists nodes by decreasing own-depth of ``br_player`` (number of its
    own decisions above the node), then by decreasing id; ``stage_start`` marks
    where each own-depth stage begins. When a stage begins, every child of its
    ``br_player`` nodes is already valued, so the infosets of that own-depth pick
    argmax_a sum_h pi_{-i}(h) v(ha) before the stage's nodes are valued.
    """
    num_stages = stage_start.shape[0] - 1
    for st in range(num_stages):
        lo, hi = stage_start[st], stage_start[st + 1]
        # 1) action values of br_player's infosets at this own-depth
        for j in range(lo, hi):
            n = order[j]
            if player[n] == br_player:
                base = offset[infoset[n]]
                c0 = child_ptr[n]
                w = opp_reach[n]
                for k in range(child_ptr[n + 1] - c0):
                    q[base + k] += w * values[c0 + k]
        for j in range(lo, hi):
            n = order[j]
            if player[n] == br_player:
                i = infoset[n]
                if best[i] < 0:
                    b = offset[i]
                    for s in range(offset[i] + 1, offset[i + 1]):
                        if q[s] > q[b] + 1e-12:
                            b = s
                    best[i] = b
        # 2) node values, children first (ids decrease within a stage)
        for j in range(lo, hi):
            n = order[j]
            pl = player[n]
            if pl == TERMINAL:
                values[n] = utility[n, br_player]
            elif pl == br_player:
                values[n] = values[child_ptr[n] + best[infoset[n]] - offset[infoset[n]]]
            else:
                acc = 0.0
                for c in range(child_ptr[n], child_ptr[n + 1]):
                    s = parent_sequence[c]
                    w = sigma[s] if s >= 0 else chance_prob[c]
                    acc += w * values[c]
                values[n] = acc
