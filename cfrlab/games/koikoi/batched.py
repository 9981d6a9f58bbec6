"""Batched Koi-Koi simulator: many single rounds at once in a numba kernel, for self-play statistics and rollouts.

Rules: those of ``cfrlab.games.koikoi.engine`` (same capture rule, koi-koi flow, teyaku, multipliers).

Specification in cfrlab:
1. ``sample_inputs(rules, n, rng)`` draws every random quantity up front with one ``np.random.Generator``: the
   deal of each game as masks (misdealt fields are redealt, as the engine does), the draw-pile order, and a table
   of uniforms ``u`` that the random policy consumes in order.
2. ``simulate(rules, inputs, koikoi_prob)`` plays every game with the uniform policy: a PLAY or capture choice
   takes legal action ``floor(u * n_legal)`` of the ascending legal list, a DECIDE calls KOI-KOI when
   ``u < koikoi_prob``. Player 0 is the oya. The kernel records each game's action log (plays, captures, draws,
   STOP/KOI-KOI), so ``Engine`` replays any game and must reach the same terminal state (the cross-test).
3. Supported options: every scoring value of the Nintendo-shaped yaku table, teyaku on/off (strict kuttsuki),
   7+ doubling and its threshold, the koi-koi limit, opponent x2 or none, forced stop, the minimum points, and the
   exhaustive-draw outcomes of a single round. Other options raise ``NotImplementedError``: use the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi import cards as C
from cfrlab.games.koikoi.rules import RuleSet
from cfrlab.games.koikoi.yaku import Scorer

REASON_STOP, REASON_TEYAKU, REASON_DRAW, REASON_VOID = 0, 1, 2, 3
REASONS = ("stop", "teyaku", "draw", "void_teyaku")
MAX_LOG = 80


@dataclass(frozen=True)
class BatchInputs:
    """Everything random about ``n`` rounds, drawn up front."""

    ko: NDArray[np.uint64]
    field: NDArray[np.uint64]
    oya: NDArray[np.uint64]
    order: NDArray[np.int8]
    """(n, stock size): the draw pile, top first."""
    u: NDArray[np.float64]
    """(n, 4 * half-turns): uniforms for the policy's choices, consumed in order."""
    redeals: NDArray[np.int32]


@dataclass(frozen=True)
class BatchResult:
    """Per game: winner (-1 none, 0 oya, 1 ko), points, reason code, final piles and field, action log."""

    winner: NDArray[np.int8]
    points: NDArray[np.int32]
    reason: NDArray[np.int8]
    piles: NDArray[np.uint64]
    field: NDArray[np.uint64]
    log: NDArray[np.int16]
    log_len: NDArray[np.int16]


def check_supported(rules: RuleSet) -> None:
    """Raise ``NotImplementedError`` naming the options the batched kernel does not cover."""
    default = RuleSet()
    bad = []
    if not Scorer(rules)._nintendo_fast:
        bad.append("non-Nintendo yaku model (viewing/rain/sake/animal/ribbon/chaff/tsukifuda options)")
    for name in ("field_four_of_month", "redeal_field_four_pairs", "redeal_hand_four_of_month",
                 "kuttsuki_definition", "teyaku_stack", "koikoi_trigger", "own_koikoi_bonus",
                 "bright_field_multiplier"):
        if getattr(rules, name) != getattr(default, name):
            bad.append(name)
    if rules.teyaku not in ("score", "off"):
        bad.append("teyaku")
    if rules.opponent_koikoi_multiplier not in ("double", "none"):
        bad.append("opponent_koikoi_multiplier")
    if rules.exhaustive_draw == "last_yaku_maker":
        bad.append("exhaustive_draw")
    if bad:
        raise NotImplementedError(f"the batched simulator does not cover: {', '.join(bad)}; use the Engine")


