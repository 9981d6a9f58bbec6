"""Generic agents (random, tabular policy, callable) and the Koi-Koi greedy heuristic."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.agents import CallableAgent, PolicyAgent, RandomAgent, make_agent
from cfrlab.game import CHANCE
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import mask_of
from cfrlab.games.koikoi.rules.game import KoiKoiState
from cfrlab.registry import load_game


def decision_states(spec: str, n: int, seed: int = 0):
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.current_player() == CHANCE:
                if hasattr(s, "sample_chance"):
                    s = s.child(s.sample_chance(rng))
                else:
                    outcomes = s.chance_outcomes()
                    s = s.child(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                out.append(s)
                legal = s.legal_actions()
                s = s.child(legal[int(rng.integers(len(legal)))])
    return out[:n]


def test_random_agent_is_uniform_over_legal_actions() -> None:
    s = decision_states("koikoi", 1)[0]
    rng = np.random.default_rng(1)
    counts = {}
    for _ in range(4000):
        a = RandomAgent().act(s, rng)
        counts[a] = counts.get(a, 0) + 1
    legal = s.legal_actions()
    assert sorted(counts) == legal
    expected = 4000 / len(legal)
    assert all(abs(c - expected) < 5 * np.sqrt(expected) for c in counts.values())


def test_policy_agent_follows_a_table_and_falls_back() -> None:
    states = decision_states("kuhn", 20)
    table = {s.information_state_key(): {1: 1.0} for s in states}
    agent = PolicyAgent(table)
    rng = np.random.default_rng(0)
    assert all(agent.act(s, rng) == 1 for s in states)
    unknown = PolicyAgent({}, fallback="raise")
    with pytest.raises(KeyError):
        unknown.act(states[0], rng)
    assert PolicyAgent({}).act(states[0], rng) in states[0].legal_actions()
    with pytest.raises(ValueError):
        PolicyAgent({}, fallback="guess")


def test_policy_agent_plays_a_tabular_policy_on_mini_koikoi() -> None:
    from cfrlab.policy import TabularPolicy
    from cfrlab.tree import compile_tree

    game = load_game("koikoi_mini")
    tree = compile_tree(game)
    policy = TabularPolicy.uniform(tree)
    probs = np.zeros_like(policy.probs)
    for row in range(len(policy.keys)):
        probs[row, np.flatnonzero(policy.legal_mask[row])[0]] = 1.0
    det = TabularPolicy(policy.keys, probs, policy.legal_mask)
    agent = PolicyAgent(det)
    rng = np.random.default_rng(0)
    for s in decision_states("koikoi_mini", 30):
        assert agent.act(s, rng) == s.legal_actions()[0]


def test_callable_agent_samples_network_output() -> None:
    s = decision_states("koikoi", 1)[0]
    target = s.legal_actions()[-1]
    agent = CallableAgent(lambda st: np.eye(50)[target])
    assert agent.act(s, np.random.default_rng(0)) == target


def test_make_agent_names() -> None:
    g = load_game("koikoi")
    assert isinstance(make_agent("greedy", g), GreedyAgent)
    assert isinstance(make_agent("random", g), RandomAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("genius", g)
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
