"""Poker hand evaluation for one to seven cards, callable from numba kernels.

A hand's value is an int (higher is better) that orders hands as the ACPC
server does (``evalHandTables``), which OpenSpiel's ``universal_poker`` uses:
the best five cards count; straight flush > four of a kind > full house >
flush > straight > three of a kind > two pair > one pair > high card; the
ace plays low only in the wheel A-2-3-4-5; straights and flushes need five
cards, so hands of fewer cards are ranked by pairs, trips, quads and kickers.

Cards here are *absolute*: ``4 * rank + suit`` with rank 0..12 for 2..A and
suit 0..3 for c d h s. A game with fewer ranks uses the lowest ones (ACPC).

Value layout: ``category << 20 | k1 << 16 | ... | k5`` where each kicker is
``rank + 1`` (0 = no card), category 0 (high card) .. 8 (straight flush).

Two tables, built once by ``build_tables`` (pure Python, a few seconds) and
cached on disk under ``$CFRLAB_CACHE_DIR/holdem`` (default
``~/.cache/cfrlab/holdem``):

* ``flush[mask]``: value of the best flush or straight flush within the
  13-bit rank mask of one suit (0 under five cards);
* ``counts[h]``: value of the hand ignoring suits, at the perfect hash ``h`` of
  its rank-count vector (each count 0..4, total 1..7), the quinary hash of
  Henry Lee's PH evaluator (2016).

``hand_value(cards, n)`` (numba) adds each card's counts, hashes them and takes
the flush value when a suit holds five cards. Cross-tested against ``eval7``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays

NUM_RANKS = 13
NUM_SUITS = 4
MAX_CARDS = 7
MAX_COUNT = 4
TABLES_VERSION = 1
CATEGORIES = (
    "High card", "Pair", "Two pair", "Three of a kind", "Straight",
    "Flush", "Full house", "Four of a kind", "Straight flush",
)
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
_WHEEL = (12, 0, 1, 2, 3)


def _value(category: int, kickers: list[int]) -> int:
    """Pack a category and up to five ranks (0..12, best first)."""
    value = category
    for i in range(5):
        value = (value << 4) | (kickers[i] + 1 if i < len(kickers) else 0)
    return value


def _straight_top(ranks: set[int]) -> int:
    """Top rank of the best five-card straight among ``ranks``, or -1 (wheel: 3, the five)."""
    for top in range(NUM_RANKS - 1, 3, -1):
        if all(top - i in ranks for i in range(5)):
            return top
    return 3 if all(r in ranks for r in _WHEEL) else -1


def flush_value(mask: int) -> int:
    """Value of the best flush within a one-suit rank mask; 0 under five cards."""
    ranks = {r for r in range(NUM_RANKS) if mask >> r & 1}
    if len(ranks) < 5:
        return 0
    top = _straight_top(ranks)
    if top >= 0:
        return _value(STRAIGHT_FLUSH, [top])
    return _value(FLUSH, sorted(ranks, reverse=True)[:5])


def counts_value(counts: tuple[int, ...]) -> int:
    """Value of a hand from its per-rank counts, suits ignored (no flush)."""
    by_count = {k: [r for r in range(NUM_RANKS - 1, -1, -1) if counts[r] == k] for k in (1, 2, 3, 4)}
    present = [r for r in range(NUM_RANKS - 1, -1, -1) if counts[r] > 0]
    if by_count[4]:
        quad = by_count[4][0]
        return _value(QUADS, [quad] + [r for r in present if r != quad][:1])
    trips, pairs = by_count[3], by_count[2]
    if trips and (len(trips) > 1 or pairs):
        top = trips[0]
        second = max([r for r in trips[1:]] + pairs)
        return _value(FULL_HOUSE, [top, second])
    top = _straight_top(set(present))
    if top >= 0:
        return _value(STRAIGHT, [top])
    if trips:
        return _value(TRIPS, [trips[0]] + [r for r in present if r != trips[0]][:2])
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return _value(TWO_PAIR, [high, low] + [r for r in present if r not in (high, low)][:1])
    if pairs:
        return _value(PAIR, [pairs[0]] + [r for r in present if r != pairs[0]][:3])
    return _value(HIGH, present[:5])


def _hash_table() -> NDArray[np.int64]:
    """``dp[r, k]``: rank-count vectors over ranks r..12 (counts 0..4) summing to k."""
    dp = np.zeros((NUM_RANKS + 1, MAX_CARDS + 1), dtype=np.int64)
    dp[NUM_RANKS, 0] = 1
    for r in range(NUM_RANKS - 1, -1, -1):
        for k in range(MAX_CARDS + 1):
            dp[r, k] = sum(dp[r + 1, k - j] for j in range(min(k, MAX_COUNT) + 1))
    return dp


def _offsets(dp: NDArray[np.int64]) -> NDArray[np.int64]:
    """Start of the block of vectors with total k, for k = 0..7."""
    return np.concatenate([[0], np.cumsum(dp[0])]).astype(np.int64)


def _count_vectors(total: int, rank: int = 0) -> list[tuple[int, ...]]:
    """All count vectors over ranks ``rank``..12 summing to ``total``, in hash order."""
    if rank == NUM_RANKS:
        return [()] if total == 0 else []
    out: list[tuple[int, ...]] = []
    for c in range(min(total, MAX_COUNT) + 1):
        out.extend((c,) + rest for rest in _count_vectors(total - c, rank + 1))
    return out


def build_tables() -> dict[str, NDArray[np.signedinteger]]:
    """Compute the flush and rank-count tables (pure Python, a few seconds)."""
    dp = _hash_table()
    offsets = _offsets(dp)
    counts = np.zeros(int(offsets[-1]), dtype=np.int32)
    for total in range(1, MAX_CARDS + 1):
        for i, vector in enumerate(_count_vectors(total)):
            counts[offsets[total] + i] = counts_value(vector)
    flush = np.array([flush_value(m) for m in range(1 << NUM_RANKS)], dtype=np.int32)
    return {"flush": flush, "counts": counts, "dp": dp, "offsets": offsets}


def tables_dir() -> Path:
    """Where the hold'em tables are cached: ``$CFRLAB_CACHE_DIR/holdem`` or ``~/.cache/cfrlab/holdem``."""
    root = os.environ.get("CFRLAB_CACHE_DIR")
    return (Path(root) if root else Path.home() / ".cache" / "cfrlab") / "holdem"


