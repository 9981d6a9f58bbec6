"""Koi-Koi's round flow in numba, once: one state layout and one ``step`` that every numba path plays rounds with.

Rules: those of ``Engine`` (koikoi-rules.md sec. 3-7) for every ``RuleSet`` option, through the arrays of
``kernels.kernel_rules``. The batched simulator (``batched``), the search's playouts (``players.search``) and
Online Outcome Sampling's round walk (``infoset_hash`` and ``solvers.oos_walk``) all step rounds with this module;
the tests step it beside the engine, node for node, on every preset.

Specification in cfrlab:
* A position is two arrays (``new_position``): ``st`` (int64, indices ``S_*``: phase as the engine numbers it, oya,
  half-turn, pending card, the mover's score and yaku bits at the start of the turn, last riser, field brights,
  redeals, calls, the round's month; at a terminal node the winner (-1 none), points, reason (``kernels.REASONS``),
  the next dealer and the net points of player 0; the playout's next draw and next uniform) and ``cards`` (uint64
  masks, ``C_*``: both hands, field, piles, stock). Seats are absolute (0 and 1); the mover is (oya + turn) & 1.
* ``begin`` sets the round's root (the first-oya coin or the deal), ``deal`` applies a deal given as masks (a
  misdeal redeals, a teyaku or a four-of-a-month field ends the round, else the oya's first turn), ``step`` applies
  a play, capture, draw or koi-koi decision, ``legal`` lists the actions in the engine's order.
* ``playout.play_out`` plays on from any node with a playout policy (its own module), stepping with ``advance``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.kernels import (
    DECIDE,
    DRAW,
    DRAW_CAPTURE,
    F_DRAW,
    F_FORCED,
    F_HALF_TURNS,
    F_LIMIT,
    F_MIN_POINTS,
    F_NEW_YAKU,
    F_NO_CALLS,
    F_OYA_KEN,
    KOIKOI,
    PLAY,
    PLAY_CAPTURE,
    REASON_DRAW,
    REASON_STOP,
    STOP,
    KernelRules,
    borrowed,
    deal_result,
    misdeal,
    month_mask,
    popcount,
    round_points,
    score,
    score_bits,
)

FIRST_OYA, DEAL, TERMINAL = 0, 1, 7  # the engine's phase numbers (PLAY .. DECIDE: ``kernels``)
(S_PHASE, S_OYA, S_TURN, S_PENDING, S_S0, S_Y0, S_LAST, S_BRIGHTS, S_REDEALS, S_CALLS, S_NET, S_NEXT, S_WINNER,
 S_POINTS, S_REASON, S_MONTH, S_DRAWN, S_USED) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18)
"""State indices; ``S_CALLS`` holds two entries (seat 0, seat 1)."""
STATE_SIZE = 19
C_HANDS, C_FIELD, C_PILES, C_STOCK = 0, 2, 3, 5
"""Card-mask indices; ``C_HANDS`` and ``C_PILES`` hold two entries each."""
CARDS_SIZE = 6
_BRIGHTS = np.uint64(C.BRIGHTS)
_ONE = np.uint64(1)


def new_position() -> tuple[np.ndarray, np.ndarray]:
    """Empty ``st`` and ``cards`` arrays of the layout above."""
    return np.zeros(STATE_SIZE, dtype=np.int64), np.zeros(CARDS_SIZE, dtype=np.uint64)


@nb.njit(cache=True, inline="always")
def mover(st) -> int:
    """The seat to act at a PLAY, capture, DRAW or DECIDE node."""
    return (st[S_OYA] + st[S_TURN]) & 1


@nb.njit(cache=True, inline="always")
def lay(c, field, pile):
    """Card ``c`` meets the field with no choice to make: it stays there (no month match) or takes its month's
    cards (one, three, or four on a field allowed to keep them) to ``pile``. Returns the new (field, pile)."""
    m = field & month_mask(c)
    if popcount(m) == 0:
        return field | (_ONE << np.uint64(c)), pile
    return field & ~m, pile | m | (_ONE << np.uint64(c))


@nb.njit(cache=True)
def coin(st, a) -> None:
    """The first-oya coin shows ``a``: seat ``a`` deals."""
    st[S_OYA] = a
    st[S_PHASE] = DEAL


@nb.njit(cache=True)
def begin(st, cards, oya, coin, month, deck) -> None:
    """The round's root: a first-oya coin (``coin``) or the deal with ``oya`` dealing; the stock is ``deck``."""
    for i in range(STATE_SIZE):
        st[i] = 0
    st[S_PHASE] = FIRST_OYA if coin else DEAL
    st[S_OYA] = 0 if coin else oya
    st[S_PENDING] = -1
    st[S_LAST] = -1
    st[S_WINNER] = -1
    st[S_MONTH] = month
    for i in range(CARDS_SIZE):
        cards[i] = 0
    cards[C_STOCK] = deck


