"""Strategy files: round trip, wrong game, corrupt, truncated and missing files; validation."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.policy import PolicyFileError, TabularPolicy
from cfrlab.policy_tabulate import policy_from_mapping
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from cfrlab.tree import load_tree


@pytest.fixture()
def solved(kuhn):
    solver = CFRPlus(kuhn).iterate(100)
    return kuhn, solver.average_policy()


def test_round_trip(tmp_path, solved):
    game, policy = solved
    path = tmp_path / "s.npz"
    policy.save(path, game, solver="cfr+", iterations=100, exploitability=0.01)
    back, meta = TabularPolicy.load(path, game)
    np.testing.assert_array_equal(back.probs, policy.probs)
    assert back.keys == policy.keys
    assert meta["solver"] == "cfr+" and meta["iterations"] == 100 and meta["game"] == game.spec()


def test_wrong_game_is_refused(tmp_path, solved):
    game, policy = solved
    policy.save(tmp_path / "s.npz", game)
    with pytest.raises(PolicyFileError, match="not for"):
        TabularPolicy.load(tmp_path / "s.npz", load_game("kuhn(players=3)"))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_corrupt_file_fails_clearly(tmp_path, solved, damage):
    game, policy = solved
    path = tmp_path / "s.npz"
    policy.save(path, game)
    data = path.read_bytes()
    path.write_bytes({"truncate": data[: len(data) // 2], "garbage": b"not a zip" * 10, "empty": b""}[damage])
    with pytest.raises(PolicyFileError, match="corrupt|truncated|not a cfrlab"):
        TabularPolicy.load(path, game)


def test_missing_file(tmp_path, kuhn):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        TabularPolicy.load(tmp_path / "nope.npz", kuhn)


def test_checkpoint_is_not_a_strategy_file(tmp_path, kuhn):
    CFRPlus(kuhn).iterate(2).save_checkpoint(tmp_path / "c.npz")
    with pytest.raises(PolicyFileError, match="not a strategy file"):
        TabularPolicy.load(tmp_path / "c.npz", kuhn)


def test_invalid_probabilities_are_rejected(kuhn):
    tree = load_tree(kuhn)
    with pytest.raises(ValueError, match="sums to"):
        policy_from_mapping(tree, {"0:J:": {0: 0.5, 1: 0.6}})
    with pytest.raises(ValueError, match="not legal"):
        policy_from_mapping(tree, {"0:J:": {2: 1.0}})


def test_policy_for_another_tree_order(kuhn):
    """A policy whose rows are in another order still maps to the tree by key."""
    tree = load_tree(kuhn)
    policy = TabularPolicy.random(tree, np.random.default_rng(0))
    order = np.random.default_rng(1).permutation(len(policy))
    shuffled = TabularPolicy([policy.keys[i] for i in order], policy.probs[order], policy.legal_mask[order])
    np.testing.assert_array_equal(shuffled.to_sequences(tree), policy.to_sequences(tree))
    partial = TabularPolicy(policy.keys[1:], policy.probs[1:], policy.legal_mask[1:])
    with pytest.raises(KeyError, match="no entry"):
        partial.to_sequences(tree)
