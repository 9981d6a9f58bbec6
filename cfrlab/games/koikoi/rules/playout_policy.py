"""Koi-Koi's playout policies in numba: uniform, greedy, a blueprint's koi-koi table, and a tuned card rule.

The search's playouts (``players.search``) and the batched simulator (``batched``) play rounds with
``playout.play_out``, whose loop (``playout.play_on``) chooses each decision under a ``Policy`` (its fields say
what each kind does). By default both players follow the greedy heuristic (``heuristic``; here ``greedy_play``,
``greedy_capture``): capture the largest score gain, then the most card value; with nothing to capture, discard the
least valuable card. The tuned rule (``tuned_play``, ``tuned_capture``) scores the same moves by a few features of
what the mover can see, weighted by a row ``w`` of ``PLAY_WEIGHTS`` columns:

* a capture: ``w[W_GAIN]`` * own base-score gain + captured card value (bright 20, animal 10, ribbon 5, chaff 1)
  + ``w[W_DENY]`` * the base score the opponent would gain with the captured cards (denial);
* a discard (a card that captures nothing): -value - ``w[W_EXPOSE]`` * (value + ``w[W_THREAT]`` * the opponent's
  gain from taking it with the unseen cards of its month) when some card of its month is unseen (the opponent or
  the stock can take it), + ``w[W_PAIR]`` when the mover holds another card of its month (it may take it back).

Any capture is preferred to any discard, as greedy's rule does; ties go to the lowest card id. With
``w = GREEDY_WEIGHTS`` the choices are greedy's (tested). The features are the usual hanafuda advice (keep
cards the opponent needs off the field, discard into dead or paired months), and the weights were tuned by
duplicate self-play against greedy in the batched simulator (``players.cfr.policy_edge``; BENCHMARKS.md); a
better playout policy is the main lever of determinized search quality (Long et al. 2010; Ginsberg 2001's GIB).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules.cards import CARD_VALUE
from cfrlab.games.koikoi.rules.kernels import POLICY_GREEDY, POLICY_UNIFORM, month_mask, nth_card, popcount, score

W_ON, W_GAIN, W_DENY, W_EXPOSE, W_THREAT, W_PAIR = range(6)
PLAY_WEIGHTS = 6
GREEDY_WEIGHTS = (1.0, 100.0, 0.0, 0.0, 0.0, 0.0)
"""Weights that reproduce greedy's choices (captured value is below 100)."""
TUNED_WEIGHTS = (1.0, 100.0, 5.0, 1.0, 10.0, 30.0)
"""The tuned weights (BENCHMARKS.md, "playout policy")."""

_DECK = np.uint64((1 << 48) - 1)
DECIDE_SLOTS = 10 * 4 * 2 * 3 * 2
"""Abstract koi-koi situations: own base score capped at 9, ``hand_bucket``, opponent has yaku, own calls capped at
2, the opponent's calls capped at 1."""
POLICIES = {"uniform": POLICY_UNIFORM, "greedy": POLICY_GREEDY}


class Policy(NamedTuple):
    """How a playout chooses (``playout.play_on``), as the kernels read it.

    * ``kind`` ``POLICY_UNIFORM``: a PLAY or capture choice takes legal action ``floor(u * n)`` of the ascending
      list (one uniform each); a DECIDE calls KOI-KOI when its uniform is below ``koikoi_prob``;
    * ``kind`` ``POLICY_GREEDY``: the greedy heuristic (largest score gain, then captured card value; KOI-KOI only
      with a base score below ``koikoi_below``, at least ``min_hand`` cards and an opponent without yaku), a uniform
      random card or capture with probability ``epsilon``; two uniforms per choice. With a ``decide`` table (shape
      (2, ``DECIDE_SLOTS``), one row per seat; (2, 0) for none) a DECIDE of seat p calls KOI-KOI when its first
      uniform is below ``decide[p, decide_slot(...)]``, a blueprint's probability of KOI-KOI in that abstract
      situation (``abstraction``'s D key); a NaN slot falls back to the greedy rule. A seat whose ``weights`` row
      (shape (2, ``PLAY_WEIGHTS``); (2, 0) for none) has ``weights[p, W_ON] > 0`` plays its cards and captures by
      the tuned rule of this module instead of greedy's (the same two uniforms per choice).
    """

    kind: int
    epsilon: float
    koikoi_prob: float
    koikoi_below: int
    min_hand: int
    value: NDArray[np.int64]
    """Card values (``cards.CARD_VALUE``) of greedy's and the tuned rule's keys."""
    decide: NDArray[np.float64]
    weights: NDArray[np.float64]


def make_policy(kind: str = "greedy", epsilon: float = 0.0, koikoi_prob: float = 0.0, koikoi_below: int = 4,
                min_hand: int = 3, decide: NDArray[np.float64] | None = None,
                weights: NDArray[np.float64] | None = None) -> Policy:
    """A ``Policy`` ('uniform' or 'greedy'); ``weights``: one row, used for both seats, or one row per seat."""
    if kind not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {kind!r}")
    table = np.empty((2, 0)) if decide is None else np.ascontiguousarray(decide, dtype=np.float64)
    w = np.empty((2, 0)) if weights is None else np.ascontiguousarray(
        np.broadcast_to(np.asarray(weights, dtype=np.float64), (2, np.shape(weights)[-1])))
    return Policy(POLICIES[kind], float(epsilon), float(koikoi_prob), int(koikoi_below), int(min_hand),
                  np.array(CARD_VALUE, dtype=np.int64), table, w)


