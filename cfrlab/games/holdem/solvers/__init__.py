"""Hold'em solvers: chance-sampled and vector CFR+ over the abstraction, their numba passes and split
(solvers layer)."""
