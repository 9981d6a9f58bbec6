"""Online Outcome Sampling's back ends: MCCFR table stores (``cfrlab.solvers.mccfr.stores``) that take a target,
one chosen when the solver is built (``oos_store``).

* ``tree_walk.TreeSearch``: games whose tree compiles, in numba;
* a game family's own back end, registered with ``register_oos_backend`` by a module the family names in
  ``GameFamily.solvers.modules`` (imported by ``load_family_solvers`` when OOS is built for one of its games), such as
  a numba walk of one round of a game whose deal cannot be listed;
* ``GenericSearch``: any other game, on the game protocol (``sampling.TargetedSampler``/``ConditionedSampler``).

All give the same tables bit for bit where two of them apply (``tests/solvers/test_oos_tree.py`` and the
families' tests).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from cfrlab.game import Game
from cfrlab.registry import family_of
from cfrlab.solvers.mccfr.sampling import Increments
from cfrlab.solvers.mccfr.stores import DictStore, TableStore
from cfrlab.solvers.oos.sampling import TargetedSampler, sampler_for
from cfrlab.solvers.oos.targets import ConditionedTarget, Target, find_target
from cfrlab.solvers.oos.tree_walk import TreeSearch

Backend = Callable[[Any], "TableStore | None"]
"""A back end: given an ``OnlineOutcomeSampling`` solver (its game, config, compiled tree), a store for it, or
None where it does not apply."""
_BACKENDS: list[Backend] = []


def register_oos_backend(backend: Backend) -> None:
    """Offer ``backend`` to every OOS solver built later on a game that does not compile; the latest registered
    is tried first."""
    if backend not in _BACKENDS:
        _BACKENDS.append(backend)


def load_family_solvers(game: Game) -> None:
    """Import the solver extensions of ``game``'s family (``GameFamily.solvers.modules``), which register its back
    ends."""
    family = family_of(game)
    for module in family.solvers.modules if family is not None else ():
        importlib.import_module(module)


def oos_store(solver: Any) -> TableStore:
    """The back end of ``solver``: its compiled tree's, else the first registered one that applies, else the
    game protocol's."""
    if solver.tree is not None:
        return TreeSearch(solver)
    load_family_solvers(solver.game)
    for backend in reversed(_BACKENDS):
        store = backend(solver)
        if store is not None:
            return store
    return GenericSearch(solver)


class GenericSearch(DictStore):
    """OOS on the game protocol: MCCFR's rows by key, a targeted sampler, and incremental tables (a pass stores
    at most its first new infoset and the searched one; beyond them the playout policy, nothing recorded)."""

    def __init__(self, solver: Any) -> None:
        super().__init__(solver)
        self.target: Target | ConditionedTarget | None = None
        """The target's histories (or its conditioned deal)."""
        self._targets: dict[tuple[str, int, bool], Target | ConditionedTarget] = {}

    def set_target(self, key: str | None, player: int | None, delta: float, public: bool = False) -> None:
        if key is None or player is None:  # (the solver refuses a key without its player)
            self.target = None
            return
        memo = (key, int(player), public)
        if memo not in self._targets:
            self._targets[memo] = find_target(self.solver.game, key, int(player),
                                              self.solver.config.deal == "conditioned", public=public)
        self.target = self._targets[memo]

    def new_sampler(self) -> TargetedSampler:
        return sampler_for(self.target, self.solver.config)

    def sample(self, traverser: int, pass_key: int) -> Increments:
        total = super().sample(traverser, pass_key)
        if self.solver.config.expansion == "incremental":
            new = [k for k in total if k not in self.table_regret]
            target = self.target.key if self.target is not None else None
            for key in new[1:]:  # beyond the stored tree: the playout policy, nothing recorded
                if key != target:  # (the searched infoset is always stored: where the opponent's infosets
                    del total[key]  # almost never repeat, as in Koi-Koi, the tree would not reach it)
        return total
