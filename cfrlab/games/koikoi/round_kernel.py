"""One Koi-Koi round played on in a numba kernel: the engine's round flow with a uniform or a greedy policy.

Rules: those of ``Engine`` (koikoi-rules.md sec. 4-6) for every ``RuleSet`` option, through the arrays of
``kernels.kernel_rules``. The batched simulator plays whole rounds with it, the search plays out each candidate action
with it; both are cross-tested against the engine game for game.

Specification in cfrlab: ``play_round`` starts at a decision (PLAY, PLAY_CAPTURE, DRAW_CAPTURE, DECIDE) or a DRAW,
optionally with a forced ``first`` action there, and returns (winner, points, reason, next oya, field, log length);
the hands, piles and calls arrays are updated in place. Policies (``kernels.POLICY_*``):
* uniform: a PLAY or capture choice takes legal action ``floor(u * n)`` of the ascending list (one uniform each);
  a DECIDE calls KOI-KOI when its uniform is below ``koikoi_prob``;
* greedy: ``GreedyAgent``'s rule (largest score gain, then captured card value; KOI-KOI only with a base score below
  ``koikoi_below``, at least ``min_hand`` cards and an opponent without yaku), with a uniform random card or capture
  with probability ``eps``; two uniforms per choice. With a ``decide`` table (shape (2, ``DECIDE_SLOTS``), one row
  per seat; shape (2, 0) for none) a DECIDE of seat p calls KOI-KOI when its first uniform is below
  ``decide[p, decide_slot(...)]``, the probability a blueprint gives KOI-KOI in that abstract situation
  (``abstraction``'s D key: own base score, cards left, the opponent's yaku, both players' calls); a NaN slot falls
  back to the greedy rule. With ``weights`` (shape (2, ``playout_policy.PLAY_WEIGHTS``), one row per seat; (2, 0)
  for none) a seat whose row has ``weights[p, W_ON] > 0`` plays its cards and captures by ``playout_policy``'s
  tuned rule instead of greedy's (the same two uniforms per choice).
Draws come from ``order`` (top first). ``log`` (length 0 for none) receives every action, draws included.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cfrlab.games.koikoi.kernels import (
    DECIDE, DRAW, DRAW_CAPTURE, F_DRAW, F_FORCED, F_HALF_TURNS, F_LIMIT, F_MIN_POINTS, F_NEW_YAKU, F_NO_CALLS,
    F_OYA_KEN, KOIKOI, PLAY, PLAY_CAPTURE, POLICY_UNIFORM, REASON_DRAW, REASON_STOP, STOP, _month, _nth, _pc,
    round_points, score, score_bits,
)
from cfrlab.games.koikoi.playout_policy import W_ON, _more_valuable, _value_of, tuned_capture, tuned_play


DECIDE_SLOTS = 10 * 4 * 2 * 3 * 2
"""Abstract koi-koi situations: own base score capped at 9, ``hand_bucket``, opponent has yaku, own calls capped at
2, the opponent's calls capped at 1."""


@nb.njit(cache=True)
def hand_bucket(left: int) -> int:
    """Cards left in hand as the koi-koi abstraction sees them: 0, 1-2, 3-4, 5+."""
    return 0 if left == 0 else 1 if left <= 2 else 2 if left <= 4 else 3


@nb.njit(cache=True)
def decide_slot(own: int, bucket: int, opp_yaku: int, calls: int, opp_calls: int) -> int:
    """The index of an abstract koi-koi situation in a ``decide`` table row (``DECIDE_SLOTS``)."""
    return (((min(own, 9) * 4 + bucket) * 2 + opp_yaku) * 3 + min(calls, 2)) * 2 + min(opp_calls, 1)


@nb.njit(cache=True)
def _lay(c, field, pile):
    """Card ``c`` meets the field with no choice to make: it stays there (no month match) or takes its month's
    cards (one, three, or four on a field allowed to keep them) to ``pile``. Returns the new (field, pile)."""
    m = field & _month(c)
    if _pc(m) == 0:
        return field | (np.uint64(1) << np.uint64(c)), pile
    return field & ~m, pile | m | (np.uint64(1) << np.uint64(c))


@nb.njit(cache=True)
def _random_card(mask, y) -> int:
    """The card of ``mask`` picked by a uniform draw ``y`` in [0, 1)."""
    return _nth(mask, int(y * _pc(mask)))


@nb.njit(cache=True)
def greedy_play(hand, field, pile, month, calls, P, M, value) -> int:
    """``GreedyAgent``'s card: key (score gain, captured value, 1) for a capture, (-1, -value, 0) otherwise."""
    one = np.uint64(1)
    base = score(pile, field, month, calls, P, M)
    best, b0, b1, b2 = -1, 0, 0, 0
    h = hand
    while h:  # the cards of the hand, ascending
        low = h & (~h + one)
        h ^= low
        c = np.int64(_pc(low - one))
        m = field & _month(c)
        k = _pc(m)
        if k == 0:
            k0, k1, k2 = -1, -value[c], 0
        else:
            got = m
            if k == 2:  # the more valuable of the two (the lower id on a tie)
                got = _more_valuable(m, value)
            gained = got | low
            k0, k1, k2 = score(pile | gained, field, month, calls, P, M) - base, _value_of(gained, value), 1
        if best < 0 or k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
            best, b0, b1, b2 = c, k0, k1, k2
    return best


