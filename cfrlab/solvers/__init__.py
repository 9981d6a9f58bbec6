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
    "cfrlab.games.holdem.solvers.cfr:ChanceSampledHoldemCFR",
    "cfrlab.games.holdem.solvers.cfr:VectorHoldemCFRPlus",
    "cfrlab.solvers.fictitious.xfp:XFP",
    "cfrlab.solvers.fictitious.batch:TableFSP",
    "cfrlab.solvers.fictitious.softmax:SoftmaxFSP",
    "cfrlab.solvers.neural.nfsp:NFSP",
    "cfrlab.solvers.neural.nfsp_sac:NFSPSAC",
    "cfrlab.solvers.neural.nfsp_ppo:NFSPPPO",
    "cfrlab.solvers.neural.deep_cfr:DeepCFR",
    "cfrlab.solvers.neural.double_neural_cfr:DoubleNeuralCFR",
)

def describe_algorithm(name: str) -> str:
    """``"CFR+: regret matching+, ... (Tammelin, Burch, Johanson & Bowling 2015)"``: the class's ``citation``, else
    the first paragraph of its docstring."""
    cls = solver_class(name)
    if cls.citation:
        what, source = cls.citation
        return f"{what} ({source})"
    return (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")


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
