"""The Gymnasium single-agent environment: Gymnasium's ``check_env`` with cfrlab agents in the other seats, a
learner that improves against ``random`` (measured exactly on the game tree), and cfrlab's agents as policies."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env

from cfrlab.envs import CfrlabEnv, CfrlabGymEnv, agent_policy, strategy_of
from cfrlab.eval import best_response, expected_values
from cfrlab.game import IllegalActionError
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.cfr import CFRPlus
from cfrlab.tree import load_tree


@pytest.fixture(scope="module")
def leduc_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cfrlab.registry import load_game

    path = tmp_path_factory.mktemp("envs") / "leduc.npz"
    CFRPlus(load_game("leduc")).iterate(20).average_policy().save(path, load_game("leduc"))
    return path


@pytest.mark.parametrize(("spec", "opponent"), [("kuhn", "random"), ("holdem", "call"), ("koikoi", "greedy"),
                                                ("kuhn(players=3)", "random")])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env_passes(spec: str, opponent: str) -> None:
    check_env(CfrlabGymEnv(spec, opponent, seat=None))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env_passes_against_a_strategy_file(leduc_file: Path) -> None:
    check_env(CfrlabGymEnv("leduc", f"policy:{leduc_file}", seat=1))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_make_builds_it_by_id() -> None:
    import gymnasium

    env = gymnasium.make("cfrlab.envs.single_agent:cfrlab/Game-v0", game="leduc", opponents="random",
                         render_mode="ansi")
    check_env(env.unwrapped)
    env.reset(seed=0)
    assert "Your card" in env.render()


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="besides the learner"):
        CfrlabGymEnv("kuhn(players=3)", ["random"])
    with pytest.raises(ValueError, match="seat must be"):
        CfrlabGymEnv("kuhn", seat=2)
    with pytest.raises(ValueError, match="illegal must be"):
        CfrlabGymEnv("kuhn", illegal="ignore")
    with pytest.raises(ValueError, match="unknown agent"):
        CfrlabGymEnv("kuhn", "grumpy")


def test_an_illegal_action_loses_or_raises() -> None:
    env = CfrlabGymEnv("leduc")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)  # fold with no bet to face
    assert terminated and info["illegal_action"] and reward == env.game.info.min_utility
    strict = CfrlabGymEnv("leduc", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(0)


def test_deals_that_end_before_the_learners_turn_are_reported() -> None:
    """Hold'em's small blind (seat 1) may fold before the big blind acts: that deal is dealt again, and told."""
    env = CfrlabGymEnv("holdem", "random", seat=0)
    told = []
    for seed in range(40):
        _, info = env.reset(seed=seed)
        told += info["returns_before_turn"]
        assert env.state.current_player() == 0
    assert told and set(told) == {5.0}  # the small blind's 5 chips


def _example() -> ModuleType:
    """The guide's training script, docs/examples/train_against_agents.py."""
    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "train_against_agents.py"
    spec = importlib.util.spec_from_file_location("train_against_agents", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_learner_improves_against_random() -> None:
    """The guide's learner (every-visit Monte Carlo control, epsilon-greedy; Sutton & Barto 2018 sec. 5.4) on Kuhn
    from seat 0 against ``random``: after 3000 seeded episodes its greedy strategy (``strategy_of``) goes from
    uniform play's exact value to near the best response's, measured exactly on the game tree."""
    example = _example()
    env, q = example.train("random", 3000, seed=0, game="kuhn", seat=0, epsilon=0.2)
    tree = load_tree(env.game)
    uniform = TabularPolicy.uniform(tree)
    before = float(expected_values(tree, uniform)[0])
    best = float(best_response(tree, uniform.to_sequences(tree), 0)[0])
    after = float(expected_values(tree, strategy_of(env, example.greedy(q)))[0])
    assert after > before + 0.3 and after > best - 0.1, (before, after, best)


def test_agents_play_from_a_pettingzoo_observation(leduc_file: Path) -> None:
    env = CfrlabEnv("leduc")
    policies = {"player_0": agent_policy(env, f"policy:{leduc_file}", seed=0), "player_1": agent_policy(env, "random")}
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, _, done, _, _ = env.last()
        env.step(None if done else policies[agent](obs["observation"], obs["action_mask"]))
    assert env.state.is_terminal()
    env.reset(seed=3)
    obs, *_ = env.last()
    stale = obs["observation"].copy()
    stale[:] = 0.0
    with pytest.raises(ValueError, match="not the environment's"):
        policies[env.agent_selection](stale, obs["action_mask"])


def play_learners_seat(spec: str, name: str) -> None:
    """One game of ``spec`` with agent ``name`` (``agent_policy``) in the learner's seat against random play: the
    last reward is the seat's return."""
    env = CfrlabGymEnv(spec, "random", seat=0)
    agent = agent_policy(env, name)
    obs, _ = env.reset(seed=1)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(agent(obs))
    assert reward == info["returns"][0]


def test_a_named_agent_plays_the_gym_learners_seat() -> None:
    """(Koi-Koi's greedy: tests/games/koikoi/test_envs_koikoi.py.)"""
    play_learners_seat("leduc", "random")
