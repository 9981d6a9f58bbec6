"""A tuned playout policy for Koi-Koi's card plays and captures: greedy's capture order plus denial and safe discards.

The search's playouts (``search``) and the batched simulator (``batched``) play rounds with ``round_kernel.play_round``;
by default both players follow ``GreedyAgent``'s rule (capture the largest score gain, then the most card value;
with nothing to capture, discard the least valuable card). This module scores the same moves by a few features of
what the mover can see, weighted by a row ``w`` of ``PLAY_WEIGHTS`` columns:

* a capture: ``w[W_GAIN]`` * own base-score gain + captured card value (bright 20, animal 10, ribbon 5, chaff 1)
  + ``w[W_DENY]`` * the base score the opponent would gain with the captured cards (denial);
* a discard (a card that captures nothing): -value - ``w[W_EXPOSE]`` * (value + ``w[W_THREAT]`` * the opponent's
  gain from taking it with the unseen cards of its month) when some card of its month is unseen (the opponent or
  the stock can take it), + ``w[W_PAIR]`` when the mover holds another card of its month (it may take it back).

Any capture is preferred to any discard, as greedy's rule does; ties go to the lowest card id. With
``w = GREEDY_WEIGHTS`` the choices are greedy's (tested). The features are the usual hanafuda advice (keep
cards the opponent needs off the field, discard into dead or paired months), and the weights were tuned by
duplicate self-play against greedy in the batched simulator (``tune_edge``; BENCHMARKS.md); a better playout policy
is the main lever of determinized search quality (Long et al. 2010; Ginsberg 2001's GIB).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cfrlab.games.koikoi.kernels import _month, _pc, score

W_ON, W_GAIN, W_DENY, W_EXPOSE, W_THREAT, W_PAIR = range(6)
PLAY_WEIGHTS = 6
GREEDY_WEIGHTS = (1.0, 100.0, 0.0, 0.0, 0.0, 0.0)
"""Weights that reproduce greedy's choices (captured value is below 100)."""
TUNED_WEIGHTS = (1.0, 100.0, 5.0, 1.0, 10.0, 30.0)
"""The tuned weights (BENCHMARKS.md, "playout policy")."""

_DECK = np.uint64((1 << 48) - 1)


@nb.njit(cache=True)
def _value_of(mask, value) -> int:
    """Total card value of ``mask``."""
    v = 0
    while mask:
        low = mask & (~mask + np.uint64(1))
        v += value[np.int64(_pc(low - np.uint64(1)))]
        mask ^= low
    return v


@nb.njit(cache=True)
def _more_valuable(pair, value):
    """The bit of the more valuable card of the two in ``pair`` (the lower id on a tie)."""
    one = np.uint64(1)
    low = pair & (~pair + one)
    high = pair ^ low
    return high if value[np.int64(_pc(high - one))] > value[np.int64(_pc(low - one))] else low


@nb.njit(cache=True)
def _capture_key(gained, pile, opp_pile, base, obase, field, month, calls, opp_calls, P, M, value, w) -> float:
    own = score(pile | gained, field, month, calls, P, M) - base
    key = w[W_GAIN] * own + _value_of(gained, value)
    if w[W_DENY] != 0.0:
        key += w[W_DENY] * (score(opp_pile | gained, field, month, opp_calls, P, M) - obase)
    return key


@nb.njit(cache=True)
def tuned_play(hand, field, pile, opp_pile, month, calls, opp_calls, P, M, value, w) -> int:
    """The card of ``hand`` to play under weights ``w`` (module docstring)."""
    one = np.uint64(1)
    base = score(pile, field, month, calls, P, M)
    obase = score(opp_pile, field, month, opp_calls, P, M)
    unseen = _DECK & ~(hand | field | pile | opp_pile)
    best, best_cap, best_key = -1, False, 0.0
    h = hand
    while h:
        low = h & (~h + one)
        h ^= low
        c = np.int64(_pc(low - one))
        mon = _month(c)
        m = field & mon
        k = _pc(m)
        if k == 0:
            if best_cap:
                continue
            key = -float(value[c])
            if unseen & mon and w[W_EXPOSE] != 0.0:
                threat = 0.0
                if w[W_THREAT] != 0.0:
                    threat = score(opp_pile | low | (unseen & mon), field, month, opp_calls, P, M) - obase
                key -= w[W_EXPOSE] * (value[c] + w[W_THREAT] * threat)
            if _pc(hand & mon) >= 2:
                key += w[W_PAIR]
            if best < 0 or key > best_key:
                best, best_key = c, key
            continue
        got = m
        if k == 2:  # the more valuable of the two (the lower id on a tie), as greedy takes
            got = _more_valuable(m, value)
        key = _capture_key(got | low, pile, opp_pile, base, obase, field, month, calls, opp_calls, P, M, value, w)
        if not best_cap or key > best_key:
            best, best_cap, best_key = c, True, key
    return best


@nb.njit(cache=True)
def tuned_capture(options, pending, field, pile, opp_pile, month, calls, opp_calls, P, M, value, w) -> int:
    """The field card of ``options`` that ``pending`` takes under weights ``w`` (the capture key above)."""
    one = np.uint64(1)
    base = score(pile, field, month, calls, P, M)
    obase = score(opp_pile, field, month, opp_calls, P, M)
    pend = one << np.uint64(pending)
    best, best_key = -1, 0.0
    o = options
    while o:
        low = o & (~o + one)
        o ^= low
        c = np.int64(_pc(low - one))
        key = _capture_key(pend | low, pile, opp_pile, base, obase, field, month, calls, opp_calls, P, M, value, w)
        if best < 0 or key > best_key:
            best, best_key = c, key
    return best
