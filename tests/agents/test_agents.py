"""Generic agents (random, tabular policy, callable) and agent names (Koi-Koi's greedy heuristic:
tests/games/koikoi/players/test_greedy.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.agents import CallableAgent, PolicyAgent, RandomAgent, make_agent
from cfrlab.game import CHANCE
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
    s = max(decision_states("leduc", 20), key=lambda st: len(st.legal_actions()))
    assert len(s.legal_actions()) == 3
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


def test_policy_agent_plays_a_tabular_policy() -> None:
    from cfrlab.policy import TabularPolicy
    from cfrlab.tree import compile_tree

    game = load_game("leduc")
    tree = compile_tree(game)
    policy = TabularPolicy.uniform(tree)
    probs = np.zeros_like(policy.probs)
    for row in range(len(policy.keys)):
        probs[row, np.flatnonzero(policy.legal_mask[row])[0]] = 1.0
    det = TabularPolicy(policy.keys, probs, policy.legal_mask)
    agent = PolicyAgent(det)
    rng = np.random.default_rng(0)
    for s in decision_states("leduc", 30):
        assert agent.act(s, rng) == s.legal_actions()[0]


def test_callable_agent_samples_network_output() -> None:
    s = decision_states("leduc", 1)[0]
    target = s.legal_actions()[-1]
    agent = CallableAgent(lambda st: np.eye(s.game.info.max_actions)[target])
    assert agent.act(s, np.random.default_rng(0)) == target


def test_make_agent_names() -> None:
    g = load_game("leduc")
    assert isinstance(make_agent("random", g), RandomAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("genius", g)
