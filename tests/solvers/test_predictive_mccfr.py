"""Predictive MCCFR (``predictive=True``): PRM(+) of Farina, Kroer & Sandholm 2021 on sampled regrets.

Against a literal transcription (``reference_cfr.ReferencePredictiveChanceSampling``) iterate for iterate,
the compiled-tree and generic walkers bit for bit, checkpoints, and exploitability.
"""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.eval.metrics import exploitability
from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.solvers.mccfr import MCCFR
from tests.solvers.reference_cfr import ReferencePredictiveChanceSampling


@pytest.mark.parametrize("spec", ["random_game(seed=3)", "random_game(seed=7,players=3)", "kuhn"])
@pytest.mark.parametrize("plus", [True, False])
@pytest.mark.parametrize("path", ["tree", "generic"])
def test_iterates_match_the_literal_transcription(spec, plus, path):
    game = load_game(spec)
    ref = ReferencePredictiveChanceSampling(game, seed=13, plus=plus, weight=lambda t: float(t))
    ours = MCCFR(game, sampling="chance", predictive=True, regret_matching_plus=plus, averaging="linear",
                 path=path, seed=13)
    ref.check_iterates(ours, 12)
    # the prediction matters: without it the same draws give other strategies
    plain = MCCFR(game, sampling="chance", regret_matching_plus=plus, averaging="linear", path=path, seed=13)
    assert not np.allclose(plain.iterate(12).current_policy().probs, ours.current_policy().probs)


CASES = [
    ("kuhn", {"sampling": "external", "regret_matching_plus": True}),
    ("kuhn(players=3)", {"sampling": "outcome", "average_update": "lazy"}),
    ("random_game(seed=3)", {"sampling": "robust", "k": 2, "batch": 5, "chunk": 2, "regret_matching_plus": True,
                             "averaging": "linear"}),
    ("random_game(seed=3)", {"sampling": "chance", "alternating": False}),
]


@pytest.mark.parametrize("spec,options", CASES)
def test_tree_and_generic_paths_agree(spec, options):
    game = load_game(spec)
    tree = MCCFR(game, path="tree", seed=5, predictive=True, **options).iterate(120)
    generic = MCCFR(game, path="generic", seed=5, predictive=True, **options).iterate(120)
    rt, rg, st, sg = tree.regret_table(), generic.regret_table(), tree.strategy_table(), generic.strategy_table()
    assert rg
    for key in rg:
        assert np.array_equal(rt[key], rg[key]), key
        assert np.array_equal(st[key], sg[key]), key
    a, b = tree.current_policy(), generic.current_policy()
    for key in b.keys:
        assert a.action_probabilities(key) == b.action_probabilities(key), key


@pytest.mark.parametrize("path", ["tree", "generic"])
def test_checkpoint_resume_is_exact(tmp_path, path):
    game = load_game("kuhn")
    options = {"sampling": "external", "regret_matching_plus": True, "predictive": True, "path": path, "seed": 9}
    straight = MCCFR(game, **options).iterate(70)
    first = MCCFR(game, **options).iterate(30)
    first.save_checkpoint(tmp_path / "ck.npz")
    resumed = MCCFR(game, **options)
    resumed.load_checkpoint(tmp_path / "ck.npz")
    resumed.iterate(40)
    for a, b in ((straight.regret_table(), resumed.regret_table()),
                 (straight.strategy_table(), resumed.strategy_table())):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert np.array_equal(straight.current_policy().probs, resumed.current_policy().probs)


def test_exploitability_falls_on_kuhn(kuhn):
    solver = solver_class("mccfr+")(kuhn, predictive=True, seed=0)
    values = [exploitability(kuhn, solver.iterate(n - solver.iterations).average_policy()) for n in (100, 3000)]
    assert values[1] < values[0] and values[1] < 5e-3


def test_refused_with_workers():
    with pytest.raises(ValueError, match="one process"):
        MCCFR(load_game("kuhn"), predictive=True, workers=2)


def test_cli_option(capsys):
    from cfrlab.cli.main import main

    assert main(["solve", "kuhn", "--algo", "external", "--list-options"]) == 0
    assert "--predictive" in capsys.readouterr().out
    assert main(["solve", "kuhn", "--algo", "mccfr+", "--predictive", "-n", "200", "--json"]) == 0
    capsys.readouterr()
    assert main(["solve", "kuhn", "--algo", "external", "--predictive", "--workers", "2", "-n", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "one process" in err[0]
