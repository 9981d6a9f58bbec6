"""The per-infoset arithmetic of sampled CFR, written once (numba).

Every walker of the MCCFR family calls these functions and nothing else for its
numbers: the compiled-tree walker (``tree_walk``, numba), the generic walker over
the game protocol (``sampling``, Python) and whatever samples on top of it. Both
walkers therefore give the same tables bit for bit for the same draws.

A walk keeps one *frame* per depth d in one float array ``F[plane, d, :]``:

* ``F[SIG, d, :na]``    sigma^t(I) at the node of depth d;
* ``F[CHOSEN, d, :na]`` 1 for the actions the walk follows, 0 for the others;
* ``F[RHO, d, :na]``    rho(a): the probability that a is among them (seed 000 sec. 6.6);
* ``F[VAL, d, :na]``    V(ha) / rho(a) for followed actions (``child_value``);
* ``F[Q, d, :na]``      scratch: the traverser's sampling policy;
* ``F[REACH, d, p]``    pi_p(h), the product of player p's action probabilities (chance excluded);
* ``F[RS, d, 0]``       the sampler's reach of h divided by the reach of those it samples on
  policy: the product of the traverser's rho(a) and of the ratios (probability of the draw) /
  (its on-policy probability) at the other nodes, 1 for on-policy draws.

With ``F[RS]`` so defined, the importance weights below are those of seed 000
sec. 6.7 for any sampling distribution, so another sampler (Online Outcome
Sampling's targeted mixture, Lisy, Lanctot & Bowling 2015) needs only to report
the probabilities of its draws.

The hot functions are inlined into the tree walker (``inline="always"``: as fast
as the hand-written loops they replace). numba's on-disk cache does not follow
imports, so after editing this module or ``streams`` delete the package's
``__pycache__/*.nbi`` / ``*.nbc`` files (a fresh checkout has none).
"""

from __future__ import annotations

import numpy as np

from cfrlab.jit_timing import kernel
from cfrlab.solvers.mccfr.rules import rule_cumulative
from cfrlab.solvers.mccfr.streams import inclusion_probabilities, sample_distinct
from cfrlab.tree import kernels

SIG, CHOSEN, RHO, VAL, Q, REACH, RS = 0, 1, 2, 3, 4, 5, 6
_PLANES = 7

# strategy-sum schemes (codes of cfrlab.solvers.mccfr.config.AVERAGE_UPDATES, in that order)
STOCHASTIC = 0
SIMPLE = 1
LAZY = 2
TRAVERSER = 3


def new_frames(levels: int, num_players: int, max_actions: int) -> np.ndarray:
    """Frames for walks of depth < ``levels`` (one float array; see the module docstring)."""
    return np.zeros((_PLANES, levels, max(num_players, max_actions, 1)))


@kernel(inline="always")
def start_walk(F):
    """The root frame: every reach 1, sampler reach 1."""
    F[REACH, 0, :] = 1.0
    F[RS, 0, 0] = 1.0


@kernel
def current_strategy(regret_row):
    """sigma^t(I): regret matching of one infoset's cumulative regrets (seed 000 Alg. 2), a new array; the
    arithmetic of ``kernels.regret_matching``, which the tree walker runs in place."""
    offset = np.zeros(2, dtype=np.int64)
    offset[1] = regret_row.shape[0]
    out = np.empty(regret_row.shape[0])
    kernels.regret_matching(regret_row, offset, out, np.bool_(False))
    return out


@kernel
def predicted_strategy(regret_row, prediction_row):
    """sigma^t(I) of predictive regret matching(+): RM(R + m), m the prediction (Farina, Kroer & Sandholm
    2021, PRM+ with m^t the last instantaneous regret; here the last pass's *sampled* regret, 0 at an infoset
    that pass did not reach, which is the unbiased estimate there). A new array; ``play_strategy``'s arithmetic."""
    return current_strategy(regret_row + prediction_row)


