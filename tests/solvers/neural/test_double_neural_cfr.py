"""Double Neural CFR: exact-table double equals tabular mini-batch MCCFR+, Kuhn convergence, determinism, resume."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.eval import exploitability  # noqa: E402
from cfrlab.solvers.mccfr import MCCFR  # noqa: E402
from cfrlab.solvers.neural.double_neural_cfr import DoubleNeuralCFR, DoubleNeuralCFRConfig  # noqa: E402
from cfrlab.testing import check_solver  # noqa: E402
from cfrlab.tree import load_tree  # noqa: E402


class ExactTable:
    """Test double of a network: stores every target exactly, predicts 0 where nothing was stored."""

    def __init__(self, num_actions: int) -> None:
        self.num_actions = num_actions
        self.rows: dict[str, np.ndarray] = {}
        self.fits = 0

    def predict(self, keys: Sequence[str], masks: np.ndarray) -> np.ndarray:
        out = np.zeros((len(keys), self.num_actions))
        for i, key in enumerate(keys):
            if key in self.rows:
                out[i] = self.rows[key]
        return out

    def fit(self, keys, targets, masks, rng) -> float:
        self.fits += 1
        for key, target, mask in zip(keys, targets, masks):
            self.rows[key] = np.where(mask, target, 0.0)
        return 0.0


def _table_solver(game, **config):
    tables = {}

    def factory(role: str) -> ExactTable:
        tables[role] = ExactTable(game.max_actions)
        return tables[role]

    return DoubleNeuralCFR(game, model_factory=factory, **config), tables


@pytest.mark.parametrize("options", [
    dict(sampling="robust", k=1, batch=8),
    dict(sampling="robust", k=2, batch=5, chunk=2, epsilon=0.3),
    dict(sampling="external", batch=4, average_update="simple", delay=2),
    dict(sampling="outcome", batch=6, average_update="traverser", averaging="uniform"),
])
@pytest.mark.parametrize("game_name", ["kuhn", "leduc", "kuhn3"])
def test_exact_tables_reproduce_tabular_minibatch_mccfr_plus(request, game_name: str, options: dict) -> None:
    """Networks replaced by exact tables: the targets fed to them are exactly the MCCFR+ tables, every iteration."""
    game = request.getfixturevalue(game_name)
    solver, tables = _table_solver(game, seed=11, **options)
    reference = MCCFR(game, seed=11, path="generic", regret_matching_plus=True,
                      averaging=options.get("averaging", "linear"), **{k: v for k, v in options.items()
                                                                        if k != "averaging"})
    iterations = 4 if game_name == "leduc" else 6
    for _ in range(iterations):
        solver.iterate(1)
        reference.iterate(1)
        regret, strategy = reference.regret_table(), reference.strategy_table()
        for key, row in regret.items():
            actions = list(reference.store.table_actions[key])
            np.testing.assert_array_equal(tables["rsn"].predict([key], None)[0, actions], row, err_msg=key)
            np.testing.assert_array_equal(tables["asn"].predict([key], None)[0, actions], strategy[key], err_msg=key)
        assert set(tables["rsn"].rows) <= set(regret) and set(tables["asn"].rows) <= set(strategy)
    assert tables["rsn"].fits > 0 and tables["asn"].fits > 0


def test_config_extends_the_sampling_config() -> None:
    """The mini-batch options are MCCFR's own (one declaration), handed to ``sample_iteration`` unchanged."""
    import dataclasses

    from cfrlab.solvers.mccfr.config import SamplingConfig

    cfg = DoubleNeuralCFRConfig(k=2, epsilon=0.3, batch=5, averaging="quadratic", delay=2, chunk=3, seed=7)
    twin = cfg.mccfr_config()
    assert all(getattr(twin, f.name) == getattr(cfg, f.name) for f in dataclasses.fields(SamplingConfig))
    assert twin.path == "generic" and not hasattr(cfg, "path") and not hasattr(cfg, "alternating")
    for bad, match in (({"sampling": "chance"}, "chance"), ({"average_update": "lazy"}, "lazy"),
                       ({"epsilon": 2.0}, "epsilon"), ({"averaging": "cubic"}, "averaging")):
        with pytest.raises(ValueError, match=match):
            DoubleNeuralCFRConfig(**bad)


