"""Solvers by name, for the CLI and ``cfrlab.solve``: lazy ``"module:Class"`` strings."""

ALGORITHMS: dict[str, str] = {
    "cfr": "cfrlab.solvers.cfr:CFR",
    "cfr-alt": "cfrlab.solvers.cfr:AlternatingCFR",
    "cfr+": "cfrlab.solvers.cfr:CFRPlus",
    "linear-cfr": "cfrlab.solvers.cfr:LinearCFR",
    "dcfr": "cfrlab.solvers.cfr:DCFR",
    "pcfr+": "cfrlab.solvers.cfr:PCFRPlus",
    "dcfr+": "cfrlab.solvers.cfr:DCFRPlus",
    "pdcfr+": "cfrlab.solvers.cfr:PDCFRPlus",
    "external": "cfrlab.solvers.mccfr:ExternalSamplingMCCFR",
    "outcome": "cfrlab.solvers.mccfr:OutcomeSamplingMCCFR",
    "robust": "cfrlab.solvers.mccfr:RobustSamplingMCCFR",
    "chance": "cfrlab.solvers.mccfr:ChanceSamplingMCCFR",
    "mccfr+": "cfrlab.solvers.mccfr:MiniBatchMCCFRPlus",
    "pvt-cfr": "cfrlab.solvers.holdem:ChanceSampledHoldemCFR",
    "vector-cfr+": "cfrlab.solvers.holdem:VectorHoldemCFRPlus",
    "xfp": "cfrlab.solvers.fictitious.xfp:XFP",
    "fsp-table": "cfrlab.solvers.fictitious.batch:TableFSP",
    "fsp-softmax": "cfrlab.solvers.fictitious.softmax:SoftmaxFSP",
    "nfsp": "cfrlab.solvers.neural.nfsp:NFSP",
    "nfsp-sac": "cfrlab.solvers.neural.nfsp_sac:NFSPSAC",
    "nfsp-ppo": "cfrlab.solvers.neural.nfsp_ppo:NFSPPPO",
    "deep-cfr": "cfrlab.solvers.neural.deep_cfr:DeepCFR",
    "dncfr": "cfrlab.solvers.neural.double_neural_cfr:DoubleNeuralCFR",
}


def solver_class(name: str) -> type:
    """The solver class registered as ``name`` (clear error listing the known names)."""
    import importlib

    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(sorted(ALGORITHMS))}")
    module, attr = ALGORITHMS[name].split(":")
    return getattr(importlib.import_module(module), attr)