@nb.njit(cache=True)
def _finish(st, winner, points, reason, next_oya) -> None:
    st[S_PHASE] = TERMINAL
    st[S_WINNER], st[S_POINTS], st[S_REASON], st[S_NEXT] = winner, points, reason, next_oya
    st[S_NET] = 0 if winner < 0 else points if winner == 0 else -points


@nb.njit(cache=True)
def deal(st, cards, ko, field, oya_hand, kr) -> bool:
    """Apply a deal (``Engine.deal``); False for a misdeal (counted in ``S_REDEALS``; the deal comes again), else
    the round ends at the deal (teyaku, four of a month on the field) or the oya's first turn starts."""
    F = kr.F
    if misdeal(ko, field, oya_hand, F):
        st[S_REDEALS] += 1
        return False
    oya = st[S_OYA]
    cards[C_HANDS + oya], cards[C_HANDS + 1 - oya] = oya_hand, ko
    cards[C_FIELD] = field
    cards[C_STOCK] &= ~(ko | field | oya_hand)
    st[S_BRIGHTS] = popcount(field & _BRIGHTS)
    w, pts, why, nxt = deal_result(field, oya_hand, ko, F)
    if w != -2:  # the round ends at the deal (winner and next dealer relative to the oya: 0 oya, 1 ko)
        _finish(st, -1 if w < 0 else oya if w == 0 else 1 - oya, pts, why, oya if nxt == 0 else 1 - oya)
        return True
    st[S_TURN] = 0
    st[S_PENDING] = -1
    st[S_PHASE] = PLAY
    st[S_S0], st[S_Y0] = score_bits(cards[C_PILES + oya], field, st[S_MONTH], np.int64(0), kr.P, kr.M)
    return True


@nb.njit(cache=True, inline="always")
def legal(st, cards, out) -> int:
    """The legal actions (chance: the outcomes of a draw) in ascending order into ``out``; their number."""
    ph = st[S_PHASE]
    if ph == DECIDE:
        out[0], out[1] = STOP, KOIKOI
        return 2
    p = mover(st)
    if ph == PLAY:
        m = cards[C_HANDS + p]
    elif ph == DRAW:
        m = cards[C_STOCK]
    else:
        m = cards[C_FIELD] & month_mask(st[S_PENDING])
    n = 0
    for c in range(48):
        if (m >> np.uint64(c)) & _ONE:
            out[n] = c
            n += 1
    return n


class Position(NamedTuple):
    """A position as ``advance`` and ``playout.play_on`` read it: the ``st`` and ``cards`` entries of the round's
    play, held in registers while a playout runs (``load``, ``store``), per seat where the arrays hold two entries."""

    phase: int
    oya: int
    turn: int
    pending: int
    s0: int
    y0: int
    last: int
    brights: int
    calls0: int
    calls1: int
    month: int
    winner: int
    points: int
    reason: int
    next_oya: int
    hand0: np.uint64
    hand1: np.uint64
    field: np.uint64
    pile0: np.uint64
    pile1: np.uint64
    stock: np.uint64


@nb.njit(cache=True, inline="always")
def load(st, cards):
    """The ``Position`` of the arrays ``st``, ``cards``."""
    return Position(st[S_PHASE], st[S_OYA], st[S_TURN], st[S_PENDING], st[S_S0], st[S_Y0], st[S_LAST],
                    st[S_BRIGHTS], st[S_CALLS], st[S_CALLS + 1], st[S_MONTH], st[S_WINNER], st[S_POINTS],
                    st[S_REASON], st[S_NEXT], cards[C_HANDS], cards[C_HANDS + 1], cards[C_FIELD], cards[C_PILES],
                    cards[C_PILES + 1], cards[C_STOCK])


@nb.njit(cache=True, inline="always")
def store(pos, st, cards) -> None:
    """Write ``pos`` back to the arrays (the round's net for seat 0 derived from its winner and points)."""
    st[S_PHASE], st[S_OYA], st[S_TURN], st[S_PENDING] = pos.phase, pos.oya, pos.turn, pos.pending
    st[S_S0], st[S_Y0], st[S_LAST], st[S_BRIGHTS] = pos.s0, pos.y0, pos.last, pos.brights
    st[S_CALLS], st[S_CALLS + 1], st[S_MONTH] = pos.calls0, pos.calls1, pos.month
    st[S_WINNER], st[S_POINTS], st[S_REASON], st[S_NEXT] = pos.winner, pos.points, pos.reason, pos.next_oya
    st[S_NET] = 0 if pos.winner < 0 else pos.points if pos.winner == 0 else -pos.points
    cards[C_HANDS], cards[C_HANDS + 1], cards[C_FIELD] = pos.hand0, pos.hand1, pos.field
    cards[C_PILES], cards[C_PILES + 1], cards[C_STOCK] = pos.pile0, pos.pile1, pos.stock


@nb.njit(cache=True, inline="always")
def advance(pos, a, kr):
    """The position after action (or drawn card) ``a`` (``advance_with``, the rules as ``kr``)."""
    return advance_with(pos, a, kr.P, kr.M, kr.F)


