"""The seeds' MCCFR update: cumulative regrets, clamped at 0 with regret matching+ (MCCFR+, seed 000 Alg. 6 l. 8),
and strategy sums weighted by the ``averaging`` scheme with its ``delay`` (``cfrlab.solvers.regret``; seed 000
Alg. 5 l. 44, seed 001 Alg. 3-4). ``params``: (regret matching+ as 0/1, the averaging code, the delay)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.jit_timing import kernel
from cfrlab.solvers.mccfr.rules import register_mccfr_rule
from cfrlab.solvers.regret import averaging_code, cumulative_weight, weight_of


@kernel(inline="always")
def update(params, t, regret, strategy_sum, regret_inc, strategy_inc, weight):
    """regret += increment, clamped at 0 with RM+; strategy_sum += weight * increment."""
    plus = params[0] != 0.0
    for s in range(regret.shape[0]):
        r = regret[s] + regret_inc[s]
        if plus and r < 0.0:
            r = 0.0
        regret[s] = r
        if weight != 0.0:
            strategy_sum[s] += weight * strategy_inc[s]


@kernel(inline="always")
def weight(params, t):
    """w_t of the averaging scheme: 1, max(t - d, 0) or max(t - d, 0)^2 (``regret.weight_of``)."""
    return weight_of(t, np.int64(params[1]), np.int64(params[2]))


@kernel(inline="always")
def cumulative(params, t):
    """W(t) of the averaging scheme (``regret.cumulative_weight``)."""
    return cumulative_weight(t, np.int64(params[1]), np.int64(params[2]))


def params(config: Any) -> tuple[float, float, float]:
    """(regret matching+, averaging code, delay) of an ``MCCFRConfig``."""
    return float(config.regret_matching_plus), float(averaging_code(config.averaging)), float(config.delay)


register_mccfr_rule("standard", update=update, weight=weight, cumulative=cumulative, params=params)
