"""``MCCFRConfig``: every variant of Monte Carlo CFR in the seeds, as one frozen dataclass.

``SamplingConfig`` holds the options of the sampled mini-batch alone; the solvers
built on ``sample_iteration`` (Double Neural CFR) extend it.

Its fields as the numbers the numba walkers read: ``traversal`` (how a pass
samples) and ``schedule`` (the iteration loop and the table update).
"""

from __future__ import annotations

import dataclasses

from cfrlab.solvers.base import SolverConfig
from cfrlab.solvers.mccfr.rules import definition, mccfr_rule
from cfrlab.solvers.mccfr.tree_walk import Schedule, Traversal
from cfrlab.solvers.regret import AVERAGING_SCHEMES

SAMPLINGS = ("external", "outcome", "robust", "chance")
AVERAGE_UPDATES = ("stochastic", "simple", "lazy", "traverser")
"""Strategy-sum estimators; their index is their code in ``arithmetic`` (STOCHASTIC, SIMPLE, LAZY, TRAVERSER)."""
PATHS = ("auto", "tree", "generic")
AUTO_MAX_NODES = 2_000_000
"""``path="auto"`` compiles games up to this many nodes and walks larger ones generically."""


@dataclasses.dataclass(frozen=True)
class SamplingConfig(SolverConfig):
    """What MCCFR's sampled mini-batch needs (``sample_iteration``): the options every solver built on it shares."""

    sampling: str = "external"
    """'external', 'outcome', 'robust' (uses k) or 'chance' (sample chance only, explore every action)."""
    k: int = 1
    """Robust sampling: the traverser draws min(k, |A(I)|) distinct actions; 0 means all (k = infinity)."""
    epsilon: float = 0.6
    """Exploration of the traverser's sampling policy: eps * uniform + (1 - eps) * sigma (when k < |A(I)|)."""
    batch: int = 1
    """Mini-batch size b: sampled traversals per traverser and iteration, their regrets summed (seed 000 sec. 6.8)."""
    regret_matching_plus: bool = False
    """Clamp cumulative regrets at 0 after each update (MCCFR+, seed 000 Alg. 6)."""
    averaging: str = "uniform"
    """Weight w_t of iteration t in the average: 'uniform' (1), 'linear' (max(t - d, 0)), 'quadratic'."""
    delay: int = 0
    """Averaging delay d: iterations t <= d get no weight (seed 000 Alg. 5 l. 44)."""
    average_update: str = "stochastic"
    """Strategy-sum estimator: 'stochastic' (unbiased), 'simple' (seed 001 Alg. 3), 'lazy' (seed 001 Alg. 4),
    'traverser' (seed 000 Alg. 5)."""
    workers: int = 1
    """Parallel workers for the mini-batch (Ray); 1 runs in process. Results do not depend on it."""
    address: str | None = None
    """Ray cluster address (None: start a local Ray when workers > 1)."""
    chunk: int = 64
    """Traversals summed per chunk, the unit of parallel work; fixes the summation order."""

    def __post_init__(self) -> None:
        if self.sampling not in SAMPLINGS:
            raise ValueError(f"sampling must be one of {SAMPLINGS}, got {self.sampling!r}")
        if self.average_update not in AVERAGE_UPDATES:
            raise ValueError(f"average_update must be one of {AVERAGE_UPDATES}, got {self.average_update!r}")
        if self.averaging not in AVERAGING_SCHEMES:
            raise ValueError(f"averaging must be one of {AVERAGING_SCHEMES}, got {self.averaging!r}")
        if self.k < 0:
            raise ValueError(f"k must be >= 0 (0 means all actions), got {self.k}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if self.batch < 1 or self.chunk < 1 or self.workers < 1 or self.delay < 0:
            raise ValueError("batch, chunk and workers must be >= 1 and delay >= 0")

    @property
    def effective_k(self) -> int:
        """Actions the traverser draws per infoset: 1 (outcome), k (robust), 0 = all (external, chance)."""
        if self.sampling == "outcome":
            return 1
        if self.sampling == "robust":
            return self.k
        return 0

    @property
    def samples_opponents(self) -> bool:
        """Whether the other players' actions are sampled (all schemes but chance sampling)."""
        return self.sampling != "chance"

    @property
    def traversal(self) -> Traversal:
        """How a pass samples, as numbers (the walkers' view of this config)."""
        return Traversal(int(self.effective_k), float(self.epsilon), bool(self.samples_opponents),
                         AVERAGE_UPDATES.index(self.average_update))



@dataclasses.dataclass(frozen=True)
class MCCFRConfig(SamplingConfig):
    """Every variant of Monte Carlo CFR in the seeds."""

    alternating: bool = True
    """Regret-match after each traverser's batch (True) or after all traversers sampled sigma^t (False)."""
    path: str = "auto"
    """'tree' (numba over the compiled tree), 'generic' (game protocol, never compiles), 'auto' (tree if small)."""
    predictive: bool = False
    """Predictive RM(+) (Farina, Kroer & Sandholm 2021): play RM(R + m), m the owner's last sampled regret."""
    rule: str = "standard"
    """The update rule: 'standard' (the seeds'), 'linear' (iteration t's regrets weighted by t) or one registered
    with ``register_mccfr_rule`` (``cfrlab.solvers.mccfr.rules``)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.path not in PATHS:
            raise ValueError(f"path must be one of {PATHS}, got {self.path!r}")
        if self.predictive and (self.workers > 1 or self.address is not None):
            raise ValueError("predictive MCCFR runs in one process: use workers=1 and no address")
        definition(self.rule).params(self)  # an unknown rule, or options the rule refuses: ValueError

    @property
    def schedule(self) -> Schedule:
        """The iteration loop and the table update, as numbers."""
        return Schedule(int(self.batch), int(self.chunk), bool(self.alternating), mccfr_rule(self))
