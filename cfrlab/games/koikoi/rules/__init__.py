"""Koi-Koi's game layer: cards, rule sets, scoring, the engine and its numba kernels, the turn flow, deals, matches,
what a player knows (``information``, ``observation``) and the cfrlab ``Game`` adapter (``game``)."""
