"""The greedy Koi-Koi heuristic: capture by score gain then card value, koi-koi only on a small score.

It is part of the game's machinery, not only an agent: the greedy agent (``players.greedy``) plays it, the
playouts' default policy (``playout_policy``) is its numba transcription, and the blueprint's abstraction
(``solvers.abstraction``) collapses card plays to its choice.

Specification in cfrlab: the rule reads only the player's view (``view.player_view``); scores are base scores
in the round's context (current field, the round's month, the player's own koi-koi calls).
* PLAY: the card whose capture raises the base score most, then captures the most card value (bright 20,
  animal 10, ribbon 5, chaff 1); with no capture available it discards the least valuable card.
* Capture choice: the field card that raises the score most, then the more valuable one.
* DECIDE: KOI-KOI when the base score is below ``koikoi_below``, at least ``min_hand`` cards remain and the
  opponent has no yaku; STOP otherwise. ``koikoi_below=0`` gives an always-STOP agent.
"""

from __future__ import annotations

from typing import Any

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import CARD_VALUE
from cfrlab.games.koikoi.rules.view import player_view


def _value(mask: int) -> int:
    return sum(CARD_VALUE[c] for c in C.cards_of(mask))


def greedy_action(state: Any, koikoi_below: int = 4, min_hand: int = 3) -> int:
    """Greedy's action in ``state`` (a ``KoiKoiState``), read from the acting player's view only."""
    p = state.current_player()
    eng: E.Engine = state.game.engine
    v = player_view(state, p)
    m = v["masks"]
    hand, field, pile = m["hand"], m["field"], m["pile"]
    month, own_calls = eng.round_month(state.es), state.es.calls[p]

    def score(cards: int) -> int:  # the base score in this round's context (field, month, own calls)
        return eng.scorer.score(cards, field, month, own_calls)

    base = score(pile)
    phase = state.es.phase
    if phase == E.DECIDE:
        if v["score"] < koikoi_below and len(v["hand"]) >= min_hand and v["opponent_score"] == 0:
            return E.KOIKOI
        return E.STOP
    if phase in (E.PLAY_CAPTURE, E.DRAW_CAPTURE):
        pend = 1 << state.es.pending
        options = state.legal_actions()
        return max(options, key=lambda c: (score(pile | pend | 1 << c) - base, CARD_VALUE[c], -c))
    best, best_key = -1, None
    for c in C.cards_of(hand):
        matches = field & C.CARD_MONTH_MASK[c]
        k = matches.bit_count()
        if k == 0:
            key = (-1, -CARD_VALUE[c], 0)
        else:
            if k == 2:
                take = max(C.cards_of(matches), key=lambda x: CARD_VALUE[x])
                got = 1 << take
            else:
                got = matches
            gained = got | 1 << c
            key = (score(pile | gained) - base, _value(gained), 1)
        if best_key is None or key > best_key:
            best, best_key = c, key
    return best
