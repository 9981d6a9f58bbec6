"""OOS and MCCFR tables bit for bit equal to those recorded before the solvers were restructured
(``oos_reference``: every execution path, Kuhn, Leduc and Koi-Koi rounds)."""

from __future__ import annotations

import json

import pytest

from tests.solvers.oos_reference import DATA, digest, runs

RECORDED = json.loads(DATA.read_text())
RUNS = dict(runs())


def test_every_recorded_run_is_still_run():
    assert RUNS.keys() == RECORDED.keys()


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_tables_are_the_recorded_ones_bit_for_bit(name):
    assert digest(RUNS[name]()) == RECORDED[name]
