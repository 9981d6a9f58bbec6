"""PCFR+, DCFR+ and PDCFR+ against the papers' update rules, exact exploitability and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.eval import exploitability, nash_conv
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.solvers.cfr import CFRConfig, DCFRPlus, PCFRPlus, PDCFRPlus
from cfrlab.solvers.regret import average_strategy
from tests.solvers.reference_cfr import ReferencePredictiveCFR, discount

# (predictive, alpha, gamma) of each rule in the papers' notation
PAPER_RULES = {"pcfr+": (True, None, 2.0), "dcfr+": (False, 1.5, 4.0), "pdcfr+": (True, 2.3, 5.0)}
GAMES = ["kuhn", "kuhn(players=3)", "random_game(seed=1)", "random_game(seed=7,players=3)",
         "random_game(seed=4,zero_sum=false)", "leduc"]


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("name", sorted(PAPER_RULES))
def test_iterates_match_the_papers_pseudo_code(spec, name):
    game = load_game(spec)
    iterations = 2 if spec == "leduc" else 7
    predictive, alpha, gamma = PAPER_RULES[name]
    ref = ReferencePredictiveCFR(game, predictive, alpha, gamma)
    ours = solver_class(name)(game, symmetric=False)
    tree = ours.tree
    for _ in range(iterations):
        ours.iterate(1)
        ref.iterate(1)
        avg = average_strategy(ours.strategy_sum, tree.infoset_offset)
        # the solver stores R^t already discounted for iteration t + 1
        scale = discount(ref.t + 1, alpha)
        ref_avg = ref.average()
        for i, key in enumerate(tree.infoset_keys):
            lo, hi = tree.infoset_offset[i], tree.infoset_offset[i + 1]
            np.testing.assert_allclose(ours.sigma[lo:hi], ref.sigma[key], rtol=1e-10, atol=1e-12, err_msg=key)
            np.testing.assert_allclose(ours.regret[lo:hi], scale * ref.regret[key], rtol=1e-10, atol=1e-12,
                                       err_msg=key)
            np.testing.assert_allclose(avg[lo:hi], ref_avg[key], rtol=1e-10, atol=1e-12, err_msg=key)


def test_presets_are_the_papers_defaults(kuhn):
    assert PCFRPlus(kuhn).config == CFRConfig(alternating=True, regret_matching_plus=True, predictive=True,
                                              averaging="quadratic")
    assert DCFRPlus(kuhn).config == CFRConfig(alternating=True, regret_matching_plus=True, dcfr_alpha=1.5,
                                              dcfr_gamma=4.0)
    assert PDCFRPlus(kuhn).config == CFRConfig(alternating=True, regret_matching_plus=True, predictive=True,
                                               dcfr_alpha=2.3, dcfr_gamma=5.0)


@pytest.mark.parametrize("name,iterations", [("pcfr+", 300), ("dcfr+", 15000), ("pdcfr+", 150)])
def test_kuhn_below_1e_5(kuhn, name, iterations):
    assert exploitability(kuhn, solver_class(name)(kuhn).iterate(iterations).average_policy()) < 1e-5


@pytest.mark.parametrize("name,iterations", [("pcfr+", 6000), ("dcfr+", 2500), ("pdcfr+", 6000)])
def test_leduc_below_1e_4(leduc, name, iterations):
    assert exploitability(leduc, solver_class(name)(leduc).iterate(iterations).average_policy()) < 1e-4


@pytest.mark.parametrize("name", sorted(PAPER_RULES))
def test_three_player_kuhn_nash_conv_falls(kuhn3, name):
    solver = solver_class(name)(kuhn3)
    values = [nash_conv(kuhn3, solver.iterate(n - solver.iterations).average_policy()) for n in (10, 100, 1000)]
    assert values[0] > values[1] > values[2] and values[2] < 5e-3


@pytest.mark.parametrize("spec", ["kuhn", "leduc"])
@pytest.mark.parametrize("name", ["cfr+", *sorted(PAPER_RULES)])
def test_float32_iteration_agrees_with_float64_to_float32_precision(spec, name):
    """From the same state, one float32 iteration equals the float64 one up to float32 rounding.

    (Whole runs drift apart: where regrets tie at zero, RM+ picks by rounding noise in either precision.)
    """
    game = load_game(spec)
    cls = solver_class(name)
    wide = cls(game)
    for iterations in (10, 100):
        wide.iterate(iterations - wide.iterations)
        state = wide.state_dict()
        narrow = cls(game, precision="float32")
        narrow.load_state_dict({**state, "arrays": {k: v.astype(np.float32) for k, v in state["arrays"].items()}})
        assert narrow.regret.dtype == np.float32 and narrow.strategy_sum.dtype == np.float32
        step = cls(game)
        step.load_state_dict(state)
        step.iterate(1)
        narrow.iterate(1)
        for array in ("regret", "strategy_sum", "sigma"):
            exact, rounded = getattr(step, array), getattr(narrow, array)
            np.testing.assert_allclose(rounded, exact, rtol=0, atol=1e-6 * np.abs(exact).max(), err_msg=array)


@pytest.mark.parametrize("name", ["cfr+", *sorted(PAPER_RULES)])
def test_float32_solves_leduc_as_float64_does(leduc, name):
    cls = solver_class(name)
    wide, narrow = cls(leduc).iterate(800), cls(leduc, precision="float32").iterate(800)
    assert exploitability(leduc, narrow.average_policy()) < 2e-3 and exploitability(leduc, wide.average_policy()) < 2e-3


@pytest.mark.parametrize("spec", ["kuhn(players=3)", "leduc"])  # leduc: its symmetry quotient is swept
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_checkpoint_resume_is_bit_identical(tmp_path, spec, precision):
    game = load_game(spec)
    for name in PAPER_RULES:
        cls = solver_class(name)
        straight = cls(game, precision=precision).iterate(30)
        first = cls(game, precision=precision).iterate(12)
        first.save_checkpoint(tmp_path / "c.npz")
        resumed = cls(game, precision=precision)
        resumed.load_checkpoint(tmp_path / "c.npz")
        resumed.iterate(18)
        for array in ("regret", "strategy_sum", "sigma"):
            np.testing.assert_array_equal(getattr(resumed, array), getattr(straight, array))


def test_invalid_precision_is_rejected():
    with pytest.raises(ValueError, match="precision"):
        CFRConfig(precision="float16")


def _cli(capsys, *args: str):
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_pdcfr_plus_everywhere_cfr_plus_works(tmp_path, capsys):
    """Solve with a log, a plot and a checkpoint, resume, and get the uninterrupted run's strategy file."""
    ckpt, log, png = tmp_path / "c.npz", tmp_path / "run.jsonl", tmp_path / "run.png"
    _cli(capsys, "solve", "leduc", "--algo", "pdcfr+", "-n", "40", "--checkpoint", str(ckpt), "--no-eval")
    resumed = _cli(capsys, "solve", "leduc", "--algo", "pdcfr+", "-n", "90", "--checkpoint", str(ckpt), "--resume",
                   "--out", str(tmp_path / "resumed.npz"), "--log", str(log), "--plot", str(png))
    _cli(capsys, "solve", "leduc", "--algo", "pdcfr+", "-n", "90", "--out", str(tmp_path / "straight.npz"),
         "--no-eval")
    game = load_game("leduc")
    a, meta = TabularPolicy.load(tmp_path / "resumed.npz", game)
    b, _ = TabularPolicy.load(tmp_path / "straight.npz", game)
    assert meta["iterations"] == 90 and meta["solver"] == "pdcfr+"
    np.testing.assert_array_equal(a.probs, b.probs)
    assert resumed["exploitability"] == pytest.approx(exploitability(game, a), abs=1e-12)
    assert log.stat().st_size > 0 and png.stat().st_size > 10_000
    assert _cli(capsys, "solve", "kuhn", "--algo", "dcfr+", "--precision", "float32", "-n", "50")["iterations"] == 50


def test_bad_precision_flag_is_one_clear_line(capsys):
    assert main(["solve", "kuhn", "--algo", "pcfr+", "--precision", "half"]) == 2
    err = capsys.readouterr().err
    assert "precision" in err and "Traceback" not in err