@lru_cache(maxsize=1)
def tables() -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int64], NDArray[np.int64]]:
    """``(flush, counts, dp, offsets)``, from the disk cache or built and saved once."""
    path = tables_dir() / f"evaluator-v{TABLES_VERSION}.npz"
    arrays: dict[str, NDArray[np.int64]] | None = None
    if path.exists():
        try:
            arrays, meta = load_arrays(path, "hand evaluator tables")
            if meta.get("version") != TABLES_VERSION:
                arrays = None
        except (CheckpointError, KeyError, ValueError):
            arrays = None  # corrupt or stale: rebuild
    if arrays is None:
        arrays = build_tables()
        path.parent.mkdir(parents=True, exist_ok=True)
        save_arrays(path, arrays, {"kind": "holdem-evaluator", "version": TABLES_VERSION})
    return (
        arrays["flush"].astype(np.int32),
        arrays["counts"].astype(np.int32),
        arrays["dp"].astype(np.int64),
        arrays["offsets"].astype(np.int64),
    )


@njit(cache=True, nogil=True)
def hand_value_nb(cards, n, flush, counts, dp, offsets):  # pragma: no cover - numba
    """Value of the absolute cards ``cards[:n]`` (n <= 7) given the tables.

    Rank counts are packed 3 bits a rank and suit masks 13 bits a suit in two
    ints, so the kernel allocates nothing.
    """
    packed = 0
    masks = 0
    for i in range(n):
        rank, suit = cards[i] >> 2, cards[i] & 3
        packed += 1 << (3 * rank)
        masks |= 1 << (13 * suit + rank)
    index, left = offsets[n], n
    for r in range(NUM_RANKS):
        c = (packed >> (3 * r)) & 7
        for j in range(c):
            index += dp[r + 1, left - j]
        left -= c
        if left == 0:
            break
    value = counts[index]
    if n >= 5:
        for s in range(NUM_SUITS):
            f = flush[(masks >> (13 * s)) & 0x1FFF]
            if f > value:
                value = f
    return value


@njit(cache=True, nogil=True)
def hand_values_nb(hands, flush, counts, dp, offsets):  # pragma: no cover - numba
    """Values of each row of ``hands`` (rows of absolute cards; -1 pads short hands)."""
    out = np.empty(hands.shape[0], dtype=np.int32)
    for h in range(hands.shape[0]):
        n = np.int64(0)
        while n < hands.shape[1] and hands[h, n] >= 0:
            n += 1
        out[h] = hand_value_nb(hands[h], n, flush, counts, dp, offsets)
    return out


def hand_values(hands: NDArray[np.integer]) -> NDArray[np.int32]:
    """Values of many hands at once: rows of absolute cards, ``-1`` padding short hands."""
    hands = np.ascontiguousarray(np.atleast_2d(hands), dtype=np.int64)
    return hand_values_nb(hands, *tables())


def hand_value(cards: list[int] | tuple[int, ...]) -> int:
    """Value of one hand of absolute cards (1 to 7 cards)."""
    if not 1 <= len(cards) <= MAX_CARDS:
        raise ValueError(f"a hand has 1 to {MAX_CARDS} cards, got {len(cards)}")
    return int(hand_value_nb(np.asarray(cards, dtype=np.int64), len(cards), *tables()))


def category(value: int) -> str:
    """Name of a value's category, e.g. ``"Full house"``."""
    return CATEGORIES[value >> 20]
