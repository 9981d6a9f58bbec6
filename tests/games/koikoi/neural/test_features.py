"""The learned evaluator's features (``neural.features``): read from the numba flow stepped beside the engine, from
the engine state, and from the search's information; never from the hidden cards; decoded against the engine."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, NUM_FEATURES, describe, encode, encode_state
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.information import information, root_position
from cfrlab.registry import load_game
from tests.games.koikoi.neural.flow_states import decisions_beside_flow

SPECS = ["koikoi(rounds=3)", "koikoi(rules=koikoi_japan,rounds=4,first_oya=coin)",
         "koikoi(rules=hanafuda_flash,koikoi_trigger=new_yaku)",
         "koikoi(hand_size=10,field_size=8)", "koikoi_mini_tsukifuda"]


def _lead_bucket(lead):
    """The lead buckets of the layout, written out."""
    bounds = [(-10**9, -30), (-29, -16), (-15, -8), (-7, -4), (-3, -1), (0, 0), (1, 3), (4, 7), (8, 15), (16, 29),
              (30, 10**9)]
    return next(i for i, (lo, hi) in enumerate(bounds) if lo <= lead <= hi)


@pytest.mark.parametrize("spec", SPECS)
def test_the_flow_the_engine_and_the_information_give_the_same_features(spec):
    game = load_game(spec)
    eng, rng = game.engine, np.random.default_rng(5)
    out = np.empty(MAX_ACTIVE, dtype=np.int32)
    seen, phases, leads = 0, set(), set()
    while seen < 150:
        for s, st, cards in decisions_beside_flow(game, rng):
            p = eng.mover(s)
            assert st[flow.S_PHASE] == s.phase and (st[flow.S_OYA], st[flow.S_TURN]) == (s.oya, s.turn)
            lead = s.totals[p] - s.totals[1 - p]
            n = encode(flow.load(st, cards), p, s.round, lead, out)
            from_flow = out[:n].copy()
            from_engine = encode_state(eng, s, p)
            info = information(eng, s, p)
            n = encode(flow.load(*root_position(info)), p, info.round, lead, out)
            assert np.array_equal(from_flow, from_engine) and np.array_equal(from_flow, out[:n])
            assert from_engine.dtype == np.int32 and n <= MAX_ACTIVE
            assert np.all(np.diff(from_flow) > 0) and 0 <= from_flow[0] and from_flow[-1] < NUM_FEATURES
            d = describe(from_flow)
            assert d["hand"] == C.cards_of(s.hands[p]) and d["field"] == C.cards_of(s.field)
            assert (d["pile"], d["opp_pile"]) == (C.cards_of(s.piles[p]), C.cards_of(s.piles[1 - p]))
            assert d["pending"] == ([s.pending] if s.pending >= 0 else [])
            assert d["phase"] == [s.phase - E.PLAY] and d["oya"] == ([0] if s.oya == p else [])
            assert d["turn"] == [min(s.turn, 15)] and d["score"] == [min(s.s0, 10)]
            assert (d["calls"], d["opp_calls"]) == ([min(s.calls[p], 3)], [min(s.calls[1 - p], 3)])
            kinds = [(C.BRIGHTS, 0, 5), (C.ANIMALS, 6, 5), (C.RIBBONS, 12, 5), (C.CHAFF_CARDS, 18, 10)]
            for name, pile in (("counts", s.piles[p]), ("opp_counts", s.piles[1 - p])):
                assert d[name] == [at + min((pile & m).bit_count(), top) for m, at, top in kinds]
            assert d["field_brights"] == [min(s.field_brights, 2)] and d["month"] == [eng.round_month(s) - 1]
            assert d["last"] == [0 if s.last_riser < 0 else 1 if s.last_riser == p else 2]
            assert d["round"] == [min(s.round, 11)] and d["lead"] == [_lead_bucket(lead)]
            seen += 1
            phases.add(s.phase)
            leads.add((s.round, lead))
    assert len(leads) > 5 or game.rules.rounds == 1  # matches: later rounds, several leads
    every = {E.PLAY, E.PLAY_CAPTURE, E.DRAW_CAPTURE, E.DECIDE}
    assert phases == every or (spec.endswith("mini_tsukifuda") and phases >= {E.PLAY, E.DECIDE})


def test_the_hidden_cards_never_change_the_features():
    """Any other split of the unseen cards into the opponent's hand and the stock gives the same features."""
    game = load_game("koikoi(hand_size=10,field_size=8)")  # the largest positions: every card seen at the end
    eng, rng = game.engine, np.random.default_rng(9)
    out, again = np.empty(MAX_ACTIVE, dtype=np.int32), np.empty(MAX_ACTIVE, dtype=np.int32)
    checked, largest = 0, 0
    while checked < 400:
        for s, st, cards in decisions_beside_flow(game, rng, koikoi_prob=1.0):
            p = eng.mover(s)
            n = encode(flow.load(st, cards), p, s.round, 3, out)
            opp = flow.C_HANDS + 1 - p
            unseen = C.cards_of(int(cards[opp] | cards[flow.C_STOCK]))
            h = int(cards[opp]).bit_count()
            for _ in range(3):
                pick = rng.permutation(len(unseen))
                cards[opp] = np.uint64(C.mask_of(unseen[i] for i in pick[:h]))
                cards[flow.C_STOCK] = np.uint64(C.mask_of(unseen[i] for i in pick[h:]))
                m = encode(flow.load(st, cards), p, s.round, 3, again)
                assert m == n and np.array_equal(out[:n], again[:m])
            checked, largest = checked + 1, max(largest, n)
    assert 55 < largest <= MAX_ACTIVE


