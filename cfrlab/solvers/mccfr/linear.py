"""Linear MCCFR: iteration t's sampled regrets weighted by t (Brown & Sandholm 2019, Linear CFR in sampled form).

Linear CFR multiplies the cumulative regrets and the strategy sums by t / (t + 1) after iteration t (DCFR with
alpha = beta = gamma = 1). The factors from iteration t to T multiply to t / T, so its R^T is (1 / T) sum_t t r^t,
which regret matching turns into the same strategy as sum_t t r^t: adding t r^t at the infosets a pass reached is
Linear CFR without touching every infoset every iteration, the form sampling needs (with RM+ too: clamping at 0
commutes with the positive scale). Its average weighs iteration t by t: ``averaging='linear'``, which the preset
sets. ``params``: (regret matching+ as 0/1, the averaging code, the delay), as the standard rule's.
"""

from __future__ import annotations

from cfrlab.jit_timing import kernel
from cfrlab.solvers.mccfr.rules import register_mccfr_rule
from cfrlab.solvers.mccfr.solver import MCCFR
from cfrlab.solvers.mccfr.standard_rule import cumulative, params, weight


@kernel(inline="always")
def update(params, t, regret, strategy_sum, regret_inc, strategy_inc, weight):
    """regret += t * increment, clamped at 0 with RM+; strategy_sum += weight * increment."""
    plus = params[0] != 0.0
    for s in range(regret.shape[0]):
        r = regret[s] + t * regret_inc[s]
        if plus and r < 0.0:
            r = 0.0
        regret[s] = r
        if weight != 0.0:
            strategy_sum[s] += weight * strategy_inc[s]


register_mccfr_rule("linear", update=update, weight=weight, cumulative=cumulative, params=params)


class LinearMCCFR(MCCFR):
    """Linear MCCFR: external sampling, iteration t's sampled regrets and average weighted by t."""

    algorithm = "linear-mccfr"
    citation = ("linear MCCFR: external sampling, iteration t weighted by t in regrets and average",
                "Brown & Sandholm 2019")
    defaults = {"rule": "linear", "averaging": "linear"}
