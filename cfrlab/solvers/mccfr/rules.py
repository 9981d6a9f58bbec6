"""MCCFR's update rule as a parameter of the sampled walks: a new rule is one file and one registration.

The walks (``tree_walk``, ``oos.tree_walk``, the game protocol's ``stores.DictStore``, a game family's own such as
Koi-Koi's round walk) sample the increments; what they do with them is the rule's, as LiteEFG keeps the update rule
apart from the traversal. A rule is three numba kernels of its numbers ``params`` (a tuple of floats) and of the
iteration ``t``:

* ``update(params, t, regret, strategy_sum, regret_inc, strategy_inc, weight)``: add a pass's summed increments at
  one infoset to its cumulative regrets and strategy sums, ``weight`` being what the averaging gives the pass there;
* ``weight(params, t)``: w_t, the averaging weight of iteration t;
* ``cumulative(params, t)``: W(t) = w_1 + ... + w_t, for the lazy strategy sum (seed 001 Alg. 4);

and ``params(config)``, the rule's numbers from an ``MCCFRConfig`` (a ``ValueError`` for options it refuses).
``register_mccfr_rule`` names it; ``MCCFRConfig.rule`` picks it (``standard``: the seeds'). Each of cfrlab's own is
a module beside this one that registers itself (``standard_rule``, ``linear``), imported when first asked for
(``BUILTIN``); a module of another package registers its own the same way (``tests/plugins/test_mccfr_rule.py``).

In numba a rule is a value of its own type (``RuleType``: one per rule and version of its source), whose calls
(``rule_update``, ``rule_weight``, ``rule_cumulative``) resolve at compile time to the rule's kernels: a walk is
compiled once per rule with the rule's code in it, as fast as if written there, and numba's on-disk cache keeps
each (the type pickles as its name, so a cached walk never imports a rule). Editing a rule's file changes its
version, so the walks compiled with it are compiled again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import (
    NativeValue,
    make_attribute_wrapper,
    models,
    overload,
    register_model,
    typeof_impl,
    unbox,
)
from numpy.typing import NDArray


@dataclasses.dataclass(frozen=True)
class RuleDefinition:
    """A registered rule: its kernels (module docstring), ``params`` and the version of its source."""

    name: str
    update: Any
    weight: Any
    cumulative: Any
    params: Callable[[Any], Sequence[float]]
    version: str


_RULES: dict[str, RuleDefinition] = {}
BUILTIN = {"standard": "cfrlab.solvers.mccfr.standard_rule", "linear": "cfrlab.solvers.mccfr.linear"}
"""cfrlab's rules by name: the module that registers each, imported when the rule is first asked for."""


def register_mccfr_rule(name: str, *, update: Any, weight: Any, cumulative: Any,
                        params: Callable[[Any], Sequence[float]]) -> None:
    """Register an MCCFR update rule as ``name`` (``MCCFRConfig(rule=name)``); the three kernels are numba
    functions (``cfrlab.jit_timing.kernel``) of the signatures in the module docstring."""
    kernels = (update, weight, cumulative)
    if not all(hasattr(k, "py_func") for k in kernels):
        raise TypeError(f"rule {name!r}: update, weight and cumulative must be numba kernels (jit_timing.kernel)")
    _RULES[name] = RuleDefinition(name, update, weight, cumulative, params, _version(kernels))


def _version(kernels: Sequence[Any]) -> str:
    """A digest of the source files of ``kernels`` (their helpers in the same files included)."""
    h = hashlib.sha256()
    for path in sorted({inspect.getsourcefile(k.py_func) or "" for k in kernels}):
        h.update(path.encode() + b"\0" + (open(path, "rb").read() if path else b""))
    return h.hexdigest()[:12]


def definition(name: str) -> RuleDefinition:
    """The rule registered as ``name`` (cfrlab's own are registered on first use)."""
    if name not in _RULES and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    if name not in _RULES:
        raise ValueError(f"unknown MCCFR rule {name!r}; known: {', '.join(rule_names())}")
    return _RULES[name]


