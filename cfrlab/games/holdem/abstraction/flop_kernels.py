"""numba kernels of the large-deck E[HS^2] abstraction: one flop at a time, every turn and river.

For one flop, the ``m`` cards left are numbered by *position* 0..m-1 (``rest[pos]``
is the absolute card). ``holes[h]`` is the position mask of private hand h
(colex order of ``hole_pos``), ``pair_index[t, r]`` the run-out (turn and river
as a set) of positions t and r, ``live[i]`` the private hands disjoint from
run-out i. Strength counts are as in ``cfrlab.games.holdem.abstraction.strength``
(``x = 2 * wins + ties`` against every opponent hand, -1 where a hand and a
run-out share a card).

* ``flop_strengths``: x and the rank of the hand value (dense: equal hands,
  equal ranks) of every private hand on every run-out, from one sort of the
  run-out's hands: wins of hand {a, b} = hands below it minus those below it
  holding a or b (card removal by counting). Both fit 16 bits: the builder
  keeps them for the later passes instead of evaluating hands again.
* ``flop_sums``: sums of squared counts over the completions of the flop
  (E[HS^2] after the flop) and of each turn (E[HS^2] after the turn).
* ``river_histogram``: weight of each (turn bucket sequence, river count).
* ``items_by_group`` and ``turn_sequences``: the turn buckets from the counts
  after the turn, group by group (no array of every item's key and order).
* ``sample_pairs`` and ``add_samples``: both players' river bucket sequences
  and the showdown for ``samples`` random pairs of private hands on every turn
  and river, spread over independent replicate tables (every pair, the exact
  table: ``cfrlab.games.holdem.abstraction.exact_joint``).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.games.holdem.rules.evaluator import hand_value_nb
from cfrlab.games.holdem.rules.suits import canonical_key


@njit(cache=True, nogil=True)
def flop_strengths(flop_abs, rest_abs, hole_pos, pair_pos, live, flush, counts, dp, offsets):  # pragma: no cover
    """``(x, rank)``: strength count and hand-value rank of hand h on run-out i, int16 arrays ``[i, h]``."""
    nr, nh, hc, nlive, nf = pair_pos.shape[0], hole_pos.shape[0], hole_pos.shape[1], live.shape[1], len(flop_abs)
    x = np.full((nr, nh), -1, dtype=np.int16)
    rank = np.full((nr, nh), -1, dtype=np.int16)
    cards = np.empty(hc + nf + 2, dtype=np.int64)
    cards[hc : hc + nf] = flop_abs
    vals = np.empty(nlive, dtype=np.int64)
    below_card = np.zeros(len(rest_abs), dtype=np.int64)
    run_card = np.zeros(len(rest_abs), dtype=np.int64)
    for i in range(nr):
        cards[hc + nf] = rest_abs[pair_pos[i, 0]]
        cards[hc + nf + 1] = rest_abs[pair_pos[i, 1]]
        for j in range(nlive):
            h = live[i, j]
            for c in range(hc):
                cards[c] = rest_abs[hole_pos[h, c]]
            vals[j] = hand_value_nb(cards, hc + nf + 2, flush, counts, dp, offsets)
        order = np.argsort(vals)
        below_card[:] = 0
        below, start, run = 0, 0, 0
        while start < nlive:
            end = start
            while end < nlive and vals[order[end]] == vals[order[start]]:
                end += 1
            for q in range(start, end):
                for c in range(hc):
                    run_card[hole_pos[live[i, order[q]], c]] += 1
            for q in range(start, end):
                h = live[i, order[q]]
                wins, ties = below, end - start
                for c in range(hc):
                    wins -= below_card[hole_pos[h, c]]
                    ties -= run_card[hole_pos[h, c]]
                if hc == 2:
                    ties += 1  # the hand itself, removed once per card
                x[i, h] = 2 * wins + ties
                rank[i, h] = run
            for q in range(start, end):
                for c in range(hc):
                    p = hole_pos[live[i, order[q]], c]
                    below_card[p] += run_card[p]
                    run_card[p] = 0
            below += end - start
            start = end
            run += 1
    return x, rank


@njit(cache=True, nogil=True)
def flop_sums(x, holes, pair_index):  # pragma: no cover - numba
    """``(after_flop[h], after_turn[t, h])``: sums of x^2 over each completion (-1 where t is in hand h)."""
    nh, m = x.shape[1], pair_index.shape[0]
    after_flop = np.zeros(nh, dtype=np.int64)
    after_turn = np.full((m, nh), -1, dtype=np.int64)
    for h in range(nh):
        for i in range(x.shape[0]):
            if x[i, h] >= 0:
                after_flop[h] += np.int64(x[i, h]) * x[i, h]
        for t in range(m):
            if holes[h] >> t & 1:
                continue
            total = np.int64(0)
            for r in range(m):
                if r != t and not holes[h] >> r & 1:
                    v = np.int64(x[pair_index[t, r], h])
                    total += v * v
            after_turn[t, h] = total
    return after_flop, after_turn


@njit(cache=True, nogil=True)
def river_histogram(x, turn_seq, pair_index, weight, hist):  # pragma: no cover - numba
    """``hist[turn sequence, x] += weight`` for every hand, turn and river of the flop."""
    m, nh = pair_index.shape[0], x.shape[1]
    for t in range(m):
        for r in range(m):
            if r == t:
                continue
            i = pair_index[t, r]
            for h in range(nh):
                if x[i, h] >= 0:
                    hist[turn_seq[t, h], x[i, h]] += weight


@njit(cache=True, nogil=True)
def _river_sequence(turn_sequence, count, cuts, n):  # pragma: no cover - numba
    b = 0
    for j in range(n - 1):
        if cuts[turn_sequence, j] <= count:
            b += 1
    return turn_sequence * n + b


@njit(cache=True, nogil=True)
def _live_sequences(x, turn_seq, cuts, n, live, t, i, seq):  # pragma: no cover - numba
    """``seq[h]``: the river bucket sequence of each live hand h on turn t and run-out i."""
    for j in range(live.shape[1]):
        h = live[i, j]
        seq[h] = _river_sequence(turn_seq[t, h], x[i, h], cuts, n)


@njit(cache=True, nogil=True)
def _runouts(pair_index):  # pragma: no cover - numba
    """(turn t, index i of the run-out) of every turn t and river r != t of the flop, in the order
    ``sample_pairs`` visits them."""
    m = pair_index.shape[0]
    out = np.empty((m * (m - 1), 2), dtype=np.int64)
    k = 0
    for t in range(m):
        for r in range(m):
            if r != t:
                out[k, 0], out[k, 1] = t, pair_index[t, r]
                k += 1
    return out


@njit(cache=True, nogil=True)
def sample_pairs(x, value, turn_seq, cuts, n, holes, pair_index, live, samples, seed):  # pragma: no cover
    """``samples`` uniform pairs of disjoint hands on each turn and river of the flop: both hands' river bucket
    sequences and the showdown for the first (+1, 0, -1), in the order drawn (``add_samples`` tables them)."""
    np.random.seed(seed)
    m, nlive = pair_index.shape[0], live.shape[1]
    total = m * (m - 1) * samples
    first = np.empty(total, dtype=np.int32)
    second = np.empty(total, dtype=np.int32)
    won = np.empty(total, dtype=np.int8)
    seq = np.empty(x.shape[1], dtype=np.int64)
    k = 0
    runs = _runouts(pair_index)
    for q in range(runs.shape[0]):
        i = runs[q, 1]
        _live_sequences(x, turn_seq, cuts, n, live, runs[q, 0], i, seq)
        for _ in range(samples):
            ha = live[i, np.random.randint(nlive)]
            hb = live[i, np.random.randint(nlive)]
            while holes[ha] & holes[hb]:
                hb = live[i, np.random.randint(nlive)]
            first[k], second[k], won[k] = seq[ha], seq[hb], np.sign(value[i, ha] - value[i, hb])
            k += 1
    return first, second, won


@njit(cache=True, nogil=True)
def add_samples(first, second, won, samples, weight, joint, result, moments):  # pragma: no cover - numba
    """Add one flop's samples (``sample_pairs``) to the tables: sample j of each board into replicate
    ``j % reps``, counted in both seats (the table is symmetric, the result antisymmetric), and each sample's
    squared contribution to a cell added to ``moments`` (0: deal weight squared, 1: result squared, 2: their
    product): the samples are independent, so these sums estimate each cell's sampling variance."""
    reps = joint.shape[0]
    for k in range(len(first)):
        rep = (k % samples) % reps
        sa, sb = first[k], second[k]
        w = weight * won[k]
        joint[rep, sa, sb] += weight
        joint[rep, sb, sa] += weight
        result[rep, sa, sb] += w
        result[rep, sb, sa] -= w
        if sa == sb:  # one cell gets 2 x weight and no result
            moments[0, sa, sa] += 4 * weight * weight
            continue
        for c0, c1, sign in ((sa, sb, 1.0), (sb, sa, -1.0)):
            moments[0, c0, c1] += weight * weight
            moments[1, c0, c1] += w * w
            moments[2, c0, c1] += sign * w * weight


