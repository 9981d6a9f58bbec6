"""Koi-Koi solvers: the blueprint's sampled CFR over the abstraction (solvers layer)."""
