"""The targeting and mixture arithmetic of Online Outcome Sampling, written once (numba).

Lisy, Lanctot & Bowling 2015 (seed 000 sec. 8): a pass is targeted with probability delta; the targeted
scheme draws t_T, the untargeted one t_U, and a history h is reached with probability
delta q_T(h) + (1 - delta) q_U(h). A walk carries the posterior weights of the two schemes,
w_T = delta q_T(h) / q(h) and w_U = (1 - delta) q_U(h) / q(h); a draw of a then has the mixture's probability
m = w_T t_T(a) + w_U t_U(a), and the weights after it are w_T' = w_T t_T(a) / m, w_U' = w_U t_U(a) / m
(``mix_draw``). Every OOS walk (the game protocol's samplers, ``cfrlab.solvers.oos.sampling``; the compiled
tree's, ``cfrlab.solvers.oos.tree_walk``; a game family's own, such as Koi-Koi's round walk) takes these numbers
from here, so all give the same tables bit for bit. Sums of probabilities are those of ``numpy.sum``
(``np_sum``), so the renormalisations agree to the last bit with the Python path's arrays. The helpers are
plain kernels, not inlined at numba's IR level (``inline="always"``): compiled once and inlined by LLVM, they cut
the first compile of OOS on Leduc from 15.9 to 13.7 CPU-seconds (benchmarks/bench_first_compile.py).
"""

from __future__ import annotations

import numpy as np

from cfrlab.jit_timing import kernel
from cfrlab.solvers.mccfr.arithmetic import CHOSEN, RHO, SIG, Q, draw_traverser, next_followed
from cfrlab.solvers.mccfr.streams import pick, uniform


@kernel
def np_sum(x, n):
    """``numpy.sum`` of ``x[:n]`` to the last bit (its pairwise sum, for the lengths below 128 met here)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += x[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    i = 8
    while i < n - n % 8:
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += x[i]
        i += 1
    return res


@kernel
def mix_draw(wt, wu, ta, tu):
    """A draw of targeted probability ``ta`` and untargeted ``tu`` under the weights (``wt``, ``wu``): its
    mixture probability m = w_T t_T(a) + w_U t_U(a) and the weights after it, (m, w_T t_T(a) / m, w_U t_U(a) / m).
    (A draw reported as a ratio r over the untargeted scheme, sec. 10.1's proposal, is ``mix_draw(wt, wu, r, 1)``.)"""
    m = wt * ta + wu * tu
    return m, wt * ta / m, wu * tu / m


@kernel
def restrict(untargeted, out, na):
    """t_T over ``na`` actions: on entry ``out[:na]`` holds 1.0 for the actions the target allows, 0.0 for the
    others; on exit ``untargeted`` restricted to them, renormalised, or ``untargeted`` renormalised where no
    allowed action has probability (the targeted scheme falls back there, so q_T(z) is its true probability and
    no weight divides by 0)."""
    for a in range(na):
        out[a] = untargeted[a] * out[a]
    total = np_sum(out, na)
    if total > 0.0:
        for a in range(na):
            out[a] = out[a] / total
    else:
        total = np_sum(untargeted, na)
        for a in range(na):
            out[a] = untargeted[a] / total


@kernel
def traverser_policy(F, d, na, eps):
    """``F[Q, d, :na]`` = the traverser's untargeted sampling policy t_U, eps * uniform + (1 - eps) * sigma."""
    q = F[Q, d, :na]
    sig = F[SIG, d, :na]
    for b in range(na):
        q[b] = eps / na + (1.0 - eps) * sig[b]
    return q


@kernel
def draw_traverser_mixed(F, d, na, eps, targeted, tt, key, ctr):
    """The traverser's one action at depth d of an outcome-sampling pass with targeting: from t_T (``tt``) for a
    targeted pass where t_T is defined (``targeted``), else outcome sampling's own draw (``draw_traverser``,
    k = 1). ``F[Q, d]`` holds t_U (``traverser_policy``). Sets ``F[CHOSEN, d]``; returns (the action, t_U of
    it, the draw counter)."""
    if targeted:
        q = F[Q, d, :na]
        a = pick(tt[:na], uniform(key, ctr))
        ctr += 1
        for b in range(na):
            F[CHOSEN, d, b] = 0.0
        F[CHOSEN, d, a] = 1.0
        return a, q[a] / np_sum(q, na), ctr
    ctr = draw_traverser(F, d, na, 1, eps, key, ctr)  # a literal 1: numba prunes robust sampling's draws (0.7 CPU-s)
    a = next_followed(F, d, -1, na)
    return a, F[RHO, d, a], ctr


@kernel
def targeted_pass(delta, key):
    """Whether the pass keyed ``key`` is targeted (probability ``delta``; its first uniform, drawn only for
    0 < delta < 1), and the draw counter after it."""
    if delta >= 1.0:
        return True, 0
    if delta > 0.0:
        return uniform(key, np.int64(0)) < delta, 1  # the int64 specialization the walks use
    return False, 0
