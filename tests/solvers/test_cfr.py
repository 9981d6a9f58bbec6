"""The full-tree CFR family against the seeds' pseudo-code, Kuhn's analytic equilibrium and exact exploitability."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cfrlab.eval import expected_values, exploitability, nash_conv
from cfrlab.registry import load_game
from cfrlab.solvers import algorithms, solver_class
from cfrlab.solvers.cfr import CFR, DCFR, AlternatingCFR, CFRConfig, CFRPlus, LinearCFR
from cfrlab.solvers.regret import average_strategy, regret_matching, regret_matching_reference
from tests.solvers.reference_cfr import ReferenceCFR

FULL_TREE = ["cfr", "cfr-alt", "cfr+", "linear-cfr", "dcfr", "pcfr+", "dcfr+", "pdcfr+"]
SMALL_GAMES = ["kuhn", "kuhn(players=3)", "random_game(seed=1)", "random_game(seed=7,players=3)",
               "random_game(seed=4,zero_sum=false)"]


def _assert_matches_reference(solver, ref: ReferenceCFR) -> None:
    tree = solver.tree
    avg = average_strategy(solver.strategy_sum, tree.infoset_offset)
    for i, key in enumerate(tree.infoset_keys):
        lo, hi = tree.infoset_offset[i], tree.infoset_offset[i + 1]
        np.testing.assert_allclose(solver.regret[lo:hi], ref.regret[key], rtol=1e-10, atol=1e-10, err_msg=key)
        np.testing.assert_allclose(avg[lo:hi], ref.average()[key], rtol=1e-10, atol=1e-10, err_msg=key)


@pytest.mark.parametrize("spec", SMALL_GAMES)
def test_vanilla_cfr_matches_seed000_algorithm1(spec):
    game = load_game(spec)
    _assert_matches_reference(CFR(game).iterate(4), ReferenceCFR(game).iterate(4))


@pytest.mark.parametrize("spec", SMALL_GAMES)
def test_alternating_cfr_matches_seed001_algorithm2(spec):
    game = load_game(spec)
    _assert_matches_reference(AlternatingCFR(game).iterate(4), ReferenceCFR(game, alternating=True).iterate(4))


@pytest.mark.parametrize("spec", SMALL_GAMES + ["leduc"])
def test_cfr_plus_matches_seed000_algorithm3(spec):
    game = load_game(spec)
    iterations = 2 if spec == "leduc" else 5
    ours = CFRPlus(game, delay=1, symmetric=False).iterate(iterations)
    ref = ReferenceCFR(game, plus=True, alternating=True, average_in="next", linear=True, delay=1)
    _assert_matches_reference(ours, ref.iterate(iterations))


def test_regret_matching_kernel_matches_numpy_reference():
    rng = np.random.default_rng(0)
    offset = np.array([0, 2, 5, 6, 9], dtype=np.int64)
    for _ in range(20):
        regret = rng.normal(size=9) * (rng.random(9) < 0.7)
        np.testing.assert_allclose(regret_matching(regret.copy(), offset), regret_matching_reference(regret, offset))


# Kuhn's analytic equilibrium family (seed 002): alpha in [0, 1/3] is player 0's bet probability with the J.
def kuhn_equilibrium(alpha: float) -> dict[str, float]:
    """Probability of *bet* (bet or call) at every infoset, keyed as in cfrlab's Kuhn."""
    return {
        "0:J:": alpha, "0:Q:": 0.0, "0:K:": 3 * alpha,
        "0:J:pb": 0.0, "0:Q:pb": alpha + 1 / 3, "0:K:pb": 1.0,
        "1:J:b": 0.0, "1:Q:b": 1 / 3, "1:K:b": 1.0,
        "1:J:p": 1 / 3, "1:Q:p": 0.0, "1:K:p": 1.0,
    }


def test_cfr_plus_finds_kuhn_equilibrium(kuhn):
    solver = CFRPlus(kuhn).iterate(3000)
    policy = solver.average_policy()
    assert exploitability(kuhn, policy) < 1e-4
    assert expected_values(kuhn, policy)[0] == pytest.approx(-1 / 18, abs=1e-4)
    alpha = policy.action_probabilities("0:J:")[1]
    assert 0.0 <= alpha <= 1 / 3 + 1e-3
    for key, bet in kuhn_equilibrium(alpha).items():
        assert policy.action_probabilities(key)[1] == pytest.approx(bet, abs=1e-3), key


