"""Online Outcome Sampling on the compiled tree (numba, ``cfrlab.solvers.oos.tree_walk``) against the game-protocol
path and exact quantities.

* same seed, same tables as the Python walker (``oos.TargetedSampler``), bit for bit, targeted or not, with
  incremental or full tables; with delta = 0 and full tables, those of outcome-sampling MCCFR on the tree;
* the numba walk's per-sample increments under targeting are unbiased (mean of many samples equals the exact
  counterfactual regret and strategy-sum increment within 5 standard errors, at every infoset).
"""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import OutcomeSamplingMCCFR
from cfrlab.solvers.mccfr import tree_walk as tw
from cfrlab.solvers.mccfr.replicas import sampled_tree
from cfrlab.solvers.oos import OnlineOutcomeSampling, OOSConfig, Target
from cfrlab.solvers.oos import tree_walk as ow
from cfrlab.solvers.regret import regret_matching
from cfrlab.tree import load_tree
from tests.solvers.test_mccfr import _exact
from tests.solvers.test_oos import _some_infoset


def _tables(solver):
    return solver.regret_table(), solver.strategy_table()


@pytest.mark.parametrize("spec,index,iterations", [("kuhn", 3, 300), ("leduc", 400, 200), ("kuhn(players=3)", 20, 150)])
@pytest.mark.parametrize("delta,expansion,alternating,targeting", [
    (0.9, "incremental", True, "ist"), (0.9, "full", False, "ist"), (0.0, "incremental", True, "ist"),
    (1.0, "full", True, "ist"), (0.9, "incremental", True, "pst"), (1.0, "full", False, "pst")])
