"""Leduc's direct breadth-first builder against state-by-state enumeration, array for array."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.leduc_tree import leduc_num_nodes
from cfrlab.registry import load_game
from cfrlab.tree.compile import TreeTooLarge, compile_tree


@pytest.mark.parametrize("spec", ["leduc", "leduc(ranks=4,suits=3)", "leduc(max_raises=3,raise_sizes=[2.5,4.5])",
                                  "leduc(ranks=2,max_raises=0)", "leduc(ranks=1,suits=3,max_raises=1)",
                                  "leduc_suitless", "leduc_suitless(ranks=4,suits=3,max_raises=3)",
                                  "leduc_suitless(ranks=3,suits=1)", "leduc_suitless(ranks=1,suits=4)"])
def test_direct_build_equals_enumeration(spec):
    game = load_game(spec)
    direct, enumerated = compile_tree(game), compile_tree(game, direct=False)
    by_rank = game.suits if game.name == "leduc_suitless" else 0
    assert direct.num_nodes == enumerated.num_nodes == leduc_num_nodes(game.deck_size, game.max_raises, by_rank)
    assert direct.infoset_keys == enumerated.infoset_keys
    ours, theirs = direct.arrays(), enumerated.arrays()
    assert ours.keys() == theirs.keys()
    for name, value in theirs.items():
        assert ours[name].dtype == value.dtype, name
        np.testing.assert_array_equal(ours[name], value, err_msg=name)


def test_size_is_known_before_building():
    game = load_game("leduc(ranks=13,suits=4,max_raises=8)")
    assert leduc_num_nodes(game.deck_size, game.max_raises) > 1e8
    with pytest.raises(TreeTooLarge, match="115,"):
        compile_tree(game)  # refused at once, not after enumerating the default limit
