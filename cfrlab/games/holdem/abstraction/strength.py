"""Hand strength and expected hand strength squared (numba), as in Zinkevich et al. (2008), sec. 4.1.

* Hand strength HS at the last round: the probability of beating an opponent
  hand drawn uniformly from the cards left, ties counting half.
* E[HS^2] after round k: the mean, over every completion of the board (drawn
  uniformly from the cards left, the opponent's unknown), of the square of the
  final HS. At the last round it is HS^2.

Everything is kept in integers so that equal values are equal exactly (the
buckets never separate them): a river HS is ``x / (2 * opponents)`` with the
*strength count* ``x = 2 * wins + ties``, and E[HS^2] after a round is
``sum x^2 / (completions * (2 * opponents)^2)``; ``ehs2_value`` converts.

``river_strengths`` tabulates x for every final board and private hand of a
deck (colexicographic ranks, ``cfrlab.games.holdem.rules.suits``); ``expected_hs2``
sums its squares over completions. Exact enumeration: meant for decks up to
about 28 cards (the table has C(deck, board) x C(deck, private) entries).
``strength_count`` and ``ehs2_count`` compute the same numbers for one hand
from scratch (any deck: the 52-card abstraction looks hands up this way).
"""

from __future__ import annotations

from typing import overload

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.games.holdem.rules.evaluator import hand_value_nb
from cfrlab.games.holdem.rules.suits import mask_rank, rank_mask


@njit(cache=True, nogil=True)
def next_combination(idx, t, m):  # pragma: no cover - numba
    """Advance ``idx[:t]`` (increasing indices into ``range(m)``) in place; False after the last."""
    i = t - 1
    while i >= 0 and idx[i] == m - t + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, t):
        idx[j] = idx[j - 1] + 1
    return True


@njit(cache=True, nogil=True)
def cards_left(used, deck, rest):  # pragma: no cover - numba
    """Write the cards of ``range(deck)`` not in the mask ``used`` into ``rest``; return how many."""
    m = 0
    for c in range(deck):
        if not used >> c & 1:
            rest[m] = c
            m += 1
    return m


@njit(cache=True, nogil=True)
def chosen_mask(rest, idx, t):  # pragma: no cover - numba
    """Mask of the cards ``rest[idx[:t]]``."""
    mask = np.int64(0)
    for i in range(t):
        mask |= 1 << rest[idx[i]]
    return mask


@njit(cache=True, nogil=True)
def river_strengths(deck, hole, board, absolute, binom, flush, counts, dp, offsets):  # pragma: no cover
    """``hs[b, h]``: strength count of private hand ``h`` on final board ``b`` (-1 where they share a card)."""
    nb, nh = binom[deck, board], binom[deck, hole]
    hs = np.full((nb, nh), -1, dtype=np.int32)
    hole_masks = np.empty(nh, dtype=np.int64)
    for h in range(nh):
        hole_masks[h] = rank_mask(h, hole, deck, binom)
    cards = np.empty(hole + board, dtype=np.int64)
    live = np.empty(nh, dtype=np.int64)
    values = np.empty(nh, dtype=np.int64)
    for b in range(nb):
        bmask = rank_mask(b, board, deck, binom)
        n = hole
        for c in range(deck):
            if bmask >> c & 1:
                cards[n] = absolute[c]
                n += 1
        count = 0
        for h in range(nh):
            if hole_masks[h] & bmask:
                continue
            n = np.int64(0)
            for c in range(deck):
                if hole_masks[h] >> c & 1:
                    cards[n] = absolute[c]
                    n += 1
            live[count] = h
            values[count] = hand_value_nb(cards, hole + board, flush, counts, dp, offsets)
            count += 1
        for i in range(count):
            x = 0
            mine = hole_masks[live[i]]
            for j in range(count):
                if hole_masks[live[j]] & mine or j == i:
                    continue
                if values[j] < values[i]:
                    x += 2
                elif values[j] == values[i]:
                    x += 1
            hs[b, live[i]] = x
    return hs


@overload
def ehs2_value(count: int, completions: int, opponents: int) -> float: ...
@overload
def ehs2_value(count: NDArray[np.int64], completions: int, opponents: int) -> NDArray[np.float64]: ...


def ehs2_value(count: int | NDArray[np.int64], completions: int, opponents: int) -> float | NDArray[np.float64]:
    """E[HS^2] from a summed squared strength count (``expected_hs2``, ``ehs2_count``)."""
    return count / (completions * (2.0 * opponents) ** 2)


@njit(cache=True, nogil=True)
def expected_hs2(hole_mask, board_mask, final_board, deck, hs, binom):  # pragma: no cover - numba
    """Sum over board completions of the squared strength count of a private hand and partial board."""
    rest = np.empty(deck, dtype=np.int64)
    m = cards_left(hole_mask | board_mask, deck, rest)
    seen = np.int64(0)
    c = board_mask
    while c:
        seen += c & 1
        c >>= 1
    t = final_board - seen
    idx = np.arange(max(t, 1))
    h = mask_rank(hole_mask, binom)
    total = 0
    while True:
        x = np.int64(hs[mask_rank(board_mask | chosen_mask(rest, idx, t), binom), h])
        total += x * x
        if not next_combination(idx, t, m):
            break
    return total


@njit(cache=True, nogil=True)
def current_strength(hole, board, rest, flush, counts, dp, offsets):  # pragma: no cover - numba
    """Probability of beating a uniform opponent hand from ``rest`` on the current board, ties half.

    ``hole``, ``board``, ``rest``: absolute card ids (the evaluator's); no board completion.
    """
    x, total = strength_count(hole, board, rest, flush, counts, dp, offsets)
    return x / (2.0 * total)


@njit(cache=True, nogil=True)
def strength_count(hole, board, rest, flush, counts, dp, offsets):  # pragma: no cover - numba
    """``(2 * wins + ties, opponent hands)`` against every opponent hand from ``rest`` on ``board``."""
    h, nb = len(hole), len(board)
    cards = np.empty(h + nb, dtype=np.int64)
    cards[:h] = hole
    cards[h:] = board
    mine = hand_value_nb(cards, h + nb, flush, counts, dp, offsets)
    idx = np.arange(h)
    score, total = 0, 0
    while True:
        for i in range(h):
            cards[i] = rest[idx[i]]
        theirs = hand_value_nb(cards, h + nb, flush, counts, dp, offsets)
        score += 2 if mine > theirs else (1 if mine == theirs else 0)
        total += 1
        if not next_combination(idx, h, len(rest)):
            break
    return score, total


@njit(cache=True, nogil=True)
def ehs2_count(hole, board, rest, final_board, flush, counts, dp, offsets):  # pragma: no cover - numba
    """Sum of squared strength counts over every completion of ``board`` to ``final_board`` cards from ``rest``.

    Absolute card ids, as ``strength_count``; ``rest`` holds the cards neither in ``hole`` nor on ``board``.
    """
    t = final_board - len(board)
    full = np.empty(final_board, dtype=np.int64)
    full[: len(board)] = board
    others = np.empty(len(rest) - t, dtype=np.int64)
    idx = np.arange(max(t, 1))
    total = np.int64(0)
    while True:
        chosen = 0
        for i in range(t):
            full[len(board) + i] = rest[idx[i]]
            chosen |= np.int64(1) << idx[i]
        n = 0
        for i in range(len(rest)):
            if not chosen >> i & 1:
                others[n] = rest[i]
                n += 1
        x, _ = strength_count(hole, full, others, flush, counts, dp, offsets)
        total += np.int64(x) * x
        if t == 0 or not next_combination(idx, t, len(rest)):
            break
    return total