@njit(cache=True, nogil=True)
def items_by_group(after_turn, flop_seq, ngroups):  # pragma: no cover - numba
    """The counts after the turn (``after_turn[f, t, h] >= 0``) sorted by the flop bucket sequence of their hand
    (a counting sort, in ``f, t, h`` order within a group): ``(starts, counts, flops)``, group g's items at
    ``starts[g]:starts[g + 1]``, with the flop each came from."""
    nf, m, nh = after_turn.shape
    starts = np.zeros(ngroups + 1, dtype=np.int64)
    for f in range(nf):
        for t in range(m):
            for h in range(nh):
                if after_turn[f, t, h] >= 0:
                    starts[flop_seq[f, h] + 1] += 1
    for g in range(ngroups):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    counts = np.empty(starts[-1], dtype=after_turn.dtype)
    flops = np.empty(starts[-1], dtype=np.int32)
    for f in range(nf):
        for t in range(m):
            for h in range(nh):
                if after_turn[f, t, h] >= 0:
                    g = flop_seq[f, h]
                    counts[fill[g]], flops[fill[g]] = after_turn[f, t, h], f
                    fill[g] += 1
    return starts, counts, flops


@njit(cache=True, nogil=True)
def turn_sequences(after_turn, flop_seq, cuts, n):  # pragma: no cover - numba
    """Each hand's turn bucket sequence from its count and the cuts of its flop sequence (0 where the turn card
    is in the hand): bucket j is the number of cuts at or below the count."""
    nf, m, nh = after_turn.shape
    out = np.zeros((nf, m, nh), dtype=np.int32)
    for f in range(nf):
        for t in range(m):
            for h in range(nh):
                count = after_turn[f, t, h]
                if count >= 0:
                    g = flop_seq[f, h]
                    b = 0
                    for j in range(n - 1):
                        if cuts[g, j] <= count:
                            b += 1
                    out[f, t, h] = g * n + b
    return out


