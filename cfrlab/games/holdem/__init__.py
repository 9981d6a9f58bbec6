"""Heads-up limit Texas hold'em (ACPC rules) and its E[HS^2] card abstraction (Zinkevich et al. 2008).

``cards`` (deck conventions), ``evaluator`` (numba hand values), ``game`` (the
real game, ``holdem``), ``suits`` (suit isomorphism), ``strength`` (HS and
E[HS^2]), ``abstraction`` (nested percentile buckets and the joint table).
"""

from typing import Any

__all__ = ["LimitHoldem"]


def __getattr__(name: str) -> Any:
    if name == "LimitHoldem":  # imported on first use (PEP 562): the family's declaration stays light
        from cfrlab.games.holdem.rules.game import LimitHoldem

        return LimitHoldem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