@kernel(inline="always")
def play_strategy(F, d, regret_row, prediction_row, predict, off2):
    """sigma^t(I) into ``F[SIG, d]``: RM(R), or with ``predict`` RM(R + m) (``predicted_strategy``), summed in
    ``F[Q, d]`` first. ``off2`` is ``[0, len(regret_row)]``."""
    na = regret_row.shape[0]
    played = regret_row
    if predict:
        for a in range(na):
            F[Q, d, a] = regret_row[a] + prediction_row[a]
        played = F[Q, d, :na]
    kernels.regret_matching(played, off2, F[SIG, d, :na], np.bool_(False))  # (bool_: as callers in Python)


@kernel(inline="always")
def prediction_holds(predicted_at, last_update, i, owner):
    """Whether infoset i's stored prediction is its owner's latest sampled regret: written at the owner's
    latest table update (else that update's sampled regret at i was 0, and so is the prediction)."""
    return predicted_at[i] == last_update[owner]


@kernel(inline="always")
def record_prediction(prediction_row, regret_inc):
    """m^{t+1} = r^t: the prediction of the next strategy is the pass's sampled regret increment."""
    for s in range(prediction_row.shape[0]):
        prediction_row[s] = regret_inc[s]


@kernel(inline="always")
def set_strategy(F, d, sigma):
    """``F[SIG, d, :len(sigma)] = sigma`` (the generic walker's strategy_fn result; the tree walker writes it in
    place)."""
    for a in range(sigma.shape[0]):
        F[SIG, d, a] = sigma[a]


@kernel(inline="always")
def descend(F, d, p, a, ratio):
    """Frame d + 1 for action ``a`` of player ``p`` (p < 0: chance) at depth d, drawn with ``ratio``
    times its on-policy probability (the traverser's rho(a); 1 for on-policy draws)."""
    for q in range(F.shape[2]):  # a loop, not a slice copy: numba compiles a slice copy's error path for seconds
        F[REACH, d + 1, q] = F[REACH, d, q]
    if p >= 0:
        F[REACH, d + 1, p] *= F[SIG, d, a]
    F[RS, d + 1, 0] = F[RS, d, 0] * ratio


@kernel(inline="always")
def follow(F, d, p, a):
    """``descend`` along a followed action ``a`` of player ``p`` at depth d: ratio rho(a) (``F[RHO, d, a]``)."""
    descend(F, d, p, a, F[RHO, d, a])


@kernel(inline="always")
def next_followed(F, d, after, na):
    """The first followed action (``F[CHOSEN, d]`` set) of depth d after action ``after``; ``na`` if none."""
    a = after + 1
    while a < na and F[CHOSEN, d, a] == 0.0:
        a += 1
    return a


@kernel(inline="always")
def draw_traverser(F, d, na, k, eps, key, counter):
    """The traverser's actions at depth d (seed 000 Alg. 5 l. 5-15): all of them with rho = 1 when
    k = 0 or k >= na, else min(k, na) distinct ones from eps * uniform + (1 - eps) * sigma.
    Sets ``F[CHOSEN, d]`` and ``F[RHO, d]``; returns the new draw counter."""
    chosen, rho = F[CHOSEN, d, :na], F[RHO, d, :na]
    if k <= 0 or k >= na:
        explore(F, d, na)
        return counter
    q, sig = F[Q, d, :na], F[SIG, d, :na]
    for a in range(na):
        q[a] = eps / na + (1.0 - eps) * sig[a]
    counter = sample_distinct(q, k, key, counter, chosen)
    if k == 1:  # inclusion_probabilities for k = 1, without its allocations
        total = 0.0
        for a in range(na):
            total += q[a]
        for a in range(na):
            rho[a] = 0.0
            if q[a] > 0.0:
                rho[a] = 1.0 * q[a] / total
    else:
        inclusion_probabilities(q, k, rho)
    return counter


@kernel(inline="always")
def explore(F, d, na):
    """Follow every action at depth d (rho = 1): external sampling's traverser, chance sampling's others."""
    for a in range(na):
        F[CHOSEN, d, a] = 1.0
        F[RHO, d, a] = 1.0


