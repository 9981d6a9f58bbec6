"""A small abstract hold'em strategy shared by the tests of its evaluation in the real game."""

from __future__ import annotations

import pytest

from cfrlab.cli.main import main

REAL = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


@pytest.fixture(scope="module")
def strategy_file(tmp_path_factory):
    """A ``holdem_ehs2`` strategy of ``REAL`` (100 iterations of vector CFR+, 2, 3, 2 buckets)."""
    out = tmp_path_factory.mktemp("holdem") / "abstract.npz"
    assert main(["solve", REAL, "--abstraction", "ehs2:2,3,2", "--algo", "vector-cfr+", "-n", "100", "--out",
                 str(out), "--quiet"]) == 0
    return out
