"""Koi-Koi (こいこい), laid out by role: ``rules`` (the game), ``neural`` (the numba evaluator), ``solvers``,
``players`` (agents), ``learn`` (training loops) and ``ui``; ``family`` declares it (README.md in this folder).

Importing this package is cheap; ``KoiKoiGame`` loads from ``cfrlab.games.koikoi.rules.game``.
"""

from typing import Any


def state_from_observation(obs: Any, rules: Any = "nintendo", rng: Any = None) -> Any:
    """A ``KoiKoiState`` rebuilt from what one player knows (``rules.observation``, schema there)."""
    from cfrlab.games.koikoi.rules.observation import state_from_observation as build

    return build(obs, rules, rng)
