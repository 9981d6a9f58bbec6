"""Counter-based random streams and the draws of sampled traversals (numba).

Everything random in a sampled traversal comes from a *counter-based* stream:
draw number ``c`` of traversal ``j`` of a pass is ``uniform(stream_key(pass_key, j), c)``
(splitmix64 finalisers, Steele, Lea & Flood 2014). ``pass_key`` is drawn from the
solver's one ``np.random.Generator``; a traversal's draws then depend on nothing else, so

* the generic walker (Python over the game protocol, ``cfrlab.solvers.mccfr.sampling``)
  and the compiled-tree walker (``cfrlab.solvers.mccfr.tree_walk``) draw the same
  numbers in the same order, and give the same tables bit for bit;
* a mini-batch gives the same result whichever worker runs which traversal.
"""

from __future__ import annotations

import numpy as np

from cfrlab.jit_timing import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S1 = np.uint64(1)
_ONE = np.uint64(1)


@kernel
def _mix(z):
    """splitmix64 finaliser (a bijection of uint64 with good avalanche)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def stream_key(pass_key, index):
    """Key of traversal ``index`` of the pass keyed ``pass_key`` (both int64 >= 0)."""
    z = _mix(np.uint64(pass_key) ^ _mix(np.uint64(index) * _GOLDEN + _GOLDEN))
    return np.int64(z >> _S1)


@kernel
def uniform(key, counter):
    """Draw number ``counter`` of stream ``key``: a float64 in [0, 1) with 53 random bits."""
    z = _mix(np.uint64(key) + (np.uint64(counter) + _ONE) * _GOLDEN)
    return np.float64(z >> _S11) * (1.0 / 9007199254740992.0)


@kernel
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


@kernel
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


@kernel
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
    # two plain allocations: numba compiles numpy's allocators for each function and dtype a kernel calls
    ints, floats = np.empty(n + k, dtype=np.int64), np.empty(2 * k)
    used, idx, prob, mass = ints[:n], ints[n:], floats[:k], floats[k:]
    for a in range(n):
        used[a] = 0
    for b in range(k):
        idx[b] = -1
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