def test_kuhn_equilibrium_family_is_exact(kuhn):
    """The analytic family itself has zero exploitability: the ground truth above is right."""
    from cfrlab.policy_tabulate import policy_from_mapping
    from cfrlab.tree import load_tree

    tree = load_tree(kuhn)
    for alpha in (0.0, 0.1, 1 / 3):
        table = {k: {0: 1 - b, 1: b} for k, b in kuhn_equilibrium(alpha).items()}
        policy = policy_from_mapping(tree, table)
        assert exploitability(tree, policy) == pytest.approx(0.0, abs=1e-12)
        assert expected_values(tree, policy)[0] == pytest.approx(-1 / 18, abs=1e-12)


@pytest.mark.parametrize("cls,iterations", [(AlternatingCFR, 6000), (CFRPlus, 3000)])
def test_three_player_kuhn_nash_conv(kuhn3, cls, iterations):
    assert nash_conv(kuhn3, cls(kuhn3).iterate(iterations).average_policy()) < 1e-3


def test_cfr_plus_solves_leduc(leduc):
    assert exploitability(leduc, CFRPlus(leduc).iterate(600).average_policy()) < 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("name,iterations", [("cfr", 12000), ("cfr-alt", 1500), ("linear-cfr", 800),
                                             ("dcfr", 300)])
def test_every_variant_converges_on_leduc(leduc, name, iterations):
    solver = solver_class(name)(leduc)
    checkpoints = [iterations // 20, iterations // 4, iterations]
    values = []
    for target in checkpoints:
        solver.iterate(target - solver.iterations)
        values.append(exploitability(leduc, solver.average_policy()))
    assert values[0] > values[1] > values[2]
    assert values[-1] < 1e-2


def test_checkpoint_of_another_config_is_refused(tmp_path, kuhn):
    from cfrlab.checkpoint import CheckpointError

    CFRPlus(kuhn).iterate(3).save_checkpoint(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="algorithm"):
        CFR(kuhn).load_checkpoint(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="config"):
        CFRPlus(kuhn, delay=3).load_checkpoint(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="fingerprint"):
        CFRPlus(load_game("kuhn(players=3)"), ).load_checkpoint(tmp_path / "c.npz")


@pytest.mark.parametrize("field,value", [("averaging", "cubic"), ("delay", -1), ("average_in", "both")])
def test_invalid_config_is_rejected(field, value):
    with pytest.raises(ValueError, match=field):
        CFRConfig(**{field: value})


def test_presets_differ_only_by_config(kuhn):
    assert CFRPlus(kuhn).config == CFRConfig(alternating=True, regret_matching_plus=True, averaging="linear",
                                             average_in="next")
    assert LinearCFR(kuhn).config.dcfr_alpha == 1.0 and DCFR(kuhn).config.dcfr_alpha == 1.5
    for name in FULL_TREE:
        assert name in algorithms()


@pytest.mark.parametrize("plus,alternating,averaging", list(itertools.product([False, True], [False, True],
                                                                               ["uniform", "linear", "quadratic"])))
def test_every_flag_combination_converges_on_kuhn(kuhn, plus, alternating, averaging):
    solver = CFR(kuhn, regret_matching_plus=plus, alternating=alternating, averaging=averaging)
    early = exploitability(kuhn, solver.iterate(1000).average_policy())
    late = exploitability(kuhn, solver.iterate(3000).average_policy())
    assert late < early < 2e-2


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_same_iterates_as_openspiel_cpp(name):
    """Alternating CFR and CFR+ with OpenSpiel's averaging give OpenSpiel's C++ solvers' average policies."""
    pyspiel = pytest.importorskip("pyspiel")
    os_game = pyspiel.load_game(name)
    game = load_game(f"openspiel:{name}")
    for os_cls, ours in ((pyspiel.CFRSolver, AlternatingCFR(game)),
                         (pyspiel.CFRPlusSolver, CFRPlus(game, average_in="own"))):
        theirs = os_cls(os_game)
        for _ in range(30):
            theirs.evaluate_and_update_policy()
        ours.iterate(30)
        assert exploitability(game, ours.average_policy()) == pytest.approx(
            pyspiel.exploitability(os_game, theirs.average_policy()), abs=1e-9)
