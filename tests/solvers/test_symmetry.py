"""Suit-symmetric chance outcomes merged: the quotient tree is smaller, strategies and exploitability are the full
game's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.eval import best_response_values, expected_values, exploitability
from cfrlab.policy import PolicyFileError, TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.tree import compile_tree, load_tree

HOLDEM = "holdem(ranks=3,suits=3,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"
"""A hold'em variant with three suits: flushes count, so only renamings of the suits are symmetries."""


@pytest.mark.parametrize("spec", ["leduc", "leduc(suits=3)", "leduc(ranks=2,suits=4)", HOLDEM])
def test_quotient_merges_suits_and_keeps_every_infoset(spec):
    game = load_game(spec)
    quotient = game.symmetry_quotient()
    full, small = compile_tree(game), compile_tree(quotient)
    assert small.num_nodes < full.num_nodes / 4
    assert {game.quotient_key(k) for k in full.infoset_keys} == set(small.infoset_keys)
    # quotient_infosets inverts quotient_key: the expansion covers every infoset once, with its legal actions
    rng = np.random.default_rng(0)
    sigma = TabularPolicy.random(small, rng)
    expanded = sigma.expand(game)
    assert sorted(expanded.keys) == sorted(full.infoset_keys) and expanded.check_fits(full) == 0
    assert all(game.quotient_key(k) == q for q in small.infoset_keys for k in game.quotient_infosets(q))
    # merged deals carry the summed probability of the deals they stand for: same values for any policy
    np.testing.assert_allclose(expected_values(small, sigma), expected_values(full, expanded), atol=1e-12)
    # and a symmetric policy of the game collapses back to the quotient's
    back = expanded.collapse(game)
    assert back is not None and set(back.keys) == set(small.infoset_keys)
    np.testing.assert_array_equal(back.to_sequences(small), sigma.to_sequences(small))


def test_leduc_quotient_is_a_fifth_of_leduc_poker():
    game = load_game("leduc")
    assert load_tree(game).num_nodes == 9457 and load_tree(game.symmetry_quotient()).num_nodes == 1939
    assert game.quotient_key("0:Qh:rc/Ks:r") == "0:Q:rc/K:r" and game.quotient_key("1:Js:") == "1:J:"
    assert load_game("kuhn").symmetry_quotient() is None and load_game("leduc(suits=1)").symmetry_quotient() is None


@pytest.mark.parametrize("spec,name", [(spec, name) for spec in ("leduc", "leduc(ranks=2,suits=4)")
                                       for name in ("cfr", "cfr+", "dcfr", "pcfr+", "dcfr+", "pdcfr+")]
                         + [(HOLDEM, "cfr+"), (HOLDEM, "pdcfr+")])
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
        assert sorted(a.keys) == sorted(b.keys)
        np.testing.assert_allclose(b.to_sequences(full.tree), a.to_sequences(full.tree), atol=1e-9)
        np.testing.assert_allclose(merged.current_policy().to_sequences(full.tree),
                                   full.current_policy().to_sequences(full.tree), atol=1e-9)
        assert exploitability(game, b) == pytest.approx(exploitability(game, a), abs=1e-10)


@pytest.mark.parametrize("spec", ["leduc", "leduc(ranks=4,suits=3)", "leduc(ranks=2,suits=4,max_raises=3)", HOLDEM])
def test_exploitability_on_the_quotient_is_the_full_games(spec):
    """A symmetric strategy's best-response values, hence its exploitability, are the same on the quotient
    (merged infosets' counterfactual values are sums of equal vectors: the best responses agree), so a game
    too large to evaluate in full is evaluated exactly on its quotient: random strategies and a solver's."""
    game = load_game(spec)
    small, full = load_tree(game.symmetry_quotient()), load_tree(game)
    rng = np.random.default_rng(1)
    for policy in [TabularPolicy.random(small, rng) for _ in range(3)] + [
            solver_class("pdcfr+")(game).iterate(25).solved_policy()[0]]:
        expanded = policy.expand(game)
        np.testing.assert_allclose(best_response_values(small, policy.to_sequences(small)),
                                   best_response_values(full, expanded.to_sequences(full)), rtol=0, atol=1e-12)
        assert exploitability(small, policy) == pytest.approx(exploitability(full, expanded), abs=1e-12)


def test_an_asymmetric_strategy_does_not_collapse(leduc):
    policy = TabularPolicy.random(load_tree(leduc), np.random.default_rng(2))
    assert policy.collapse(leduc) is None
    symmetric = TabularPolicy.uniform(load_tree(leduc.symmetry_quotient())).expand(leduc)
    partial = TabularPolicy(symmetric.keys[1:], symmetric.probs[1:], symmetric.legal_mask[1:])
    assert symmetric.collapse(leduc) is not None and partial.collapse(leduc) is None


