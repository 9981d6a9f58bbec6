"""What the Koi-Koi engine works on: phase and action codes, the immutable ``EngineState`` and ``RoundResult``,
and ``DealCodec``, which numbers the deals (a deal action is the colex rank of its partition).

Kept apart from the rules in ``engine`` so that the representation, shared by the engine and by everyone who
reads its states, stands on its own; ``engine`` re-exports every name here.
"""

from __future__ import annotations

from math import comb
from typing import NamedTuple

import numpy as np

from cfrlab.game import GameDefinitionError, IllegalActionError
from cfrlab.games.koikoi.rules import cards as C

FIRST_OYA, DEAL, PLAY, PLAY_CAPTURE, DRAW, DRAW_CAPTURE, DECIDE, TERMINAL = range(8)
PHASE_NAMES = ("FIRST_OYA", "DEAL", "PLAY", "PLAY_CAPTURE", "DRAW", "DRAW_CAPTURE", "DECIDE", "TERMINAL")
STOP, KOIKOI = 48, 49
NUM_ACTIONS = 50
CHANCE_PHASES = (FIRST_OYA, DEAL, DRAW)
ENUMERABLE_DEALS = 2_000_000
"""Deals are listed by ``chance_outcomes`` only when there are at most this many (mini variants)."""


class RoundResult(NamedTuple):
    """How a round ended: ``winner`` (-1 for none), ``points`` and ``reason``."""

    winner: int
    points: int
    reason: str  # stop | teyaku | field_four | draw | void_teyaku
    yaku: tuple[tuple[str, int], ...] = ()
    """The winner's yaku (or hand yaku) as (name, points)."""
    steps: tuple[tuple[str, int], ...] = ()
    """How the points were reached from the base score (``Scorer.round_points_steps``)."""


class EngineState(NamedTuple):
    """Everything about a position; public and private parts alike (adapters decide who sees what)."""

    phase: int
    oya: int
    round: int
    turn: int
    hands: tuple[int, int]
    field: int
    piles: tuple[int, int]
    stock: int
    """Undrawn cards (the face-down draw pile as a set; its order is future chance)."""
    pending: int
    """Card waiting for its capture choice (-1 if none)."""
    s0: int
    """Mover's base score at the start of the turn."""
    y0: frozenset
    """Mover's yaku names at the start of the turn (only kept for the 'new_yaku' trigger)."""
    calls: tuple[int, int]
    """Koi-koi calls this round, per player."""
    last_riser: int
    field_brights: int
    totals: tuple[int, int]
    net: int
    """Sum of player 0's zero-sum round utilities so far."""
    redeals: int
    result: RoundResult | None
    """Result of the last finished round."""
    played: tuple[int, int] = (0, 0)
    """Cards each player has played from hand this round (public: with the own hand it gives the dealt hand)."""


def _set(pair: tuple[int, int], p: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if p == 0 else (pair[0], value)


def _rank(positions: list[int]) -> int:
    """Colex rank of a sorted k-subset of positions."""
    return sum(comb(p, i + 1) for i, p in enumerate(positions))


def _unrank(rank: int, k: int, n: int) -> list[int]:
    """Inverse of ``_rank`` for k-subsets of range(n)."""
    out = []
    p = n - 1
    for i in range(k, 0, -1):
        while comb(p, i) > rank:
            p -= 1
        out.append(p)
        rank -= comb(p, i)
        p -= 1
    return out[::-1]


class DealCodec:
    """The deals of one deck as actions: partitions (ko hand, field, oya hand) ranked in colex order."""

    def __init__(self, deck: int, hand_size: int, field_size: int) -> None:
        self.deck = deck
        self.deck_cards: list[int] = C.cards_of(deck)
        self._hand_size, self._field_size = hand_size, field_size
        n, h, f = len(self.deck_cards), hand_size, field_size
        self._c_field, self._c_oya = comb(n - h, f), comb(n - h - f, h)
        self.num_deals: int = comb(n, h) * self._c_field * self._c_oya
        self.deals_enumerable = self.num_deals <= ENUMERABLE_DEALS

    def _require_enumerable(self) -> None:
        if not self.deals_enumerable:
            raise GameDefinitionError(
                f"the deal has {self.num_deals:.3g} outcomes and is sampled, never enumerated; call "
                "sample_chance(rng) at this chance node (mini variants with small decks can be enumerated)"
            )

    def sample_deal(self, rng: np.random.Generator) -> tuple[int, int, int]:
        """A uniform partition (ko hand, field, oya hand) of the deck, as masks."""
        perm = rng.permutation(len(self.deck_cards))
        h, f = self._hand_size, self._field_size
        cards = self.deck_cards
        ko = C.mask_of(cards[i] for i in perm[:h])
        field = C.mask_of(cards[i] for i in perm[h:h + f])
        oya = C.mask_of(cards[i] for i in perm[h + f:2 * h + f])
        return ko, field, oya

    def encode_deal(self, ko: int, field: int, oya: int) -> int:
        """Rank of the partition (ko hand, field, oya hand) among all ``num_deals``."""
        h, f = self._hand_size, self._field_size
        if ko & field or ko & oya or field & oya or (ko | field | oya) & ~self.deck or (
            ko.bit_count(), field.bit_count(), oya.bit_count()) != (h, f, h):
            raise IllegalActionError(f"not a deal of {h}/{f}/{h} disjoint cards from this deck")
        rest = list(self.deck_cards)
        r1 = _rank([i for i, c in enumerate(rest) if ko >> c & 1])
        rest = [c for c in rest if not ko >> c & 1]
        r2 = _rank([i for i, c in enumerate(rest) if field >> c & 1])
        rest = [c for c in rest if not field >> c & 1]
        r3 = _rank([i for i, c in enumerate(rest) if oya >> c & 1])
        return (r1 * self._c_field + r2) * self._c_oya + r3

    def decode_deal(self, action: int) -> tuple[int, int, int]:
        """Inverse of ``encode_deal``."""
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_deals:
            raise IllegalActionError(f"deal action must be an integer in [0, {self.num_deals}), got {action!r}")
        h, f = self._hand_size, self._field_size
        rest_oya, r3 = divmod(int(action), self._c_oya)
        r1, r2 = divmod(rest_oya, self._c_field)
        rest = list(self.deck_cards)
        ko = [rest[i] for i in _unrank(r1, h, len(rest))]
        rest = [c for c in rest if c not in ko]
        fl = [rest[i] for i in _unrank(r2, f, len(rest))]
        rest = [c for c in rest if c not in fl]
        oy = [rest[i] for i in _unrank(r3, h, len(rest))]
        return C.mask_of(ko), C.mask_of(fl), C.mask_of(oy)
