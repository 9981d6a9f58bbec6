"""Reinforcement-learning environments over cfrlab's games, and its agents for other frameworks
(``pip install 'cfrlab[envs]'``: PettingZoo and Gymnasium).

* ``CfrlabEnv(game, ...)`` (``cfrlab.envs.aec``): every seat of any cfrlab game as a PettingZoo AEC environment.
* ``CfrlabGymEnv(game, opponents=..., ...)`` (``cfrlab.envs.single_agent``): one seat as a Gymnasium environment,
  the others played by cfrlab agents by name (``random``, ``greedy``, ``search:20ms``, ``cfr``, ``neural``,
  ``oos:0.1``, ``policy:FILE``).
* ``agent_policy(env, name)`` (``cfrlab.envs.policies``): a cfrlab agent as ``policy(observation, action_mask)``;
  ``strategy_of(env, policy)``: a policy of yours as a cfrlab strategy (``cfrlab eval``, ``arena``).
* ``register_in_openspiel(game)`` (``cfrlab.envs.openspiel``): any cfrlab game as an OpenSpiel Python game, so
  OpenSpiel's own algorithms run on it (needs the ``openspiel`` extra only).
* Observation encodings: ``cfrlab.envs.encoding``; the guide: docs/site/guides/rl-environments.md.

Names are imported on first use, so ``import cfrlab.envs`` imports neither library.
"""

from __future__ import annotations

import importlib
from typing import Any

from cfrlab.extras import install_hint

_LAZY = {
    "CfrlabEnv": "cfrlab.envs.aec",
    "env": "cfrlab.envs.aec",
    "CfrlabGymEnv": "cfrlab.envs.single_agent",
    "agent_policy": "cfrlab.envs.policies",
    "AgentPolicy": "cfrlab.envs.policies",
    "strategy_of": "cfrlab.envs.policies",
    "encoding_for": "cfrlab.envs.encoding",
    "register_in_openspiel": "cfrlab.envs.openspiel",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cfrlab.envs' has no attribute {name!r}")
    return getattr(_imported(module), name)


def _imported(module: str) -> Any:
    """``module`` imported; a missing PettingZoo, Gymnasium or OpenSpiel named with the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        hint = install_hint(exc.name or "")
        if hint is None:
            raise
        raise ModuleNotFoundError(f"cfrlab.envs needs {exc.name}, not installed here: {hint}", name=exc.name) from exc
