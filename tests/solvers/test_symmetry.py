"""Suit-symmetric chance outcomes merged: the quotient tree is smaller, strategies and exploitability are the full game's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.eval import expected_values, exploitability
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.solvers.regret import average_strategy
from cfrlab.tree import compile_tree, load_tree
from cfrlab.tree.symmetry import expansion_index


@pytest.mark.parametrize("spec", ["leduc", "leduc(suits=3)", "leduc(ranks=2,suits=4)"])
def test_quotient_merges_suits_and_keeps_every_infoset(spec):
    game = load_game(spec)
    quotient = game.symmetry_quotient()
    full, small = compile_tree(game), compile_tree(quotient)
    assert small.num_nodes < full.num_nodes / 4
    assert {game.quotient_key(k) for k in full.infoset_keys} == set(small.infoset_keys)
    index = expansion_index(full, small, game.quotient_key)
    np.testing.assert_array_equal(small.sequence_action[index], full.sequence_action)
    # merged deals carry the summed probability of the deals they stand for: same values for any policy
    rng = np.random.default_rng(0)
    sigma = TabularPolicy.random(small, rng)
    expanded = TabularPolicy.from_sequences(full, sigma.to_sequences(small)[index])
    np.testing.assert_allclose(expected_values(small, sigma), expected_values(full, expanded), atol=1e-12)


def test_leduc_quotient_is_a_fifth_of_leduc_poker():
    game = load_game("leduc")
    assert load_tree(game).num_nodes == 9457 and load_tree(game.symmetry_quotient()).num_nodes == 1939
    assert game.quotient_key("0:Qh:rc/Ks:r") == "0:Q:rc/K:r" and game.quotient_key("1:Js:") == "1:J:"
    assert load_game("kuhn").symmetry_quotient() is None and load_game("leduc(suits=1)").symmetry_quotient() is None


@pytest.mark.parametrize("spec", ["leduc", "leduc(ranks=2,suits=4)"])
@pytest.mark.parametrize("name", ["cfr", "cfr+", "dcfr", "pcfr+", "dcfr+", "pdcfr+"])
def test_solving_the_quotient_gives_the_full_games_iterates(spec, name):
    game = load_game(spec)
    cls = solver_class(name)
    full, merged = cls(game, symmetric=False), cls(game)
    assert merged.tree.num_nodes < full.tree.num_nodes / 4 and full.tree.fingerprint == game.fingerprint()
    # (equal up to rounding, which predictive updates amplify over tens of iterations)
    for iterations in (1, 5, 15):
        full.iterate(iterations - full.iterations)
        merged.iterate(iterations - merged.iterations)
        a, b = full.average_policy(), merged.average_policy()
        assert a.keys == b.keys
        np.testing.assert_allclose(b.probs, a.probs, atol=1e-9)
        np.testing.assert_allclose(merged.current_policy().probs, full.current_policy().probs, atol=1e-9)
        assert exploitability(game, b) == pytest.approx(exploitability(game, a), abs=1e-10)


@pytest.mark.parametrize("spec", ["leduc", "leduc(ranks=4,suits=3)"])
def test_exploitability_on_the_quotient_is_the_full_games(spec):
    """So a game too large to evaluate in full is evaluated exactly on its quotient (bench_large_tree.py)."""
    game = load_game(spec)
    solver = solver_class("pdcfr+")(game).iterate(25)
    on_quotient = TabularPolicy.from_sequences(solver.tree, average_strategy(solver.strategy_sum,
                                                                             solver.tree.infoset_offset))
    assert exploitability(solver.tree, on_quotient) == pytest.approx(
        exploitability(game, solver.average_policy()), abs=1e-12)


def test_checkpoint_of_the_full_tree_is_refused_by_a_symmetric_solver(tmp_path, leduc):
    cls = solver_class("pdcfr+")
    cls(leduc).iterate(3).save_checkpoint(tmp_path / "c.npz")
    with pytest.raises(ValueError, match="config"):
        cls(leduc, symmetric=False).load_checkpoint(tmp_path / "c.npz")


def test_cli_writes_the_full_games_strategy(tmp_path, capsys):
    out = tmp_path / "s.npz"
    code = main(["solve", "leduc", "--algo", "dcfr+", "-n", "60", "--out", str(out), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    game = load_game("leduc")
    policy, meta = TabularPolicy.load(out, game)
    assert "0:Qh:" in policy.keys and len(policy.keys) == 936 and meta["config"]["symmetric"] is True
    assert result["exploitability"] == pytest.approx(exploitability(game, policy), abs=1e-12)
    code = main(["solve", "leduc", "--algo", "dcfr+", "-n", "60", "--no-symmetric", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] == pytest.approx(result["exploitability"], abs=1e-9)
