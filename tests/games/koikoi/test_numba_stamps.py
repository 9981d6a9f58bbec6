"""Koi-Koi's search kernels call kernels of other modules (flow, playout, the playout policy): their numba cache
stamps cover those modules, so an edit there compiles the search afresh (the mechanism:
tests/test_numba_cache.py)."""

from __future__ import annotations

import os
from pathlib import Path

import cfrlab
from cfrlab.numba_cache import install
from cfrlab.numba_stamp import import_closure


def test_the_search_kernels_are_stamped_with_the_rules_they_call() -> None:
    install()
    family = Path(cfrlab.__file__).parent / "games" / "koikoi"
    closure = {os.path.relpath(f, family) for f in import_closure(os.path.realpath(family / "players" / "search.py"))}
    assert {"rules/flow.py", "rules/playout.py", "rules/kernels.py", "rules/playout_policy.py",
            "players/search.py"} <= closure
