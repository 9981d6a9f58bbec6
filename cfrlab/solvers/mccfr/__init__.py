"""Monte Carlo CFR: chance, external, outcome and robust sampling, mini-batches, MCCFR+.

* ``config``: ``MCCFRConfig``, every variant of the seeds as one dataclass;
* ``arithmetic``: the per-infoset arithmetic (importance weights, sampled
  regret and strategy-sum increments), numba, written once;
* ``rules``: the update rule, a parameter of every walk (``standard_rule``: the
  seeds'; ``linear``: linear MCCFR); a new rule is one file and one registration;
* ``streams``: counter-based random streams and draws;
* ``sampling``: the walker over the game protocol, its pluggable ``Sampler``
  and the public ``sample_iteration`` contract;
* ``tree_walk``: the same walk over a compiled tree, in numba;
* ``solver``: the ``MCCFR`` solver and its presets; ``replicas``: parallel
  mini-batches on Ray workers.
"""

from cfrlab.solvers.mccfr.config import AUTO_MAX_NODES, AVERAGE_UPDATES, PATHS, SAMPLINGS, MCCFRConfig
from cfrlab.solvers.mccfr.sampling import (
                                           Increments,
                                           InfosetIncrement,
                                           Sampler,
                                           StrategyFn,
                                           Walker,
                                           chunk_ranges,
                                           draw_pass_key,
                                           sample_chunk,
                                           sample_iteration,
                                           sample_pass,
                                           table_strategy_fn,
)
from cfrlab.solvers.mccfr.solver import (
                                           MCCFR,
                                           ChanceSamplingMCCFR,
                                           ExternalSamplingMCCFR,
                                           MiniBatchMCCFRPlus,
                                           OutcomeSamplingMCCFR,
                                           RobustSamplingMCCFR,
)

__all__ = [
    "AUTO_MAX_NODES", "AVERAGE_UPDATES", "PATHS", "SAMPLINGS", "MCCFRConfig", "InfosetIncrement", "Increments",
    "Sampler", "StrategyFn", "Walker", "chunk_ranges", "draw_pass_key", "sample_chunk", "sample_iteration",
    "sample_pass", "table_strategy_fn", "MCCFR", "ChanceSamplingMCCFR", "ExternalSamplingMCCFR",
    "MiniBatchMCCFRPlus", "OutcomeSamplingMCCFR", "RobustSamplingMCCFR",
]
