"""NFSP and NFSP-SAC: torch checkpoints, determinism, anticipatory mixing
(convergence: tests/cli/test_cli_defaults.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.eval import nash_conv  # noqa: E402
from cfrlab.game import Game  # noqa: E402
from cfrlab.solvers.neural.nfsp import NFSP  # noqa: E402
from cfrlab.solvers.neural.nfsp_sac import NFSPSAC  # noqa: E402

SMALL = {"learn_every": 4, "min_buffer": 32, "batch_size": 32, "rl_memory": 2_000, "sl_memory": 2_000,
         "target_update_every": 50, "hidden_sizes": (16,)}


def small(cls: type) -> dict:
    """SMALL for ``cls``: SAC has no target period (its targets follow by Polyak averaging)."""
    return SMALL if cls is NFSP else {k: v for k, v in SMALL.items() if k != "target_update_every"}


@pytest.mark.parametrize("cls", [NFSP, NFSPSAC])
def test_same_seed_same_networks(kuhn: Game, cls: type) -> None:
    a = cls(kuhn, seed=5, **small(cls)).iterate(300)
    b = cls(kuhn, seed=5, **small(cls)).iterate(300)
    c = cls(kuhn, seed=6, **small(cls)).iterate(300)
    np.testing.assert_array_equal(a.average_policy().probs, b.average_policy().probs)
    assert not np.array_equal(a.average_policy().probs, c.average_policy().probs)


@pytest.mark.parametrize("cls", [NFSP, NFSPSAC])
def test_checkpoints_hold_plain_tensors(kuhn3: Game, cls: type, tmp_path) -> None:
    """Resuming is checked by cfrlab.testing.check_solver; here the file format: loadable with weights_only."""
    path = tmp_path / "nfsp.pt"
    cls(kuhn3, seed=1, **small(cls)).iterate(100).save_checkpoint(path)
    payload = torch.load(path, weights_only=True)  # plain tensors and strings only
    assert "meta" in payload and all(isinstance(v, torch.Tensor) for v in payload["arrays"].values())


def test_networks_save_and_load_as_state_dicts(kuhn: Game, tmp_path) -> None:
    solver = NFSP(kuhn, seed=0, **SMALL).iterate(200)
    nets = solver.networks(0)
    torch.save({k: v.state_dict() for k, v in nets.items()}, tmp_path / "nets.pt")
    fresh = NFSP(kuhn, seed=9, **SMALL)
    loaded = torch.load(tmp_path / "nets.pt", weights_only=True)
    for name, net in fresh.networks(0).items():
        net.load_state_dict(loaded[name])
    for name, net in nets.items():
        for (k, v), (k2, v2) in zip(net.state_dict().items(), fresh.networks(0)[name].state_dict().items()):
            assert k == k2 and torch.equal(v, v2)


def test_checkpoint_refuses_another_config(kuhn: Game, tmp_path) -> None:
    from cfrlab.checkpoint import CheckpointError

    NFSP(kuhn, seed=0, **SMALL).iterate(10).save_checkpoint(tmp_path / "a.pt")
    with pytest.raises(CheckpointError, match="config"):
        NFSP(kuhn, seed=0, **{**SMALL, "eta": 0.3}).load_checkpoint(tmp_path / "a.pt")


def test_anticipatory_mixing_feeds_the_sl_memory_only_from_best_responses(kuhn: Game) -> None:
    solver = NFSP(kuhn, seed=0, **{**SMALL, "eta": 0.0}).iterate(300)
    assert all(len(m) == 0 for m in solver.sl_memory)
    assert all(len(m) > 0 for m in solver.rl_memory)
    # eta = 1, epsilon = 0, no learning: every SL row is the greedy action of the untrained Q network
    solver = NFSP(kuhn, seed=0, **{**SMALL, "eta": 1.0, "epsilon_start": 0.0, "epsilon_end": 0.0,
                                   "min_buffer": 10**9})
    solver.iterate(300)
    for p in range(2):
        data = solver.sl_memory[p].data()
        q = solver.agents[p].q_values(data["obs"])
        greedy = np.argmax(np.where(data["legal"], q, -np.inf), axis=1)
        np.testing.assert_array_equal(data["action"], greedy)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nfsp_three_players_lowers_nash_conv(kuhn3: Game, seed: int) -> None:
    """400 episodes take NashConv from about 2.1 to 1.4-1.6 for seeds 0-2; 0.85 of the start leaves a margin."""
    solver = NFSP(kuhn3, seed=seed, **SMALL)
    start = nash_conv(kuhn3, solver.average_policy())
    policy = solver.iterate(400).average_policy()
    assert len(policy) == 48 and nash_conv(kuhn3, policy) < 0.85 * start

