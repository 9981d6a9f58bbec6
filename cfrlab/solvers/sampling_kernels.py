"""Numba code of the sampling solvers (MCCFR): random streams, samplers and the compiled-tree traversal.

Everything random in a sampled traversal comes from a *counter-based* stream:
draw number ``c`` of traversal ``j`` of a pass is ``uniform(stream_key(pass_key, j), c)``
(splitmix64 finalisers). ``pass_key`` is drawn from the solver's one
``np.random.Generator``; a traversal's draws then depend on nothing else, so

* the generic path (Python over the game protocol, ``cfrlab.solvers.mccfr``) and
  the compiled-tree path below draw the same numbers in the same order, and give
  the same tables bit for bit;
* a mini-batch gives the same result whichever worker runs which traversal.

The helpers ``pick``, ``sample_distinct`` and ``inclusion_probabilities`` are
called by both paths, so their arithmetic is shared, not duplicated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.tree import kernels

TERMINAL = -4
CHANCE = -1

# strategy-sum schemes (see cfrlab.solvers.mccfr.AVERAGE_UPDATES)
STOCHASTIC = 0
SIMPLE = 1
LAZY = 2
TRAVERSER = 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S1 = np.uint64(1)
_ONE = np.uint64(1)


@njit(cache=True)
def _mix(z):
    """splitmix64 finaliser (a bijection of uint64 with good avalanche)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def stream_key(pass_key, index):
    """Key of traversal ``index`` of the pass keyed ``pass_key`` (both int64 >= 0)."""
    z = _mix(np.uint64(pass_key) ^ _mix(np.uint64(index) * _GOLDEN + _GOLDEN))
    return np.int64(z >> _S1)


