"""cfrlab: near-equilibrium strategies of imperfect-information games.

    >>> import cfrlab
    >>> result = cfrlab.solve("kuhn", "cfr+", iterations=500)
    >>> round(float(cfrlab.expected_values(cfrlab.load_game("kuhn"), result.policy)[0]), 3)
    -0.056

The names below are imported on first use (PEP 562), so ``import cfrlab`` and ``cfrlab --help`` stay quick and
numba is loaded only by what needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "make_solver": "cfrlab.driver",
    "solve": "cfrlab.driver",
    "best_response": "cfrlab.eval",
    "expected_values": "cfrlab.eval",
    "exploitability": "cfrlab.eval",
    "nash_conv": "cfrlab.eval",
    "CHANCE": "cfrlab.game",
    "TERMINAL": "cfrlab.game",
    "Game": "cfrlab.game",
    "GameDefinitionError": "cfrlab.game",
    "IllegalActionError": "cfrlab.game",
    "State": "cfrlab.game",
    "TabularPolicy": "cfrlab.policy",
    "list_games": "cfrlab.registry",
    "load_game": "cfrlab.registry",
    "register_game": "cfrlab.registry",
    "GameFamily": "cfrlab.registry",
    "AgentKind": "cfrlab.registry",
    "CommandOption": "cfrlab.registry",
    "Views": "cfrlab.registry",
    "Solvers": "cfrlab.registry",
    "register_family": "cfrlab.registry",
    "register_solver": "cfrlab.solvers",
    "GameTree": "cfrlab.tree",
    "compile_tree": "cfrlab.tree",
    "load_tree": "cfrlab.tree",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cfrlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names only (not the helpers this module imports for itself)."""
    return [*__all__, "__version__"]


if TYPE_CHECKING:
    from cfrlab.driver import make_solver, solve
    from cfrlab.eval import best_response, expected_values, exploitability, nash_conv
    from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, IllegalActionError, State
    from cfrlab.policy import TabularPolicy
    from cfrlab.registry import (
        AgentKind,
        CommandOption,
        GameFamily,
        Solvers,
        Views,
        list_games,
        load_game,
        register_family,
        register_game,
    )
    from cfrlab.solvers import register_solver
    from cfrlab.tree import GameTree, compile_tree, load_tree
