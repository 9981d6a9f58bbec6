"""Heads-up limit Texas hold'em (ACPC rules) and its E[HS^2] card abstraction (Zinkevich et al. 2008).

``cards`` (deck conventions), ``evaluator`` (numba hand values), ``game`` (the
real game, ``holdem``), ``suits`` (suit isomorphism), ``strength`` (HS and
E[HS^2]), ``abstraction`` (nested percentile buckets and the joint table).
"""

from cfrlab.games.holdem.game import LimitHoldem

__all__ = ["LimitHoldem"]
