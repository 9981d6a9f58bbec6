"""Numbers that never go silently wrong: a NaN or infinity in a solver's state stops the run, naming where.

``first_nonfinite(solver, tree)`` scans the arrays of ``solver.state_dict()`` (regrets, strategy sums, network
weights) and names the first non-finite entry by its infoset when the array is laid out by sequence or by
infoset of ``tree``. ``check_payoff_scale`` refuses games whose payoffs a solver cannot learn from: the
tabular solvers divide payoffs by ``game.payoff_scale`` and handle any finite range; the learned ones keep
the game's units (their tuned step sizes assume payoffs near 1) and declare the range they accept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cfrlab.game import NORMAL_PAYOFFS, Game, payoff_scale

if TYPE_CHECKING:
    from cfrlab.tree import GameTree


class NonFiniteError(ValueError):
    """A NaN or infinity in a solver's regrets, strategy sums, values or exploitability."""


def first_nonfinite(solver: Any, tree: GameTree | None = None) -> str | None:
    """A sentence naming the first non-finite entry of ``solver``'s state, or None if all are finite."""
    tree = tree if tree is not None else solver.tree
    for name, array in solver._state_arrays().items():  # read only, no copy
        values = np.asarray(array)
        if values.dtype.kind not in "fc" or values.size == 0:
            continue
        rows = values.reshape(len(values), -1) if values.ndim else values.reshape(1, 1)
        bad_rows = np.flatnonzero(~np.isfinite(rows).all(axis=1))
        if bad_rows.size:
            row = rows[int(bad_rows[0])]
            found = row[~np.isfinite(row)][0]
            return f"{name} holds {found} {_where(int(bad_rows[0]), len(rows) if values.ndim else 0, tree)}"
    return None


def _where(index: int, length: int, tree: GameTree | None) -> str:
    if tree is not None and length == tree.num_sequences:
        return f"at infoset {tree.infoset_keys[int(tree.sequence_infoset[index])]!r} (sequence {index})"
    if tree is not None and length == tree.num_infosets:
        return f"at infoset {tree.infoset_keys[index]!r}"
    return f"at row {index}"


def check_finite(solver: Any, tree: GameTree | None = None, exploitability: Any = None) -> None:
    """Raise ``NonFiniteError`` if ``solver``'s state or ``exploitability`` holds a NaN or an infinity."""
    problem = first_nonfinite(solver, tree)
    if problem is None and exploitability is not None and not np.isfinite(exploitability):
        problem = f"the exploitability is {exploitability} although every regret and strategy sum is finite"
    if problem is not None:
        raise NonFiniteError(
            f"{solver.algorithm} on {solver.game.spec()} after {solver.iterations} iterations: {problem}, a value "
            "that is not finite; the run stopped and the last finite checkpoint was kept"
        )


def check_payoff_scale(game: Game, solver: Any, any_range: bool) -> None:
    """Refuse ``game`` for a solver that needs payoffs in ``NORMAL_PAYOFFS`` unless ``any_range``."""
    if any_range or payoff_scale(game.info) == 1.0:
        return
    low, high = NORMAL_PAYOFFS
    largest = max(abs(game.info.min_utility), abs(game.info.max_utility))
    raise ValueError(
        f"{solver.algorithm} learns from payoffs in the game's units and needs the "
        f"largest between {low:g} and {high:g}, but {game.spec()} pays up to {largest:g}; rescale the payoffs or "
        "use a tabular solver (cfr+, xfp, external), which handles any finite range"
    )
