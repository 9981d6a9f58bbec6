"""Tabular Monte Carlo CFR on full Koi-Koi rounds over the information abstraction (the blueprint's solver).

The generic MCCFR walker (``cfrlab.solvers.mccfr.sampling``) runs unchanged over ``AbstractKoiKoiGame``, whose
``information_state_key`` is the abstract key (``cfrlab.games.koikoi.solvers.abstraction``): outcome sampling by default
(seed 001 Alg. 4; one sampled round per traversal, since the traverser's ~8-16 decisions per round make
external sampling exponential). The full deal is never enumerated: ``DealSampler`` draws it with the state's
``sample_chance`` from a generator seeded by the traversal's own stream, so runs stay a function of the seed
and resume bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.game import State
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.solvers.abstraction import AbstractKoiKoiGame
from cfrlab.solvers.mccfr.config import MCCFRConfig
from cfrlab.solvers.mccfr.sampling import Sampler, Walker
from cfrlab.solvers.mccfr.solver import MCCFR
from cfrlab.solvers.mccfr.stores import DictStore


class DealSampler(Sampler):
    """MCCFR's sampler, with chance nodes that cannot be listed (a full deal) drawn by ``sample_chance``."""

    def chance(self, walker: Walker, state: State, d: int) -> tuple[int, float]:
        dealt: Any = state  # an AbstractKoiKoiState or a KoiKoiState: both draw deals with sample_chance
        inner = getattr(state, "inner", dealt)
        if inner.es.phase == E.DEAL and not inner.game.engine.deals_enumerable:
            seed = int(walker.uniform() * 2.0**53)
            return int(dealt.sample_chance(np.random.default_rng(seed))), 1.0
        return super().chance(walker, state, d)


class BlueprintMCCFR(MCCFR):
    """MCCFR over the abstract Koi-Koi game, on the generic path, with deals sampled (``DealSampler``)."""

    algorithm = "koikoi-blueprint"
    defaults = {"sampling": "outcome", "path": "generic"}
    game: AbstractKoiKoiGame
    store: DictStore  # the generic path's tables, by infoset key

    def __init__(self, game: AbstractKoiKoiGame, config: MCCFRConfig | None = None, **overrides: Any) -> None:
        if not isinstance(game, AbstractKoiKoiGame):
            raise ValueError(f"the blueprint trains on AbstractKoiKoiGame, not {game.spec()}")
        cfg = MCCFRConfig.from_dict({**self.defaults, **overrides}) if config is None else config.replace(**overrides)
        if cfg.path != "generic" or cfg.workers != 1 or cfg.address is not None:
            raise ValueError("the Koi-Koi blueprint trains on the generic path in one process (path='generic', "
                             "workers=1)")
        super().__init__(game, cfg)

    def new_sampler(self) -> Sampler:
        return DealSampler(self.config)
