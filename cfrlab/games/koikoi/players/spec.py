"""A Koi-Koi search agent's ``SearchConfig`` from its spec (``cfrlab.agents.spec``): the budget and objective of
``cfr[:N|:Tms][:points|match][:PATH]`` and ``neural[...]``."""

from __future__ import annotations

import dataclasses
from typing import Any

from cfrlab.agents.spec import AgentSpec
from cfrlab.games.koikoi.players.search import SearchConfig


def configured(spec: AgentSpec, config: SearchConfig) -> SearchConfig:
    """``config`` with the budget (N determinizations, or T CPU milliseconds per decision) and the objective that
    ``spec`` gives."""
    given: dict[str, Any] = {"rollouts": spec.count, "seconds": spec.seconds, "objective": spec.objective}
    return dataclasses.replace(config, **{key: value for key, value in given.items() if value is not None})
