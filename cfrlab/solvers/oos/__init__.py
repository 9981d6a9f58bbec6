"""Online Outcome Sampling (Lisy, Lanctot & Bowling 2015): the solver (``solver``), its samplers and configuration
on the game protocol (``sampling``), the histories it targets (``targets``), its walk over a compiled tree
(``tree_walk``) and its back ends (``stores``: one chosen per solver; a game family registers its own)."""

from cfrlab.solvers.oos.sampling import ConditionedSampler, OOSConfig, TargetedSampler, sampler_for
from cfrlab.solvers.oos.solver import OnlineOutcomeSampling
from cfrlab.solvers.oos.stores import register_oos_backend
from cfrlab.solvers.oos.targets import ConditionedTarget, Target, find_target

__all__ = ["ConditionedSampler", "ConditionedTarget", "OOSConfig", "OnlineOutcomeSampling", "Target",
           "TargetedSampler", "find_target", "register_oos_backend", "sampler_for"]
