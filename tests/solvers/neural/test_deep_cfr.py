"""Deep CFR: memories, determinism, checkpoint resume (convergence: tests/cli/test_cli_defaults.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.solvers.neural.deep_cfr import DeepCFR  # noqa: E402
from cfrlab.testing import check_solver  # noqa: E402

SMALL = dict(traversals=20, advantage_hidden=(16,), strategy_hidden=(16,), advantage_steps=10,
             strategy_steps=20, batch_size=32, strategy_batch_size=32)


def _arrays_equal(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_memories_hold_centred_regrets_and_iteration_weights(kuhn) -> None:
    solver = DeepCFR(kuhn, seed=1, **SMALL).iterate(3)
    for p, memory in enumerate(solver.advantage_memories):
        data = memory.data()
        # Kuhn: player 1 acts once per traversal; player 0 once, plus once more when 1 answers a pass with a bet
        n = 3 * SMALL["traversals"]
        assert len(memory) == n if p == 1 else n < len(memory) < 2 * n
        assert set(np.unique(data["weight"])) == {1.0, 2.0, 3.0}
        assert np.all(data["target"][~data["mask"]] == 0.0)
        # every row belongs to player p (the tensor's player one-hot)
        assert np.all(data["x"][:, p] == 1.0)
    strat = solver.strategy_memory.data()
    assert np.allclose(strat["target"].sum(axis=1), 1.0) and np.all(strat["target"][~strat["mask"]] == 0.0)


def test_strategy_training_reads_only_filled_rows(kuhn) -> None:
    """Poison the unfilled storage of the strategy memory: training must not see it."""
    solver = DeepCFR(kuhn, seed=2, strategy_capacity=10_000, **{k: v for k, v in SMALL.items()})
    solver.iterate(2)
    memory = solver.strategy_memory
    assert 0 < len(memory) < memory.capacity
    for arr in memory._data.values():  # the point of the test is the raw storage
        if arr.dtype.kind == "f":
            arr[len(memory):] = np.nan
    loss = solver.train_strategy_network()
    assert np.isfinite(loss)
    assert np.isfinite(solver.average_policy().probs).all()


def test_small_reservoir_stays_bounded(kuhn) -> None:
    solver = DeepCFR(kuhn, seed=3, advantage_capacity=50, **SMALL).iterate(3)
    memory = solver.advantage_memories[1]  # Kuhn: player 1 acts exactly once per traversal
    assert len(memory) == 50 and memory.seen == 3 * SMALL["traversals"]
    # reservoir keeps rows from every iteration, not just the first 50 offered
    assert {1.0, 2.0, 3.0} <= set(np.unique(memory.data()["weight"]))


def test_same_seed_same_networks_and_global_rng_untouched(kuhn) -> None:
    before = torch.random.get_rng_state()
    a = DeepCFR(kuhn, seed=5, **SMALL).iterate(2)
    b = DeepCFR(kuhn, seed=5, **SMALL).iterate(2)
    c = DeepCFR(kuhn, seed=6, **SMALL).iterate(2)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert _arrays_equal(a.state_dict()["arrays"], b.state_dict()["arrays"])
    assert not _arrays_equal(a.state_dict()["arrays"], c.state_dict()["arrays"])
    np.testing.assert_array_equal(a.average_policy().probs, b.average_policy().probs)


def test_conformance_without_reinitializing() -> None:
    """The default (fresh networks each iteration) is in the conformance suite; warm starts keep it too."""
    check_solver("deep-cfr", config={**SMALL, "reinitialize": False}, iterations=(2, 1), improve_iterations=None)


def test_checkpoint_of_other_config_is_refused(kuhn, tmp_path) -> None:
    from cfrlab.checkpoint import CheckpointError

    path = tmp_path / "deep.ckpt"
    DeepCFR(kuhn, seed=0, **SMALL).iterate(1).save_checkpoint(path)
    with pytest.raises(CheckpointError, match="config"):
        DeepCFR(kuhn, seed=1, **SMALL).load_checkpoint(path)


def test_three_player_kuhn_fills_every_players_memory(kuhn3) -> None:
    """The policy's validity on three players is checked by the conformance suite; here each player's data."""
    solver = DeepCFR(kuhn3, seed=0, **SMALL).iterate(2)
    assert len(solver.advantage_memories) == 3 and all(len(m) > 0 for m in solver.advantage_memories)
