"""The PettingZoo AEC environments: PettingZoo's own API and seed tests, observations from the information state
only, rewards at the end, seeded deals, render through the family's view (Koi-Koi's features, rule sets and
matches: tests/games/koikoi/test_envs_koikoi.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test

from cfrlab.envs import CfrlabEnv
from cfrlab.envs.encoding import InfosetOneHot, KeyBytes, encoding_for
from cfrlab.game import IllegalActionError
from cfrlab.registry import load_game

SMALL_HOLDEM = "holdem(ranks=3,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[2,4],max_raises=[2,2])"
FAMILIES = ["kuhn", "leduc", "holdem", "koikoi", "kuhn(players=3)", "koikoi_mini"]
NO_FAMILY = [str(Path(__file__).resolve().parents[1] / "data" / "one_card_poker.efg"), "openspiel:leduc_poker"]


@pytest.mark.parametrize("spec", FAMILIES + NO_FAMILY)
def test_pettingzoo_api_and_seed_tests_pass(spec: str) -> None:
    if spec.startswith("openspiel:"):
        pytest.importorskip("pyspiel")
    api_test(CfrlabEnv(spec), num_cycles=100)
    seed_test(lambda: CfrlabEnv(spec), num_cycles=100)


def _random_games(env: CfrlabEnv, games: int, seed: int) -> list[tuple[str, dict, object]]:
    """(agent, observation, key) at every decision of ``games`` random games."""
    seen = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _, done, _, info = env.last()
            if done:
                env.step(None)
                continue
            for other in env.agents:  # every seat's view, the acting one's and the others'
                seen.append((other, env.observe(other), env.infos[other]["information_state"]))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("spec", ["kuhn", "leduc", SMALL_HOLDEM, "koikoi_mini", "koikoi"])
def test_observations_read_the_information_state_only(spec: str) -> None:
    """Two positions a seat cannot tell apart (same key) are observed alike, whatever the hidden cards."""
    by_key: dict[tuple[str, str], np.ndarray] = {}
    for agent, obs, key in _random_games(CfrlabEnv(spec), games=60 if "koikoi" != spec else 6, seed=3):
        if key is None:
            continue
        first = by_key.setdefault((agent, key), obs["observation"])
        np.testing.assert_array_equal(first, obs["observation"], err_msg=key)
    assert len(by_key) > 10


@pytest.mark.parametrize("spec", ["kuhn", "leduc", SMALL_HOLDEM])
def test_poker_observations_tell_every_infoset_apart(spec: str) -> None:
    """Kuhn's, Leduc's and hold'em's tensors have perfect recall: distinct keys, distinct observations."""
    seen: dict[bytes, str] = {}
    for _agent, obs, key in _random_games(CfrlabEnv(spec), games=200, seed=5):
        mask = obs["action_mask"]
        if key is None or not mask.any():
            continue
        assert seen.setdefault(obs["observation"].tobytes(), key) == key


def test_rewards_come_at_the_end_and_are_the_returns() -> None:
    env = CfrlabEnv("leduc")
    env.reset(seed=2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, done, _, _ = env.last()
        totals[agent] += reward
        if done:
            env.step(None)
            continue
        assert not env.state.is_terminal() and reward == 0.0
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert env.state.is_terminal()
    assert [totals[a] for a in env.possible_agents] == env.state.returns()


def test_a_seed_reproduces_a_deal() -> None:
    def first_views(seed: int) -> list[bytes]:
        env = CfrlabEnv("holdem")
        env.reset(seed=seed)
        return [env.observe(a)["observation"].tobytes() for a in env.possible_agents]

    assert first_views(4) == first_views(4)
    assert first_views(4) != first_views(5)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env = CfrlabEnv("kuhn")
    env.reset(seed=0)
    before = env.state
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(7)
    assert env.state is before


def test_render_is_the_familys_terminal_view() -> None:
    leduc = CfrlabEnv("leduc", render_mode="ansi")
    leduc.reset(seed=1)
    assert "Your card" in leduc.render()
    three = CfrlabEnv("kuhn(players=3)", render_mode="ansi")  # no view of its own: its key
    three.reset(seed=1)
    assert "information" in three.render()
    with pytest.raises(ValueError, match="render_mode"):
        CfrlabEnv("kuhn", render_mode="rgb_array")


def test_generic_encodings_from_the_key() -> None:
    game = load_game("leduc")
    state = game.new_initial_state().child(0).child(3)
    onehot = encoding_for(game, "infoset")
    assert isinstance(onehot, InfosetOneHot) and onehot.size == 936
    assert onehot.encode(state, 0).sum() == 1.0 and onehot.encode(state, 1).sum() == 0.0  # seat 1 does not act
    key = encoding_for(game, "key")
    assert isinstance(key, KeyBytes)
    text = bytes(np.rint(key.encode(state, 0) * 255).astype(np.uint8)).rstrip(b"\0").decode()
    assert text == state.information_state_key(0)
    with pytest.raises(ValueError, match="unknown observation"):
        encoding_for(game, "pixels")
    with pytest.raises(ValueError, match="length="):
        KeyBytes(game, length=3).encode(state, 0)