@kernel(inline="always")
def child_value(F, d, a, value):
    """Record V(ha), the value the child of followed action ``a`` returned: VAL = V(ha) / rho(a)."""
    F[VAL, d, a] = value / F[RHO, d, a]


@kernel(inline="always")
def node_value(F, d, na):
    """V(h) = sum over followed a of sigma(a) V(ha) / rho(a) (seed 000 sec. 6.6), in action order."""
    v = 0.0
    for a in range(na):
        if F[CHOSEN, d, a] != 0.0:
            v += F[SIG, d, a] * F[VAL, d, a]
    return v


@kernel(inline="always")
def regret_weight(F, d, trav, num_players, sample_opp):
    """pi_{-i}(h) pi_c(h) / q(h), the importance weight of the sampled counterfactual regret
    (seed 000 sec. 6.7): 1 / RS when the others are sampled, their reach / RS when explored."""
    w = 1.0
    if not sample_opp:
        for o in range(num_players):
            if o != trav:
                w *= F[REACH, d, o]
    return w / F[RS, d, 0]


@kernel(inline="always")
def leave_traverser(F, d, na, regret_row, strategy_row, trav, num_players, sample_opp, scheme):
    """The traverser's update once its followed children returned; returns V(h).

    regret[a] += w (1{a followed} V(ha) / rho(a) - V(h)), w = ``regret_weight``
    (seed 000 sec. 6.7; actions not followed get -w V(h)); the "traverser"
    strategy sum adds pi_i(h) sigma(I) (seed 000 Alg. 5 l. 36).
    """
    v = node_value(F, d, na)
    coef = regret_weight(F, d, trav, num_players, sample_opp)
    for a in range(na):
        x = F[VAL, d, a] if F[CHOSEN, d, a] != 0.0 else 0.0
        regret_row[a] += coef * (x - v)
    if scheme == TRAVERSER:
        for a in range(na):
            strategy_row[a] += F[REACH, d, trav] * F[SIG, d, a]
    return v


@kernel(inline="always")
def strategy_weight(F, d, trav, p, num_players, sample_opp, scheme):
    """Coefficient of sigma(I) in the strategy-sum increment at player p's node (p != traverser).

    "stochastic": pi_p(h) pi_c(h) / q(h), unbiased for any number of players;
    "simple": 1 (seed 001 Alg. 3 l. 23); "lazy": pi_{-i}(h) (seed 001 Alg. 4,
    times W(t) - W(c_I) when applied, ``table_weight``).
    """
    if scheme == SIMPLE:
        return 1.0
    if scheme == LAZY:
        f = 1.0
        for o in range(num_players):
            if o != trav:
                f *= F[REACH, d, o]
        return f
    if sample_opp:
        third = 1.0
        for o in range(num_players):
            if o != trav and o != p:
                third *= F[REACH, d, o]
        return 1.0 / (F[RS, d, 0] * third)
    return F[REACH, d, p] / F[RS, d, 0]


@kernel(inline="always")
def enter_other(F, d, na, strategy_row, trav, p, num_players, sample_opp, scheme):
    """Another player's node: add ``strategy_weight`` * sigma(I) to the strategy-sum increment."""
    if scheme == TRAVERSER:
        return
    f = strategy_weight(F, d, trav, p, num_players, sample_opp, scheme)
    for a in range(na):
        strategy_row[a] += f * F[SIG, d, a]


@kernel(inline="always")
def table_weight(rule, weight, lazy, traverser_owns, t, last):
    """Weight of a pass's strategy increment at one infoset: w_t, or with the lazy scheme
    W(t) - W(c_I) at the other players' infosets and 0 at the traverser's (seed 001 Alg. 4 l. 27-30), W the
    ``rule``'s cumulative weight (``rules``)."""
    if not lazy:
        return weight
    if traverser_owns:
        return 0.0
    return rule_cumulative(rule, t) - rule_cumulative(rule, last)
