"""``GameTree``: a finite game as flat arrays in breadth-first order.

Nodes are numbered breadth first, so the children of node ``n`` are the
contiguous range ``child_ptr[n]:child_ptr[n+1]`` (CSR, no padding) and every
child has a larger id than its parent: a reverse sweep over ids is a valid
bottom-up order, a forward sweep a valid top-down one. The ``k``-th child of a
decision node is the ``k``-th *sequence* of its infoset, with sequence id
``infoset_offset[infoset[n]] + k``; solvers keep regrets and strategies per
sequence. See docs/design/tree-and-policies.md for the table of arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL, GameDefinitionError


@dataclass(frozen=True, eq=False)
class GameTree:
    """A compiled game. Arrays are read-only views; build with ``compile_tree``."""

    game_spec: str
    fingerprint: str
    num_players: int
    max_actions: int
    player: NDArray[np.int8]
    parent: NDArray[np.int32]
    action: NDArray[np.int32]
    depth: NDArray[np.int32]
    child_ptr: NDArray[np.int64]
    chance_prob: NDArray[np.float64]
    chance_reach: NDArray[np.float64]
    infoset: NDArray[np.int32]
    parent_sequence: NDArray[np.int64]
    """Sequence of the edge into each node (-1 below the root and chance nodes)."""
    utility: NDArray[np.float64]
    infoset_player: NDArray[np.int8]
    infoset_offset: NDArray[np.int64]
    infoset_node: NDArray[np.int64]
    """One node of each infoset (the first in BFS order), for per-infoset reach lookups."""
    sequence_action: NDArray[np.int32]
    sequence_infoset: NDArray[np.int32]
    infoset_keys: list[str] = field(repr=False)
    utility_scale: float = 1.0
    """``utility`` holds the game's payoffs divided by this power of two (``game.payoff_scale``); evaluation
    multiplies values back, so results are in the game's units."""
    _key_index: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    """Derived arrays computed on demand (e.g. best-response orderings); never saved."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
        if not self._key_index:
            self._key_index.update({k: i for i, k in enumerate(self.infoset_keys)})

    @property
    def num_nodes(self) -> int:
        return int(self.player.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.sequence_action.shape[0])

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.player == TERMINAL))

    def infoset_index(self, key: str) -> int:
        """Row of infoset ``key``; KeyError with a hint if absent."""
        try:
            return self._key_index[key]
        except KeyError:
            raise KeyError(f"infoset {key!r} is not in the tree of {self.game_spec}") from None

    def infoset_actions(self, infoset: int) -> NDArray[np.int32]:
        """Legal action ids of ``infoset``, in sequence order."""
        return self.sequence_action[self.infoset_offset[infoset] : self.infoset_offset[infoset + 1]]

    def num_actions(self) -> NDArray[np.int64]:
        """Number of legal actions of every infoset."""
        return np.diff(self.infoset_offset)

    def player_sequences(self, player: int) -> NDArray[np.bool_]:
        """Mask over sequences owned by ``player``."""
        return self.infoset_player[self.sequence_infoset] == player

    def summary(self) -> dict[str, int | str]:
        return {
            "game": self.game_spec,
            "nodes": self.num_nodes,
            "terminals": self.num_terminals,
            "infosets": self.num_infosets,
            "sequences": self.num_sequences,
            "max_depth": int(self.depth.max()),
        }

    def arrays(self) -> dict[str, np.ndarray]:
        """All arrays by name (for saving); keys as a unicode array."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if isinstance(getattr(self, f.name), np.ndarray)}
        out["infoset_keys"] = np.array(self.infoset_keys, dtype=np.str_)
        return out

    def validate(self) -> None:
        """Check the structural invariants; raise ``GameDefinitionError`` on the first violation."""
        n = self.num_nodes
        if not (self.parent[1:] < np.arange(1, n)).all() or self.parent[0] != -1:
            raise GameDefinitionError("tree: every parent must come before its children")
        counts = np.diff(self.child_ptr)
        if counts.sum() != n - 1 or ((counts == 0) != (self.player == TERMINAL)).any():
            raise GameDefinitionError("tree: child counts disagree with terminal markers")
        chance = np.flatnonzero(self.player == CHANCE)
        under_chance = np.flatnonzero(self.player[self.parent[1:]] == CHANCE) + 1
        sums = np.bincount(self.parent[under_chance], weights=self.chance_prob[under_chance], minlength=n)
        if chance.size and not np.allclose(sums[chance], 1.0, atol=1e-9):
            raise GameDefinitionError("tree: chance probabilities must sum to 1 at every chance node")
        decision = self.player >= 0
        if ((self.infoset >= 0) != decision).any():
            raise GameDefinitionError("tree: decision nodes and infosets disagree")
        na = self.num_actions()[self.infoset[decision]]
        if (na != counts[decision]).any():
            raise GameDefinitionError("tree: a node has a different number of actions than its infoset")
