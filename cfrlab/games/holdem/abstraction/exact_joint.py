"""The exact joint bucket-sequence table of the large-deck builder: every deal counted once.

A deal is a board (flop, turn, river) and an ordered pair of disjoint private
hands. ``large_builder`` already visits one flop per suit-isomorphism class
(weighted); here the turn and river are reduced too: a suit renaming that maps
the flop onto itself maps a (turn, river) to one that gives every hand the same
bucket sequence and the same showdown order, so one (turn, river) of each orbit
of the flop's stabiliser is played, weighted by the orbit (``canonical_runouts``:
about half the run-outs of 52 cards).

On each board the work is on histograms of the board's bucket sequences, not on
pairs of hands (``board_tables``):

* the deals of sequences (s, s') are ``H[s] H[s']`` (all ordered pairs) less
  the pairs sharing a card, ``sum_c H_c[s] H_c[s']`` over the cards c (``H_c``:
  the hands holding c; a hand paired with itself shares all its cards), plus
  each hand once per extra card it holds (it was taken away that many times);
* the showdowns, hands swept in the order of their value with the histogram of
  the hands below: ``R[s, s'] = #(a in s, b in s' below a, disjoint)``, the
  hands below that share a card taken away by the same card lists; the
  showdown sum is ``R - R^T``.

The sums are whole numbers (flop and orbit weights, counts), so they are exact
in float64 and the order in which flops are added does not change them: a build
checkpoints the sums after every few flops and a resumed one continues from them
(``large_builder.exact_deals``).
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays


def canonical_runouts(flop: int, rest: NDArray[np.int64], maps: NDArray[np.int64]
                      ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """``(turn, river, weight)`` positions in ``rest`` of one (turn, river) per orbit of the suit renamings that
    map the flop (card mask) onto itself, and each orbit's size."""
    flop_cards = [c for c in range(maps.shape[1]) if flop >> c & 1]
    stabiliser = [m for m in maps if sorted(m[flop_cards].tolist()) == flop_cards]
    position = np.full(maps.shape[1], -1, dtype=np.int64)
    position[rest] = np.arange(len(rest))
    m = len(rest)
    grid = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    keep = grid[0].ravel() != grid[1].ravel()
    t, r = grid[0].ravel()[keep], grid[1].ravel()[keep]
    least = t * m + r
    for perm in stabiliser:
        least = np.minimum(least, position[perm[rest[t]]] * m + position[perm[rest[r]]])
    codes, weight = np.unique(least, return_counts=True)
    return codes // m, codes % m, weight.astype(np.int64)


@njit(cache=True, nogil=True)
def _sequences(x, turn_seq, cuts, n, live, t, i, local_of, glob, seq, loc):  # pragma: no cover - numba
    """Each live hand's river bucket sequence (``seq``) and its board-local number (``loc``, ``glob`` the inverse);
    the number of distinct sequences."""
    k = 0
    for j in range(live.shape[1]):
        h = live[i, j]
        s = turn_seq[t, h] * n
        for c in range(n - 1):
            if cuts[turn_seq[t, h], c] <= x[i, h]:
                s += 1
        seq[j] = s
        if local_of[s] < 0:
            local_of[s] = k
            glob[k] = s
            k += 1
        loc[j] = local_of[s]
    return k


@njit(cache=True, nogil=True)
def board_tables(x, value, turn_seq, cuts, n, hole_pos, live, t, i, work, weight, joint, result):  # pragma: no cover
    """Add one board's deals (``weight`` each) to ``joint[s, s']`` and showdown sums (player 0's +1/0/-1) to
    ``result[s, s']``, from the histograms of its bucket sequences (module docstring). ``work`` is the scratch of
    ``board_work``."""
    local_of, glob, seq, loc, hist, below, nonzero, members, count, deals, wins, order_value = work
    nl, hc = live.shape[1], hole_pos.shape[1]
    k = _sequences(x, turn_seq, cuts, n, live, t, i, local_of, glob, seq, loc)
    hist[:k] = 0
    count[:] = 0
    for j in range(nl):
        hist[loc[j]] += 1
        for c in range(hc):
            p = hole_pos[live[i, j], c]
            members[p, count[p]] = j
            count[p] += 1
    for a in range(k):
        for b in range(k):
            deals[a, b] = hist[a] * hist[b]
            wins[a, b] = 0
    for p in range(len(count)):
        for u in range(count[p]):
            for v in range(count[p]):
                deals[loc[members[p, u]], loc[members[p, v]]] -= 1
    for j in range(nl):
        deals[loc[j], loc[j]] += hc - 1
    for j in range(nl):
        order_value[j] = value[i, live[i, j]]
    order = np.argsort(order_value[:nl])
    below[:k] = 0
    nz = 0
    start = 0
    while start < nl:
        end = start
        while end < nl and order_value[order[end]] == order_value[order[start]]:
            end += 1
        for q in range(start, end):
            a = order[q]
            la = loc[a]
            for z in range(nz):
                u = nonzero[z]
                wins[la, u] += below[u]
            for c in range(hc):
                p = hole_pos[live[i, a], c]
                for v in range(count[p]):
                    b = members[p, v]
                    if order_value[b] < order_value[a]:
                        wins[la, loc[b]] -= 1
        for q in range(start, end):
            lb = loc[order[q]]
            if below[lb] == 0:
                nonzero[nz] = lb
                nz += 1
            below[lb] += 1
        start = end
    for a in range(k):
        for b in range(k):
            if deals[a, b]:
                joint[glob[a], glob[b]] += weight * deals[a, b]
                result[glob[a], glob[b]] += weight * (wins[a, b] - wins[b, a])
    for a in range(k):
        local_of[glob[a]] = -1