def test_the_largest_position_fits():
    """Every card seen (the last draw of a 10-card-hand deal, a KOI-KOI decision): 48 card features and the 18
    other groups active for the ko, within ``MAX_ACTIVE``."""
    st, cards = flow.new_position()
    st[flow.S_PHASE], st[flow.S_OYA], st[flow.S_TURN], st[flow.S_PENDING], st[flow.S_S0] = E.DECIDE, 0, 19, -1, 12
    st[flow.S_LAST], st[flow.S_BRIGHTS], st[flow.S_CALLS], st[flow.S_CALLS + 1], st[flow.S_MONTH] = 1, 3, 4, 5, 12
    cards[flow.C_FIELD], cards[flow.C_PILES], cards[flow.C_PILES + 1] = 0xF, 0xFFFFF0, 0xFFFFFF000000
    out = np.full(MAX_ACTIVE + 1, -7, dtype=np.int32)
    n = encode(flow.load(st, cards), 1, 11, 40, out)
    assert n == 48 + 18 and out[MAX_ACTIVE] == -7 and np.all(np.diff(out[:n]) > 0) and out[n - 1] == NUM_FEATURES - 1


def test_the_features_tell_apart_what_the_player_knows():
    """Moving one seen card (own hand to the field) or changing the lead changes the features."""
    game = load_game("koikoi")
    s, st, cards = next(decisions_beside_flow(game, np.random.default_rng(2)))
    p = game.engine.mover(s)
    a, b = np.empty(MAX_ACTIVE, dtype=np.int32), np.empty(MAX_ACTIVE, dtype=np.int32)
    n = encode(flow.load(st, cards), p, 0, 0, a)
    assert not np.array_equal(a[:n], b[:encode(flow.load(st, cards), p, 0, 5, b)])
    card = C.cards_of(int(cards[flow.C_HANDS + p]))[0]
    cards[flow.C_HANDS + p] ^= np.uint64(1 << card)
    cards[flow.C_FIELD] |= np.uint64(1 << card)
    assert not np.array_equal(a[:n], b[:encode(flow.load(st, cards), p, 0, 0, b)])


def test_no_decision_no_features():
    game = load_game("koikoi")
    eng = game.engine
    with pytest.raises(ValueError, match="no decision"):
        encode_state(eng, eng.initial_state(), 0)
    with pytest.raises(ValueError, match="outside"):
        describe(np.array([NUM_FEATURES]))
