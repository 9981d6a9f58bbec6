"""Koi-Koi solvers (solvers layer): the blueprint's sampled CFR over the abstraction (``blueprint``); Online Outcome
Sampling over a round in numba (``oos_walk``, its tables ``oos_store``, its back end ``oos_search``), registered
here with OOS's back ends."""

from cfrlab.games.koikoi.solvers.oos_search import oos_backend
from cfrlab.solvers.oos.stores import register_oos_backend

register_oos_backend(oos_backend)