@njit(cache=True)
def uniform(key, counter):
    """Draw number ``counter`` of stream ``key``: a float64 in [0, 1) with 53 random bits."""
    z = _mix(np.uint64(key) + (np.uint64(counter) + _ONE) * _GOLDEN)
    return np.float64(z >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def pick(probs, u):
    """Index drawn from ``probs`` (not necessarily normalised) with the uniform ``u``."""
    total = 0.0
    for x in probs:
        total += x
    target = u * total
    acc = 0.0
    last = -1
    for a in range(probs.shape[0]):
        p = probs[a]
        if p > 0.0:
            last = a
            acc += p
            if target < acc:
                return a
    return last


@njit(cache=True)
def sample_distinct(q, k, key, counter, chosen):
    """Draw ``k`` distinct actions one by one from ``q`` renormalised over those not yet drawn.

    This is seed 000 Alg. 5 l. 9-13 ("sample a ~ sigma' until |A^rs| = k"),
    without its rejected duplicates. Stops early when the remaining mass is 0
    (actions of probability 0 are never drawn). Sets ``chosen[a] = 1`` for drawn
    actions and returns the new draw counter.
    """
    n = q.shape[0]
    for a in range(n):
        chosen[a] = 0
    for _ in range(k):
        mass = 0.0
        for a in range(n):
            if chosen[a] == 0:
                mass += q[a]
        if not mass > 0.0:
            break
        u = uniform(key, counter)
        counter += 1
        target = u * mass
        acc = 0.0
        pickd = -1
        for a in range(n):
            if chosen[a] == 0 and q[a] > 0.0:
                pickd = a
                acc += q[a]
                if target < acc:
                    break
        chosen[pickd] = 1
    return counter


@njit(cache=True)
def inclusion_probabilities(q, k, rho):
    """rho[a] = P(a is among the ``k`` distinct actions drawn by ``sample_distinct`` from ``q``).

    Seed 000 Alg. 5 l. 14 ("dynamic programming or something"): a depth-first
    sum over the ordered prefixes of fewer than ``k`` draws, n!/(n-k+1)! terms,
    cheap for the small k robust sampling uses (iterative: numba cannot cache
    recursion). k = 1 gives q / sum(q).
    """
    n = q.shape[0]
    for a in range(n):
        rho[a] = 0.0
    if k <= 0:
        return
    used = np.zeros(n, dtype=np.int8)
    idx = np.full(k, -1, dtype=np.int64)
    prob = np.empty(k)
    mass = np.empty(k)
    total = 0.0
    for a in range(n):
        total += q[a]
    prob[0] = 1.0
    mass[0] = total
    depth = 0
    while depth >= 0:
        a = idx[depth] + 1
        while a < n and (used[a] != 0 or not q[a] > 0.0):
            a += 1
        if a >= n or not mass[depth] > 0.0:
            idx[depth] = -1
            depth -= 1
            if depth >= 0:
                used[idx[depth]] = 0
            continue
        idx[depth] = a
        p = prob[depth] * q[a] / mass[depth]
        rho[a] += p
        if depth + 1 < k:
            used[a] = 1
            prob[depth + 1] = p
            mass[depth + 1] = mass[depth] - q[a]
            depth += 1
            idx[depth] = -1


@njit(cache=True)
def cumulative_weight(t, scheme, delay):
    """Sum of the averaging weights of iterations 1..t (scheme 0 uniform, 1 linear, 2 quadratic)."""
    m = t - delay
    if m <= 0:
        return 0.0
    m = float(m)
    if scheme == 0:
        return m
    if scheme == 1:
        return m * (m + 1.0) / 2.0
    return m * (m + 1.0) * (2.0 * m + 1.0) / 6.0


# --------------------------------------------------------------------------------------------
# compiled-tree traversal
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def _touch(i, flag, touched, ntouched):
    if flag[i] == 0:
        flag[i] = 1
        touched[ntouched[0]] = i
        ntouched[0] += 1


_ENTER = 0
_RETURN = 1
_PASS = 0  # chance or sampled node: one child, its value passes up
_TRAV = 1  # traverser node: drawn children, then regrets
_EXPLORE = 2  # another player's node under chance sampling: every child, sigma-weighted


@njit(cache=True)
def run_chunk(child_ptr, player, infoset, offset, utility, chance_prob, max_depth, regret, trav, k, eps,
              sample_opp, scheme, pass_key, start, stop, buf_r, buf_s, flag, touched, ntouched):
    """Traversals ``start..stop-1`` of a pass, summed into ``buf_r``/``buf_s``; returns the nodes visited.

    An iterative depth-first walk with one frame per depth (numba cannot cache
    recursive functions), doing the operations of ``mccfr._Walker.walk`` in the
    same order. ``flag``/``touched``/``ntouched`` record the infosets written
    (the caller zeroes only those). ``regret`` is read, never written.
    """
    sc = Scratch(utility.shape[1], offset, max_depth)
    return _traverse(child_ptr, player, infoset, offset, utility, chance_prob, regret, trav, k, eps, sample_opp,
                     scheme, pass_key, start, stop, buf_r, buf_s, flag, touched, ntouched, sc)


@njit(cache=True)
def Scratch(num_players, offset, max_depth):
    """Per-depth frames of the iterative walk, allocated once per kernel call."""
    max_actions = 1
    for i in range(offset.shape[0] - 1):
        max_actions = max(max_actions, offset[i + 1] - offset[i])
    levels = max_depth + 2
    return (np.ones((levels, num_players)), np.ones(levels), np.zeros(levels, dtype=np.int64),
            np.zeros(levels, dtype=np.int8), np.zeros(levels, dtype=np.int64), np.zeros(levels),
            np.empty((levels, max_actions)), np.empty((levels, max_actions)), np.empty((levels, max_actions)),
            np.empty((levels, max_actions)), np.zeros((levels, max_actions), dtype=np.int8),
            np.zeros(2, dtype=np.int64))


@njit(cache=True)
def _traverse(child_ptr, player, infoset, offset, utility, chance_prob, regret, trav, k, eps, sample_opp, scheme,
              pass_key, start, stop, buf_r, buf_s, flag, touched, ntouched, sc):
    reach, rs, node, kind, cidx, acc, sig, val, rho, q, chosen, off2 = sc
    num_players = utility.shape[1]
    visited = 0
    for j in range(start, stop):
        key = stream_key(pass_key, j)
        ctr = 0
        d = 0
        node[0] = 0
        rs[0] = 1.0
        reach[0, :] = 1.0
        mode = _ENTER
        ret = 0.0
        while True:
            advance = False
            if mode == _ENTER:
                visited += 1
                n = node[d]
                p = player[n]
                if p == TERMINAL:
                    ret = utility[n, trav]
                    mode = _RETURN
                    continue
                c0 = child_ptr[n]
                if p == CHANCE:
                    u = uniform(key, ctr)
                    ctr += 1
                    c = pick(chance_prob[c0:child_ptr[n + 1]], u)
                    kind[d] = _PASS
                    node[d + 1] = c0 + c
                    reach[d + 1, :] = reach[d, :]
                    rs[d + 1] = rs[d]
                    d += 1
                    continue
                i = infoset[n]
                lo = offset[i]
                na = child_ptr[n + 1] - c0
                off2[1] = na
                sigma = sig[d, :na]
                kernels.regret_matching(regret[lo:lo + na], off2, sigma, False)
                _touch(i, flag, touched, ntouched)
                if p == trav:
                    if k <= 0 or k >= na:
                        for a in range(na):
                            chosen[d, a] = 1
                            rho[d, a] = 1.0
                    else:
                        for a in range(na):
                            q[d, a] = eps / na + (1.0 - eps) * sigma[a]
                        ctr = sample_distinct(q[d, :na], k, key, ctr, chosen[d, :na])
                        if k == 1:  # inclusion_probabilities for k = 1, without its allocations
                            total = 0.0
                            for a in range(na):
                                total += q[d, a]
                            for a in range(na):
                                rho[d, a] = 0.0
                                if q[d, a] > 0.0:
                                    rho[d, a] = 1.0 * q[d, a] / total
                        else:
                            inclusion_probabilities(q[d, :na], k, rho[d, :na])
                    for a in range(na):
                        val[d, a] = 0.0
                    kind[d] = _TRAV
                    acc[d] = 0.0
                    cidx[d] = -1
                    advance = True
                else:
                    if scheme != TRAVERSER:
                        if scheme == SIMPLE:
                            f = 1.0
                        elif scheme == LAZY:
                            f = 1.0
                            for o in range(num_players):
                                if o != trav:
                                    f *= reach[d, o]
                        elif sample_opp:
                            third = 1.0
                            for o in range(num_players):
                                if o != trav and o != p:
                                    third *= reach[d, o]
                            f = 1.0 / (rs[d] * third)
                        else:
                            f = reach[d, p] / rs[d]
                        for a in range(na):
                            buf_s[lo + a] += f * sigma[a]
                    if sample_opp:
                        u = uniform(key, ctr)
                        ctr += 1
                        a = pick(sigma, u)
                        kind[d] = _PASS
                        node[d + 1] = c0 + a
                        reach[d + 1, :] = reach[d, :]
                        reach[d + 1, p] *= sigma[a]
                        rs[d + 1] = rs[d]
                        d += 1
                        continue
                    kind[d] = _EXPLORE
                    acc[d] = 0.0
                    cidx[d] = -1
                    advance = True
            else:  # _RETURN: ``ret`` is the value of the frame d that just finished
                if d == 0:
                    break
                d -= 1
                kd = kind[d]
                if kd == _PASS:
                    continue
                a = cidx[d]
                if kd == _TRAV:
                    val[d, a] = ret / rho[d, a]
                    acc[d] += sig[d, a] * val[d, a]
                else:
                    acc[d] += sig[d, a] * ret
                advance = True
            if advance:
                n = node[d]
                c0 = child_ptr[n]
                na = child_ptr[n + 1] - c0
                p = player[n]
                a = cidx[d] + 1
                if kind[d] == _TRAV:
                    while a < na and chosen[d, a] == 0:
                        a += 1
                if a < na:
                    cidx[d] = a
                    node[d + 1] = c0 + a
                    reach[d + 1, :] = reach[d, :]
                    reach[d + 1, p] *= sig[d, a]
                    rs[d + 1] = rs[d] * rho[d, a] if kind[d] == _TRAV else rs[d]
                    d += 1
                    mode = _ENTER
                    continue
                ret = acc[d]
                if kind[d] == _TRAV:
                    w = 1.0
                    if not sample_opp:
                        for o in range(num_players):
                            if o != trav:
                                w *= reach[d, o]
                    coef = w / rs[d]
                    lo = offset[infoset[n]]
                    for b in range(na):
                        buf_r[lo + b] += coef * (val[d, b] - ret)
                    if scheme == TRAVERSER:
                        for b in range(na):
                            buf_s[lo + b] += reach[d, trav] * sig[d, b]
                mode = _RETURN
    return visited


@njit(cache=True)
def add_chunk(offset, buf_r, buf_s, flag, touched, ntouched, tot_r, tot_s, tot_flag, tot_touched, tot_n):
    """tot += buf over the infosets ``buf`` touched, then zero ``buf`` there (ready for the next chunk)."""
    for j in range(ntouched[0]):
        i = touched[j]
        for s in range(offset[i], offset[i + 1]):
            tot_r[s] += buf_r[s]
            tot_s[s] += buf_s[s]
            buf_r[s] = 0.0
            buf_s[s] = 0.0
        flag[i] = 0
        _touch(i, tot_flag, tot_touched, tot_n)
    ntouched[0] = 0


@njit(cache=True)
def apply_increments(offset, infoset_player, trav, tot_r, tot_s, tot_flag, tot_touched, tot_n, regret,
                     strategy_sum, last, plus, weight, lazy, t, avg_scheme, delay):
    """Add a pass's summed increments to the tables, then zero them.

    regret += r (clamped at 0 with RM+, seed 000 Alg. 6 l. 8); strategy_sum +=
    weight * s, or with the lazy scheme (W(t) - W(c_I)) * s and c_I = t at the
    infosets of the other players (seed 001 Alg. 4 l. 27-30).
    """
    for j in range(tot_n[0]):
        i = tot_touched[j]
        w = weight
        if lazy:
            w = 0.0
            if infoset_player[i] != trav:
                w = cumulative_weight(t, avg_scheme, delay) - cumulative_weight(last[i], avg_scheme, delay)
                last[i] = t
        for s in range(offset[i], offset[i + 1]):
            r = regret[s] + tot_r[s]
            if plus and r < 0.0:
                r = 0.0
            regret[s] = r
            if w != 0.0:
                strategy_sum[s] += w * tot_s[s]
            tot_r[s] = 0.0
            tot_s[s] = 0.0
        tot_flag[i] = 0
    tot_n[0] = 0


@njit(cache=True)
def averaging_weight(t, scheme, delay):
    """``cfrlab.solvers.regret.averaging_weight`` in numba (scheme 0 uniform, 1 linear, 2 quadratic)."""
    m = t - delay
    if scheme == 0:
        return 1.0 if m > 0 else 0.0
    if m <= 0:
        return 0.0
    if scheme == 1:
        return float(m)
    return float(m * m)


@njit(cache=True)
def iterate_tree(child_ptr, player, infoset, offset, infoset_player, utility, chance_prob, max_depth, regret,
                 strategy_sum, last, t0, pass_keys, batch, chunk, k, eps, sample_opp, scheme, alternating, plus,
                 avg_scheme, delay, buf_r, buf_s, flag, touched, ntouched, tot_r, tot_s, tot_flag, tot_touched,
                 tot_n):
    """Iterations t0+1 .. t0+len(pass_keys) of MCCFR over a compiled tree; returns the nodes visited.

    ``pass_keys[it, i]`` keys traverser i's pass of iteration it. Per pass:
    chunks of ``chunk`` traversals summed into ``tot`` in chunk order, then
    ``apply_increments`` (after each traverser if ``alternating``, else after
    all). ``tot_*`` have one row per player.
    """
    num_players = utility.shape[1]
    sc = Scratch(num_players, offset, max_depth)
    lazy = scheme == LAZY
    visited = 0
    for it in range(pass_keys.shape[0]):
        t = t0 + it + 1
        w = averaging_weight(t, avg_scheme, delay)
        for i in range(num_players):
            for start in range(0, batch, chunk):
                stop = min(start + chunk, batch)
                visited += _traverse(child_ptr, player, infoset, offset, utility, chance_prob, regret, i, k, eps,
                                     sample_opp, scheme, pass_keys[it, i], start, stop, buf_r, buf_s, flag, touched,
                                     ntouched, sc)
                add_chunk(offset, buf_r, buf_s, flag, touched, ntouched, tot_r[i], tot_s[i], tot_flag[i],
                          tot_touched[i], tot_n[i:i + 1])
            if alternating:
                apply_increments(offset, infoset_player, i, tot_r[i], tot_s[i], tot_flag[i], tot_touched[i],
                                 tot_n[i:i + 1], regret, strategy_sum, last, plus, w, lazy, t, avg_scheme, delay)
        if not alternating:
            for i in range(num_players):
                apply_increments(offset, infoset_player, i, tot_r[i], tot_s[i], tot_flag[i], tot_touched[i],
                                 tot_n[i:i + 1], regret, strategy_sum, last, plus, w, lazy, t, avg_scheme, delay)
    return visited


# --------------------------------------------------------------------------------------------
# sparse chunk sums (parallel mini-batches: a worker's chunks travel as the infosets they touched)
# --------------------------------------------------------------------------------------------
@njit(cache=True)
def take_chunk(offset, buf_r, buf_s, flag, touched, ntouched):
    """(touched infoset ids, their regret entries, their strategy entries) of one chunk; zero ``buf`` there.

    Ids keep the order ``buf`` touched them; entries follow the ids, ``offset[i]:offset[i+1]`` each.
    """
    n = ntouched[0]
    ids = touched[:n].copy()
    size = 0
    for j in range(n):
        size += offset[ids[j] + 1] - offset[ids[j]]
    r = np.empty(size)
    s = np.empty(size)
    pos = 0
    for j in range(n):
        i = ids[j]
        for q in range(offset[i], offset[i + 1]):
            r[pos] = buf_r[q]
            s[pos] = buf_s[q]
            buf_r[q] = 0.0
            buf_s[q] = 0.0
            pos += 1
        flag[i] = 0
    ntouched[0] = 0
    return ids, r, s


@njit(cache=True)
def add_sparse(offset, ids, r, s, tot_r, tot_s, tot_flag, tot_touched, tot_n):
    """tot += chunks given as ``take_chunk`` triples, concatenated in chunk order (``add_chunk``'s arithmetic)."""
    pos = 0
    for j in range(ids.shape[0]):
        i = ids[j]
        for q in range(offset[i], offset[i + 1]):
            tot_r[q] += r[pos]
            tot_s[q] += s[pos]
            pos += 1
        _touch(i, tot_flag, tot_touched, tot_n)


@njit(cache=True)
def infoset_sequences(offset, ids):
    """The sequence ids of the infosets ``ids``, in that order."""
    size = 0
    for j in range(ids.shape[0]):
        size += offset[ids[j] + 1] - offset[ids[j]]
    out = np.empty(size, dtype=np.int64)
    pos = 0
    for j in range(ids.shape[0]):
        for q in range(offset[ids[j]], offset[ids[j] + 1]):
            out[pos] = q
            pos += 1
    return out
