"""Numbers never go silently wrong: any finite payoff range gives the unscaled game's policy (reported in the
game's units), payoffs that are not finite are refused, and NaN or infinity stops a run naming the infoset."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.driver import make_solver, run
from cfrlab.game import GameDefinitionError
from cfrlab.registry import load_game
from cfrlab.solvers.finite import NonFiniteError
from cfrlab.tree import compile_tree
from tests.scaled_game import ScaledGame

FACTORS = [1e300, 1e100, 1e-100, 1e-300, 1e-320]


@pytest.mark.parametrize("algo,iterations", [("cfr+", 200), ("xfp", 200), ("external", 3000), ("cfr", 200)])
@pytest.mark.parametrize("factor", FACTORS)
def test_scaled_kuhn_gives_the_unscaled_policy(algo: str, iterations: int, factor: float) -> None:
    """Kuhn times 1e-300 once gave exploitability 0.0 with XFP betting the King 0.2 % of the time (56 % is right)."""
    kuhn = load_game("kuhn")
    base = run(make_solver(kuhn, algo), iterations)
    scaled = run(make_solver(ScaledGame(kuhn, factor), algo), iterations)
    assert scaled.policy.keys == base.policy.keys
    np.testing.assert_array_equal(scaled.policy.probs, base.policy.probs)
    # exploitability in the scaled game's units (where a float can hold it)
    assert scaled.exploitability > 0
    if base.exploitability * factor > 1e-300:
        assert scaled.exploitability == pytest.approx(base.exploitability * factor, rel=1e-9)


def test_learned_solvers_refuse_payoffs_far_from_one() -> None:
    with pytest.raises(ValueError, match="rescale the payoffs"):
        make_solver(ScaledGame(load_game("kuhn"), 1e-300), "nfsp")


def test_payoffs_that_are_not_finite_are_refused() -> None:
    kuhn = load_game("kuhn")
    with pytest.raises(GameDefinitionError, match="not finite"):
        compile_tree(ScaledGame(kuhn, 1e308))  # Kuhn pays 2 * 1e308 = inf
    with pytest.raises(GameDefinitionError, match="not finite"):
        compile_tree(ScaledGame(kuhn, float("nan")))


def test_payoff_range_too_wide_for_floats_is_refused() -> None:
    kuhn = load_game("kuhn")
    with pytest.raises(GameDefinitionError, match="range"):
        compile_tree(ScaledGame(kuhn, 1.5e308 / 2))  # +-1.5e308: finite, but max - min overflows


def poison(solver, where: str) -> None:
    """Make ``solver``'s next iterations put a NaN into its regrets at the first sequence of ``where``."""
    original = solver.iterate
    tree = solver.tree
    seq = int(tree.infoset_offset[tree.infoset_index(where)])

    def iterate(n: int = 1):
        out = original(n)
        solver.regret[seq] = np.nan
        return out

    solver.iterate = iterate


def test_nan_in_regrets_stops_the_run_naming_the_infoset(tmp_path) -> None:
    solver = make_solver("kuhn", "cfr")
    poison(solver, "1:Q:b")
    with pytest.raises(NonFiniteError, match="1:Q:b"):
        run(solver, 50, checkpoint_path=tmp_path / "c.npz")
    assert not (tmp_path / "c.npz").exists()  # a poisoned state is never checkpointed


def test_a_nan_never_meets_the_target() -> None:
    solver = make_solver("kuhn", "cfr")
    poison(solver, "0:J:")
    with pytest.raises(NonFiniteError, match="0:J:"):
        run(solver, 10_000, target_exploitability=1.0)


def test_the_cli_says_which_infoset_went_wrong(monkeypatch, capsys) -> None:
    from cfrlab.cli.main import main
    from cfrlab.solvers.cfr import CFR

    original = CFR._iterate_once

    def bad(self) -> None:
        original(self)
        self.strategy_sum[3] = np.inf

    monkeypatch.setattr(CFR, "_iterate_once", bad)
    assert main(["solve", "kuhn", "--algo", "cfr", "-n", "20", "-q"]) == 2
    err = capsys.readouterr().err
    assert "not finite" in err and "infoset" in err and "Traceback" not in err
