"""Card sequences as integer keys, and their suit-isomorphic canonical form (numba).

A round-k card sequence is a tuple of *parts*: the private cards, then the
board cards of rounds 0..k, each part a set (bit mask over the deck's card
ids). Two sequences that differ by a renaming of the suits are strategically
identical (Waugh 2013, "A fast and optimal hand isomorphism algorithm"), so the
abstraction computes one value per class and gives the class one bucket.

Key of a sequence: mixed radix over the parts, each part's colexicographic
rank among the subsets of its size (``sum C(c_i, i+1)`` over its cards sorted
ascending), the private part most significant. The canonical key is the least
key over all suit permutations; every member of a class has the same one.
"""

from __future__ import annotations

from itertools import permutations
from math import comb

import numpy as np
from numba import njit
from numpy.typing import NDArray


def binomials(n: int = 53) -> NDArray[np.int64]:
    """``C[a, b]`` for a, b < n."""
    table = np.zeros((n, n), dtype=np.int64)
    for a in range(n):
        for b in range(a + 1):
            table[a, b] = comb(a, b)
    return table


def suit_permutations(ranks: int, suits: int) -> NDArray[np.int64]:
    """Card maps of every suit permutation: ``maps[p, card]`` (identity first)."""
    cards = np.arange(ranks * suits)
    return np.array(
        [(cards // suits) * suits + np.array(perm)[cards % suits] for perm in permutations(range(suits))],
        dtype=np.int64,
    )


def radices(deck: int, part_sizes: list[int]) -> NDArray[np.int64]:
    """Radix of each part: the number of subsets of its size."""
    return np.array([comb(deck, k) for k in part_sizes], dtype=np.int64)


@njit(cache=True, nogil=True)
def mask_rank(mask, binom):  # pragma: no cover - numba
    """Colexicographic rank of a set of cards given as a bit mask."""
    rank, i, card = 0, 1, 0
    while mask:
        if mask & 1:
            rank += binom[card, i]
            i += 1
        mask >>= 1
        card += 1
    return rank


@njit(cache=True, nogil=True)
def rank_mask(rank, size, deck, binom):  # pragma: no cover - numba
    """Inverse of ``mask_rank`` for a set of ``size`` cards from ``deck``."""
    mask = 0
    card = deck - 1
    for i in range(size, 0, -1):
        while binom[card, i] > rank:
            card -= 1
        rank -= binom[card, i]
        mask |= 1 << card
        card -= 1
    return mask


@njit(cache=True, nogil=True)
def sequence_key(masks, nparts, radix, binom):  # pragma: no cover - numba
    """Key of the parts ``masks[:nparts]``."""
    key = 0
    for j in range(nparts):
        key = key * radix[j] + mask_rank(masks[j], binom)
    return key


@njit(cache=True, nogil=True)
def permute_mask(mask, cmap):  # pragma: no cover - numba
    out, card = 0, 0
    while mask:
        if mask & 1:
            out |= 1 << cmap[card]
        mask >>= 1
        card += 1
    return out


@njit(cache=True, nogil=True)
def canonical_key(masks, nparts, maps, radix, binom):  # pragma: no cover - numba
    """Least key of the sequence over all suit permutations."""
    best = -1
    for p in range(maps.shape[0]):
        key = 0
        larger = False
        for j in range(nparts):
            key = key * radix[j] + mask_rank(permute_mask(masks[j], maps[p]), binom)
            if best >= 0 and key > best // _tail(radix, j + 1, nparts):
                larger = True  # already larger in a more significant part
                break
        if not larger and (best < 0 or key < best):
            best = key
    return best


@njit(cache=True, nogil=True)
def _tail(radix, start, nparts):  # pragma: no cover - numba
    out = 1
    for j in range(start, nparts):
        out *= radix[j]
    return out


@njit(cache=True, nogil=True)
def key_masks(key, nparts, sizes, deck, radix, binom):  # pragma: no cover - numba
    """Inverse of ``sequence_key``: the part masks of ``key``."""
    masks = np.zeros(nparts, dtype=np.int64)
    for j in range(nparts - 1, -1, -1):
        masks[j] = rank_mask(key % radix[j], sizes[j], deck, binom)
        key //= radix[j]
    return masks
