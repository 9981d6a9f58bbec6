"""The infosets of abstract hold'em (``holdem_ehs2``) in one fixed order, with key <-> row by arithmetic.

Row order: round by round; within a round, bucket sequence by bucket sequence; within a sequence, the
round's decision nodes of the betting tree in their order. It is the order of the solvers' regret and
average tables (``cfrlab.games.holdem.solvers.cfr.Layout``: entry = 3 * row + action), so a strategy of 5.7e7
infosets (CFR10 of the full deck) is stored and read as one array, without a string key per row
(``TabularPolicy`` with ``Game.infoset_rows``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np
from numpy.typing import NDArray

from cfrlab.games.holdem.rules.betting import DECISION, BettingTree


def sequence_digits(sequence: int, buckets: Sequence[int]) -> str:
    """A bucket sequence as its rounds' buckets, ``"b0.b1..."`` (mixed radix: each round's sequence is the
    previous one's times the round's bucket count, plus the round's bucket)."""
    digits = []
    for n in reversed(buckets):
        sequence, digit = divmod(sequence, n)
        digits.append(str(digit))
    return ".".join(reversed(digits))


class AbstractRows(Sequence[str]):
    """A read-only sequence of the abstract game's infoset keys (``"{p}:{b0.b1...}:{betting}"``), in row order."""

    def __init__(self, tree: BettingTree, buckets: list[int]) -> None:
        self.tree = tree
        self.buckets = [int(b) for b in buckets]
        self.nseq = np.cumprod(self.buckets)
        decision = tree.kind == DECISION
        self.round_nodes = [np.flatnonzero(decision & (tree.round == k)) for k in range(len(self.buckets))]
        sizes = np.array([len(nodes) * int(n) for nodes, n in zip(self.round_nodes, self.nseq)], dtype=np.int64)
        self.round_offset = np.concatenate([[0], np.cumsum(sizes)])
        """First row of each round (and the row count at the end)."""
        self._position = {tree.history[node]: (k, i) for k, nodes in enumerate(self.round_nodes)
                          for i, node in enumerate(nodes)}

    def __eq__(self, other: object) -> bool:
        """The same rows: the same bucket counts and betting tree."""
        if not isinstance(other, AbstractRows):
            return NotImplemented
        return other is self or (other.buckets == self.buckets and other.tree.history == self.tree.history
                                 and np.array_equal(other.tree.player, self.tree.player))

    __hash__ = None  # type: ignore[assignment]

    def __len__(self) -> int:
        return int(self.round_offset[-1])

    def _locate(self, row: int) -> tuple[int, int, int]:
        """(round, bucket sequence, betting node) of ``row`` (negative rows count from the end)."""
        row = row + len(self) if row < 0 else row
        if not 0 <= row < len(self):
            raise IndexError(f"row {row} out of range (0..{len(self) - 1})")
        k = int(np.searchsorted(self.round_offset, row, side="right")) - 1
        sequence, i = divmod(row - int(self.round_offset[k]), len(self.round_nodes[k]))
        return k, sequence, int(self.round_nodes[k][i])

    @overload
    def __getitem__(self, row: int) -> str: ...
    @overload
    def __getitem__(self, row: slice) -> list[str]: ...

    def __getitem__(self, row: int | slice) -> str | list[str]:
        if isinstance(row, slice):
            return [self[i] for i in range(len(self))[row]]
        k, sequence, node = self._locate(row)
        return f"{self.tree.player[node]}:{sequence_digits(sequence, self.buckets[: k + 1])}:{self.tree.history[node]}"

    def __iter__(self) -> Iterator[str]:
        return (self[row] for row in range(len(self)))

    def row_of(self, key: str) -> int:
        """The row of infoset ``key``; ``KeyError`` where the game has no such infoset."""
        player, _, rest = key.partition(":")
        digits, sep, history = rest.partition(":")
        position = self._position.get(history) if sep else None
        if position is None:
            raise KeyError(key)
        k, i = position
        parts = digits.split(".")
        node = int(self.round_nodes[k][i])
        if player != str(self.tree.player[node]) or len(parts) != k + 1:
            raise KeyError(key)
        sequence = 0
        for part, n in zip(parts, self.buckets):
            if not (part.isascii() and part.isdigit()) or part != str(int(part)) or int(part) >= n:
                raise KeyError(key)
            sequence = sequence * n + int(part)
        return int(self.round_offset[k]) + sequence * len(self.round_nodes[k]) + i

    def rows_at(self, history: str, sequences: NDArray[np.int64]) -> NDArray[np.int64]:
        """The rows of betting history ``history``'s infosets for each of ``sequences`` (bucket sequences of its
        round): a whole range's rows at once, as ``row_of`` gives one key's; ``KeyError`` for no such history."""
        k, i = self._position[history]
        return int(self.round_offset[k]) + np.asarray(sequences, dtype=np.int64) * len(self.round_nodes[k]) + i

    def player(self, row: int) -> int:
        """The player acting at ``row``."""
        return int(self.tree.player[self._locate(row)[2]])

    @staticmethod
    def action_name(action: int) -> str:
        """Fold, Call or Raise (``AbstractState.action_to_string``)."""
        return ("Fold", "Call", "Raise")[action]

    def legal_mask(self) -> NDArray[np.bool_]:
        """(rows, 3): the legal actions (fold, call, raise) of each row."""
        mask = np.empty((len(self), 3), dtype=bool)
        for k, nodes in enumerate(self.round_nodes):
            block = mask[self.round_offset[k] : self.round_offset[k + 1]].reshape(-1, len(nodes), 3)
            block[:] = self.tree.child[nodes] >= 0
        return mask