@nb.njit(cache=True)
def greedy_capture(options, pending, field, pile, month, calls, P, M, value) -> int:
    """``GreedyAgent``'s capture target: key (score gain, card value, -id)."""
    one = np.uint64(1)
    base = score(pile, field, month, calls, P, M)
    pend = one << np.uint64(pending)
    best, b0, b1 = -1, 0, 0
    o = options
    while o:  # ascending
        low = o & (~o + one)
        o ^= low
        c = np.int64(_pc(low - one))
        k0 = score(pile | pend | low, field, month, calls, P, M) - base
        k1 = value[c]
        if best < 0 or k0 > b0 or (k0 == b0 and k1 > b1):
            best, b0, b1 = c, k0, k1
    return best


@nb.njit(cache=True)
def play_round(first, phase, oya, turn, hands, field, piles, calls, pending, s0, y0, last_riser, month, brights,
               order, u, policy, eps, koikoi_prob, koikoi_below, min_hand, P, M, F, value, log, decide, weights):
    """Play the round on (module docstring); returns (winner or -1, points, reason, next oya, field, log length)."""
    one = np.uint64(1)
    H = F[F_HALF_TURNS]
    action = first
    d, k, L = 0, 0, 0  # next card of the draw pile, next uniform, log length
    logging = log.shape[0] > 0
    winner, points = -3, 0
    while True:
        p = (oya + turn) & 1
        end_turn = False
        if phase == PLAY or phase == PLAY_CAPTURE or phase == DRAW_CAPTURE:
            opts = hands[p] if phase == PLAY else field & _month(pending)
            if action >= 0:
                c = action
            elif policy == POLICY_UNIFORM:
                c = _random_card(opts, u[k])
                k += 1
            else:
                x, y = u[k], u[k + 1]
                k += 2
                if x < eps:
                    c = _random_card(opts, y)
                elif weights.shape[1] > 0 and weights[p, W_ON] > 0:
                    if phase == PLAY:
                        c = tuned_play(opts, field, piles[p], piles[1 - p], month, calls[p], calls[1 - p], P, M,
                                       value, weights[p])
                    else:
                        c = tuned_capture(opts, pending, field, piles[p], piles[1 - p], month, calls[p], calls[1 - p],
                                          P, M, value, weights[p])
                elif phase == PLAY:
                    c = greedy_play(opts, field, piles[p], month, calls[p], P, M, value)
                else:
                    c = greedy_capture(opts, pending, field, piles[p], month, calls[p], P, M, value)
            action = -1
            if logging:
                log[L] = c
                L += 1
            if phase == PLAY:
                hands[p] &= ~(one << np.uint64(c))
                if _pc(field & _month(c)) == 2:
                    phase, pending = PLAY_CAPTURE, c
                    continue
                field, piles[p] = _lay(c, field, piles[p])
                phase = DRAW
            else:
                field &= ~(one << np.uint64(c))
                piles[p] |= (one << np.uint64(c)) | (one << np.uint64(pending))
                pending = -1
                end_turn = phase == DRAW_CAPTURE
                phase = DRAW
        elif phase == DRAW:
            c = int(order[d])
            d += 1
            if logging:
                log[L] = c
                L += 1
            if _pc(field & _month(c)) == 2:
                phase, pending = DRAW_CAPTURE, c
                continue
            field, piles[p] = _lay(c, field, piles[p])
            end_turn = True
        else:  # DECIDE
            if action >= 0:
                stop = action == STOP
            elif policy == POLICY_UNIFORM:
                stop = not u[k] < koikoi_prob
                k += 1
            else:
                k += 2  # same consumption as the other choices
                s1 = score(piles[p], field, month, calls[p], P, M)
                other = score(piles[1 - p], field, month, calls[1 - p], P, M)
                q = np.nan
                if decide.shape[1] > 0:
                    q = decide[p, decide_slot(s1, hand_bucket(_pc(hands[p])), int(other > 0), calls[p], calls[1 - p])]
                if q == q:  # a blueprint's probability of KOI-KOI here
                    stop = not u[k - 2] < q
                else:
                    stop = not (s1 < koikoi_below and _pc(hands[p]) >= min_hand and other == 0)
            action = -1
            if logging:
                log[L] = STOP if stop else KOIKOI
                L += 1
            if stop:
                winner = p
                break
            calls[p] += 1
        if end_turn:
            s1, bits = score_bits(piles[p], field, month, calls[p], P, M)
            rose = (bits & ~y0) != 0 if F[F_NEW_YAKU] else s1 > s0
            if rose and s1 > 0 and s1 >= F[F_MIN_POINTS]:
                last_riser = p
                if F[F_NO_CALLS] or (F[F_LIMIT] > 0 and calls[0] + calls[1] >= F[F_LIMIT]) or (
                        F[F_FORCED] and hands[p] == 0):
                    winner = p
                    break
                phase = DECIDE
                continue
        if phase == DRAW and not end_turn:
            continue
        turn += 1  # next half-turn (after a turn without a decision, or after KOI-KOI)
        if turn >= H:
            break
        q = (oya + turn) & 1
        s0, y0 = score_bits(piles[q], field, month, calls[q], P, M)
        phase = PLAY
    if winner >= 0:
        base = score(piles[winner], field, month, calls[winner], P, M)
        points = round_points(base, calls[winner], calls[1 - winner], brights, F)
        return winner, points, REASON_STOP, winner, field, L
    mode = F[F_DRAW]  # exhaustive draw
    if mode == 1:
        return -1, 0, REASON_DRAW, oya, field, L
    if mode == 2:
        return oya, F[F_OYA_KEN], REASON_DRAW, oya, field, L
    if mode == 3:
        return oya, 1, REASON_DRAW, oya, field, L
    if mode == 4 and last_riser >= 0:
        q = last_riser
        base = score(piles[q], field, month, calls[q], P, M)
        return q, round_points(base, calls[q], calls[1 - q], brights, F), REASON_DRAW, q, field, L
    return -1, 0, REASON_DRAW, 1 - oya, field, L
