"""The Koi-Koi information abstraction: keys read only what the acting player sees; abstract actions cover the
legal actions and map back to legal, distinct ones."""

from __future__ import annotations

import numpy as np

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.solvers.abstraction import DISCARD, AbstractKoiKoiGame, decide
from cfrlab.registry import load_game


def _decisions(seed: int, n: int) -> list:
    """Decision states of random rounds (uniform play), ``n`` of them."""
    game, rng, out = load_game("koikoi"), np.random.default_rng(seed), []
    while len(out) < n:
        s = game.new_initial_state()
        while not s.is_terminal() and len(out) < n:
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            out.append(s)
            legal = s.legal_actions()
            s = s.child(legal[int(rng.integers(len(legal)))])
    return out


def test_abstract_actions_map_to_distinct_legal_actions_covering_every_feature() -> None:
    for s in _decisions(0, 300):
        d = decide(s)
        legal = s.legal_actions()
        assert list(d.actions) == sorted(set(d.actions))
        assert len(set(d.concrete)) == len(d.concrete) and set(d.concrete) <= set(legal)
        if s.es.phase == E.PLAY:  # every card's feature is offered; a card with no match is a discard of its kind
            es = s.es
            for c in legal:
                if not es.field & C.CARD_MONTH_MASK[c]:
                    assert DISCARD + C.KIND[c] in d.actions
            assert len(d.actions) <= len(legal)
        if s.es.phase == E.DECIDE:
            assert d.concrete == tuple(legal)


def test_key_ignores_the_hidden_cards() -> None:
    """Swapping a card of the opponent's hand with one of the stock changes no key, action or card chosen."""
    rng = np.random.default_rng(1)
    checked = 0
    for s in _decisions(2, 200):
        es, p = s.es, s.current_player()
        opp_cards, stock = C.cards_of(es.hands[1 - p]), C.cards_of(es.stock)
        if not opp_cards or not stock:
            continue
        x, y = opp_cards[int(rng.integers(len(opp_cards)))], stock[int(rng.integers(len(stock)))]
        hands = list(es.hands)
        hands[1 - p] = hands[1 - p] & ~(1 << x) | 1 << y
        other = type(s)(s.game, es._replace(hands=tuple(hands), stock=es.stock & ~(1 << y) | 1 << x), s.pub, s.priv)
        assert decide(other) == decide(s)
        checked += 1
    assert checked > 100


def test_wrapper_plays_rounds_to_the_same_returns_as_its_concrete_actions() -> None:
    game, rng = AbstractKoiKoiGame(), np.random.default_rng(3)
    for _ in range(20):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            a = s.legal_actions()[int(rng.integers(len(s.legal_actions())))]
            concrete = s.concrete_action(a)
            nxt = s.child(a)
            assert nxt.inner.es == s.inner.child(concrete).es
            s = nxt
        assert s.returns() == s.inner.returns()
