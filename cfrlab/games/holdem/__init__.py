"""Heads-up limit Texas hold'em (ACPC rules) and its E[HS^2] card abstraction (Zinkevich et al. 2008).

Laid out by role (README.md in this folder): ``rules`` (cards, the hand evaluator, the game, suit symmetry, the
betting tree), ``abstraction`` (E[HS^2] strength, buckets, the abstract game and its tables), ``solvers``,
``players`` (agents), ``eval`` (LBR, play in the real game) and ``ui``; ``family`` declares it.
"""

from typing import Any

__all__ = ["LimitHoldem"]


def __getattr__(name: str) -> Any:
    if name == "LimitHoldem":  # imported on first use (PEP 562): the family's declaration stays light
        from cfrlab.games.holdem.rules.game import LimitHoldem

        return LimitHoldem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
