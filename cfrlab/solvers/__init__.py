"""Solvers by name, for the CLI, ``cfrlab.solve`` and the conformance suite (``cfrlab.testing.check_solver``).

``SOLVERS`` lists lazy ``"module:Class"`` references, cheapest imports first; each game family adds its own
(``GameFamily.solvers.algorithms``). An algorithm's name is its class's ``algorithm`` attribute, written once, in the
class; ``solver_class(name)`` imports the module that holds it only, so asking for CFR never imports torch. A new
algorithm of cfrlab is registered by adding its reference here (or to its family's), and is then tested by the
conformance suite like every other.

A solver of your own joins the same table with ``register_solver("mine", MySolver)`` (or a lazy
``"my_module:MySolver"``), or from an installed package through the ``cfrlab.solvers`` entry-point group
(``mine = "my_package:MySolver"``); ``cfrlab solve kuhn --algo mine`` then runs it (``--game-module
my_module`` imports a module that registers it) and ``cfrlab.testing.check_solver`` checks it.
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
    "cfrlab.solvers.mccfr.linear:LinearMCCFR",
    "cfrlab.solvers.oos:OnlineOutcomeSampling",
    "cfrlab.solvers.fictitious.xfp:XFP",
    "cfrlab.solvers.fictitious.batch:TableFSP",
    "cfrlab.solvers.fictitious.softmax:SoftmaxFSP",
    "cfrlab.solvers.neural.nfsp:NFSP",
    "cfrlab.solvers.neural.nfsp_sac:NFSPSAC",
    "cfrlab.solvers.neural.nfsp_ppo:NFSPPPO",
    "cfrlab.solvers.neural.deep_cfr:DeepCFR",
    "cfrlab.solvers.neural.double_neural_cfr:DoubleNeuralCFR",
)
"""The generic ones; a game family adds its own (``GameFamily.solvers.algorithms``: hold'em's vector CFR), listed after
them (``builtin``). Listing them (``catalog``, ``describe_algorithm``) reads their source and imports none of them."""


ENTRY_POINT_GROUP = "cfrlab.solvers"
"""Installed packages register solvers under this entry-point group: ``mine = "my_package:MySolver"``."""
_REGISTERED: dict[str, str | type[Solver]] = {}
_entry_points_loaded = False


def register_solver(name: str, solver: str | type[Solver]) -> None:
    """Register ``solver`` (a ``Solver`` subclass, or a lazy ``"module:Class"``) as algorithm ``name``, for
    ``--algo name``, ``cfrlab.solve`` and ``check_solver``; the class's ``algorithm`` must be ``name``."""
    if not isinstance(solver, str) and vars(solver).get("algorithm") != name:
        raise ValueError(f"register_solver({name!r}, {solver.__name__}): set `algorithm = {name!r}` on the class")
    _REGISTERED[name] = solver


def registered() -> dict[str, str | type[Solver]]:
    """The solvers registered outside ``SOLVERS``: installed packages' entry points, then ``register_solver``'s."""
    global _entry_points_loaded
    if not _entry_points_loaded:
        _entry_points_loaded = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _REGISTERED.setdefault(ep.name, ep.value)
    return _REGISTERED


def builtin() -> tuple[str, ...]:
    """cfrlab's solvers, read from source when listed: ``SOLVERS``, then each game family's ``algorithms``."""
    from cfrlab.registry import families

    return (*SOLVERS, *(ref for family in families() for ref in family.solvers.algorithms))


def references() -> list[str | type[Solver]]:
    """Every solver: cfrlab's (``builtin()``), then those ``registered()``."""
    return [*builtin(), *registered().values()]


def catalog() -> list[dict[str, str | None]]:
    """Every algorithm's name, class, description and missing package (``solvers.catalog``): cfrlab's read from
    their source, a registered one's from its class (imported: it is the user's own)."""
    rows = read_catalog(builtin())
    for name in registered():
        cls = solver_class(name)
        what = f"{cls.citation[0]} ({cls.citation[1]})" if cls.citation else \
            (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        rows.append({"name": name, "class": cls.__name__, "description": what, "missing": None})
    return rows


def describe_algorithm(name: str) -> str:
    """``"CFR+: regret matching+, ... (Tammelin, Burch, Johanson & Bowling 2015)"``: the class's ``citation``, else
    the first paragraph of its docstring (read from the source: nothing is imported)."""
    for row in catalog():
        if row["name"] == name:
            return str(row["description"])
    raise ValueError(_unknown(name))


def _load(ref: str | type[Solver]) -> type[Solver]:
    if isinstance(ref, str):
        module, attr = ref.split(":")
        cls = getattr(importlib.import_module(module), attr)
    else:
        cls = ref
    if "algorithm" not in vars(cls):
        raise TypeError(f"{ref} must set its own `algorithm` name (it would inherit {cls.algorithm!r})")
    return cls


def _try_load(ref: str | type[Solver]) -> type[Solver] | str:
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
    for ref in references():
        cls = _try_load(ref)
        if isinstance(cls, str):
            continue
        if cls.algorithm in found:
            raise TypeError(f"two solvers are named {cls.algorithm!r}: {found[cls.algorithm].__name__}, {ref}")
        found[cls.algorithm] = cls
    return found


def unavailable() -> dict[str, str]:
    """``{reference: reason}`` for the registered solvers whose module cannot be imported here."""
    return {ref: why for ref in references() if isinstance(ref, str) and isinstance(why := _try_load(ref), str)}


def solver_class(name: str) -> type[Solver]:
    """The solver class whose ``algorithm`` is ``name``, importing its module only (a clear error listing the
    known names; a ``ModuleNotFoundError`` when it needs an optional package that is missing, which the CLI turns
    into its install hint)."""
    if name in registered():
        cls = _load(_REGISTERED[name])
        if cls.algorithm != name:
            raise TypeError(f"solver {name!r} is registered as {_REGISTERED[name]}, whose `algorithm` is "
                            f"{cls.algorithm!r}")
        return cls
    refs = builtin()
    for ref, row in zip(refs, read_catalog(refs)):
        if row["name"] == name:
            return _load(ref)
    raise ValueError(_unknown(name))


def _unknown(name: str) -> str:
    from cfrlab.suggest import nearest

    known = sorted(str(row["name"]) for row in catalog())
    close = nearest(name, known)
    hint = f" (did you mean {close!r}?)" if close is not None else ""
    return f"unknown algorithm {name!r}{hint}; known: {', '.join(known)}"
