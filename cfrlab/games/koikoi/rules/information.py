"""What the acting Koi-Koi player knows at a decision, and the hidden cards drawn to complete it.

``Information`` holds the acting player's own hand and the public data, never the opponent's hand or the stock's
order (STYLE principle 7); ``determinize``/``complete_hidden`` draw completions from the chance posterior given the
public history (seed 000 sec. 10.1): every split of the unseen cards is equally likely, except that the deal must
have led to play. ``root_position`` lays an information set out as a ``flow`` position for playouts, which the
search (``players.search``), the learned evaluator (``neural.cut``) and self-play (``learn``) share.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.flow import (
    C_FIELD,
    C_HANDS,
    C_PILES,
    S_BRIGHTS,
    S_CALLS,
    S_LAST,
    S_MONTH,
    S_OYA,
    S_PENDING,
    S_PHASE,
    S_S0,
    S_TURN,
    S_WINNER,
    S_Y0,
    new_position,
)
from cfrlab.games.koikoi.rules.kernels import YAKU_BITS, KernelRules, hands_play_on, kernel_rules
from cfrlab.games.koikoi.rules.playout_policy import Policy, make_policy
from cfrlab.games.koikoi.rules.rules import RuleSet


class Information(NamedTuple):
    """What the acting player knows at a decision: everything the search may use."""

    player: int
    phase: int
    oya: int
    turn: int
    hand: int
    field: int
    piles: tuple[int, int]
    calls: tuple[int, int]
    pending: int
    """Card waiting for its capture choice (-1 if none); public."""
    s0: int
    """Mover's base score at the start of the turn (a function of the public pile at that time)."""
    opponent_hand_size: int
    unseen: int
    """Mask of the cards the player has not seen: the opponent's hand and the stock together."""
    legal: tuple[int, ...]
    played: tuple[int, int] = (0, 0)
    """Cards each player has played from hand this round (public)."""
    y0: int = 0
    """Mover's yaku bits at the start of the turn (``kernels.YAKU_BITS``; for the 'new_yaku' trigger)."""
    last_riser: int = -1
    month: int = 1
    """The round's month (tsukifuda, seasonal viewing)."""
    field_brights: int = 0
    """Brights dealt to the field (the bright multiplier option)."""
    round: int = 0
    totals: tuple[int, int] = (0, 0)
    """Match totals by seat before this round."""


def information(engine: E.Engine, es: E.EngineState, player: int) -> Information:
    """The player's information at decision state ``es``: own hand and public data, never the hidden cards.

    The opponent's hand and the stock enter only through their sizes and their union ``unseen``."""
    if es.phase not in (E.PLAY, E.PLAY_CAPTURE, E.DRAW_CAPTURE, E.DECIDE):
        raise ValueError(f"no decision of player {player} in phase {E.PHASE_NAMES[es.phase]}")
    if engine.mover(es) != player:
        raise ValueError(f"player {player} is not to act (player {engine.mover(es)} is)")
    opp = 1 - player
    hand = es.hands[player]
    pending_bit = 1 << es.pending if es.pending >= 0 else 0
    unseen = engine.deck & ~(hand | es.field | es.piles[0] | es.piles[1] | pending_bit)
    y0 = sum(1 << YAKU_BITS.index(y) for y in es.y0)
    return Information(player, es.phase, es.oya, es.turn, hand, es.field, es.piles, es.calls, es.pending, es.s0,
                       es.hands[opp].bit_count(), unseen, tuple(engine.legal_actions(es)), es.played, y0,
                       es.last_riser, engine.round_month(es), es.field_brights, es.round, es.totals)


def determinize(info: Information, n: int, rng: np.random.Generator,
                rules: RuleSet | None = None) -> tuple[NDArray[np.uint64], NDArray[np.int8]]:
    """``n`` completions of ``info`` drawn from the deal distribution of ``rules``: the opponent's hand masks and the
    draw-pile orders (top first).

    Every split of the unseen cards is equally likely a priori (sec. 10.1); the deal must also have led to play, so
    a completion whose dealt hands (hand + cards played this round) would have been redealt (teyaku redeal, a hand
    of four of a month) or would have ended the round at once (a scoring teyaku) is rejected and drawn again."""
    return complete_hidden(info.unseen, info.opponent_hand_size, info.played[info.player] | info.hand,
                           info.played[1 - info.player], n, rng, rules)