def test_exact_tables_converge_on_kuhn(kuhn) -> None:
    solver, _ = _table_solver(kuhn, seed=0, batch=32)
    solver.iterate(150)
    assert exploitability(load_tree(kuhn), solver.average_policy()) < 0.05


def test_sequence_networks_learn_kuhn(kuhn) -> None:
    """The GRU variant (the default, mlp: tests/cli/test_cli_defaults.py) after 20 iterations: below a third of the
    uniform policy's 0.458 (networks that cannot tell the keys apart stay near it). Below 0.05 by iteration 50:
    ``benchmarks/bench_dncfr_kuhn.py``."""
    tree = load_tree(kuhn)
    solver = DoubleNeuralCFR(kuhn, seed=0, network="gru", batch=32, hidden_size=32, hidden=(32,), rsn_steps=30,
                             asn_steps=50)
    solver.iterate(20)
    assert exploitability(tree, solver.average_policy()) < 0.15


SMALL = dict(batch=4, hidden_size=8, embedding_size=4, hidden=(8,), rsn_steps=3, asn_steps=3, train_batch=16)


def _arrays_equal(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("network", ["lstm", "mlp"])
def test_same_seed_same_networks(kuhn, network: str) -> None:
    before = torch.random.get_rng_state()
    a = DoubleNeuralCFR(kuhn, seed=3, network=network, **SMALL).iterate(3)
    b = DoubleNeuralCFR(kuhn, seed=3, network=network, **SMALL).iterate(3)
    c = DoubleNeuralCFR(kuhn, seed=4, network=network, **SMALL).iterate(3)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert _arrays_equal(a.state_dict()["arrays"], b.state_dict()["arrays"])
    assert not _arrays_equal(a.state_dict()["arrays"], c.state_dict()["arrays"])


def test_initial_policies_are_uniform(kuhn) -> None:
    """Before any iteration R = S = 0 (zero output layers), as the tables of MCCFR+ start."""
    solver = DoubleNeuralCFR(kuhn, seed=0, **SMALL)
    uniform = solver.average_policy().probs
    np.testing.assert_allclose(uniform[uniform > 0], 0.5)
    np.testing.assert_allclose(solver.current_policy().probs, uniform)


@pytest.mark.parametrize("network, options", [
    ("gru", {}),
    ("mlp", dict(layer_norm=False, keep_optimizer=False)),
    ("mlp", dict(layer_norm=True, keep_optimizer=True)),  # Adam's moments travel with the checkpoint
])
def test_conformance_of_each_network(network: str, options: dict) -> None:
    """The default network is in the conformance suite; the others keep the contract too."""
    check_solver("dncfr", config={**SMALL, "network": network, **options}, iterations=(2, 2),
                 improve_iterations=None)


def test_kept_optimizer_changes_training(kuhn) -> None:
    """keep_optimizer carries Adam's moments between fits: same seed, different networks after the first fit."""
    config = DoubleNeuralCFRConfig(seed=5, network="mlp", **SMALL)
    fresh = DoubleNeuralCFR(kuhn, config.replace(keep_optimizer=False)).iterate(3)
    kept = DoubleNeuralCFR(kuhn, config.replace(keep_optimizer=True)).iterate(3)
    assert kept.rsn.optimizer is not None and fresh.rsn.optimizer is None
    assert not _arrays_equal(fresh.state_dict()["arrays"], kept.state_dict()["arrays"])


def test_layer_norm_option_builds_layer_norm(kuhn) -> None:
    with_norm = DoubleNeuralCFR(kuhn, seed=0, network="mlp", layer_norm=True, **SMALL)
    without = DoubleNeuralCFR(kuhn, seed=0, network="mlp", layer_norm=False, **SMALL)
    assert any(isinstance(m, torch.nn.LayerNorm) for m in with_norm.rsn.net.modules())
    assert not any(isinstance(m, torch.nn.LayerNorm) for m in without.asn.net.modules())


def test_output_rescaling_keeps_predictions(kuhn) -> None:
    solver = DoubleNeuralCFR(kuhn, seed=1, **SMALL).iterate(2)
    keys = load_tree(kuhn).infoset_keys
    masks = np.ones((len(keys), kuhn.max_actions), dtype=bool)
    before = solver.rsn.predict(keys, masks)
    solver.rsn.rescale(solver.rsn.scale * 7.0)
    np.testing.assert_allclose(solver.rsn.predict(keys, masks), before, rtol=1e-5, atol=1e-6)
