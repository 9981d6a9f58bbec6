"""Koi-Koi's greedy heuristic: its captures and koi-koi calls, and its name (generic agents:
tests/agents/test_agents.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import mask_of
from cfrlab.games.koikoi.rules.game import KoiKoiState
from cfrlab.registry import load_game


def test_greedy_is_koikoi_s_agent_by_name() -> None:
    assert isinstance(make_agent("greedy", load_game("koikoi")), GreedyAgent)
    with pytest.raises(ValueError, match="no greedy"):
        make_agent("greedy", load_game("kuhn"))


def _state(hand: list[int], field: list[int], pile: list[int], opp_pile: list[int] = ()) -> KoiKoiState:
    game = load_game("koikoi")
    eng = game.engine
    es = eng.initial_state()._replace(phase=E.PLAY, hands=(mask_of(hand), mask_of([47])), field=mask_of(field),
                                      piles=(mask_of(pile), mask_of(opp_pile)),
                                      stock=eng.deck & ~mask_of(hand + field + pile + list(opp_pile) + [47]))
    return KoiKoiState(game, eng.turn_start(es))


def test_greedy_prefers_the_capture_that_makes_a_yaku() -> None:
    rng = np.random.default_rng(0)
    # capturing the moon (with Susuki Chaff) completes Sanko; the plum chaff would only take a warbler
    s = _state(hand=[30, 6], field=[28, 4], pile=[0, 8])
    assert GreedyAgent().act(s, rng) == 30
    # no yaku in reach: the most valuable capture (the crane) beats a chaff
    s = _state(hand=[2, 14], field=[0, 15], pile=[])
    assert GreedyAgent().act(s, rng) == 2
    # nothing captures: discard the least valuable card
    s = _state(hand=[0, 46], field=[5], pile=[])
    assert GreedyAgent().act(s, rng) == 46


def test_greedy_capture_choice_and_decision_rule() -> None:
    rng = np.random.default_rng(0)
    s = _state(hand=[30, 6], field=[28, 31], pile=[0, 8])
    s = s.child(30)  # susuki chaff meets moon and the other chaff
    assert s.es.phase == E.PLAY_CAPTURE and GreedyAgent().act(s, rng) == 28
    decide = KoiKoiState(s.game, s.es._replace(phase=E.DECIDE, piles=(mask_of([0, 8, 28]), 0),
                                               hands=(mask_of([1, 2, 3]), mask_of([47]))))
    assert GreedyAgent(koikoi_below=6).act(decide, rng) == E.KOIKOI
    assert GreedyAgent(koikoi_below=0).act(decide, rng) == E.STOP