def complete_hidden(unseen: int, h: int, my_dealt: int, opp_played: int, n: int, rng: np.random.Generator,
                    rules: RuleSet | None = None) -> tuple[NDArray[np.uint64], NDArray[np.int8]]:
    """``n`` splits of the ``unseen`` cards into the opponent's ``h``-card hand and a draw-pile order, uniform
    among those whose dealt hands (``my_dealt``, and the opponent's hand with ``opp_played``) lead to play under
    ``rules`` (no constraint without ``rules``)."""
    cards = np.array(C.cards_of(unseen), dtype=np.int8)
    if h > len(cards):
        raise ValueError(f"the opponent holds {h} cards but only {len(cards)} are unseen")
    perm = _permutations(cards, n, rng)
    if rules is not None and h > 0:
        F = kernel_rules(rules).F
        for _ in range(_MAX_REJECTION_ROUNDS):
            bad = np.flatnonzero(~_plays_on(perm[:, :h], np.uint64(my_dealt), np.uint64(opp_played), F))
            if not len(bad):
                break
            perm[bad] = _permutations(cards, len(bad), rng)
        else:
            raise ValueError("no completion of the hidden cards is consistent with the deal rules")
    bits = np.left_shift(np.uint64(1), perm[:, :h].astype(np.uint64))
    opp_hands = np.bitwise_or.reduce(bits, axis=1) if h else np.zeros(n, dtype=np.uint64)
    return opp_hands.astype(np.uint64), np.ascontiguousarray(perm[:, h:])


_MAX_REJECTION_ROUNDS = 1000


def _permutations(cards: NDArray[np.int8], n: int, rng: np.random.Generator) -> NDArray[np.int8]:
    return cards[np.argsort(rng.random((n, len(cards))), axis=1)]


@nb.njit(cache=True)
def _plays_on(opp_cards, my_dealt, opp_played, F):
    out = np.empty(opp_cards.shape[0], dtype=np.bool_)
    for j in range(opp_cards.shape[0]):
        hand = opp_played
        for c in opp_cards[j]:
            hand |= np.uint64(1) << np.uint64(c)
        out[j] = hands_play_on(my_dealt, hand, F)
    return out


class PlayoutRules(NamedTuple):
    """A rule set as the arrays the kernels read, with the playouts' policy."""

    rules: KernelRules
    policy: Policy
    """Greedy (``playout_policy.Policy``), with its koi-koi rule or a ``decide`` table and greedy's or tuned plays."""


def playout_rules(rules: RuleSet, koikoi_below: int = 4, min_hand: int = 3,
                  decide: NDArray[np.float64] | None = None,
                  weights: NDArray[np.float64] | None = None, epsilon: float = 0.0) -> PlayoutRules:
    """The kernel arrays of ``rules`` (every option) and the playouts' policy: greedy's koi-koi rule or ``decide``,
    greedy's card plays or ``playout_policy`` ``weights`` (one row, used for both seats, or one row per seat)."""
    return PlayoutRules(kernel_rules(rules), make_policy("greedy", epsilon, 0.0, koikoi_below, min_hand, decide,
                                                         weights))


def root_position(info: Information) -> tuple[NDArray[np.int64], NDArray[np.uint64]]:
    """The ``flow`` position of ``info`` with the opponent's hand empty (each determinization fills it in)."""
    st, cards = new_position()
    st[S_PHASE], st[S_OYA], st[S_TURN], st[S_PENDING] = info.phase, info.oya, info.turn, info.pending
    st[S_S0], st[S_Y0], st[S_LAST], st[S_BRIGHTS] = info.s0, info.y0, info.last_riser, info.field_brights
    st[S_CALLS], st[S_CALLS + 1], st[S_MONTH], st[S_WINNER] = info.calls[0], info.calls[1], info.month, -1
    cards[C_HANDS + info.player], cards[C_FIELD] = info.hand, info.field
    cards[C_PILES], cards[C_PILES + 1] = info.piles
    return st, cards