def board_work(nseq: int, nlive: int, m: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays of ``board_tables`` for ``nseq`` bucket sequences, ``nlive`` hands a board, ``m`` cards."""
    ints = np.int64
    return (np.full(nseq, -1, dtype=ints), np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros(nlive, ints),
            np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros((m, nlive), ints),
            np.zeros(m, ints), np.zeros((nlive, nlive), ints), np.zeros((nlive, nlive), ints),
            np.zeros(nlive, ints))


@njit(cache=True, nogil=True)
def flop_tables(x, value, turn_seq, cuts, n, hole_pos, pair_index, live, turns, rivers, weights, flop_weight, work,
                joint, result):  # pragma: no cover - numba
    """``board_tables`` on each canonical run-out of one flop (``canonical_runouts``)."""
    for b in range(len(turns)):
        t, r = turns[b], rivers[b]
        board_tables(x, value, turn_seq, cuts, n, hole_pos, live, t, pair_index[t, r], work,
                     flop_weight * weights[b], joint, result)


PARTIAL_KIND = "ehs2-exact-partial"
CHECKPOINT_SECONDS = 120.0
"""Seconds between checkpoints of the exact pass's sums (more where a write takes over 5 % of the time)."""


def exact_tables(b: Any, turn_seq: NDArray[np.int32], cuts: NDArray[np.int64], partial: Path | None,
                 identity: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Pass 3 of ``large_builder._Builder`` made exact: ``(joint, result)``, shaped ``(1, nseq, nseq)``, summed
    flop by flop on ``b.workers`` threads (one pair of tables each). With ``partial``, the sums and the flops done
    are saved there every ``CHECKPOINT_SECONDS`` and at an interruption, and a build of the same ``identity``
    (the abstraction's fingerprint and cuts) continues from them; the file is removed once the pass ends."""
    nseq, total = int(np.prod(b.buckets)), len(b.flops)
    digest = f"{identity}:{hashlib.sha256(np.ascontiguousarray(cuts).tobytes()).hexdigest()[:16]}"
    joint, result, done = _resumed(partial, digest, nseq, total)
    tables = [(joint, result)] + [(np.zeros_like(joint), np.zeros_like(result)) for _ in range(b.workers - 1)]
    works = [board_work(nseq, b.live.shape[1], b.m) for _ in range(b.workers)]
    slots: dict = {}

    def work(f: int) -> None:
        slot = slots.setdefault(threading.get_ident(), len(slots)) % b.workers
        x, value = b.strengths(f)
        turns, rivers, weights = canonical_runouts(int(b.flops[f]), b._rest(f), b.maps)
        flop_tables(x, value, turn_seq[f], cuts, b.buckets[3], b.hole_pos, b.pair_index, b.live, turns, rivers,
                    weights, float(b.flop_weight[f]), works[slot], *tables[slot])

    todo = [f for f in range(total) if not done[f]]
    saved, gap = time.perf_counter(), CHECKPOINT_SECONDS
    chunk: list[int] = []
    running: list[Future] = []
    with ThreadPoolExecutor(b.workers) as pool:
        try:
            for start in range(0, len(todo), 4 * b.workers):
                chunk = todo[start : start + 4 * b.workers]
                running = [pool.submit(work, f) for f in chunk]
                for future in running:
                    future.result()
                done[chunk], running = True, []
                b._report("joint table (exact)", int(done.sum()), total, "flops")
                if partial is not None and time.perf_counter() - saved >= gap and start + len(chunk) < len(todo):
                    gap = max(gap, 20 * _save(partial, digest, tables, done))
                    saved = time.perf_counter()
        except KeyboardInterrupt:  # the threads finish their flops (numba is not interrupted): the sums stay whole
            wait(running)
            if partial is not None and all(future.exception() is None for future in running):
                done[chunk] = True  # the chunk in flight, now finished (or the last, already counted)
                _save(partial, digest, tables, done)
            raise
    for other_joint, other_result in tables[1:]:
        joint += other_joint
        result += other_result
    if partial is not None:
        partial.unlink(missing_ok=True)
    return joint[None], result[None]


def _save(partial: Path, digest: str, tables: list[tuple[np.ndarray, np.ndarray]], done: NDArray[np.bool_]) -> float:
    """Write the sums so far (the threads' tables added) and the flops done; the seconds it took."""
    started = time.perf_counter()
    joint = sum(t[0] for t in tables[1:]) + tables[0][0]
    result = sum(t[1] for t in tables[1:]) + tables[0][1]
    save_arrays(partial, {"joint": joint, "result": result, "done": done}, {"kind": PARTIAL_KIND, "build": digest})
    return time.perf_counter() - started


def _resumed(partial: Path | None, digest: str, nseq: int, total: int
             ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """The sums and flops done of an interrupted build of the same tables, else zeros (the pass starts again
    and its first checkpoint replaces a stale or corrupt file)."""
    if partial is not None and partial.exists():
        try:
            arrays, meta = load_arrays(partial, "partial joint table")
            joint, result, done = arrays["joint"], arrays["result"], arrays["done"]
            if meta.get("kind") == PARTIAL_KIND and meta.get("build") == digest and joint.shape == (nseq, nseq) \
                    and result.shape == joint.shape and done.shape == (total,) and done.dtype == np.bool_:
                print(f"continuing the exact joint table from {partial} ({int(done.sum())} of {total} flops done)",
                      file=sys.stderr, flush=True)
                return joint.astype(np.float64), result.astype(np.float64), done.copy()
        except (CheckpointError, KeyError, ValueError):
            pass
    return np.zeros((nseq, nseq)), np.zeros((nseq, nseq)), np.zeros(total, dtype=np.bool_)
