"""OOS's conditioned deal on full Koi-Koi (seed 000 sec. 10.1): targeted samples reach the infoset, also after a
misdeal (two deals in the opening run); a match's deal is not conditioned (the statistics against exact values:
tests/solvers/test_oos_deal.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import sample_chunk
from cfrlab.solvers.oos import OOSConfig, find_target, sampler_for
from tests.solvers.test_oos_deal import _target_state


@pytest.mark.parametrize("public", [False, True])
def test_targeted_samples_reach_the_infoset_on_full_koikoi(public):
    """IST reaches the infoset; PST (both hands drawn from the public cards) its public state."""
    game = load_game("koikoi")
    key, player = _target_state(game, 2, earlier=10)
    target = find_target(game, key, player, public=public)
    config = OOSConfig(delta=1.0)
    sampler = sampler_for(target, config)
    reached = 0
    for j in range(20):
        sample_chunk(game, lambda k, legal: np.full(len(legal), 1.0 / len(legal)), player, config, 5, j, j + 1,
                     sampler)
        reached += any(sampler.beyond)
    assert reached >= 15  # a few proposed deals end the round at once (teyaku); the others pass through it


def test_conditioned_deal_errors():
    with pytest.raises(ValueError, match="no history has infoset"):
        find_target(load_game("koikoi"), "0|H3|zz", 0)
    assert load_game("koikoi(rounds=12)").conditioned_deal() is None  # a match deals again mid-history


def misdealt_round(game, rng):
    """A decision at the third half-turn of a round whose first deal was void (a field with four cards of a
    month, dealt again under nintendo rules)."""
    eng = game.engine
    field = C.MONTH_MASK[0] | C.mask_of([4, 5, 8, 9])
    rest = [c for c in eng.deck_cards if not field >> c & 1]
    state = game.new_initial_state().child(eng.encode_deal(C.mask_of(rest[:8]), field, C.mask_of(rest[8:16])))
    assert state.is_chance_node() and state.es.redeals == 1
    while state.is_chance_node() or state.es.turn < 3:
        state = state.child(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    return state


def test_a_misdeal_before_the_deal_is_part_of_the_opening_run():
    game = load_game("koikoi")
    state = misdealt_round(game, np.random.default_rng(1))
    player = state.current_player()
    target = find_target(game, state.information_state_key(player), player)
    assert target.deal.length == 2
    config = OOSConfig(delta=1.0)
    sampler = sampler_for(target, config)
    for j in range(10):
        sample_chunk(game, lambda k, legal: np.full(len(legal), 1.0 / len(legal)), player, config, 3, j, j + 1,
                     sampler)
        assert any(sampler.beyond)
