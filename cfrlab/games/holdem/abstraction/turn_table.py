"""Every (flop class, turn, private hand)'s E[HS^2] count after the turn, kept so that bucketing a turn hand is
a lookup.

E[HS^2] after the turn (Zinkevich et al. 2008) averages the squared river strength over every river and opponent
hand: on 52 cards about 46 x 990 hand evaluations, or one pass over the board's 48 run-outs for every private
hand at once (``LargeEHS2Abstraction.turn_counts``): tens of milliseconds on a quiet core, a quarter of a second
on a loaded one, at each new turn board of a game played. The large-deck builder
(``cfrlab.games.holdem.abstraction.large_builder``) computes every count in its first pass; this table keeps them as the
builder holds them: ``counts[f, t, h]`` for the suit class representatives of flops f (``canonical_flops``), the
turn at position t and the private hand h among the cards the flop leaves (``flop_layout``'s order). A real
hand is looked up through the suit renaming that takes its flop to the class representative (E[HS^2] does not
change when suits are renamed). On 52 cards: 1,755 x 49 x 1,176 counts in int32, 0.4 GB, memory-mapped from its
own cache file (a lookup reads a page), shared by every bucket count like the flop table.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.games.holdem.abstraction.abstraction import canonical_flops
from cfrlab.games.holdem.abstraction.flop_kernels import flop_layout
from cfrlab.games.holdem.rules.evaluator import tables_dir
from cfrlab.games.holdem.rules.game import LimitHoldem
from cfrlab.games.holdem.rules.suits import suit_permutations

TURN_TABLE_VERSION = 1


@dataclass
class TurnTable:
    """``counts[f, t, h]``: the count after the turn of private hand h with turn t on flop class f."""

    game: LimitHoldem
    flops: NDArray[np.int64]
    """Card masks of the flop class representatives, in the builder's order."""
    counts: NDArray[np.integer]

    @cached_property
    def _index(self) -> tuple[Any, ...]:
        game = self.game
        maps = suit_permutations(game.ranks, game.suits).tolist()
        flop = {int(mask): f for f, mask in enumerate(self.flops)}
        hole_pos, holes, *_ = flop_layout(game.deck_size - game.board_cards[1], game.hole_cards)
        hand = {int(mask): h for h, mask in enumerate(holes)}
        return maps, flop, hand, hole_pos

    def _place(self, flop: tuple[int, ...]) -> tuple[int, list[int], dict[int, int]]:
        """The flop's class f, the renaming of suits that takes it to the representative, and each card's
        position among the cards the representative leaves."""
        maps, flops, *_ = self._index
        for suits in maps:
            f = flops.get(sum(1 << suits[c] for c in flop))
            if f is not None:
                rep = int(self.flops[f])
                rest = (c for c in range(self.game.deck_size) if not rep >> c & 1)
                return f, suits, {c: i for i, c in enumerate(rest)}
        raise KeyError(f"no flop class for {flop}")  # pragma: no cover - every flop has a class

    def count(self, hole: tuple[int, ...], flop: tuple[int, ...], turn: int) -> int:
        """The E[HS^2] count of ``hole`` on ``flop`` and ``turn`` (cards)."""
        f, suits, position = self._place(flop)
        h = self._index[2][sum(1 << position[suits[c]] for c in hole)]
        return int(self.counts[f, position[suits[turn]], h])

    def board_counts(self, flop: tuple[int, ...], turn: int) -> dict[int, int]:
        """The count of every private hand (by card mask) on ``flop`` and ``turn``, at once (a range of hands,
        as Local Best Response asks, costs one renaming)."""
        f, suits, position = self._place(flop)
        real = np.empty(self.game.deck_size, dtype=np.int64)
        for card, i in position.items():
            real[i] = suits.index(card)  # the card the renaming takes to this position's card
        hole_pos = self._index[3]
        masks = (np.int64(1) << real[hole_pos]).sum(axis=1)
        counts = np.asarray(self.counts[f, position[suits[turn]]])
        keep = counts >= 0  # hands without the turn card
        return dict(zip(masks[keep].tolist(), counts[keep].tolist()))


def turn_table_path(game: LimitHoldem) -> Path:
    blob = json.dumps({"game": game.fingerprint(), "version": TURN_TABLE_VERSION})
    return tables_dir() / f"ehs2-turn-{hashlib.sha256(blob.encode()).hexdigest()[:16]}.npy"


def save_turn_table(path: Path, counts: NDArray[np.integer]) -> None:
    """Write the builder's counts after the turn to ``path`` (atomically: a temporary file renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial.npy")
    np.save(partial, counts)
    os.replace(partial, path)


def load_turn_table(game: LimitHoldem, path: Path | None = None) -> TurnTable | None:
    """The table of ``game`` (memory-mapped), or None: not built yet, or not this game's shape (counts are then
    computed per board)."""
    path = turn_table_path(game) if path is None else path
    if not path.exists():
        return None
    try:
        counts = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError):
        return None
    flops, _ = canonical_flops(game)
    m = game.deck_size - game.board_cards[1]
    hands = len(flop_layout(m, game.hole_cards)[1])
    if counts.shape != (len(flops), m, hands) or counts.dtype.kind != "i":
        return None
    return TurnTable(game, flops, counts)
