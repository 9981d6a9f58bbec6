"""Solvers by name, for the CLI, ``cfrlab.solve`` and the conformance suite (``cfrlab.testing.check_solver``).

``SOLVERS`` lists lazy ``"module:Class"`` references, cheapest imports first. An algorithm's name is its
class's ``algorithm`` attribute, written once, in the class; ``solver_class(name)`` imports the modules in
order until one holds it, so asking for CFR never imports torch. A new algorithm is registered by adding
its reference here, and is then tested by the conformance suite like every other.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cfrlab.solvers.base import Solver

SOLVERS: tuple[str, ...] = (
    "cfrlab.solvers.cfr:CFR",
    "cfrlab.solvers.cfr:AlternatingCFR",
    "cfrlab.solvers.cfr:CFRPlus",
    "cfrlab.solvers.cfr:LinearCFR",
    "cfrlab.solvers.cfr:DCFR",
    "cfrlab.solvers.cfr:PCFRPlus",
    "cfrlab.solvers.cfr:DCFRPlus",
    "cfrlab.solvers.cfr:PDCFRPlus",
    "cfrlab.solvers.mccfr:ExternalSamplingMCCFR",
    "cfrlab.solvers.mccfr:OutcomeSamplingMCCFR",
    "cfrlab.solvers.mccfr:RobustSamplingMCCFR",
    "cfrlab.solvers.mccfr:ChanceSamplingMCCFR",
    "cfrlab.solvers.mccfr:MiniBatchMCCFRPlus",
    "cfrlab.solvers.oos:OnlineOutcomeSampling",
    "cfrlab.solvers.holdem:ChanceSampledHoldemCFR",
    "cfrlab.solvers.holdem:VectorHoldemCFRPlus",
    "cfrlab.solvers.fictitious.xfp:XFP",
    "cfrlab.solvers.fictitious.batch:TableFSP",
    "cfrlab.solvers.fictitious.softmax:SoftmaxFSP",
    "cfrlab.solvers.neural.nfsp:NFSP",
    "cfrlab.solvers.neural.nfsp_sac:NFSPSAC",
    "cfrlab.solvers.neural.nfsp_ppo:NFSPPPO",
    "cfrlab.solvers.neural.deep_cfr:DeepCFR",
    "cfrlab.solvers.neural.double_neural_cfr:DoubleNeuralCFR",
)

DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "cfr": ("vanilla CFR, simultaneous updates", "Zinkevich, Johanson, Bowling & Piccione 2008"),
    "cfr-alt": ("vanilla CFR, alternating updates", "Zinkevich et al. 2008; Burch, Moravcik & Schmid 2019"),
    "cfr+": ("CFR+: regret matching+, alternating updates, linear averaging",
             "Tammelin, Burch, Johanson & Bowling 2015"),
    "linear-cfr": ("linear CFR: iteration t weighted by t", "Brown & Sandholm 2019"),
    "dcfr": ("discounted CFR, (alpha, beta, gamma) = (1.5, 0, 2)", "Brown & Sandholm 2019"),
    "pcfr+": ("predictive CFR+", "Farina, Kroer & Sandholm 2021"),
    "dcfr+": ("RM+ with DCFR's regret discount", "Xu et al. 2024"),
    "pdcfr+": ("predictive discounted CFR+", "Xu et al. 2024"),
    "external": ("external-sampling Monte Carlo CFR", "Lanctot, Waugh, Zinkevich & Bowling 2009"),
    "outcome": ("outcome-sampling Monte Carlo CFR", "Lanctot, Waugh, Zinkevich & Bowling 2009"),
    "robust": ("robust-sampling Monte Carlo CFR (k actions per traverser node)", "Li et al. 2020"),
    "chance": ("chance-sampling CFR", "Zinkevich et al. 2008; Lanctot et al. 2009"),
    "mccfr+": ("mini-batch MCCFR+ with robust sampling", "Li et al. 2020"),
    "oos": ("Online Outcome Sampling: outcome sampling targeted at the current infoset (offline: no target)",
            "Lisy, Lanctot & Bowling 2015"),
    "xfp": ("full-width extensive-form fictitious play", "Heinrich, Lanctot & Silver 2015"),
    "fsp-table": ("batch fictitious self-play, table lookup", "Heinrich, Lanctot & Silver 2015"),
    "fsp-softmax": ("fictitious self-play with softmax regression", "Kawamura, Mizukami & Tsuruoka 2017"),
    "nfsp": ("Neural Fictitious Self-Play (DQN best responses)", "Heinrich & Silver 2016"),
    "nfsp-ppo": ("NFSP with PPO best responses", "Heinrich & Silver 2016; Schulman et al. 2017"),
    "nfsp-sac": ("NFSP with discrete soft actor-critic best responses", "Heinrich & Silver 2016; Christodoulou 2019"),
    "deep-cfr": ("Deep CFR", "Brown, Lerer, Gross & Sandholm 2019"),
    "dncfr": ("Double Neural CFR (regret-sum and average-strategy networks)", "Li, Hu, Ge, Jiang, Qi & Song 2020"),
    "pvt-cfr": ("chance-sampled CFR on an E[HS^2] card abstraction, one bucket sequence per iteration",
                "Zinkevich, Johanson, Bowling & Piccione 2008"),
    "vector-cfr+": ("CFR+ vectorised over the bucket sequences of a card abstraction",
                    "Tammelin, Burch, Johanson & Bowling 2015; Johanson et al. 2012"),
}
"""``--algo`` name -> (what it is, the paper it comes from: authors, year), for ``cfrlab algorithms`` and help."""


def describe_algorithm(name: str) -> str:
    """``"CFR+: regret matching+, ... (Tammelin, Burch, Johanson & Bowling 2015)"``; the class docstring otherwise."""
    if name in DESCRIPTIONS:
        what, source = DESCRIPTIONS[name]
        return f"{what} ({source})"
    doc = (solver_class(name).__doc__ or "").strip()
    return doc.split("\n\n")[0].replace("\n", " ")


def _load(ref: str) -> type[Solver]:
    module, attr = ref.split(":")
    cls = getattr(importlib.import_module(module), attr)
    if "algorithm" not in vars(cls):
        raise TypeError(f"{ref} must set its own `algorithm` name (it would inherit {cls.algorithm!r})")
    return cls


def _try_load(ref: str) -> type[Solver] | str:
    """The class, or why it cannot be imported here: a missing optional dependency (torch), never our own bug."""
    try:
        return _load(ref)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] == "cfrlab":
            raise
        return str(exc)


def algorithms() -> dict[str, type[Solver]]:
    """Every registered solver class by its ``algorithm`` name (imports them all).

    A module that needs a missing optional dependency (torch) is left out; ``unavailable()`` names it.
    """
    found: dict[str, type[Solver]] = {}
    for ref in SOLVERS:
        cls = _try_load(ref)
        if isinstance(cls, str):
            continue
        if cls.algorithm in found:
            raise TypeError(f"two solvers are named {cls.algorithm!r}: {found[cls.algorithm].__name__}, {ref}")
        found[cls.algorithm] = cls
    return found


def unavailable() -> dict[str, str]:
    """``{reference: reason}`` for the registered solvers whose module cannot be imported here."""
    return {ref: why for ref in SOLVERS if isinstance(why := _try_load(ref), str)}


def solver_class(name: str) -> type[Solver]:
    """The solver class whose ``algorithm`` is ``name`` (a clear error listing the known names)."""
    for ref in SOLVERS:
        cls = _try_load(ref)
        if not isinstance(cls, str) and cls.algorithm == name:
            return cls
    hint = "; some need an optional dependency (pip install 'cfrlab[torch]')" if unavailable() else ""
    raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(sorted(algorithms()))}{hint}")
