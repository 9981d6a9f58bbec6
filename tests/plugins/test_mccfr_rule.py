"""An MCCFR update rule written outside cfrlab, in this one file, and registered from here: every sampled walk
takes it (the compiled tree's, the game protocol's, Online Outcome Sampling's and Koi-Koi's round walk), and an
algorithm built on it passes ``check_solver``.

The rule counts everything twice: the sampled regrets, and the averaging weights (so the lazy sums' W(t) too).
Regret matching is scale-free to the last bit (2p / 2s = p / s, and a sum of doubled numbers is the doubled sum),
so a walk given this rule draws exactly what it draws under the standard rule with uniform averaging and ends with
exactly twice its tables: a walk that ignored the rule anywhere would show it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from cfrlab import solvers
from cfrlab.jit_timing import kernel
from cfrlab.registry import load_game
from cfrlab.solvers import register_solver
from cfrlab.solvers.mccfr import MCCFR, ExternalSamplingMCCFR, OutcomeSamplingMCCFR, RobustSamplingMCCFR
from cfrlab.solvers.mccfr.rules import register_mccfr_rule
from cfrlab.testing import check_solver
from tests.solvers.oos_reference import _infoset, _koikoi_decision, _mccfr, _oos


@kernel(inline="always")
def update(params, t, regret, strategy_sum, regret_inc, strategy_inc, weight):
    for s in range(regret.shape[0]):
        regret[s] += 2.0 * regret_inc[s]
        if weight != 0.0:
            strategy_sum[s] += weight * strategy_inc[s]


@kernel
def weight(params, t):
    return 2.0


@kernel
def cumulative(params, t):
    return 2.0 * t


def params(config: Any) -> tuple[float, ...]:
    if config.regret_matching_plus or config.averaging != "uniform" or config.delay or config.predictive:
        raise ValueError("the doubled rule counts every iteration twice: no RM+, averaging, delay or prediction")
    return ()


register_mccfr_rule("doubled", update=update, weight=weight, cumulative=cumulative, params=params)


class DoubledMCCFR(MCCFR):
    """External-sampling MCCFR counting every iteration twice."""

    algorithm = "doubled-mccfr"
    citation = ("external sampling, every iteration counted twice (a rule registered outside cfrlab)", "tests")
    defaults = {"rule": "doubled"}


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``doubled-mccfr`` registered for one test; the solver table restored after it."""
    monkeypatch.setattr(solvers, "_REGISTERED", dict(solvers.registered()))
    register_solver("doubled-mccfr", DoubledMCCFR)
    yield


def test_the_algorithm_passes_check_solver(registered: None) -> None:
    check_solver("doubled-mccfr", "kuhn")


def test_a_refused_option_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="counts every iteration twice"):
        DoubledMCCFR(load_game("kuhn"), regret_matching_plus=True)


def _leduc_target(game: Any) -> tuple[str, int]:
    return _infoset(game, 400)


def _koikoi_target(game: Any) -> tuple[str, int]:
    return _koikoi_decision(game, 1, 6)


RUNS = {
    "external kuhn tree": lambda rule: _mccfr(ExternalSamplingMCCFR, "kuhn", 40, "tree", rule=rule),
    "external kuhn generic": lambda rule: _mccfr(ExternalSamplingMCCFR, "kuhn", 40, "generic", rule=rule),
    "outcome lazy simultaneous leduc tree": lambda rule: _mccfr(
        OutcomeSamplingMCCFR, "leduc", 60, "tree", rule=rule, average_update="lazy", alternating=False),
    "outcome lazy simultaneous leduc generic": lambda rule: _mccfr(
        OutcomeSamplingMCCFR, "leduc", 60, "generic", rule=rule, average_update="lazy", alternating=False),
    "robust k=2 batch leduc tree": lambda rule: _mccfr(RobustSamplingMCCFR, "leduc", 20, "tree", rule=rule, k=2,
                                                       batch=5, chunk=2),
    "oos leduc tree": lambda rule: _oos("leduc", _leduc_target, 200, "tree", rule=rule, deal="enumerated"),
    "oos leduc generic": lambda rule: _oos("leduc", _leduc_target, 100, "generic", rule=rule),
    "oos koikoi round walk": lambda rule: _oos("koikoi", _koikoi_target, 40, "auto", rule=rule),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_every_walk_takes_the_rule(name: str) -> None:
    path, regret, strategy, visited = RUNS[name]("doubled")()
    base_path, base_regret, base_strategy, base_visited = RUNS[name]("standard")()
    assert (path, visited) == (base_path, base_visited) and list(regret) == list(base_regret)
    assert any(row.any() for row in regret.values())
    for ours, theirs in ((regret, base_regret), (strategy, base_strategy)):
        for key, row in theirs.items():
            assert np.array_equal(ours[key], 2.0 * row), key
