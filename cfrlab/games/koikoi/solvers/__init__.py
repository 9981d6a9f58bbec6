"""Koi-Koi solvers (solvers layer): the blueprint's sampled CFR over the abstraction (``blueprint``); Online Outcome
Sampling over a round in numba (``oos_walk``, its tables ``oos_store``, its solver-side state ``oos_search``)."""
