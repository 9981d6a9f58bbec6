"""Random Koi-Koi decisions with the numba flow stepped beside the engine (the neural tests' states)."""

from __future__ import annotations

import numpy as np

from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.kernels import kernel_rules
from tests.games.koikoi.helpers import random_playout


def decisions_beside_flow(game, rng, koikoi_prob=0.5):
    """Every decision of a random match (``helpers.random_playout``) as (engine state, flow arrays stepped beside the
    engine up to it)."""
    eng, kr = game.engine, kernel_rules(game.rules)
    actions: list[int] = []
    random_playout(eng, rng, koikoi_prob, record=actions)
    s = eng.initial_state()
    st, cards = flow.new_position()
    flow.begin(st, cards, eng.first_oya or 0, eng.first_oya is None, eng.round_month(s), np.uint64(eng.deck))
    for a in actions:
        if s.phase in (E.PLAY, E.PLAY_CAPTURE, E.DRAW_CAPTURE, E.DECIDE):
            yield s, st.copy(), cards.copy()
        t = eng.step(s, a)
        if t.round != s.round:  # the next round of the match: a fresh flow round
            flow.begin(st, cards, t.oya, False, eng.round_month(t), np.uint64(eng.deck))
        elif s.phase == E.FIRST_OYA:
            flow.coin(st, a)
        elif s.phase == E.DEAL:
            flow.deal(st, cards, *(np.uint64(m) for m in eng.decode_deal(a)), kr)
        else:
            flow.step(st, cards, a, kr)
        s = t
