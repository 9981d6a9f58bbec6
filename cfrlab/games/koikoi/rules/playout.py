"""A Koi-Koi round played on under a playout policy, in numba: the loop every playout runs (``play_on``), inlined
into its callers; ``play_out``, which plays on from a ``flow`` position held in arrays; and ``play_actions``, which
plays each of a node's actions on each of a set of deals (the determinized search's evaluation).

Specification in cfrlab: ``play_out`` plays on from any node with a ``playout_policy.Policy`` (chosen inline), the
draws from ``order`` (top first), until the round ends or, with ``until`` below the round's half-turns, until the
start of half-turn ``until`` (a cut playout: the caller values the position left in ``st``, ``cards``, e.g. by a
learned evaluator). Its draw and uniform cursors live in the state (``S_DRAWN``, ``S_USED``), so a cut playout can be
continued. Every step is ``flow.advance_with``: the rules are ``flow``'s, once.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cfrlab.games.koikoi.rules.flow import (
    S_DRAWN,
    S_USED,
    TERMINAL,
    advance,
    advance_with,
    borrow_rules,
    load,
    store,
    with_hand,
)
from cfrlab.games.koikoi.rules.kernels import (
    DECIDE,
    DRAW,
    KOIKOI,
    PLAY,
    POLICY_UNIFORM,
    STOP,
    borrowed,
    month_mask,
    popcount,
    score,
)
from cfrlab.games.koikoi.rules.playout_policy import (
    W_ON,
    Policy,
    decide_slot,
    greedy_capture,
    greedy_play,
    hand_bucket,
    random_card,
    tuned_capture,
    tuned_play,
)


@nb.njit(cache=True, inline="always")
def play_on(pos, d, k, order, u, policy, kr, log, until):
    """Play on from ``pos`` with ``policy``, the draws from ``order[d:]``, the uniforms from ``u[k:]``, until the end
    of the round or the start of half-turn ``until``; every action and draw goes to ``log`` (length 0: none).
    Returns (position, d, k, actions logged). Inlined into its callers (``play_out``, ``search``'s playouts), which
    hand it ``borrowed`` arrays (``borrow``).

    A choice of ``policy`` (``playout_policy.Policy``) reads ``u[k]`` (the uniform policy) or ``u[k]``, ``u[k + 1]``
    (the others). It is written in the loop itself, and the arrays are taken out of their tuples once: an inlined
    call that takes arrays costs reference counting at every action."""
    logging = log.shape[0] > 0
    uniform = policy.kind == POLICY_UNIFORM
    eps, koikoi_prob, koikoi_below, min_hand = policy.epsilon, policy.koikoi_prob, policy.koikoi_below, policy.min_hand
    P, M, F, value, decide, w = kr.P, kr.M, kr.F, policy.value, policy.decide, policy.weights
    tuned = w.shape[1] > 0
    n = 0
    while pos.phase != TERMINAL and not (pos.phase == PLAY and pos.turn >= until):
        phase = pos.phase
        if phase == DRAW:
            a = np.int64(order[d])
            d += 1
        else:
            p, month, field = (pos.oya + pos.turn) & 1, pos.month, pos.field
            hand, pile, calls = (pos.hand0, pos.pile0, pos.calls0) if p == 0 else (pos.hand1, pos.pile1, pos.calls1)
            opp_pile, opp_calls = (pos.pile1, pos.calls1) if p == 0 else (pos.pile0, pos.calls0)
            x = u[k]
            k += 1 if uniform else 2
            if phase == DECIDE:
                if uniform:
                    a = KOIKOI if x < koikoi_prob else STOP
                else:
                    own = score(pile, field, month, calls, P, M)
                    other = score(opp_pile, field, month, opp_calls, P, M)
                    q = np.nan
                    if decide.shape[1] > 0:
                        q = decide[p, decide_slot(own, hand_bucket(popcount(hand)), int(other > 0), calls, opp_calls)]
                    if q == q:  # a blueprint's probability of KOI-KOI here
                        a = KOIKOI if x < q else STOP
                    else:
                        go = own < koikoi_below and popcount(hand) >= min_hand and other == 0
                        a = KOIKOI if go else STOP
            else:
                opts = hand if phase == PLAY else field & month_mask(pos.pending)
                if uniform:
                    a = random_card(opts, x)
                elif x < eps:
                    a = random_card(opts, u[k - 1])
                elif tuned and w[p, W_ON] > 0:
                    if phase == PLAY:
                        a = tuned_play(opts, field, pile, opp_pile, month, calls, opp_calls, P, M, value, w[p])
                    else:
                        a = tuned_capture(opts, pos.pending, field, pile, opp_pile, month, calls, opp_calls, P, M,
                                          value, w[p])
                elif phase == PLAY:
                    a = greedy_play(opts, field, pile, month, calls, P, M, value)
                else:
                    a = greedy_capture(opts, pos.pending, field, pile, month, calls, P, M, value)
            a = np.int64(a)
        if logging:
            log[n] = a
        n += 1
        pos = advance_with(pos, a, P, M, F)
    return pos, d, k, n


@nb.njit(cache=True, inline="always")
def borrow(kr, policy):
    """``kr`` and ``policy`` with ``borrowed`` arrays, for the loops of ``play_on``."""
    return (borrow_rules(kr),
            Policy(policy.kind, policy.epsilon, policy.koikoi_prob, policy.koikoi_below, policy.min_hand,
                   borrowed(policy.value), borrowed(policy.decide), borrowed(policy.weights)))


@nb.njit(cache=True)
def play_out(st, cards, order, u, policy, kr, log, until) -> int:
    """Play on from the node of ``st``, ``cards`` (module docstring) with ``policy``; draws from ``order`` and
    uniforms from ``u`` at the cursors ``S_DRAWN``, ``S_USED``. Stops at the end of the round or at the start of
    half-turn ``until``. Every action and draw goes to ``log`` (length 0: none); returns how many."""
    kr, policy = borrow(kr, policy)
    pos, d, k, n = play_on(load(st, cards), st[S_DRAWN], st[S_USED], order, u, policy, kr, log, until)
    store(pos, st, cards)
    st[S_DRAWN], st[S_USED] = d, k
    return n


@nb.njit(cache=True)
def play_actions(actions, st, cards, opp, opp_hands, orders, u, kr, policy, winner, points, next_oya) -> None:
    """Each action (rows) played out by ``policy`` on each deal (columns) from the node of ``st``, ``cards``, with
    ``opp_hands[j]`` as seat ``opp``'s hand, the draws ``orders[j]`` and the uniforms ``u[j]`` (the same deals and
    uniforms for every action: common random numbers); the round's ``winner``, ``points`` and ``next_oya``."""
    kr, policy = borrow(kr, policy)
    start = load(st, cards)
    no_log = np.empty(0, dtype=np.int16)
    for i in range(actions.shape[0]):
        for j in range(opp_hands.shape[0]):
            pos = advance(with_hand(start, opp, opp_hands[j]), actions[i], kr)
            pos = play_on(pos, 0, 0, orders[j], u[j], policy, kr, no_log, 1 << 30)[0]
            winner[i, j], points[i, j], next_oya[i, j] = pos.winner, pos.points, pos.next_oya
