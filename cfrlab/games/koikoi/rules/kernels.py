"""Numba kernels of the Koi-Koi rules: scoring, round points, deal checks, and the bit helpers every kernel uses.

Rules: exactly those of ``cfrlab.games.koikoi.rules.yaku`` (``Scorer``) and ``engine`` (``Engine``), for every option of
``RuleSet``; the round's flow that plays them (the batched simulator, the search's playouts, the OOS walk) is
``flow``, and the tests cross-check both against the engine game for game on every preset.

Specification in cfrlab:
* ``kernel_rules(rules)`` turns a rule set into three arrays, built here and nowhere else: ``P`` (yaku values and
  scoring modes, indices ``P_*``), ``M`` (card-set masks, ``M_*``) and ``F`` (deal, teyaku, koi-koi and end-of-round
  options, ``F_*``).
* ``score_bits(pile, field, month, own_calls, P, M)`` is the base score and a bit set of the yaku present (bit i for
  ``YAKU_BITS[i]``), the second only for the ``new_yaku`` koi-koi trigger.
  ``score`` is the base score alone; under Nintendo-shaped options with the 'rise' trigger both take the
  specialised ``_score_nintendo`` (the playouts' hot path), the same numbers as the general ``_yaku`` (tested
  against it and ``Scorer``).
* ``round_points``: a stop's points; ``teyaku``, ``misdeal``, ``hands_play_on``, ``deal_result``: the deal's checks.
* Bits: ``popcount`` (LLVM's ctpop), ``nth_card``, ``month_mask``, ``has_card``; ``borrowed`` (an array without its
  reference count, for the playout loops).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

import numba as nb
import numpy as np
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.rules import RuleSet
from cfrlab.games.koikoi.rules.yaku import Scorer

PLAY, PLAY_CAPTURE, DRAW, DRAW_CAPTURE, DECIDE = 2, 3, 4, 5, 6  # the engine's phase numbers
STOP, KOIKOI = 48, 49
POLICY_UNIFORM, POLICY_GREEDY = 0, 1
REASON_STOP, REASON_TEYAKU, REASON_DRAW, REASON_VOID, REASON_FIELD_FOUR = 0, 1, 2, 3, 4
REASONS = ("stop", "teyaku", "draw", "void_teyaku", "field_four")
YAKU_BITS = ("Goko", "Shiko", "Ame-shiko", "Sanko", "Hanami-zake", "Tsukimi-zake", "Inoshikacho", "Tane",
             "Akatan-Aotan", "Akatan", "Aotan", "Tan", "Kasu", "Tsukifuda")

(P_GOKOU, P_SHIKOU, P_AME, P_SANKOU, P_VIEW, P_VIEW_AFTER, P_VIEW_LIMITED, P_RAIN, P_SEASONAL, P_SAKE, P_ANIMAL,
 P_INO, P_TANE, P_RIBBON, P_AKATAN, P_AOTAN, P_AKAAO, P_TAN, P_KASU, P_TSUKIFUDA, P_FAST) = range(21)
M_NON_RAIN, M_ANIMALS, M_INO, M_RIBBONS, M_AKATAN, M_AOTAN, M_CHAFF, M_NOV, M_DEC, M_DOUBLE = range(10)
(F_HALF_TURNS, F_SEVEN, F_THRESHOLD, F_LIMIT, F_OPP_MULT, F_OWN_BONUS, F_FORCED, F_MIN_POINTS, F_NEW_YAKU, F_DRAW,
 F_OYA_KEN, F_BRIGHT_MULT, F_TEYAKU, F_TESHI, F_KUTT, F_KUTT_EVEN, F_STACK, F_BOTH, F_FIELD_FOUR, F_FOUR_PAIRS,
 F_HAND_FOUR, F_THREE, F_NO_CALLS) = range(23)

_SAKE = {"both": 0, "animal": 1, "chaff": 2, "either": 3}
_RIBBON = {"nintendo": 0, "stacking": 1, "koikoi_japan": 2}
_OPP = {"double": 0, "none": 1, "calls_plus_one": 2, "anyone_double": 3, "own_double": 4}
_OWN = {"none": 0, "koikoi_japan": 1, "cumulative": 2}
_DRAW = {"nothing_oya_passes": 0, "nothing_oya_stays": 1, "oya_ken": 2, "oya_plus_one": 3, "last_yaku_maker": 4}
_TEYAKU = {"score": 0, "off": 1, "redeal": 2}
_BOTH = {"void_oya_passes": 0, "void_same_oya": 1, "ignore": 2}


class KernelRules(NamedTuple):
    """A rule set as the arrays the kernels read (index constants ``P_*``, ``M_*``, ``F_*``)."""

    P: NDArray[np.int64]
    M: NDArray[np.uint64]
    F: NDArray[np.int64]


@lru_cache(maxsize=64)
def kernel_rules(rules: RuleSet) -> KernelRules:
    """Every option of ``rules`` as kernel arrays (cached per rule set: treat them as read-only)."""
    r = rules
    P = np.array([r.gokou, r.shikou, r.ame_shikou, r.sankou, r.viewing_points, r.viewing_points_after_own_koikoi,
                  r.viewing_mode == "limited", ("none", "ame_nagare", "field_weather").index(r.rain_rule),
                  ("off", "only", "double").index(r.viewing_seasonal), _SAKE[r.sake_cup],
                  r.animal_model == "stacking", r.inoshikacho, r.tane, _RIBBON[r.ribbon_model], r.akatan, r.aotan,
                  r.akatan_aotan, r.tan, r.kasu, r.tsukifuda,
                  Scorer(r)._nintendo_fast and r.koikoi_trigger != "new_yaku"], dtype=np.int64)
    M = np.array([C.NON_RAIN_BRIGHTS, C.ANIMALS, C.INOSHIKACHO, C.RIBBONS, C.AKATAN, C.AOTAN, C.CHAFF_CARDS,
                  C.NOVEMBER, C.DECEMBER, C.mask_of(r.double_chaff_cards)], dtype=np.uint64)
    F = np.array([2 * r.hand_size, r.seven_plus_double, r.double_threshold, r.koikoi_limit,
                  _OPP[r.opponent_koikoi_multiplier], _OWN[r.own_koikoi_bonus], r.forced_stop_on_empty_hand,
                  r.koikoi_min_points, r.koikoi_trigger == "new_yaku", _DRAW[r.exhaustive_draw], r.oya_ken_points,
                  ("off", "count", "count_plus_one").index(r.bright_field_multiplier), _TEYAKU[r.teyaku],
                  r.teshi_points, r.kuttsuki_points, r.kuttsuki_definition == "even", r.teyaku_stack,
                  _BOTH[r.teyaku_both], ("redeal", "oya_wins", "none").index(r.field_four_of_month),
                  r.redeal_field_four_pairs, r.redeal_hand_four_of_month, r.redeal_field_three_of_month,
                  not r.koikoi_allowed],
                 dtype=np.int64)
    return KernelRules(P, M, F)


# ---------------------------------------------------------------------------------------------------- bits
@intrinsic
def _popcount(typingctx, x):  # a numba intrinsic
    """Number of set bits of a 64-bit integer (LLVM's ctpop: one instruction where the CPU has it); the scoring
    kernels count cards with it, so it is the hottest operation of the playouts."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(x), codegen


popcount: Callable[[Any], Any] = _popcount  # type: ignore[assignment]  # numba: called without typingctx, in kernels only


@intrinsic
def borrowed(typingctx, arr):  # a numba intrinsic
    """The same array without its reference count (no meminfo): valid while ``arr`` lives. A loop that hands an
    array to inlined kernels at every step counts references at every step (two atomic operations each); a playout's
    loop takes the rules' arrays through this once instead (``playout.play_out``)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        out = context.make_array(signature.return_type)(context, builder)
        populate_array(out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize, meminfo=None)
        return out._getvalue()

    return arr(arr), codegen


@nb.njit(cache=True)
def nth_card(mask: np.uint64, idx: int) -> int:
    for c in range(48):
        if (mask >> np.uint64(c)) & np.uint64(1):
            if idx == 0:
                return c
            idx -= 1
    return -1


@nb.njit(cache=True, inline="always")
def month_mask(card: int) -> np.uint64:
    return np.uint64(0xF) << np.uint64(card & ~3)


@nb.njit(cache=True, inline="always")
def has_card(mask: np.uint64, card: int) -> bool:
    return bool((mask >> np.uint64(card)) & np.uint64(1))


# ---------------------------------------------------------------------------------------------------- scoring
@nb.njit(cache=True)
def _yaku(pile, field, month, calls, sake, P, M):
    """(score, yaku bits) with the sake cup counted as ``sake`` (0 both, 1 animal, 2 chaff): ``Scorer._yaku``."""
    s, bits = 0, 0
    n = popcount(pile & M[M_NON_RAIN])
    rain = has_card(pile, 40)
    if n == 4:
        s, bits = (P[P_GOKOU], 1) if rain else (P[P_SHIKOU], 2)
    elif n == 3:
        s, bits = (P[P_AME], 4) if rain else (P[P_SANKOU], 8)
    v = P[P_VIEW]
    if calls > 0 and P[P_VIEW_AFTER] >= 0:
        v = P[P_VIEW_AFTER]
    vs, vbits = 0, 0
    if v and has_card(pile, 32) and not (P[P_RAIN] == 1 and rain):
        for card, spoiler, season, bit in ((8, M[M_NOV], 3, 16), (28, M[M_DEC], 8, 32)):
            if not has_card(pile, card) or (P[P_RAIN] == 2 and field & spoiler):
                continue
            if P[P_SEASONAL] == 1 and month != season:
                continue
            vs += 2 * v if P[P_SEASONAL] == 2 and month == season else v
            vbits |= bit
    animals = pile & M[M_ANIMALS]
    if sake == 2:
        animals &= ~(np.uint64(1) << np.uint64(32))
    a = popcount(animals)
    ino = pile & M[M_INO] == M[M_INO]
    if P[P_ANIMAL] == 0:
        if ino:
            s, bits = s + P[P_INO] + a - 3, bits | 64
        elif a >= 5:
            s, bits = s + P[P_TANE] + a - 5, bits | 128
    else:
        if ino:
            s, bits = s + P[P_INO], bits | 64
        if a >= 5:
            s, bits = s + P[P_TANE] + a - 5, bits | 128
    rb = popcount(pile & M[M_RIBBONS])
    red = pile & M[M_AKATAN] == M[M_AKATAN]
    blue = pile & M[M_AOTAN] == M[M_AOTAN]
    if P[P_RIBBON] == 0:
        if red and blue:
            s, bits = s + P[P_AKAAO] + rb - 6, bits | 256
        elif red:
            s, bits = s + P[P_AKATAN] + rb - 3, bits | 512
        elif blue:
            s, bits = s + P[P_AOTAN] + rb - 3, bits | 1024
        elif rb >= 5:
            s, bits = s + P[P_TAN] + rb - 5, bits | 2048
    else:
        if red:
            s, bits = s + P[P_AKATAN], bits | 512
        if blue:
            s, bits = s + P[P_AOTAN], bits | 1024
        if red and blue and P[P_RIBBON] == 2:
            s, bits = s + P[P_AKAAO], bits | 256
        if rb >= 5:
            s, bits = s + P[P_TAN] + rb - 5, bits | 2048
    chaff = pile & M[M_CHAFF]
    if sake != 1:
        chaff |= pile & (np.uint64(1) << np.uint64(32))
    ch = popcount(chaff) + popcount(pile & M[M_DOUBLE])
    if ch >= 10:
        s, bits = s + P[P_KASU] + ch - 10, bits | 4096
    if P[P_TSUKIFUDA] and 1 <= month <= 12:
        mm = np.uint64(0xF) << np.uint64(4 * (month - 1))
        if pile & mm == mm:
            s, bits = s + P[P_TSUKIFUDA], bits | 8192
    if vbits and (P[P_VIEW_LIMITED] == 0 or bits):
        s, bits = s + vs, bits | vbits
    return s, bits


@nb.njit(cache=True)
def _score_nintendo(pile, P, M) -> int:
    """The base score under Nintendo-shaped options (``Scorer._score_nintendo``): the hot path of the playouts."""
    s = 0
    n = popcount(pile & M[M_NON_RAIN])
    rain = has_card(pile, 40)
    if n == 4:
        s += P[P_GOKOU] if rain else P[P_SHIKOU]
    elif n == 3:
        s += P[P_AME] if rain else P[P_SANKOU]
    if has_card(pile, 32):
        s += P[P_VIEW] * (int(has_card(pile, 8)) + int(has_card(pile, 28)))
    a = popcount(pile & M[M_ANIMALS])
    if pile & M[M_INO] == M[M_INO]:
        s += P[P_INO] + a - 3
    elif a >= 5:
        s += P[P_TANE] + a - 5
    rb = popcount(pile & M[M_RIBBONS])
    red = pile & M[M_AKATAN] == M[M_AKATAN]
    blue = pile & M[M_AOTAN] == M[M_AOTAN]
    if red and blue:
        s += P[P_AKAAO] + rb - 6
    elif red:
        s += P[P_AKATAN] + rb - 3
    elif blue:
        s += P[P_AOTAN] + rb - 3
    elif rb >= 5:
        s += P[P_TAN] + rb - 5
    ch = popcount(pile & M[M_CHAFF]) + int(has_card(pile, 32))
    if ch >= 10:
        s += P[P_KASU] + ch - 10
    return s


@nb.njit(cache=True)
def score_bits(pile, field, month, calls, P, M):
    """Base score and yaku bits of ``pile`` (``Scorer.yaku``; 'either' takes the better reading, animal on ties).
    Under Nintendo-shaped scoring with the 'rise' trigger the bits are not needed and come back as 0."""
    if P[P_FAST]:
        return _score_nintendo(pile, P, M), 0
    # int64 values, not literals: numba compiles _yaku once per literal argument otherwise (6 times, 3.6 s)
    calls = np.int64(calls)
    if P[P_SAKE] == 3:
        sa, ba = _yaku(pile, field, month, calls, np.int64(1), P, M)
        sc, bc = _yaku(pile, field, month, calls, np.int64(2), P, M)
        return (sc, bc) if sc > sa else (sa, ba)
    return _yaku(pile, field, month, calls, np.int64(P[P_SAKE]), P, M)


@nb.njit(cache=True)
def score(pile, field, month, calls, P, M) -> int:
    """Base score of ``pile`` (``Scorer.score``)."""
    if P[P_FAST]:
        return _score_nintendo(pile, P, M)
    return score_bits(pile, field, month, calls, P, M)[0]


@nb.njit(cache=True)
def round_points(base, own, opp, field_brights, F) -> int:
    """Points for a stop with base score ``base`` (``Scorer.round_points``)."""
    pts = base
    if F[F_OWN_BONUS] == 1 and own:
        pts = pts + own if own <= 3 else pts * (own - 2)
    elif F[F_OWN_BONUS] == 2 and own:
        pts *= own + 1
    if F[F_SEVEN] and base >= F[F_THRESHOLD]:
        pts *= 2
    mult = F[F_OPP_MULT]
    if (mult == 0 and opp) or (mult == 3 and (own or opp)) or (mult == 4 and own):
        pts *= 2
    elif mult == 2:
        pts *= own + opp + 1
    if F[F_BRIGHT_MULT] == 1:
        pts *= max(1, field_brights)
    elif F[F_BRIGHT_MULT] == 2:
        pts *= field_brights + 1
    return pts


# ---------------------------------------------------------------------------------------------------- the deal
@nb.njit(cache=True, inline="always")
def _month_count(mask, m) -> int:
    """Cards of month ``m`` (0-11) in ``mask``; counted where needed, no array allocated (the deal checks run once
    per simulated round)."""
    return popcount(mask & (np.uint64(0xF) << np.uint64(4 * m)))


@nb.njit(cache=True)
def teyaku(hand, F) -> int:
    """Teyaku points of a dealt hand (``Engine.teyaku_points``)."""
    teshi, nonzero, pairs, even = False, 0, 0, True
    for m in range(12):
        c = _month_count(hand, m)
        teshi |= c == 4
        nonzero += c > 0
        pairs += c == 2
        even &= c % 2 == 0
    if F[F_KUTT_EVEN]:
        kutt = nonzero > 0 and even and popcount(hand) == 8
    else:
        kutt = nonzero == 4 and pairs == 4
    if teshi and kutt:
        return F[F_TESHI] + F[F_KUTT] if F[F_STACK] else max(F[F_TESHI], F[F_KUTT])
    return F[F_TESHI] if teshi else F[F_KUTT] if kutt else 0


@nb.njit(cache=True)
def _teshi(hand) -> bool:
    for m in range(12):
        if popcount(hand & (np.uint64(0xF) << np.uint64(4 * m))) == 4:
            return True
    return False


@nb.njit(cache=True)
def misdeal(ko, field, oya_hand, F) -> bool:
    """Whether the deal is void and redealt (the checks of ``Engine.deal``, in its order)."""
    most, pairs, nonzero = 0, 0, 0
    for m in range(12):
        c = _month_count(field, m)
        most = max(most, c)
        pairs += c == 2
        nonzero += c > 0
    if most == 4 and F[F_FIELD_FOUR] != 2:
        return F[F_FIELD_FOUR] == 0
    if F[F_THREE] and most >= 3:
        return True
    if F[F_FOUR_PAIRS] and pairs == 4 and nonzero == 4:
        return True
    if F[F_HAND_FOUR] and (_teshi(ko) or _teshi(oya_hand)):
        return True
    return F[F_TEYAKU] == 2 and (teyaku(ko, F) > 0 or teyaku(oya_hand, F) > 0)


@nb.njit(cache=True)
def hands_play_on(hand_a, hand_b, F) -> bool:
    """Whether dealt hands ``hand_a`` and ``hand_b`` lead to play (no redeal, no teyaku ending the round): the
    condition that a search's determinizations of the opponent's dealt hand must meet."""
    if F[F_HAND_FOUR] and (_teshi(hand_a) or _teshi(hand_b)):
        return False
    if F[F_TEYAKU] == 1:
        return True
    ta, tb = teyaku(hand_a, F), teyaku(hand_b, F)
    if ta == 0 and tb == 0:
        return True
    return F[F_TEYAKU] == 0 and ta > 0 and tb > 0 and F[F_BOTH] == 2


@nb.njit(cache=True)
def deal_result(field, hand_oya, hand_ko, F):
    """How a valid deal ends before play: (winner 0 oya / 1 ko / -1 none, points, reason, next oya); winner -2 when
    play starts."""
    most = 0
    for m in range(12):
        most = max(most, _month_count(field, m))
    if F[F_FIELD_FOUR] == 1 and most == 4:
        return 0, F[F_TESHI], REASON_FIELD_FOUR, 0
    if F[F_TEYAKU] == 0:
        t0, t1 = teyaku(hand_oya, F), teyaku(hand_ko, F)
        if t0 > 0 and t1 > 0:
            if F[F_BOTH] != 2:
                return -1, 0, REASON_VOID, 1 if F[F_BOTH] == 0 else 0
        elif t0 > 0:
            return 0, t0, REASON_TEYAKU, 0
        elif t1 > 0:
            return 1, t1, REASON_TEYAKU, 1
    return -2, 0, REASON_STOP, 0