@nb.njit(cache=True, inline="always")
def advance_with(pos, a, P, M, F):
    """The position after action (or drawn card) ``a`` at a PLAY, capture, DRAW or DECIDE node (``Engine.step``):
    the turn's flow, the koi-koi trigger, the exhaustive draw and the winner's points. Written once, on scalars, so
    that the compiler keeps a playout's position in registers."""
    (phase, oya, turn, pending, s0, y0, last, brights, calls0, calls1, month, winner, points, reason, next_oya,
     hand0, hand1, field, pile0, pile1, stock) = pos
    p = (oya + turn) & 1
    bit = _ONE << np.uint64(a) if a < 48 else np.uint64(0)
    end_turn, next_turn, win, why = False, False, -1, REASON_STOP
    if phase == PLAY or phase == DRAW:
        if phase == PLAY:
            if p == 0:
                hand0 &= ~bit
            else:
                hand1 &= ~bit
        else:
            stock &= ~bit
        if popcount(field & month_mask(a)) == 2:
            phase, pending = phase + 1, a  # PLAY_CAPTURE, DRAW_CAPTURE
        else:
            if p == 0:
                field, pile0 = lay(a, field, pile0)
            else:
                field, pile1 = lay(a, field, pile1)
            end_turn = phase == DRAW
            phase = DRAW
    elif phase == PLAY_CAPTURE or phase == DRAW_CAPTURE:
        field &= ~bit
        if p == 0:
            pile0 |= bit | (_ONE << np.uint64(pending))
        else:
            pile1 |= bit | (_ONE << np.uint64(pending))
        pending = -1
        end_turn = phase == DRAW_CAPTURE
        phase = DRAW
    elif a == STOP:  # DECIDE
        win = p
    else:
        if p == 0:
            calls0 += 1
        else:
            calls1 += 1
        next_turn = True
    if end_turn:  # after the mover's draw: a rise of their score asks STOP / KOI-KOI (or ends the round)
        s1, bits = score_bits(pile0 if p == 0 else pile1, field, month, calls0 if p == 0 else calls1, P, M)
        rose = (bits & ~y0) != 0 if F[F_NEW_YAKU] else s1 > s0
        if rose and s1 > 0 and s1 >= F[F_MIN_POINTS]:
            last = p
            if F[F_NO_CALLS] or (F[F_LIMIT] > 0 and calls0 + calls1 >= F[F_LIMIT]) or (
                    F[F_FORCED] and (hand0 if p == 0 else hand1) == 0):
                win = p
            else:
                phase = DECIDE
        else:
            next_turn = True
    if next_turn:
        turn += 1
        if turn < F[F_HALF_TURNS]:
            q = (oya + turn) & 1
            s0, y0 = score_bits(pile0 if q == 0 else pile1, field, month, calls0 if q == 0 else calls1, P, M)
            phase = PLAY
        else:  # exhaustive draw
            mode = F[F_DRAW]
            if mode == 4 and last >= 0:
                win, why = last, REASON_DRAW
            elif mode == 2 or mode == 3:
                phase, winner, points, reason, next_oya = TERMINAL, oya, F[F_OYA_KEN] if mode == 2 else 1, \
                    REASON_DRAW, oya
            else:
                phase, winner, points, reason, next_oya = TERMINAL, -1, 0, REASON_DRAW, \
                    oya if mode == 1 else 1 - oya
    if win >= 0:  # seat ``win`` scores its pile (a STOP, a forced end, or the last riser at an exhaustive draw)
        own, opp = (calls0, calls1) if win == 0 else (calls1, calls0)
        base = score(pile0 if win == 0 else pile1, field, month, own, P, M)
        phase, winner, points, reason, next_oya = TERMINAL, win, round_points(base, own, opp, brights, F), why, win
    return Position(phase, oya, turn, pending, s0, y0, last, brights, calls0, calls1, month, winner, points, reason,
                    next_oya, hand0, hand1, field, pile0, pile1, stock)


@nb.njit(cache=True, inline="always")
def step(st, cards, a, kr) -> None:
    """Apply action (or drawn card) ``a`` to the arrays (``advance``). Inlined: a loop that steps node by node (the
    OOS walk) hands it ``borrow_rules`` arrays."""
    store(advance(load(st, cards), a, kr), st, cards)


@nb.njit(cache=True, inline="always")
def borrow_rules(kr):
    """``kr`` with ``borrowed`` arrays, for loops that step the flow."""
    return KernelRules(borrowed(kr.P), borrowed(kr.M), borrowed(kr.F))


@nb.njit(cache=True, inline="always")
def with_hand(pos, seat, hand):
    """``pos`` with ``hand`` as seat ``seat``'s hand (a determinization of a hidden hand)."""
    h0, h1 = (hand, pos.hand1) if seat == 0 else (pos.hand0, hand)
    return Position(pos.phase, pos.oya, pos.turn, pos.pending, pos.s0, pos.y0, pos.last, pos.brights, pos.calls0,
                    pos.calls1, pos.month, pos.winner, pos.points, pos.reason, pos.next_oya, h0, h1, pos.field,
                    pos.pile0, pos.pile1, pos.stock)
