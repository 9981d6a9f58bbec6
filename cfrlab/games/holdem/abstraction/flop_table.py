"""Each (private hand, flop) suit class's E[HS^2] count, kept so that bucketing a flop hand is a lookup.

E[HS^2] after the flop (Zinkevich et al. 2008) averages the squared river strength
over every turn, river and opponent hand: about a million hand evaluations on 52
cards, a second per hand. The large-deck builder
(``cfrlab.games.holdem.abstraction.large_builder``) computes every class's count in its first
pass anyway; this table keeps them: the canonical keys (``canonical_key`` of the
parts [private cards, flop]) sorted, and each class's count (the integer of
``cfrlab.games.holdem.abstraction.strength``). On 52 cards: 1,286,792 classes, 21 MB.

It depends on the game alone (not on bucket counts), so it is cached under its own
fingerprint and every abstraction of the game shares it. Turn counts come for a
whole board at once (``LargeEHS2Abstraction.turn_counts``), river counts from 990
opponent hands: milliseconds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays
from cfrlab.games.holdem.rules.evaluator import tables_dir
from cfrlab.games.holdem.rules.game import LimitHoldem
from cfrlab.games.holdem.rules.suits import binomials, canonical_key, radices, suit_permutations

FLOP_TABLE_VERSION = 1


@njit(cache=True, nogil=True)
def flop_class_keys(hole_masks, flop_mask, maps, radix, binom):  # pragma: no cover - numba
    """Canonical key of [private cards, flop] for each private-card mask with one flop."""
    out = np.empty(len(hole_masks), dtype=np.int64)
    parts = np.empty(2, dtype=np.int64)
    parts[1] = flop_mask
    for i in range(len(hole_masks)):
        parts[0] = hole_masks[i]
        out[i] = canonical_key(parts, np.int64(2), maps, radix, binom)
    return out


@dataclass
class FlopTable:
    """Sorted canonical keys of the (private hand, flop) classes and their E[HS^2] counts."""

    game: LimitHoldem
    keys: NDArray[np.int64]
    counts: NDArray[np.int64]

    @cached_property
    def _key_tables(self) -> tuple[Any, ...]:
        g = self.game
        return suit_permutations(g.ranks, g.suits), radices(g.deck_size, [g.hole_cards, g.board_cards[1]]), binomials()

    def key_tables(self) -> tuple[Any, ...]:
        """``(maps, radix, binom)`` for ``flop_class_keys`` on this game."""
        return self._key_tables

    def count(self, hole_mask: int, flop_mask: int) -> int:
        """The E[HS^2] count of private cards ``hole_mask`` on flop ``flop_mask`` (card bit masks)."""
        key = int(flop_class_keys(np.array([hole_mask], dtype=np.int64), flop_mask, *self._key_tables)[0])
        i = int(np.searchsorted(self.keys, key))
        if i >= len(self.keys) or self.keys[i] != key:
            raise KeyError(f"no flop class for private {hole_mask:#x} and flop {flop_mask:#x}")
        return int(self.counts[i])


def flop_table(game: LimitHoldem, keys: NDArray[np.int64], counts: NDArray[np.int64]) -> FlopTable:
    """The table from every (flop class representative, private hand)'s key and count (repeats allowed)."""
    unique, first, inverse = np.unique(keys.ravel(), return_index=True, return_inverse=True)
    kept = counts.ravel()[first]
    if not np.array_equal(kept[inverse.ravel()], counts.ravel()):
        raise AssertionError("hands of one suit class have different counts")  # pragma: no cover - a bug
    return FlopTable(game, unique, kept)


def flop_table_path(game: LimitHoldem) -> Path:
    blob = json.dumps({"game": game.fingerprint(), "version": FLOP_TABLE_VERSION})
    return tables_dir() / f"ehs2-flop-{hashlib.sha256(blob.encode()).hexdigest()[:16]}.npz"


def save_flop_table(table: FlopTable) -> None:
    path = flop_table_path(table.game)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_arrays(path, {"keys": table.keys, "counts": table.counts},
                {"kind": "ehs2-flop", "spec": table.game.spec(), "version": FLOP_TABLE_VERSION})


def load_flop_table(game: LimitHoldem) -> FlopTable | None:
    """The cached table of ``game``, or None (not built yet, or unreadable: counts are then enumerated)."""
    path = flop_table_path(game)
    if not path.exists():
        return None
    try:
        arrays, _ = load_arrays(path, "E[HS^2] flop table")
        return FlopTable(game, arrays["keys"], arrays["counts"])
    except (CheckpointError, KeyError, ValueError):
        return None
