"""Hand strength and expected hand strength squared (numba), as in Zinkevich et al. (2008), sec. 4.1.

* Hand strength HS at the last round: the probability of beating an opponent
  hand drawn uniformly from the cards left, ties counting half.
* E[HS^2] after round k: the mean, over every completion of the board (drawn
  uniformly from the cards left, the opponent's unknown), of the square of the
  final HS. At the last round it is HS^2.

``river_strengths`` tabulates HS for every final board and private hand of a
deck (colexicographic ranks, ``cfrlab.games.holdem.suits``); ``expected_hs2``
averages its squares over completions. Exact enumeration: meant for decks up
to about 28 cards (the table has C(deck, board) x C(deck, private) entries).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.games.holdem.evaluator import hand_value_nb
from cfrlab.games.holdem.suits import mask_rank, rank_mask


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
    mask = 0
    for i in range(t):
        mask |= 1 << rest[idx[i]]
    return mask


@njit(cache=True, nogil=True)
def river_strengths(deck, hole, board, absolute, binom, flush, counts, dp, offsets):  # pragma: no cover
    """``hs[b, h]``: HS of private hand ``h`` on final board ``b`` (NaN where they share a card)."""
    nb, nh = binom[deck, board], binom[deck, hole]
    hs = np.full((nb, nh), np.nan, dtype=np.float32)
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
            n = 0
            for c in range(deck):
                if hole_masks[h] >> c & 1:
                    cards[n] = absolute[c]
                    n += 1
            live[count] = h
            values[count] = hand_value_nb(cards, hole + board, flush, counts, dp, offsets)
            count += 1
        for i in range(count):
            win, tie, total = 0.0, 0.0, 0.0
            mine = hole_masks[live[i]]
            for j in range(count):
                if hole_masks[live[j]] & mine:
                    continue
                total += 1.0
                if values[j] < values[i]:
                    win += 1.0
                elif values[j] == values[i]:
                    tie += 1.0
            hs[b, live[i]] = (win + 0.5 * tie) / total
    return hs


@njit(cache=True, nogil=True)
def expected_hs2(hole_mask, board_mask, final_board, deck, hs, binom):  # pragma: no cover - numba
    """E[HS^2] of a private hand and partial board: the mean over board completions of HS^2."""
    rest = np.empty(deck, dtype=np.int64)
    m = cards_left(hole_mask | board_mask, deck, rest)
    seen = 0
    c = board_mask
    while c:
        seen += c & 1
        c >>= 1
    t = final_board - seen
    idx = np.arange(max(t, 1))
    h = mask_rank(hole_mask, binom)
    total, n = 0.0, 0
    while True:
        x = hs[mask_rank(board_mask | chosen_mask(rest, idx, t), binom), h]
        total += x * x
        n += 1
        if not next_combination(idx, t, m):
            break
    return total / n


@njit(cache=True, nogil=True)
def current_strength(hole, board, rest, flush, counts, dp, offsets):  # pragma: no cover - numba
    """Probability of beating a uniform opponent hand from ``rest`` on the current board, ties half.

    ``hole``, ``board``, ``rest``: absolute card ids (the evaluator's); no board completion.
    """
    h, nb = len(hole), len(board)
    cards = np.empty(h + nb, dtype=np.int64)
    cards[:h] = hole
    cards[h:] = board
    mine = hand_value_nb(cards, h + nb, flush, counts, dp, offsets)
    idx = np.arange(h)
    score, total = 0.0, 0.0
    while True:
        for i in range(h):
            cards[i] = rest[idx[i]]
        theirs = hand_value_nb(cards, h + nb, flush, counts, dp, offsets)
        score += 1.0 if mine > theirs else (0.5 if mine == theirs else 0.0)
        total += 1.0
        if not next_combination(idx, h, len(rest)):
            break
    return score / total