def rule_names() -> list[str]:
    """The registered rules' names (cfrlab's own and those ``register_mccfr_rule`` added)."""
    return sorted({*BUILTIN, *_RULES})


class Rule:
    """A rule with its numbers, as the walks take it (``tree_walk.Schedule.rule``)."""

    def __init__(self, name: str, params: Sequence[float]) -> None:
        self.definition = definition(name)
        self.name = name
        self.params = tuple(float(x) for x in params) or (0.0,)
        """Floats, at least one (a tuple: a value in numba, passed around without reference counts)."""

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, {list(self.params)})"


def mccfr_rule(config: Any) -> Rule:
    """The rule ``config.rule`` with its numbers from ``config``."""
    return Rule(config.rule, definition(config.rule).params(config))


class RuleType(types.Type):
    """numba's type of a ``Rule``: one per rule name and version, holding the rule's ``params``."""

    def __init__(self, rule: str, version: str, size: int) -> None:
        self.rule = rule
        self.params = types.UniTuple(types.float64, size)
        super().__init__(name=f"MCCFRRule({rule}@{version}, {size})")


@typeof_impl.register(Rule)
def _typeof_rule(value: Rule, context: Any) -> RuleType:
    return RuleType(value.name, value.definition.version, len(value.params))


@register_model(RuleType)
class _RuleModel(models.StructModel):
    def __init__(self, dmm: Any, fe_type: Any) -> None:
        super().__init__(dmm, fe_type, [("params", fe_type.params)])


make_attribute_wrapper(RuleType, "params", "params")


@unbox(RuleType)
def _unbox_rule(typ: Any, obj: Any, c: Any) -> NativeValue:
    params = c.pyapi.object_getattr_string(obj, "params")
    native = c.unbox(typ.params, params)
    c.pyapi.decref(params)
    rule = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    rule.params = native.value
    return NativeValue(rule._getvalue(), is_error=native.is_error)


def _kernels(rule: Any) -> RuleDefinition:
    """The definition behind numba type ``rule`` (at compile time)."""
    if not isinstance(rule, RuleType):
        raise TypeError(f"expected an MCCFR rule, got {rule}")
    return definition(rule.rule)


def rule_update(rule: Rule, t: int, regret: NDArray[np.float64], strategy_sum: NDArray[np.float64],
                regret_inc: NDArray[np.float64], strategy_inc: NDArray[np.float64], weight: float) -> None:
    """Add one infoset's increments of iteration ``t`` to its tables by ``rule`` (from Python or numba)."""
    rule.definition.update(rule.params, t, regret, strategy_sum, regret_inc, strategy_inc, weight)


def rule_weight(rule: Rule, t: int) -> float:
    """w_t of ``rule`` (from Python or numba)."""
    return float(rule.definition.weight(rule.params, t))


def rule_cumulative(rule: Rule, t: int) -> float:
    """W(t) of ``rule`` (from Python or numba)."""
    return float(rule.definition.cumulative(rule.params, t))


# inlined at numba's IR level: called, the update made external sampling's walk on Leduc 1.4 times slower (the
# table slices it takes are reference-counted at every call; BENCHMARKS.md, "MCCFR's update rule as a parameter")
@overload(rule_update, inline="always")
def _rule_update(rule, t, regret, strategy_sum, regret_inc, strategy_inc, weight):
    fn = _kernels(rule).update
    return lambda rule, t, regret, strategy_sum, regret_inc, strategy_inc, weight: fn(
        rule.params, t, regret, strategy_sum, regret_inc, strategy_inc, weight)


@overload(rule_weight, inline="always")
def _rule_weight(rule, t):
    fn = _kernels(rule).weight
    return lambda rule, t: fn(rule.params, t)


@overload(rule_cumulative, inline="always")
def _rule_cumulative(rule, t):
    fn = _kernels(rule).cumulative
    return lambda rule, t: fn(rule.params, t)
