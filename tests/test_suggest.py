"""The nearest known name for a mistyped one (``cfrlab.suggest``), as the CLI's "did you mean" gives it."""

from __future__ import annotations

from cfrlab.suggest import nearest

ALGORITHMS = ["cfr", "cfr+", "cfr-alt", "dcfr", "dcfr+", "pcfr+", "vector-cfr+", "linear-cfr", "mccfr+"]
OPTIONS = ["alternating", "averaging", "iterations", "target-exploitability", "seed", "max_raises"]


def test_case_and_separators_first_then_the_closest_spelling() -> None:
    assert nearest("CFR+", ALGORITHMS) == "cfr+"
    assert nearest("cfr++", ALGORITHMS) == "cfr+"  # not pcfr+ or dcfr+, one edit further
    assert nearest("iteration", OPTIONS) == "iterations"  # not alternating
    assert nearest("max-raises", OPTIONS) == "max_raises"
    assert nearest("DCFR", ALGORITHMS) == "dcfr"


def test_nothing_close_suggests_nothing() -> None:
    assert nearest("zzz", ALGORITHMS) is None
    assert nearest("anything", []) is None