def sample_inputs(rules: RuleSet, n: int, rng: np.random.Generator) -> BatchInputs:
    """Deals (misdeals redealt), draw orders and policy uniforms for ``n`` rounds.

    Each deal is a Fisher-Yates shuffle of the deck driven by uniforms from ``rng`` (run in numba)."""
    deck = np.array(C.cards_of(C.deck_mask(rules.months)), dtype=np.int8)
    h, f = rules.hand_size, rules.field_size
    redeal = rules.field_four_of_month == "redeal"
    perm = _shuffle(rng.random((n, len(deck) - 1)), deck)
    redeals = np.zeros(n, dtype=np.int32)
    ko, field, oya, misdeal = _deal_masks(perm, h, f, redeal)
    bad = np.flatnonzero(misdeal)
    while len(bad):
        redeals[bad] += 1
        perm[bad] = _shuffle(rng.random((len(bad), len(deck) - 1)), deck)
        k2, f2, o2, m2 = _deal_masks(perm[bad], h, f, redeal)
        ko[bad], field[bad], oya[bad] = k2, f2, o2
        bad = bad[m2]
    order = np.ascontiguousarray(perm[:, 2 * h + f:])
    u = rng.random((n, 8 * h))
    return BatchInputs(ko, field, oya, order, u, redeals)


@nb.njit(cache=True)
def _shuffle(U: NDArray[np.float64], deck: NDArray[np.int8]) -> NDArray[np.int8]:
    n, d = U.shape[0], deck.shape[0]
    out = np.empty((n, d), dtype=np.int8)
    for g in range(n):
        row = out[g]
        row[:] = deck
        for i in range(d - 1, 0, -1):  # Fisher-Yates: swap i with a uniform j in [0, i]
            j = int(U[g, d - 1 - i] * (i + 1))
            tmp = row[i]
            row[i] = row[j]
            row[j] = tmp
    return out


