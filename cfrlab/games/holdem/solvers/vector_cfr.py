"""Vectorised CFR+ on abstract hold'em (``--algo vector-cfr+``) and the full-tree family's discounted and
predictive variants (``vector-pcfr+``, ``vector-dcfr+``, ``vector-pdcfr+``).

Each iteration is two full-width passes (``cfrlab.games.holdem.solvers.vector``), one per player, over every
bucket sequence at once; the update rules are ``cfrlab.solvers.cfr``'s (same options, same arithmetic, equal
iterate for iterate on a compiled small game), the passes run a node's bucket sequences on numba's threads,
and the tables may be float32.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numba
import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game
from cfrlab.games.holdem.solvers.cfr import SplitConfig, _HoldemSolver
from cfrlab.games.holdem.solvers.kernels import BEST_RESPONSE, UPDATE_PLUS, VALUES
from cfrlab.games.holdem.solvers.vector import VectorSplitRunner
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.solvers.cfr import DCFRPlus, PCFRPlus, PDCFRPlus
from cfrlab.solvers.regret import AVERAGING_SCHEMES, PRECISIONS, averaging_weight, dcfr_factors


@dataclasses.dataclass(frozen=True)
class VectorConfig(SplitConfig):
    """Vectorised CFR+ and its discounted and predictive variants on abstract hold'em (the update options are
    ``cfrlab.solvers.cfr.CFRConfig``'s, same names and meaning), split over workers below the first
    ``split_rounds`` rounds."""

    split_rounds: int = 1
    """Betting rounds the driver runs before the subtrees go to the workers: 1 (the paper's split, 7 subtrees
    on the full deck) or 2 (63: for more than 7 workers; the one-process products are then grouped the same
    way, about 8 % slower). Results do not depend on --workers; runs with other values differ by rounding."""
    averaging: str = "linear"
    """Weight of iteration t in the average: 'uniform' (1), 'linear' (t, CFR+'s), 'quadratic' (t^2)."""
    dcfr_alpha: float | None = None
    """DCFR+'s regret discount: R times t^a/(t^a+1) after iteration t (None: none, CFR+)."""
    dcfr_gamma: float = 2.0
    """With ``dcfr_alpha``: the average discounted by (t/(t+1))^gamma after iteration t."""
    predictive: bool = False
    """Predictive regret matching+: play RM(R + r), r the last instantaneous regret (PCFR+, PDCFR+)."""
    precision: str = "float64"
    """'float64' or 'float32' regret and average tables ('float32' halves their memory)."""
    threads: int = 1
    """numba threads sharing each pass level by level (0: all numba sees); any count gives the same tables.
    One by default: on busy cores, threads waiting for each other at every level are slower than one."""

    RUNTIME_FIELDS: ClassVar[frozenset[str]] = SplitConfig.RUNTIME_FIELDS | {"threads"}

    def __post_init__(self) -> None:
        self.require(positive=("workers", "split_rounds"), nonnegative=("threads",))
        if self.averaging not in AVERAGING_SCHEMES:
            raise ValueError(f"averaging must be one of {AVERAGING_SCHEMES}, got {self.averaging!r}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {self.precision!r}")

    @property
    def plain(self) -> bool:
        """CFR+'s updates in float64: what the split over workers runs."""
        return (self.averaging == "linear" and self.dcfr_alpha is None and not self.predictive
                and self.precision == "float64")


def update_options(cls: type[Solver]) -> dict[str, Any]:
    """The update options of a full-tree solver's preset (``cfrlab.solvers.cfr``), as ``VectorConfig``'s."""
    config = cls.Config.from_dict(dict(cls.defaults))
    return {name: getattr(config, name) for name in ("averaging", "dcfr_alpha", "dcfr_gamma", "predictive")}


class VectorHoldemCFRPlus(_HoldemSolver):
    """CFR+ with passes vectorised over bucket sequences: RM+, alternating updates, linear averaging; with
    ``workers > 1`` (or an address) the subtrees after the first round (``split_rounds``) run on Ray replicas
    (``cfrlab.games.holdem.solvers.vector``), giving the same tables up to the rounding of BLAS products. The
    discounted and predictive options are the full-tree family's, iterate for iterate (in one process)."""

    algorithm = "vector-cfr+"
    citation = ('CFR+ vectorised over the bucket sequences of a card abstraction',
                'Tammelin, Burch, Johanson & Bowling 2015; Johanson et al. 2012')
    Config = VectorConfig
    config: VectorConfig

    def __init__(self, game: Game, config: SolverConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        cfg = self.config
        if cfg.workers > 1 or cfg.address is not None:
            if not cfg.plain:
                raise ValueError("--workers and --address run CFR+'s updates in float64 only; run the "
                                 "discounted, predictive or float32 updates in one process")
            self.split = VectorSplitRunner(self.layout, cfg.workers, cfg.address)
        dtype = np.dtype(cfg.precision)
        self.regret = np.zeros(self.layout.table_size, dtype=dtype)
        self.average = np.zeros(self.layout.table_size, dtype=dtype)
        self.prediction = np.zeros(self.layout.table_size if cfg.predictive else 0, dtype=dtype)
        """The last instantaneous regrets (predictive only): the next strategy matches regret + prediction."""
        self._reach = np.zeros((2, self.layout.vector_size))
        self._value = np.zeros(self.layout.vector_size)
        self._probs: NDArray[np.float64] | None = None
        """The strategy the last update pass played, its reaches left in ``_reach`` (None: none kept)."""
        self._updated = -1
        """The player whose regrets the last update pass changed (-1: none kept)."""

    def _matched(self) -> NDArray[np.float64]:
        """What the current strategy regret-matches: R, or R + r with the prediction (``kernels``' PRM+)."""
        return self.regret + self.prediction if self.config.predictive else self.regret

    def current_policy(self) -> TabularPolicy:
        self._sync_tables()
        return self.layout.policy(self._matched())

    def _iteration_context(self) -> contextlib.AbstractContextManager[None]:
        return numba_threads(self.config.threads)

    def _pass(self, p: int, mode: int, weight: float, discount: float = 1.0) -> float:
        """One full-width pass for p (in process, or split over the replicas: always to update, to evaluate
        while they run); p's root value in chips."""
        if isinstance(self.split, VectorSplitRunner) and (mode == UPDATE_PLUS or self.split.started):
            self._push_tables()
            self._tables_behind = self._tables_behind or mode == UPDATE_PLUS
            return self.split.pass_values(p, mode, weight, self.regret, self.average)
        if mode != UPDATE_PLUS:
            self._probs = None  # the pass below overwrites the kept reaches
            probs, who = self.layout.vectors.strategy(self.average), -1
        else:
            probs, who = self._update_strategy()
        prediction = self.prediction if self.config.predictive else None
        value = self.layout.pass_values(p, mode, weight, probs, self.regret, self.average, self._reach, self._value,
                                        discount, prediction, who)
        self._updated = p if mode == UPDATE_PLUS else -1
        return value

    def _update_strategy(self) -> tuple[NDArray[np.float64], int]:
        """The strategy an update pass plays, and whose reach it must recompute (-1: both). Only the player the
        last update pass changed has a new strategy: its decisions and its reach are computed again, the other
        player's kept (the same numbers a full recomputation gives, at about half the cost of both)."""
        if self._probs is None or self._updated < 0:
            self._probs = self.layout.vectors.strategy(self._matched())
            return self._probs, -1
        self.layout.vectors.strategy(self._matched(), out=self._probs, who=self._updated)
        return self._probs, self._updated

    def _iterate_once(self) -> None:
        """One iteration as ``cfrlab.solvers.cfr.CFR``'s alternating one: p's regrets discounted right after
        its pass (the full-tree solver discounts both after the iteration; nothing reads them in between but
        the strategy, which scaling leaves alone and the prediction reads discounted too)."""
        cfg, t = self.config, self.iterations + 1
        weight = averaging_weight(t, cfg.averaging)
        discount, _, keep = (1.0, 1.0, 1.0) if cfg.dcfr_alpha is None else dcfr_factors(
            t, cfg.dcfr_alpha, 0.0, cfg.dcfr_gamma)
        for p in (0, 1):
            self._pass(p, UPDATE_PLUS, weight, discount)
        if cfg.dcfr_alpha is not None:
            self.average *= self.average.dtype.type(keep)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        extra = {"prediction": self.prediction} if self.config.predictive else {}
        return {**super()._state_arrays(), **extra}

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        super()._load_state_arrays(arrays)
        self._probs, self._updated = None, -1
        if self.config.predictive:
            self.prediction = np.array(arrays["prediction"], dtype=self.regret.dtype)
            if self.prediction.shape != self.regret.shape:
                raise ValueError(f"prediction has shape {self.prediction.shape}, expected {self.regret.shape}")

    def exact_exploitability(self) -> float:
        """As ``_HoldemSolver``'s, on the replicas when they hold the tables (nothing fetched). The kept strategy
        is let go first (the next pass computes it again), so that the evaluation's tables take its memory."""
        self._probs, self._updated = None, -1
        with self._iteration_context():
            if self.split is None:
                return super().exact_exploitability()
            return (self._pass(0, BEST_RESPONSE, 0.0) + self._pass(1, BEST_RESPONSE, 0.0)) / 2

    def expected_value(self) -> float:
        with self._iteration_context():
            if self.split is None:
                return super().expected_value()
            return self._pass(0, VALUES, 0.0)


@contextlib.contextmanager
def numba_threads(count: int) -> Iterator[None]:
    """numba's parallel loops on ``count`` threads inside (0, or more than numba has: all it has)."""
    # numba.config sets its names at import time, from the environment: its stubs do not list them.
    before, most = numba.get_num_threads(), numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    numba.set_num_threads(min(count, most) if count > 0 else most)
    try:
        yield
    finally:
        numba.set_num_threads(before)


class VectorHoldemPCFRPlus(VectorHoldemCFRPlus):
    """PCFR+ (``cfrlab.solvers.cfr.PCFRPlus``'s updates) with vectorised passes."""

    algorithm = "vector-pcfr+"
    citation = ('predictive CFR+ vectorised over the bucket sequences of a card abstraction',
                'Farina, Kroer & Sandholm 2021; Johanson et al. 2012')
    defaults = update_options(PCFRPlus)


class VectorHoldemDCFRPlus(VectorHoldemCFRPlus):
    """DCFR+ (``cfrlab.solvers.cfr.DCFRPlus``'s updates) with vectorised passes."""

    algorithm = "vector-dcfr+"
    citation = ("DCFR+ vectorised over the bucket sequences of a card abstraction",
                'Xu et al. 2024; Johanson et al. 2012')
    defaults = update_options(DCFRPlus)


class VectorHoldemPDCFRPlus(VectorHoldemCFRPlus):
    """PDCFR+ (``cfrlab.solvers.cfr.PDCFRPlus``'s updates) with vectorised passes."""

    algorithm = "vector-pdcfr+"
    citation = ('predictive discounted CFR+ vectorised over the bucket sequences of a card abstraction',
                'Xu et al. 2024; Johanson et al. 2012')
    defaults = update_options(PDCFRPlus)