@njit(cache=True, nogil=True)
def canonical_keys(masks, maps, radix, binom):  # pragma: no cover - numba
    """Canonical key (``cfrlab.games.holdem.rules.suits.canonical_key``) of each one-part card set in ``masks``."""
    out = np.empty(len(masks), dtype=np.int64)
    part = np.empty(1, dtype=np.int64)
    for i in range(len(masks)):
        part[0] = masks[i]
        out[i] = canonical_key(part, np.int64(1), maps, radix, binom)
    return out


def flop_layout(m: int, hole_cards: int) -> tuple[NDArray[np.int64], ...]:
    """Position tables shared by every flop: hands, their masks, run-outs, their index, live hands."""
    hole_pos = np.array(list(combinations(range(m), hole_cards)), dtype=np.int64)
    holes = (np.int64(1) << hole_pos).sum(axis=1)
    pair_pos = np.array(list(combinations(range(m), 2)), dtype=np.int64)
    pair_index = np.full((m, m), -1, dtype=np.int64)
    pair_index[pair_pos[:, 0], pair_pos[:, 1]] = np.arange(len(pair_pos))
    pair_index[pair_pos[:, 1], pair_pos[:, 0]] = np.arange(len(pair_pos))
    pair_masks = (np.int64(1) << pair_pos).sum(axis=1)
    live = np.array([np.flatnonzero((holes & mask) == 0) for mask in pair_masks], dtype=np.int64)
    return hole_pos, holes, pair_pos, pair_index, live