@nb.njit(cache=True)
def _deal_masks(perm: NDArray[np.int8], h: int, f: int, redeal: bool):
    n = perm.shape[0]
    ko = np.zeros(n, dtype=np.uint64)
    field = np.zeros(n, dtype=np.uint64)
    oya = np.zeros(n, dtype=np.uint64)
    misdeal = np.zeros(n, dtype=np.bool_)
    counts = np.zeros(12, dtype=np.int64)
    one = np.uint64(1)
    for g in range(n):
        for i in range(h):
            ko[g] |= one << np.uint64(perm[g, i])
        counts[:] = 0
        for i in range(h, h + f):
            field[g] |= one << np.uint64(perm[g, i])
            counts[perm[g, i] // 4] += 1
        for i in range(h + f, 2 * h + f):
            oya[g] |= one << np.uint64(perm[g, i])
        if redeal:
            for m in range(12):
                if counts[m] == 4:
                    misdeal[g] = True
    return ko, field, oya, misdeal


@nb.njit(cache=True, inline="always")
def _pc(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@nb.njit(cache=True)
def _nth(mask: np.uint64, idx: int) -> int:
    for c in range(48):
        if (mask >> np.uint64(c)) & np.uint64(1):
            if idx == 0:
                return c
            idx -= 1
    return -1


@nb.njit(cache=True)
def _score(pile: np.uint64, P: NDArray[np.int64], masks: NDArray[np.uint64]) -> int:
    # P: gokou shikou ame sankou viewing ino tane akatan aotan akaao tan kasu
    # masks: NON_RAIN ANIMALS INOSHIKACHO RIBBONS AKATAN AOTAN CHAFF
    one = np.uint64(1)
    s = 0
    n = _pc(pile & masks[0])
    rain = (pile >> np.uint64(40)) & one
    if n == 4:
        s += P[0] if rain else P[1]
    elif n == 3:
        s += P[2] if rain else P[3]
    if (pile >> np.uint64(32)) & one:
        s += P[4] * (int((pile >> np.uint64(8)) & one) + int((pile >> np.uint64(28)) & one))
    a = _pc(pile & masks[1])
    if pile & masks[2] == masks[2]:
        s += P[5] + a - 3
    elif a >= 5:
        s += P[6] + a - 5
    rb = _pc(pile & masks[3])
    red = pile & masks[4] == masks[4]
    blue = pile & masks[5] == masks[5]
    if red and blue:
        s += P[9] + rb - 6
    elif red:
        s += P[7] + rb - 3
    elif blue:
        s += P[8] + rb - 3
    elif rb >= 5:
        s += P[10] + rb - 5
    ch = _pc(pile & masks[6]) + int((pile >> np.uint64(32)) & one)
    if ch >= 10:
        s += P[11] + ch - 10
    return s


@nb.njit(cache=True)
def _teyaku(hand: np.uint64, teshi_pts: int, kutt_pts: int) -> int:
    pairs = 0
    teshi = False
    other = False
    for m in range(12):
        c = _pc(hand & (np.uint64(0xF) << np.uint64(4 * m)))
        if c == 4:
            teshi = True
        elif c == 2:
            pairs += 1
        elif c != 0:
            other = True
    kutt = pairs == 4 and not other and not teshi
    if teshi:
        return teshi_pts
    if kutt:
        return kutt_pts
    return 0


@nb.njit(cache=True)
def _put_down(card: int, p: int, fld: np.uint64, piles: NDArray[np.uint64], u_row: NDArray[np.float64], k: int,
              log_row: NDArray[np.int16], L: int):
    one = np.uint64(1)
    bit = one << np.uint64(card)
    m = fld & (np.uint64(0xF) << np.uint64(card & ~3))
    cnt = _pc(m)
    if cnt == 0:
        fld |= bit
    elif cnt == 2:
        tgt = _nth(m, int(u_row[k] * 2))
        k += 1
        log_row[L] = tgt
        L += 1
        piles[p] |= bit | (one << np.uint64(tgt))
        fld &= ~(one << np.uint64(tgt))
    else:
        piles[p] |= bit | m
        fld &= ~m
    return fld, k, L


@nb.njit(cache=True)
def _simulate(ko, field, oya, order, u, koikoi_prob, P, masks, cfg, winner, points, reason, piles_out, field_out,
              log, log_len):
    # cfg: hand_size teyaku_on teshi kutt seven_double threshold limit opp_double forced minpts draw_mode draw_pts
    n = ko.shape[0]
    H = cfg[0]
    one = np.uint64(1)
    piles = np.zeros(2, dtype=np.uint64)
    hands = np.zeros(2, dtype=np.uint64)
    calls = np.zeros(2, dtype=np.int64)
    for g in range(n):
        hands[0] = oya[g]
        hands[1] = ko[g]
        fld = field[g]
        piles[0] = 0
        piles[1] = 0
        calls[0] = 0
        calls[1] = 0
        k = 0
        L = 0
        w = -2
        pts = 0
        why = REASON_STOP
        if cfg[1]:
            t0 = _teyaku(hands[0], cfg[2], cfg[3])
            t1 = _teyaku(hands[1], cfg[2], cfg[3])
            if t0 > 0 and t1 > 0:
                w, pts, why = -1, 0, REASON_VOID
            elif t0 > 0:
                w, pts, why = 0, t0, REASON_TEYAKU
            elif t1 > 0:
                w, pts, why = 1, t1, REASON_TEYAKU
        t = 0
        while w == -2 and t < 2 * H:
            p = t & 1
            s0 = _score(piles[p], P, masks)
            c = _nth(hands[p], int(u[g, k] * _pc(hands[p])))
            k += 1
            log[g, L] = c
            L += 1
            hands[p] &= ~(one << np.uint64(c))
            fld, k, L = _put_down(c, p, fld, piles, u[g], k, log[g], L)
            d = int(order[g, t])
            log[g, L] = d
            L += 1
            fld, k, L = _put_down(d, p, fld, piles, u[g], k, log[g], L)
            s1 = _score(piles[p], P, masks)
            if s1 > s0 and s1 > 0 and s1 >= cfg[9]:
                stop = True
                if not ((cfg[6] > 0 and calls[0] + calls[1] >= cfg[6]) or (cfg[8] and hands[p] == 0)):
                    x = u[g, k]
                    k += 1
                    if x < koikoi_prob:
                        calls[p] += 1
                        log[g, L] = 49
                        stop = False
                    else:
                        log[g, L] = 48
                    L += 1
                if stop:
                    pts = s1
                    if cfg[4] and s1 >= cfg[5]:
                        pts *= 2
                    if cfg[7] and calls[1 - p] > 0:
                        pts *= 2
                    w = p
                    why = REASON_STOP
            t += 1
        if w == -2:
            why = REASON_DRAW
            if cfg[10] == 0:
                w, pts = -1, 0
            else:
                w, pts = 0, cfg[11]
        winner[g] = w
        points[g] = pts
        reason[g] = why
        piles_out[g, 0] = piles[0]
        piles_out[g, 1] = piles[1]
        field_out[g] = fld
        log_len[g] = L


def scoring_arrays(rules: RuleSet) -> tuple[NDArray[np.int64], NDArray[np.uint64]]:
    """(yaku points, card-set masks) in the order ``_score`` reads them."""
    r = rules
    points = np.array([r.gokou, r.shikou, r.ame_shikou, r.sankou, r.viewing_points, r.inoshikacho, r.tane, r.akatan,
                       r.aotan, r.akatan_aotan, r.tan, r.kasu], dtype=np.int64)
    masks = np.array([C.NON_RAIN_BRIGHTS, C.ANIMALS, C.INOSHIKACHO, C.RIBBONS, C.AKATAN, C.AOTAN, C.CHAFF_CARDS],
                     dtype=np.uint64)
    return points, masks


def simulate(rules: RuleSet, inputs: BatchInputs, koikoi_prob: float = 0.0) -> BatchResult:
    """Play every round of ``inputs`` with the uniform policy (KOI-KOI with probability ``koikoi_prob``)."""
    check_supported(rules)
    r = rules
    P, masks = scoring_arrays(rules)
    draw_mode = {"nothing_oya_passes": 0, "nothing_oya_stays": 0, "oya_ken": 1, "oya_plus_one": 1}[r.exhaustive_draw]
    draw_pts = r.oya_ken_points if r.exhaustive_draw == "oya_ken" else 1
    cfg = np.array([r.hand_size, r.teyaku == "score", r.teshi_points, r.kuttsuki_points, r.seven_plus_double,
                    r.double_threshold, r.koikoi_limit, r.opponent_koikoi_multiplier == "double",
                    r.forced_stop_on_empty_hand, r.koikoi_min_points, draw_mode, draw_pts], dtype=np.int64)
    n = len(inputs.ko)
    out = BatchResult(
        winner=np.empty(n, dtype=np.int8), points=np.empty(n, dtype=np.int32), reason=np.empty(n, dtype=np.int8),
        piles=np.empty((n, 2), dtype=np.uint64), field=np.empty(n, dtype=np.uint64),
        log=np.full((n, MAX_LOG), -1, dtype=np.int16), log_len=np.empty(n, dtype=np.int16),
    )
    _simulate(inputs.ko, inputs.field, inputs.oya, inputs.order, inputs.u, float(koikoi_prob), P, masks, cfg,
              out.winner, out.points, out.reason, out.piles, out.field, out.log, out.log_len)
    return out


def random_rounds(rules: RuleSet, n: int, rng: np.random.Generator, koikoi_prob: float = 0.0) -> BatchResult:
    """``n`` uniformly random rounds (sample the inputs, then simulate)."""
    return simulate(rules, sample_inputs(rules, n, rng), koikoi_prob)
