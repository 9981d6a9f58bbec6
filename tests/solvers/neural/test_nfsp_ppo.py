"""NFSP with PPO (seed 001 Alg. 9): the clipped loss and GAE by hand, determinism, checkpoints (convergence of the
CLI defaults: tests/cli/test_cli_defaults.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.game import Game  # noqa: E402
from cfrlab.solvers import solver_class  # noqa: E402
from cfrlab.solvers.neural.nfsp_ppo import NFSPPPO, NFSPPPOConfig, PPOAgent, gae_advantages, ppo_clip_loss  # noqa: E402

SMALL = {"learn_every": 4, "min_buffer": 32, "batch_size": 32, "rl_memory": 64, "rollout_steps": 16,
         "minibatch_size": 8, "sl_memory": 2_000, "hidden_sizes": (16,), "eta": 0.5}


def test_clipped_surrogate_on_a_hand_made_batch() -> None:
    # ratios 1.5, 0.5, 1.0, 0.5, 1.5 against advantages 1, 1, -2, -1, -1, clip 0.2:
    # min(r A, clip(r) A) = 1.2 (clipped), 0.5, -2, -0.8 (clipped), -1.5  -> mean -0.52, loss 0.52
    old = torch.log(torch.tensor([0.5, 0.5, 0.25, 0.5, 0.5], dtype=torch.float64))
    new = torch.log(torch.tensor([0.75, 0.25, 0.25, 0.25, 0.75], dtype=torch.float64)).requires_grad_(True)
    adv = torch.tensor([1.0, 1.0, -2.0, -1.0, -1.0], dtype=torch.float64)
    loss = ppo_clip_loss(new, old, adv, 0.2)
    assert loss.item() == pytest.approx(0.52, abs=1e-12)
    loss.backward()
    # clipped rows carry no gradient; the others -r A / 5 with respect to log beta
    np.testing.assert_allclose(new.grad.numpy(), [0.0, -0.1, 0.4, 0.0, 0.3], atol=1e-12)


def test_gae_by_hand() -> None:
    # two episodes in play order: (s0 -> s1, done at s1) and (s2, done); gamma 1, lambda 0.5
    adv = gae_advantages(np.array([0.0, 1.0, -2.0]), np.array([0.5, 0.2, 0.1]), np.array([0.2, 0.0, 0.0]),
                         np.array([False, True, True]), gamma=1.0, lam=0.5)
    # deltas -0.3, 0.8, -2.1; A_1 = 0.8 (episode ends), A_0 = -0.3 + 0.5 * 0.8, A_2 = -2.1
    np.testing.assert_allclose(adv, [0.1, 0.8, -2.1], atol=1e-12)


def test_ppo_update_moves_beta_towards_the_better_action() -> None:
    config = NFSPPPOConfig(hidden_sizes=(8,), epochs=4, minibatch_size=8, rl_lr=0.01, entropy_coef=0.0)
    agent = PPOAgent(3, 2, config, np.random.default_rng(0))
    obs = np.tile(np.array([[1.0, 0.0, 1.0]], dtype=np.float32), (16, 1))
    legal = np.ones((16, 2), dtype=bool)
    action = np.arange(16) % 2
    batch = {"obs": obs, "legal": legal, "action": action,
             "reward": np.where(action == 0, 1.0, -1.0).astype(np.float32),
             "next_obs": np.zeros_like(obs), "next_legal": np.zeros_like(legal), "done": np.ones(16, dtype=bool)}
    before = agent.best_response_probs(obs[0], legal[0])[0]
    value_before = agent.values(obs[:1])[0]
    for _ in range(5):
        agent.learn_rl(batch)
    assert agent.best_response_probs(obs[0], legal[0])[0] > before + 0.05
    assert abs(agent.values(obs[:1])[0]) < abs(value_before) + 0.5  # the value head regresses to the mean return 0


def test_on_policy_memory_holds_best_response_play_only(kuhn: Game) -> None:
    solver = NFSPPPO(kuhn, seed=0, **{**SMALL, "eta": 0.0}).iterate(200)
    assert all(len(m) == 0 for m in solver.rl_memory) and all(len(m) == 0 for m in solver.sl_memory)
    assert all(math.isnan(loss) for loss in solver.losses[:, 0])  # no PPO update without best-response play
    solver = NFSPPPO(kuhn, seed=0, **{**SMALL, "eta": 1.0})
    for _ in range(200):
        solver.iterate(1)
        assert all(len(m) < SMALL["rollout_steps"] for m in solver.rl_memory)  # consumed once full, then emptied
    assert all(solver.rl_memory[p].data()["done"][-1] for p in range(2) if len(solver.rl_memory[p]))
    assert not any(math.isnan(loss) for loss in solver.losses[:, 0])


def test_same_seed_same_networks(kuhn: Game) -> None:
    a = NFSPPPO(kuhn, seed=5, **SMALL).iterate(300)
    b = NFSPPPO(kuhn, seed=5, **SMALL).iterate(300)
    c = NFSPPPO(kuhn, seed=6, **SMALL).iterate(300)
    np.testing.assert_array_equal(a.average_policy().probs, b.average_policy().probs)
    np.testing.assert_array_equal(a.current_policy().probs, b.current_policy().probs)
    assert not np.array_equal(a.average_policy().probs, c.average_policy().probs)


def test_checkpoints_hold_plain_tensors_mid_rollout(kuhn3: Game, tmp_path) -> None:
    """Resuming is checked by cfrlab.testing.check_solver; here a save while a rollout is half collected."""
    part = NFSPPPO(kuhn3, seed=1, **SMALL).iterate(100)
    assert any(0 < len(m) for m in part.rl_memory)  # a rollout is half collected at the save
    path = tmp_path / "nfsp_ppo.pt"
    part.save_checkpoint(path)
    payload = torch.load(path, weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in payload["arrays"].values())
    resumed = NFSPPPO(kuhn3, seed=1, **SMALL)
    resumed.load_checkpoint(path)
    assert [len(m) for m in resumed.rl_memory] == [len(m) for m in part.rl_memory]
    np.testing.assert_array_equal(resumed.rl_memory[0].data()["obs"], part.rl_memory[0].data()["obs"])


def test_networks_save_and_load_as_state_dicts(kuhn: Game, tmp_path) -> None:
    nets = NFSPPPO(kuhn, seed=0, **SMALL).iterate(200).networks(0)
    torch.save({k: v.state_dict() for k, v in nets.items()}, tmp_path / "nets.pt")
    fresh = NFSPPPO(kuhn, seed=9, **SMALL)
    loaded = torch.load(tmp_path / "nets.pt", weights_only=True)
    for name, net in fresh.networks(0).items():
        net.load_state_dict(loaded[name])
        for v, v2 in zip(net.state_dict().values(), nets[name].state_dict().values()):
            assert torch.equal(v, v2)


def test_config_rejects_a_memory_smaller_than_a_rollout() -> None:
    with pytest.raises(ValueError, match="rl_memory"):
        NFSPPPOConfig(rl_memory=64, rollout_steps=64)


def test_registered() -> None:
    assert solver_class("nfsp-ppo") is NFSPPPO


@pytest.mark.parametrize("algorithm", ["nfsp-ppo", "nfsp-sac"])
def test_stochastic_best_responses_carry_no_q_learning_flags(algorithm: str) -> None:
    """eps-greedy exploration and the target copy belong to the Q learners only (NFSP, softmax FSP)."""
    import dataclasses

    q_only = {"epsilon_start", "epsilon_end", "epsilon_decay_steps", "target_update_every"}
    assert not q_only & {f.name for f in dataclasses.fields(solver_class(algorithm).Config)}
    assert q_only <= {f.name for f in dataclasses.fields(solver_class("nfsp").Config)}
