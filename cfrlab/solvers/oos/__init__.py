"""Online Outcome Sampling (Lisy, Lanctot & Bowling 2015): the solver (``solver``), its samplers and configuration
on the game protocol (``sampling``), the histories it targets (``targets``) and its walk over a compiled tree
(``tree_walk``)."""

from cfrlab.solvers.oos.sampling import ConditionedSampler, OOSConfig, TargetedSampler, sampler_for
from cfrlab.solvers.oos.solver import OnlineOutcomeSampling
from cfrlab.solvers.oos.targets import ConditionedTarget, Target, find_target

__all__ = ["ConditionedSampler", "ConditionedTarget", "OOSConfig", "OnlineOutcomeSampling", "Target",
           "TargetedSampler", "find_target", "sampler_for"]
