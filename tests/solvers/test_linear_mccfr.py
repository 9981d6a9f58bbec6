"""Linear MCCFR (``rule="linear"``, ``--algo linear-mccfr``): against a literal transcription iterate for iterate,
the compiled-tree and generic walkers bit for bit; the solver contract is ``test_check_solver``'s."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.solvers.mccfr import MCCFR
from tests.solvers.reference_cfr import ReferencePredictiveChanceSampling


@pytest.mark.parametrize("spec", ["random_game(seed=3)", "kuhn(players=3)"])
@pytest.mark.parametrize("plus", [True, False])
@pytest.mark.parametrize("path", ["tree", "generic"])
def test_iterates_match_the_literal_transcription(spec: str, plus: bool, path: str) -> None:
    """Chance sampling: R += t r^t (RM+: then clamped), S += t pi sigma, every strategy RM(R)."""
    game = load_game(spec)
    ref = ReferencePredictiveChanceSampling(game, seed=13, plus=plus, weight=float, predictive=False,
                                           regret_weight=float)
    ours = MCCFR(game, sampling="chance", rule="linear", regret_matching_plus=plus, averaging="linear", path=path,
                 seed=13)
    ref.check_iterates(ours, 10)
    # the weights matter: the standard rule on the same draws plays other strategies
    plain = MCCFR(game, sampling="chance", regret_matching_plus=plus, averaging="linear", path=path, seed=13)
    assert not np.allclose(plain.iterate(10).current_policy().probs, ours.current_policy().probs)


@pytest.mark.parametrize("options", [{}, {"sampling": "outcome", "average_update": "lazy", "alternating": False}])
def test_tree_and_generic_paths_agree_bit_for_bit(options: dict) -> None:
    cls = solver_class("linear-mccfr")
    tree = cls(load_game("leduc"), path="tree", seed=3, **options).iterate(40)
    generic = cls(load_game("leduc"), path="generic", seed=3, **options).iterate(40)
    for ours, theirs in ((tree.regret_table(), generic.regret_table()),
                         (tree.strategy_table(), generic.strategy_table())):
        assert theirs and all(np.array_equal(ours[key], row) for key, row in theirs.items())


def test_an_unknown_rule_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown MCCFR rule 'quadratic'; known: (.*, )?linear, (.*, )?standard"):
        MCCFR(load_game("kuhn"), rule="quadratic")