def test_solve_and_eval_never_build_the_full_tree(tmp_path, capsys, monkeypatch):
    """``cfrlab solve`` of a symmetric game evaluates on the quotient and writes the quotient's rows;
    ``cfrlab eval`` of a game beyond the evaluation limit collapses the strategy to the quotient."""
    from cfrlab.games.leduc import LeducHoldem

    spec, out = "leduc(ranks=4,suits=3)", tmp_path / "s.npz"
    build = LeducHoldem.tree_builder

    def refused(self):
        return build(self)[0], lambda: pytest.fail(f"the tree of {self.spec()} was built")

    monkeypatch.setattr(LeducHoldem, "tree_builder", refused)  # (the quotient, leduc_suitless, has its own)
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("cfrlab.driver.DEFAULT_MAX_EVAL_NODES", 1000)
    assert main(["solve", spec, "--algo", "pdcfr+", "-n", "40", "--out", str(out), "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    assert main(["eval", str(out), "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["evaluated_on"] == "leduc_suitless(ranks=4,suits=3)" and evaluated["game"] == spec
    assert main(["eval", str(out)]) == 0
    assert "symmetry quotient" in capsys.readouterr().out
    monkeypatch.undo()
    game = load_game(spec)
    policy, meta = TabularPolicy.load(out, game)
    assert meta["quotient"]["game"] == "leduc_suitless(ranks=4,suits=3)" and len(policy) == load_tree(game).num_infosets
    truth = exploitability(game, policy)
    assert solved["exploitability"] == pytest.approx(truth, abs=1e-12)
    assert evaluated["exploitability"] == pytest.approx(truth, abs=1e-12)


def test_a_quotient_file_of_another_game_is_refused(tmp_path, leduc):
    out = tmp_path / "s.npz"
    TabularPolicy.uniform(load_tree(leduc.symmetry_quotient())).save(out, leduc, quotient=True)
    assert len(TabularPolicy.load(out)[0]) == 936  # the game comes from the file
    with pytest.raises(PolicyFileError, match="not for"):
        TabularPolicy.load(out, load_game("leduc(suits=3)"))
    with pytest.raises(ValueError, match="no symmetry"):
        TabularPolicy.uniform(load_tree(load_game("kuhn"))).save(out, load_game("kuhn"), quotient=True)


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


def test_holdem_quotient_deals_one_card_per_class_of_renamings():
    game = load_game(HOLDEM)
    assert game.quotient_key("1:3h/4c:c") == "1:3c/4d:c" and game.quotient_key("0:4d/4c:") == "0:4c/4d:"
    assert game.quotient_infosets("1:3c/4d:c") == sorted(
        f"1:3{a}/4{b}:c" for a in "cdh" for b in "cdh" if a != b)
    with pytest.raises(ValueError, match="suit quotient"):
        game.quotient_infosets("1:3h/4c:c")  # not the least of its class
    root = game.symmetry_quotient().new_initial_state()
    assert root.chance_outcomes() == [(0, 1 / 3), (3, 1 / 3), (6, 1 / 3)]  # one card per rank: 2c, 3c, 4c
    after = root.child(3)  # 3c dealt: in each rank the suits d and h are one class, clubs another
    assert after.chance_outcomes() == [(0, 1 / 8), (1, 2 / 8), (4, 2 / 8), (6, 1 / 8), (7, 2 / 8)]
    assert load_game("holdem(suits=1,ranks=6,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"
                     ).symmetry_quotient() is None


@pytest.mark.parametrize("spec", ["leduc(ranks=4,suits=3)", HOLDEM])
def test_eval_of_a_quotient_file_never_reads_the_full_tree(spec, tmp_path, capsys, monkeypatch):
    """``cfrlab eval`` of a file holding the quotient's rows evaluates on the quotient even when the full tree is
    small and cached (a cached tree may be gigabytes), with the full tree's exploitability; hold'em's real-game
    play (``--versus``) still plays the expanded strategy with the full game's keys."""
    import cfrlab.tree.cache

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path / "cache"))
    game = load_game(spec)
    full = load_tree(game)  # cached, as after an earlier run
    policy = TabularPolicy.random(load_tree(game.symmetry_quotient()), np.random.default_rng(4))
    policy.save(tmp_path / "q.npz", game, quotient=True)
    expanded = policy.expand(game)
    expanded.save(tmp_path / "full.npz", game)
    truth = exploitability(full, expanded)
    versus = ["--versus", "call", "--hands", "20"] if spec == HOLDEM else []
    assert main(["eval", str(tmp_path / "full.npz"), "--json", *versus]) == 0
    on_full = json.loads(capsys.readouterr().out)
    load = cfrlab.tree.cache._load_or_compile

    def quotient_only(g, *args):
        assert g.fingerprint() != game.fingerprint(), "eval read the full tree"
        return load(g, *args)

    monkeypatch.setattr(cfrlab.tree.cache, "_load_or_compile", quotient_only)
    assert main(["eval", str(tmp_path / "q.npz"), "--json", *versus]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["evaluated_on"] == game.symmetry_quotient().spec() and evaluated["game"] == game.spec()
    assert evaluated["exploitability"] == pytest.approx(truth, abs=1e-12)
    assert evaluated["values"] == pytest.approx(on_full["values"], abs=1e-12)
    assert evaluated.get("versus_mbb_per_hand") == on_full.get("versus_mbb_per_hand")
