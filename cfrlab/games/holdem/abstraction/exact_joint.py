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
  each hand with itself and the pairs of distinct hands sharing a card (two
  hands share one card at most: each such pair is in exactly one card's list);
* the showdowns, hands swept in the order of their value with the histogram of
  the hands below: ``R[s, s'] = #(a in s, b in s' below a, disjoint)``, the
  pairs below that share a card taken away in the same pass over the card
  lists (each list in the order of the values); the showdown sum is
  ``R - R^T``.

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
def board_tables(x, value, turn_seq, cuts, n, hole_pos, live, t, i, work, weight, table):  # pragma: no cover
    """Add one board's deals (``weight`` each) to ``table[s, s', 0]`` and showdown sums (player 0's +1/0/-1) to
    ``table[s, s', 1]``, from the histograms of its bucket sequences (module docstring), for s <= s' only (the
    deals are symmetric, the showdowns antisymmetric: ``whole_tables``). ``work`` is the scratch of
    ``board_work``."""
    local_of, glob, seq, loc, hist, below, nonzero, members, count, deals, wins, order_value, in_run, run_ids = work
    nl, hc = live.shape[1], hole_pos.shape[1]
    k = _sequences(x, turn_seq, cuts, n, live, t, i, local_of, glob, seq, loc)
    for j in range(nl):
        order_value[j] = value[i, live[i, j]]
    order = np.argsort(order_value[:nl])
    hist[:k] = 0
    count[:] = 0
    for q in range(nl):  # each card's hands in the order of their values
        j = order[q]
        hist[loc[j]] += 1
        for c in range(hc):
            p = hole_pos[live[i, j], c]
            members[p, count[p]] = j
            count[p] += 1
    for a in range(k):
        for b in range(k):
            deals[a * k + b] = hist[a] * hist[b]
            wins[a * k + b] = 0
    for j in range(nl):
        deals[loc[j] * (k + 1)] -= 1  # a hand with itself
    for p in range(len(count)):  # two hands sharing card p (distinct hands share one card at most)
        for u in range(count[p]):
            a = members[p, u]
            for v in range(u + 1, count[p]):
                b = members[p, v]
                deals[loc[a] * k + loc[b]] -= 1
                deals[loc[b] * k + loc[a]] -= 1
                if order_value[b] > order_value[a]:
                    wins[loc[b] * k + loc[a]] -= 1
    below[:k] = 0
    nz = 0
    start = 0
    while start < nl:
        end = start
        while end < nl and order_value[order[end]] == order_value[order[start]]:
            end += 1
        distinct = 0
        for q in range(start, end):  # the run's hands by sequence: one row update a sequence
            la = loc[order[q]]
            if in_run[la] == 0:
                run_ids[distinct] = la
                distinct += 1
            in_run[la] += 1
        for r in range(distinct):
            la = run_ids[r]
            times = in_run[la]
            in_run[la] = 0
            for z in range(nz):
                u = nonzero[z]
                wins[la * k + u] += times * below[u]
        for q in range(start, end):
            lb = loc[order[q]]
            if below[lb] == 0:
                nonzero[nz] = lb
                nz += 1
            below[lb] += 1
        start = end
    rows = np.argsort(glob[:k])  # the big table written row by row, columns ascending, a cell's two sums together
    for ia in range(k):
        a = rows[ia]
        for ib in range(ia, k):
            b = rows[ib]
            d = deals[a * k + b]
            if d:
                table[glob[a], glob[b], 0] += weight * d
                table[glob[a], glob[b], 1] += weight * (wins[a * k + b] - wins[b * k + a])
    for a in range(k):
        local_of[glob[a]] = -1


def board_work(nseq: int, nlive: int, m: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays of ``board_tables`` for ``nseq`` bucket sequences, ``nlive`` hands a board, ``m`` cards."""
    ints = np.int64
    return (np.full(nseq, -1, dtype=ints), np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros(nlive, ints),
            np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros((m, nlive), ints),
            np.zeros(m, ints), np.zeros(nlive * nlive, ints), np.zeros(nlive * nlive, ints),
            np.zeros(nlive, ints), np.zeros(nlive, ints), np.zeros(nlive, ints))


@njit(cache=True, nogil=True)
def flop_tables(x, value, turn_seq, cuts, n, hole_pos, pair_index, live, turns, rivers, weights, flop_weight, work,
                table):  # pragma: no cover - numba
    """``board_tables`` on each canonical run-out of one flop (``canonical_runouts``)."""
    for b in range(len(turns)):
        t, r = turns[b], rivers[b]
        board_tables(x, value, turn_seq, cuts, n, hole_pos, live, t, pair_index[t, r], work,
                     flop_weight * weights[b], table)


PARTIAL_KIND = "ehs2-exact-partial"
CHECKPOINT_SECONDS = 120.0
"""Seconds between checkpoints of the exact pass's sums (more where a write takes over 5 % of the time)."""


def exact_tables(b: Any, turn_seq: NDArray[np.int32], cuts: NDArray[np.int64], partial: Path | None,
                 identity: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Pass 3 of ``large_builder._Builder`` made exact: ``(joint, result)``, shaped ``(1, nseq, nseq)``, summed
    flop by flop on ``b.workers`` threads (one table of both sums each). With ``partial``, the sums and the flops done
    are saved there every ``CHECKPOINT_SECONDS`` and at an interruption, and a build of the same ``identity``
    (the abstraction's fingerprint and cuts) continues from them; the file is removed once the pass ends. The pass's
    wall and CPU seconds, earlier runs' included (the file keeps them), go to ``b.exact_seconds``."""
    nseq, total = int(np.prod(b.buckets)), len(b.flops)
    digest = f"{identity}:{hashlib.sha256(np.ascontiguousarray(cuts).tobytes()).hexdigest()[:16]}"
    table, done, earlier = _resumed(partial, digest, nseq, total)
    clock = _Clock(earlier)
    tables = [table] + [np.zeros_like(table) for _ in range(b.workers - 1)]
    works = [board_work(nseq, b.live.shape[1], b.m) for _ in range(b.workers)]
    slots: dict = {}

    def work(f: int) -> None:
        slot = slots.setdefault(threading.get_ident(), len(slots)) % b.workers
        x, value = b.strengths(f)
        turns, rivers, weights = canonical_runouts(int(b.flops[f]), b._rest(f), b.maps)
        flop_tables(x, value, turn_seq[f], cuts, b.buckets[3], b.hole_pos, b.pair_index, b.live, turns, rivers,
                    weights, float(b.flop_weight[f]), works[slot], tables[slot])

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
                    gap = max(gap, 20 * _save(partial, digest, tables, done, clock.now()))
                    saved = time.perf_counter()
        except KeyboardInterrupt:  # the threads finish their flops (numba is not interrupted): the sums stay whole
            wait(running)
            if partial is not None and all(future.exception() is None for future in running):
                done[chunk] = True  # the chunk in flight, now finished (or the last, already counted)
                _save(partial, digest, tables, done, clock.now())
            raise
    b.exact_seconds = clock.now()
    for other in tables[1:]:
        table += other
    tables.clear()  # the threads' tables freed before the whole tables are made
    if partial is not None:
        partial.unlink(missing_ok=True)
    joint, result = whole_tables(table)
    return joint[None], result[None]


def whole_tables(table: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(joint, result)`` from the sums kept for s <= s' (``board_tables``): the deals mirrored, the showdowns
    mirrored with their sign changed."""
    upper = table[:, :, 0]
    joint = upper + upper.T
    np.fill_diagonal(joint, np.diagonal(upper))
    result = table[:, :, 1] - table[:, :, 1].T
    return joint, result


class _Clock:
    """The exact pass's (wall, CPU) seconds: ``earlier`` (an interrupted run's) plus this run's (``time.perf_counter``,
    ``time.process_time``: every thread of the process)."""

    def __init__(self, earlier: tuple[float, float]) -> None:
        self.earlier, self.wall, self.cpu = earlier, time.perf_counter(), time.process_time()

    def now(self) -> tuple[float, float]:
        return (self.earlier[0] + time.perf_counter() - self.wall, self.earlier[1] + time.process_time() - self.cpu)


def _save(partial: Path, digest: str, tables: list[np.ndarray], done: NDArray[np.bool_],
          spent: tuple[float, float]) -> float:
    """Write the sums so far (the threads' tables added), the flops done and the (wall, CPU) seconds ``spent``
    on them; the seconds it took."""
    started = time.perf_counter()
    table = sum(tables[1:], tables[0].copy()) if len(tables) > 1 else tables[0]
    save_arrays(partial, {"table": table, "done": done},
                {"kind": PARTIAL_KIND, "build": digest, "seconds": spent[0], "cpu_seconds": spent[1]})
    return time.perf_counter() - started


def _resumed(partial: Path | None, digest: str, nseq: int,
             total: int) -> tuple[NDArray[np.float64], NDArray[np.bool_], tuple[float, float]]:
    """The sums, flops done and (wall, CPU) seconds spent of an interrupted build of the same tables, else zeros
    (the pass starts again and its first checkpoint replaces a stale or corrupt file)."""
    if partial is not None and partial.exists():
        try:
            arrays, meta = load_arrays(partial, "partial joint table")
            table, done = arrays["table"], arrays["done"]
            if meta.get("kind") == PARTIAL_KIND and meta.get("build") == digest and table.shape == (nseq, nseq, 2) \
                    and table.dtype == np.float64 and done.shape == (total,) and done.dtype == np.bool_:
                print(f"continuing the exact joint table from {partial} ({int(done.sum())} of {total} flops done)",
                      file=sys.stderr, flush=True)
                return (table if table.flags.writeable else table.copy()), done.copy(), _spent(meta)
        except (CheckpointError, KeyError, ValueError):
            pass
    return np.zeros((nseq, nseq, 2)), np.zeros(total, dtype=np.bool_), (0.0, 0.0)


def _spent(meta: dict) -> tuple[float, float]:
    """The (wall, CPU) seconds a partial file says were spent (0 for a file from before they were kept, or for a
    value that is not a finite number >= 0)."""
    out = []
    for key in ("seconds", "cpu_seconds"):
        value = meta.get(key, 0.0)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value < float("inf")
        out.append(float(value) if ok else 0.0)
    return out[0], out[1]
