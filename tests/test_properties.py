"""Property tests (hypothesis): update rules and spec parsing hold for any input, not just the examples."""

from __future__ import annotations

import doctest

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import cfrlab
import cfrlab.driver
from cfrlab.game_spec import parse_spec
from cfrlab.solvers.regret import dcfr_factors, regret_matching, regret_matching_reference

sizes = st.lists(st.integers(1, 5), min_size=1, max_size=8)


@given(sizes=sizes, data=st.data())
@settings(max_examples=200, deadline=None)
def test_regret_matching_gives_distributions(sizes, data):
    offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    size = int(offset[-1])
    regret = np.array(data.draw(st.lists(st.floats(-1e6, 1e6, allow_subnormal=False), min_size=size, max_size=size)))
    sigma = regret_matching(regret.copy(), offset)
    np.testing.assert_allclose(sigma, regret_matching_reference(regret, offset), atol=1e-12)
    sums = np.add.reduceat(sigma, offset[:-1])
    np.testing.assert_allclose(sums, 1.0)
    assert (sigma >= 0).all()
    # positive regret gets positive probability exactly where regret is positive (unless none is)
    for lo, hi in zip(offset[:-1], offset[1:]):
        if (regret[lo:hi] > 0).any():
            assert ((sigma[lo:hi] > 0) == (regret[lo:hi] > 0)).all()


@given(sizes=sizes, data=st.data())
@settings(max_examples=100, deadline=None)
def test_regret_matching_plus_clamps_in_place(sizes, data):
    offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    regret = np.array(data.draw(st.lists(st.floats(-10, 10), min_size=int(offset[-1]), max_size=int(offset[-1]))))
    original = regret.copy()
    sigma = regret_matching(regret, offset, plus=True)
    np.testing.assert_array_equal(regret, np.maximum(original, 0.0))
    np.testing.assert_allclose(sigma, regret_matching_reference(original, offset), atol=1e-12)


@given(t=st.integers(1, 10_000), alpha=st.floats(0, 3), beta=st.floats(0, 3), gamma=st.floats(0, 4))
def test_dcfr_factors_are_discounts(t, alpha, beta, gamma):
    pos, neg, strat = dcfr_factors(t, alpha, beta, gamma)
    assert 0 <= pos < 1 and 0 <= neg < 1 and 0 < strat <= 1


names = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)
values = st.one_of(st.integers(-100, 100), st.booleans(), st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True)
                   .filter(lambda s: s not in ("true", "false")))


@given(name=names, params=st.dictionaries(names, values, max_size=4))
def test_spec_round_trip(name, params):
    text = name + ("(" + ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items())
                   + ")" if params else "")
    assert parse_spec(text) == (name, params)


def test_docstring_examples_run():
    for module in (cfrlab, cfrlab.driver):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.attempted > 0 and result.failed == 0, module.__name__
