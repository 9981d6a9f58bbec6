"""The search opponent of self-play (``rollout._deal_hidden``, ``rollout._best_action``): uniform deals of what the
mover cannot see, and on the same deals and uniforms the choice of ``players.search`` (``playout_values``), every
phase, with greedy's playouts and with the ``cfr`` agent's (the blueprint's koi-koi table)."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.learn import rollout as R
from cfrlab.games.koikoi.players.blueprint import load_blueprint
from cfrlab.games.koikoi.players.cfr import decide_table
from cfrlab.games.koikoi.players.search import playout_values
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.information import determinize, information, playout_rules, root_position
from cfrlab.registry import load_game
from tests.games.koikoi.test_search import decision_states


@pytest.mark.parametrize("spec, agent", [("koikoi", "search"), ("koikoi(rules=fudawiki)", "search"),
                                         ("koikoi", "cfr")])
def test_the_search_opponent_chooses_as_the_search_on_the_same_deals(spec, agent) -> None:
    game = load_game(spec)
    decide = decide_table(load_blueprint(None, game)) if agent == "cfr" else None
    pr = playout_rules(game.rules, decide=decide)  # the search's kernel rules and playout policy, the opponent's too
    rng = np.random.default_rng(4)
    phases, differ, changed = set(), 0, 0
    for state in decision_states(game, 40, seed=5):
        info = information(game.engine, state.es, state.current_player())
        if len(info.legal) < 2:
            continue
        phases.add(info.phase)
        hands, orders = determinize(info, 8, rng)
        u = rng.random((8, R.PLAYOUT_UNIFORMS)) if decide is not None else np.zeros((8, R.PLAYOUT_UNIFORMS))
        values = playout_values(pr, info, info.legal, hands, orders, u)
        legal = np.array(info.legal, dtype=np.int64)
        pick = R._best_action(*root_position(info), info.player, legal, len(legal), hands, orders, u, pr.rules,
                              pr.policy)
        assert pick == int(np.argmax(values.mean(axis=1))), str(state)
        differ += pick != 0
        if decide is not None:  # the table changes the playouts' values, so it is the one read
            greedy = playout_values(playout_rules(game.rules), info, info.legal, hands, orders, u)
            changed += not np.array_equal(values, greedy)
    assert phases >= {E.PLAY, E.DECIDE} and differ > 5 and (decide is None or changed > 5)


def test_the_search_opponents_deals_split_the_unseen_cards_uniformly() -> None:
    R._seed(3)
    hidden = np.uint64(sum(1 << c for c in (0, 5, 9, 30)))
    rest = np.array([1, 2, 7, 11, 20, 33, 40, 47], dtype=np.int8)
    unseen = int(hidden) | C.mask_of(int(c) for c in rest)
    n = 6000
    hands, orders = R._deal_hidden(hidden, rest, n)
    assert hands.shape == (n,) and orders.shape == (n, len(rest))
    counts = np.zeros(48)
    for hand, order in zip(hands, orders):
        pile = C.mask_of(int(c) for c in order)
        assert int(hand).bit_count() == 4 and int(hand) & pile == 0 and int(hand) | pile == unseen
        counts += [(int(hand) >> c) & 1 for c in range(48)]
    p = 4 / 12  # each unseen card in the hand with probability h / |U|: within 4.5 binomial standard errors
    cards = C.cards_of(unseen)
    assert np.all(np.abs(counts[cards] / n - p) < 4.5 * np.sqrt(p * (1 - p) / n))
    first = np.bincount(orders[:, 0], minlength=48)[cards]  # the top draw: each unseen card with probability 1/12
    assert np.all(np.abs(first / n - 1 / 12) < 4.5 * np.sqrt((1 / 12) * (11 / 12) / n))