@nb.njit(cache=True)
def hand_bucket(left: int) -> int:
    """Cards left in hand as the koi-koi abstraction sees them: 0, 1-2, 3-4, 5+."""
    return 0 if left == 0 else 1 if left <= 2 else 2 if left <= 4 else 3


@nb.njit(cache=True)
def decide_slot(own: int, bucket: int, opp_yaku: int, calls: int, opp_calls: int) -> int:
    """The index of an abstract koi-koi situation in a ``decide`` table row (``DECIDE_SLOTS``)."""
    return (((min(own, 9) * 4 + bucket) * 2 + opp_yaku) * 3 + min(calls, 2)) * 2 + min(opp_calls, 1)


@nb.njit(cache=True)
def random_card(mask, y) -> int:
    """The card of ``mask`` picked by a uniform draw ``y`` in [0, 1)."""
    return nth_card(mask, int(y * popcount(mask)))


@nb.njit(cache=True)
def value_of(mask, value) -> int:
    """Total card value of ``mask``."""
    v = 0
    while mask:
        low = mask & (~mask + np.uint64(1))
        v += value[np.int64(popcount(low - np.uint64(1)))]
        mask ^= low
    return v


@nb.njit(cache=True)
def more_valuable(pair, value):
    """The bit of the more valuable card of the two in ``pair`` (the lower id on a tie)."""
    one = np.uint64(1)
    low = pair & (~pair + one)
    high = pair ^ low
    return high if value[np.int64(popcount(high - one))] > value[np.int64(popcount(low - one))] else low


@nb.njit(cache=True)
def greedy_play(hand, field, pile, month, calls, P, M, value) -> int:
    """Greedy's card (``heuristic``): key (score gain, captured value, 1) for a capture, (-1, -value, 0) otherwise."""
    one = np.uint64(1)
    base = score(pile, field, month, calls, P, M)
    best, b0, b1, b2 = -1, 0, 0, 0
    h = hand
    while h:  # the cards of the hand, ascending
        low = h & (~h + one)
        h ^= low
        c = np.int64(popcount(low - one))
        m = field & month_mask(c)
        k = popcount(m)
        if k == 0:
            k0, k1, k2 = -1, -value[c], 0
        else:
            got = m
            if k == 2:  # the more valuable of the two (the lower id on a tie)
                got = more_valuable(m, value)
            gained = got | low
            k0, k1, k2 = score(pile | gained, field, month, calls, P, M) - base, value_of(gained, value), 1
        if best < 0 or k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
            best, b0, b1, b2 = c, k0, k1, k2
    return best


@nb.njit(cache=True)
def greedy_capture(options, pending, field, pile, month, calls, P, M, value) -> int:
    """Greedy's capture target (``heuristic``): key (score gain, card value, -id)."""
    one = np.uint64(1)
    base = score(pile, field, month, calls, P, M)
    pend = one << np.uint64(pending)
    best, b0, b1 = -1, 0, 0
    o = options
    while o:  # ascending
        low = o & (~o + one)
        o ^= low
        c = np.int64(popcount(low - one))
        k0 = score(pile | pend | low, field, month, calls, P, M) - base
        k1 = value[c]
        if best < 0 or k0 > b0 or (k0 == b0 and k1 > b1):
            best, b0, b1 = c, k0, k1
    return best


@nb.njit(cache=True)
def _capture_key(gained, pile, opp_pile, base, obase, field, month, calls, opp_calls, P, M, value, w) -> float:
    own = score(pile | gained, field, month, calls, P, M) - base
    key = w[W_GAIN] * own + value_of(gained, value)
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
        c = np.int64(popcount(low - one))
        mon = month_mask(c)
        m = field & mon
        k = popcount(m)
        if k == 0:
            if best_cap:
                continue
            key = -float(value[c])
            if unseen & mon and w[W_EXPOSE] != 0.0:
                threat = 0.0
                if w[W_THREAT] != 0.0:
                    threat = score(opp_pile | low | (unseen & mon), field, month, opp_calls, P, M) - obase
                key -= w[W_EXPOSE] * (value[c] + w[W_THREAT] * threat)
            if popcount(hand & mon) >= 2:
                key += w[W_PAIR]
            if best < 0 or key > best_key:
                best, best_key = c, key
            continue
        got = m
        if k == 2:  # the more valuable of the two (the lower id on a tie), as greedy takes
            got = more_valuable(m, value)
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
        c = np.int64(popcount(low - one))
        key = _capture_key(pend | low, pile, opp_pile, base, obase, field, month, calls, opp_calls, P, M, value, w)
        if best < 0 or key > best_key:
            best, best_key = c, key
    return best
