"""The spec of a Koi-Koi search agent that reads a file: ``KIND[:N|:Tms][:points|match][:PATH]`` (``cfr``,
``neural``), read once for both."""

from __future__ import annotations

import dataclasses
import re

from cfrlab.agents.limits import CFR_COUNT, CFR_TIME, MAX_PLAYOUTS, MAX_SECONDS_PER_MOVE
from cfrlab.games.koikoi.players.search import SearchConfig


def read_spec(spec: str, config: SearchConfig) -> tuple[SearchConfig, str | None]:
    """``config`` with the budget (N determinizations, or T CPU milliseconds per decision) and the objective that
    ``spec`` gives, and its PATH (None when it gives none). A budget out of bounds is one ``ValueError`` line."""
    kind, *parts = spec.split(":")
    if parts and re.fullmatch(CFR_COUNT, parts[0]):
        config = dataclasses.replace(config, rollouts=int(parts.pop(0)))
    elif parts and re.fullmatch(CFR_TIME, parts[0]):
        config = dataclasses.replace(config, seconds=float(parts.pop(0)[:-2]) / 1000.0)
    if parts and parts[0] in ("points", "match"):
        config = dataclasses.replace(config, objective=parts.pop(0))
    if not 1 <= config.rollouts <= MAX_PLAYOUTS or (config.seconds is not None and
                                                   not 0 < config.seconds <= MAX_SECONDS_PER_MOVE):
        raise ValueError(f"{kind}[:N|:Tms][:points|match][:PATH] needs a positive count or time per decision (a "
                         f"count at most {MAX_PLAYOUTS:,}, a time at most {MAX_SECONDS_PER_MOVE * 1000:.0f}ms), "
                         f"got {spec!r}")
    return config, ":".join(parts) if parts else None


def with_objective(name: str, objective: str | None) -> str:
    """``KIND[:N|:Tms][:points|match][:PATH]`` with a command's ``--objective`` where it leaves it out
    (``cfr:20ms:bp/`` becomes ``cfr:20ms:match:bp/``)."""
    kind, *parts = name.split(":")
    at = 1 if parts and re.fullmatch(f"{CFR_COUNT}|{CFR_TIME}", parts[0]) else 0
    if objective is None or (len(parts) > at and parts[at] in ("points", "match")):
        return name
    return ":".join([kind, *parts[:at], objective, *parts[at:]])
