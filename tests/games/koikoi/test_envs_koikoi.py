"""Koi-Koi in the PettingZoo environments: the network features as the observation, rule sets and match length
as constructor arguments (the family's ``match``), the family's terminal screen as ``render`` (the environments
themselves: tests/envs/test_pettingzoo.py, tests/envs/test_gymnasium.py); the greedy agent in the Gymnasium
learner's seat."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from cfrlab.envs import CfrlabEnv
from tests.envs.test_gymnasium import play_learners_seat


def test_koikoi_observation_is_the_network_features() -> None:
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES, encode_state

    env = CfrlabEnv("koikoi")
    env.reset(seed=11)
    for _ in range(30):
        obs, *_ = env.last()
        player = env.seat(env.agent_selection)
        assert obs["observation"].shape == (NUM_FEATURES,)
        np.testing.assert_array_equal(np.flatnonzero(obs["observation"]),
                                      encode_state(env.game.engine, env.state.es, player))
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if env.terminations[env.agent_selection]:
            break


def test_rule_sets_and_match_length_are_constructor_arguments() -> None:
    env = CfrlabEnv("koikoi", rules="fudawiki", rounds=2)
    assert env.game.rules.name == "fudawiki" and env.game.rules.rounds == 2
    match = CfrlabEnv("koikoi", match=True)
    assert match.game.rules.rounds == 12 and match.game.params["first_oya"] == "coin"
    env.reset(seed=0)
    rounds_seen = set()
    for _agent in env.agent_iter():
        obs, reward, done, _, _ = env.last()
        if done:
            env.step(None)
            continue
        rounds_seen.add(env.state.es.round)
        assert reward == 0.0  # no reward at the end of the first round: the match goes on
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert rounds_seen == {0, 1}
    with pytest.raises(ValueError, match="not played in matches"):  # a family without matches of rounds
        CfrlabEnv("leduc", match=True)


def test_render_is_the_terminal_screen() -> None:
    env = CfrlabEnv("koikoi", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "Your hand" in text and "Field" in text


def test_koikoi_agents_play_the_gym_learners_seat() -> None:
    play_learners_seat("koikoi", "greedy")
