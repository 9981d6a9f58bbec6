"""Compiled trees: sizes against OpenSpiel, invariants, the on-disk cache, protocol violations."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.game import GameDefinitionError
from cfrlab.registry import load_game
from cfrlab.tree import TreeTooLarge, compile_tree, load_tree
from cfrlab.tree.cache import cache_path, read_tree, save_tree


@pytest.mark.parametrize("ours,theirs,nodes,infosets", [
    ("kuhn", "kuhn_poker", 58, 12),
    ("kuhn(players=3)", "kuhn_poker(players=3)", 617, 48),
    ("leduc", "leduc_poker", 9457, 936),
])
def test_sizes_match_openspiel(ours, theirs, nodes, infosets):
    a, b = compile_tree(load_game(ours)), compile_tree(load_game(f"openspiel:{theirs}"))
    for tree in (a, b):
        assert (tree.num_nodes, tree.num_infosets) == (nodes, infosets)
    np.testing.assert_array_equal(a.player, b.player)
    np.testing.assert_array_equal(a.child_ptr, b.child_ptr)
    np.testing.assert_allclose(a.utility, b.utility)
    np.testing.assert_allclose(a.chance_reach, b.chance_reach)


def test_layout_invariants(leduc):
    tree = compile_tree(leduc)
    tree.validate()
    assert (tree.parent[1:] < np.arange(1, tree.num_nodes)).all()
    # children are contiguous and point back to their parent
    for n in range(0, tree.num_nodes, 97):
        kids = np.arange(tree.child_ptr[n], tree.child_ptr[n + 1])
        assert (tree.parent[kids] == n).all()
    # the k-th child of a decision node is the k-th sequence of its infoset
    decision = np.flatnonzero(tree.player >= 0)
    for n in decision[::50]:
        base = tree.infoset_offset[tree.infoset[n]]
        kids = np.arange(tree.child_ptr[n], tree.child_ptr[n + 1])
        np.testing.assert_array_equal(tree.parent_sequence[kids], base + np.arange(len(kids)))
        np.testing.assert_array_equal(tree.action[kids], tree.infoset_actions(tree.infoset[n]))
    terminal_reach = tree.chance_reach[tree.player == -4]
    assert terminal_reach.min() > 0
    assert not tree.player.flags.writeable


def test_cache_round_trip_and_rebuild_of_corrupt_entry(tmp_path, monkeypatch, kuhn3):
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    first = load_tree(kuhn3)
    path = cache_path(kuhn3)
    assert path.exists()
    again = load_tree(kuhn3)
    for name, value in first.arrays().items():
        np.testing.assert_array_equal(value, again.arrays()[name])
    path.write_bytes(path.read_bytes()[:100])  # truncated on disk
    rebuilt = load_tree(kuhn3)
    assert rebuilt.num_nodes == first.num_nodes
    assert read_tree(path).num_nodes == first.num_nodes  # and the entry was rewritten


def test_cache_is_keyed_by_parameters(tmp_path, monkeypatch):
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    assert cache_path(load_game("leduc")) != cache_path(load_game("leduc(ranks=4)"))
    assert cache_path(load_game("kuhn")) != cache_path(load_game("kuhn(players=3)"))


def test_saved_tree_reads_back(tmp_path, kuhn):
    tree = compile_tree(kuhn)
    save_tree(tree, tmp_path / "t.npz")
    back = read_tree(tmp_path / "t.npz")
    assert back.infoset_keys == tree.infoset_keys and back.fingerprint == tree.fingerprint


def test_too_large_game_is_refused_with_advice(leduc):
    with pytest.raises(TreeTooLarge, match="sampling solver"):
        compile_tree(leduc, max_nodes=1000)


def test_load_tree_node_limit(tmp_path, monkeypatch, leduc):
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    with pytest.raises(TreeTooLarge):
        load_tree(leduc, max_nodes=1000)
    assert load_tree(leduc, max_nodes=1000, or_none=True) is None
    assert not cache_path(leduc).exists()
    full = load_tree(leduc)
    assert load_tree(leduc, max_nodes=1000).num_nodes == full.num_nodes  # a cached tree, whatever its size
    with pytest.raises(GameDefinitionError):
        load_tree(load_game("koikoi"))  # chance outcomes are not listed: cannot be enumerated
    assert load_tree(load_game("koikoi"), or_none=True) is None


def test_inconsistent_infosets_are_reported():
    """A game whose key hides a difference in legal actions cannot be compiled."""
    from cfrlab.games.kuhn import KuhnPoker, KuhnState

    class Broken(KuhnState):
        def legal_actions(self):
            acts = KuhnState.legal_actions(self)
            if self.current_player() == 0 and self.cards and self.cards[1] == 2:
                return acts[:1]  # depends on the opponent's hidden card
            return acts

        def _apply(self, action):
            s = KuhnState._apply(self, action)
            return Broken(s.game, s.cards, s.history)

    class BrokenKuhn(KuhnPoker):
        name = "broken_kuhn"

        def new_initial_state(self):
            return Broken(self)

    with pytest.raises(GameDefinitionError, match="different players or legal actions"):
        compile_tree(BrokenKuhn())