def test_tree_path_is_the_game_protocol_path(spec, index, iterations, delta, expansion, alternating, targeting):
    game = load_game(spec)
    key, player = _some_infoset(game, index)
    runs = []
    for path in ("generic", "tree"):
        oos = OnlineOutcomeSampling(game, seed=7, delta=delta, expansion=expansion, alternating=alternating, path=path,
                                    targeting=targeting, deal="enumerated")  # the tree path enumerates
        assert oos.path == path
        oos.set_target(key, player)
        oos.iterate(iterations // 2).iterate(iterations - iterations // 2)
        runs.append((_tables(oos), oos.policy_at(key)))
    (generic, policy_g), (tree, policy_t) = runs
    for mine, theirs in zip(tree, generic):
        assert list(mine) == [k for k in load_tree(game).infoset_keys if k in theirs]
        assert all(np.array_equal(mine[k], theirs[k]) for k in theirs)
    assert policy_t == policy_g


def test_untargeted_tree_path_is_outcome_sampling(leduc):
    oos = OnlineOutcomeSampling(leduc, seed=3, delta=0.9, expansion="full", path="tree")
    oos.set_target(None)
    oos.iterate(500)
    ref = OutcomeSamplingMCCFR(leduc, seed=3, path="tree").iterate(500)
    mine, theirs = _tables(oos), _tables(ref)
    for a, b in zip(mine, theirs):
        assert all(np.array_equal(a[k], b[k]) for k in b if k in a)
        assert all(not b[k].any() for k in b if k not in a)  # what OOS never stored, MCCFR never changed


def test_checkpoint_keeps_the_stored_infosets(tmp_path, kuhn):
    oos = OnlineOutcomeSampling(kuhn, seed=1, path="tree")
    oos.set_target(*_some_infoset(kuhn, 2))
    oos.iterate(3)
    oos.save_checkpoint(tmp_path / "oos.npz")
    again = OnlineOutcomeSampling(kuhn, seed=1, path="tree")
    again.load_checkpoint(tmp_path / "oos.npz")
    assert list(again.regret_table()) == list(oos.regret_table())


@pytest.mark.parametrize("spec,index,public", [("kuhn", 7, False), ("random_game(seed=3)", 5, False),
                                               ("kuhn(players=3)", 20, False), ("kuhn", 7, True),
                                               ("kuhn(players=3)", 20, True)])
def test_numba_targeted_estimates_are_unbiased(spec, index, public):
    """IST and PST (``public``) targets."""
    game = load_game(spec)
    tree = load_tree(game)
    counts = np.diff(tree.infoset_offset)
    regret = 0.5 * TabularPolicy.random(tree, np.random.default_rng(5)).to_sequences(tree)
    regret += 0.5 * np.repeat(1.0 / counts, counts)  # positive regrets: regret matching plays them normalised
    sigma = regret_matching(regret, tree.infoset_offset)
    key, _ = _some_infoset(game, index)
    oos = OnlineOutcomeSampling(game, path="tree", delta=0.8, targeting="pst" if public else "ist")
    oos.set_target(key, int(tree.infoset_player[tree.infoset_index(key)]))
    targeting = oos.store.targeting
    flat, config, n = sampled_tree(tree), OOSConfig(), 8000
    scratch = ow.new_scratch(flat)
    for player in range(game.num_players):
        exact_r, exact_s = _exact(tree, sigma, player)
        samples = np.zeros((2, n, tree.num_sequences))
        buf = tw.new_sums(tree.num_sequences, tree.num_infosets)
        for j in range(n):
            ow.oos_walk(flat, regret, player, config.traversal, config.schedule.rule, targeting, 12345, j, j + 1, buf,
                        scratch)
            samples[0, j], samples[1, j] = buf.r, buf.s
            buf.r[:], buf.s[:], buf.flag[:], buf.n[0] = 0.0, 0.0, 0, 0
        for exact, rows in zip((exact_r, exact_s), samples):
            mean = rows.mean(axis=0)
            se = rows.std(axis=0, ddof=1) / np.sqrt(n)
            assert np.all(np.abs(mean - exact) <= 5 * se + 1e-9), (player, np.abs(mean - exact) / (se + 1e-12))


def test_unknown_target_is_refused(kuhn):
    oos = OnlineOutcomeSampling(kuhn, path="tree")
    with pytest.raises(ValueError, match="no history"):
        oos.set_target("no such infoset", 0)
    with pytest.raises(ValueError, match="no history"):
        oos.set_target(_some_infoset(kuhn, 0)[0], 1)  # the infoset exists, for the other player


def test_public_subgame_target(leduc):
    """PST's target holds IST's histories and every other history of the same public state where the same player
    acts (on both paths: the numba mask marks exactly the generic target's histories and their extensions)."""
    key, player = _some_infoset(leduc, 300)
    ist, pst = Target.find(leduc, key, player), Target.find_public(leduc, key, player)
    assert ist.members < pst.members
    public = {_replay(leduc, m).public_state_key() for m in pst.members}
    assert len(public) == 1 and {_replay(leduc, m).current_player() for m in pst.members} == {player}
    tree = load_tree(leduc)
    oos = OnlineOutcomeSampling(leduc, path="tree", targeting="pst")
    oos.set_target(key, player)
    in_target = (oos.store.targeting.mask == 1) & (tree.infoset >= 0)
    marked = {tree.infoset_keys[i] for i in np.unique(tree.infoset[in_target])}
    assert {_replay(leduc, m).information_state_key(player) for m in pst.members} <= marked
    with pytest.raises(ValueError, match="defines no public states"):
        Target.find_public(load_game("random_game(seed=3)"), *_some_infoset(load_game("random_game(seed=3)"), 5))
    with pytest.raises(ValueError, match="defines no public states"):
        game = load_game("random_game(seed=3)")
        OnlineOutcomeSampling(game, path="tree", targeting="pst").set_target(*_some_infoset(game, 5))
    with pytest.raises(ValueError, match="targeting"):
        OOSConfig(targeting="xyz")


def _replay(game, path):
    state = game.new_initial_state()
    for a in path:
        state = state.child(a)
    return state
