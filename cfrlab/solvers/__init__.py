"""Solvers by name, for the CLI, ``cfrlab.solve`` and the conformance suite (``cfrlab.testing.check_solver``).

``SOLVERS`` lists lazy ``"module:Class"`` references, cheapest imports first. An algorithm's name is its
class's ``algorithm`` attribute, written once, in the class; ``solver_class(name)`` imports the modules in
order until one holds it, so asking for CFR never imports torch. A new algorithm is registered by adding
its reference here, and is then tested by the conformance suite like every other.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from cfrlab.solvers.catalog import read_catalog

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
"""Listing them (``catalog``, ``describe_algorithm``) reads their source and imports none of them."""


def catalog() -> list[dict[str, str | None]]:
    """Every registered algorithm's name, class, description and missing package (``solvers.catalog``)."""
    return read_catalog(SOLVERS)


def describe_algorithm(name: str) -> str:
    """``"CFR+: regret matching+, ... (Tammelin, Burch, Johanson & Bowling 2015)"``: the class's ``citation``, else
    the first paragraph of its docstring (read from the source: nothing is imported)."""
    for row in catalog():
        if row["name"] == name:
            return str(row["description"])
    raise ValueError(_unknown(name))


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
    """The solver class whose ``algorithm`` is ``name``, importing its module only (a clear error listing the
    known names; a ``ModuleNotFoundError`` when it needs an optional package that is missing, which the CLI turns
    into its install hint)."""
    for ref, row in zip(SOLVERS, catalog()):
        if row["name"] == name:
            return _load(ref)
    raise ValueError(_unknown(name))


def _unknown(name: str) -> str:
    return f"unknown algorithm {name!r}; known: {', '.join(sorted(str(row['name']) for row in catalog()))}"
