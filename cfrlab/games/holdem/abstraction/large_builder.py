"""The builder of the large-deck E[HS^2] abstraction (``large_abstraction``), flop by flop.

One representative of each suit-isomorphism class of flops (1,755 on 52 cards, weighted by the flops it stands for),
every turn and river after it, and on each board the strength of every private hand at once
(``cfrlab.games.holdem.abstraction.flop_kernels``). Three passes over the flops: strengths and values after the flop
and turn (the strength counts and hand ranks of every run-out go to a temporary file, about 10 GB on 52 cards; the
counts after the flop become the game's flop table, ``cfrlab.games.holdem.abstraction.flop_table``); the river
histogram per turn bucket sequence; the sampled deals of the joint table, or every deal (``exact_joint``). Cached by
fingerprint like the exact tables; ``seconds`` holds the stage times.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from math import comb
from pathlib import Path
from typing import IO, Any, cast

import numpy as np
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays
from cfrlab.games.holdem.abstraction.abstraction import (
    Progress,
    _classes,
    _extend,
    canonical_flops,
    run_buckets,
    tie_buckets,
)
from cfrlab.games.holdem.abstraction.build_estimate import large_estimate
from cfrlab.games.holdem.abstraction.exact_joint import exact_tables
from cfrlab.games.holdem.abstraction.flop_kernels import (
    add_samples,
    canonical_keys,
    flop_layout,
    flop_strengths,
    flop_sums,
    items_by_group,
    river_histogram,
    sample_pairs,
    turn_sequences,
)
from cfrlab.games.holdem.abstraction.flop_table import flop_class_keys, flop_table, load_flop_table, save_flop_table
from cfrlab.games.holdem.abstraction.large_abstraction import (
    LARGE_VERSION,
    REPLICATES,
    SAMPLES_PER_BOARD,
    LargeEHS2Abstraction,
    check_structure,
    default_replicates,
    table_dtype,
)
from cfrlab.games.holdem.abstraction.turn_table import load_turn_table, save_turn_table, turn_table_path
from cfrlab.games.holdem.rules.evaluator import tables, tables_dir
from cfrlab.games.holdem.rules.game import LimitHoldem
from cfrlab.games.holdem.rules.suits import binomials, radices, suit_permutations


class _Builder:
    """The three passes over the canonical flops of one game."""

    def __init__(self, game: LimitHoldem, buckets: list[int], workers: int, progress: Progress | None = None) -> None:
        check_structure(game)
        self.game, self.buckets, self.workers, self.progress = game, buckets, max(1, workers), progress
        deck, hc, nf = game.deck_size, game.hole_cards, game.board_cards[1]
        self.maps, self.binom = suit_permutations(game.ranks, game.suits), binomials()
        self.flops, self.flop_weight = canonical_flops(game)
        self.hole_radix = radices(deck, [hc])
        raw = _extend(np.zeros(1, dtype=np.int64), 0, hc, np.array([hc]), deck, self.hole_radix, self.binom, self.maps)
        self.preflop_keys, self.preflop_weight, _ = _classes(raw, np.ones(1))
        self.m = deck - nf
        self.hole_pos, self.holes, self.pair_pos, self.pair_index, self.live = flop_layout(self.m, hc)
        self.evaluator = tables()
        self.opponents = comb(deck - hc - nf - 2, hc)
        self.kept: int | None = None
        """The descriptor of pass 1's strengths file, read and written by offset (its pages stay the kernel's
        cache); nameless (``tempfile.TemporaryFile``), so it is freed when the process ends, even if killed."""
        self._kept_file: IO[bytes] | None = None
        self.flop_key_tables = (self.maps, radices(deck, [hc, nf]), self.binom)
        self.flop_keys: NDArray[np.int64] | None = None
        self.partial: Path | None = None
        """Where the exact joint pass keeps its sums as it goes (``exact_joint.exact_tables``); None: nowhere."""
        self.identity = ""
        self.exact_seconds: tuple[float, float] | None = None  # (wall, CPU) of the exact pass, all its runs

    def _rest(self, f: int) -> NDArray[np.int64]:
        return np.array([c for c in range(self.game.deck_size) if not self.flops[f] >> c & 1], dtype=np.int64)

    @property
    def _kept_shape(self) -> tuple[int, int, int]:
        return 2, len(self.pair_pos), len(self.holes)

    def strengths(self, f: int) -> tuple[NDArray[np.int16], NDArray[np.int16]]:
        """Strength counts and hand ranks of the flop's hands on every run-out (pass 1 keeps them)."""
        if self.kept is not None:
            size = int(np.prod(self._kept_shape)) * 2
            kept = np.frombuffer(os.pread(self.kept, size, f * size), dtype=np.int16).reshape(self._kept_shape)
            return kept[0], kept[1]
        rest = self._rest(f)
        flop_abs = self.game.absolute[np.flatnonzero([self.flops[f] >> c & 1 for c in range(self.game.deck_size)])]
        return flop_strengths(flop_abs, self.game.absolute[rest], self.hole_pos, self.pair_pos, self.live,
                              *self.evaluator)

    def each_flop(self, work: Callable[[int], Any], stage: str) -> None:
        """``work(f)`` for every flop, on ``workers`` threads (the kernels release the GIL), reporting each flop
        done to ``progress`` under ``stage``."""
        total = len(self.flops)
        with ThreadPoolExecutor(self.workers) if self.workers > 1 else nullcontext() as pool:
            done = map(work, range(total)) if pool is None else pool.map(work, range(total))
            for f, _ in enumerate(done, start=1):
                self._report(stage, f, total)

    def _report(self, stage: str, done: int, total: int, unit: str = "flops") -> None:
        if self.progress is not None:
            self.progress(stage, done, total, unit)

    def values(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.integer]]:
        """Pass 1: each flop's hands' pre-flop class, count after the flop, count after each turn (int32 where
        it fits: 0.4 GB on 52 cards); the strengths are kept in a nameless temporary file for the later passes."""
        nh = len(self.holes)
        self._kept_file = tempfile.TemporaryFile(prefix="cfrlab-ehs2-strengths-")
        fd = self._kept_file.fileno()
        size = int(np.prod(self._kept_shape)) * 2
        pre = np.empty((len(self.flops), nh), dtype=np.int64)
        self.flop_keys = flop_keys = np.empty((len(self.flops), nh), dtype=np.int64)
        after_flop = np.empty((len(self.flops), nh), dtype=np.int64)
        most = (self.m - self.game.hole_cards - 1) * (2 * self.opponents) ** 2  # a count after the turn
        after_turn = np.empty((len(self.flops), self.m, nh), dtype=np.int32 if most < 2**31 else np.int64)

        def work(f: int) -> None:
            rest = self._rest(f)
            masks = (np.int64(1) << rest[self.hole_pos]).sum(axis=1)
            keys = canonical_keys(masks, self.maps, self.hole_radix, self.binom)
            pre[f] = np.searchsorted(self.preflop_keys, keys)
            flop_keys[f] = flop_class_keys(masks, self.flops[f], *self.flop_key_tables)
            x, rank = self.strengths(f)
            if os.pwrite(fd, np.stack([x, rank]).tobytes(), f * size) != size:
                raise OSError("the temporary strengths file was not written in full")  # pragma: no cover - disk full
            after_flop[f], after_turn[f] = flop_sums(x, self.holes, self.pair_index)

        try:
            self.each_flop(work, "values after the flop and turn")
        except BaseException:
            self.close()
            raise
        self.kept = fd
        return pre, after_flop, after_turn

    def close(self) -> None:
        """Close (and so free) the strengths file."""
        if self._kept_file is not None:
            self._kept_file.close()
        self.kept = self._kept_file = None

    def preflop_counts(self, pre: NDArray[np.int64], after_flop: NDArray[np.int64]) -> NDArray[np.int64]:
        """Each pre-flop class's summed squared counts over every final board (exact integers)."""
        game = self.game
        total = np.zeros(len(self.preflop_keys), dtype=np.int64)
        items = np.zeros(len(self.preflop_keys), dtype=np.int64)
        for f in range(len(self.flops)):
            np.add.at(total, pre[f], self.flop_weight[f] * after_flop[f])
            np.add.at(items, pre[f], self.flop_weight[f])
        completions_after_flop = comb(self.m - game.hole_cards, 2)
        completions = comb(game.deck_size - game.hole_cards, sum(game.board_cards))
        out = []
        for t, n in zip(total.tolist(), items.tolist()):
            num, den = t * completions, n * completions_after_flop
            if num % den:
                raise AssertionError("pre-flop counts do not divide evenly")  # pragma: no cover - a bug
            out.append(num // den)
        return np.array(out, dtype=np.int64)

    def turn_buckets(self, after_turn: NDArray[np.integer],
                     flop_seq: NDArray[np.int64]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """Each hand's turn bucket sequence on each flop and turn, and the cuts, by ``tie_buckets``' rule, one
        flop bucket sequence (group) at a time: the same buckets without an array of every item's key, order and inverse
        (about ten arrays of 0.8 GB on 52 cards)."""
        ngroups, n = self.buckets[0] * self.buckets[1], self.buckets[2]
        starts, counts, flops = items_by_group(after_turn, flop_seq, ngroups)
        groups, run_counts, run_weights = [], [], []
        weight = self.flop_weight.astype(np.float64)
        for g in range(ngroups):
            part = counts[starts[g] : starts[g + 1]]
            runs, inverse = np.unique(part, return_inverse=True)
            run_weights.append(np.bincount(inverse.ravel(), weights=weight[flops[starts[g] : starts[g + 1]]],
                                           minlength=len(runs)))
            run_counts.append(runs.astype(np.int64))
            groups.append(np.full(len(runs), g, dtype=np.int64))
        del counts, flops
        _, cuts = run_buckets(np.concatenate(groups), np.concatenate(run_counts), np.concatenate(run_weights),
                              ngroups, n)
        return turn_sequences(after_turn, flop_seq, cuts, n), cuts

    def river_cuts(self, turn_seq: NDArray[np.int32]) -> NDArray[np.int64]:
        """Pass 2: the river histogram per turn bucket sequence, then its cuts."""
        groups = int(np.prod(self.buckets[:3]))
        hists = [np.zeros((groups, 2 * self.opponents + 1)) for _ in range(self.workers)]
        slots: dict = {}

        def work(f: int) -> None:
            hist = hists[_thread_slot(slots) % self.workers]
            x, _ = self.strengths(f)
            river_histogram(x, turn_seq[f], self.pair_index, float(self.flop_weight[f]), hist)

        self.each_flop(work, "river buckets")
        hist = cast(NDArray[np.float64], sum(hists))
        group, count = np.nonzero(hist)
        _, cuts = tie_buckets(count.astype(np.int64), hist[group, count], group, groups, self.buckets[3])
        return cuts

    def deals(self, turn_seq: NDArray[np.int32], cuts: NDArray[np.int64], samples: int, replicates: int,
              seed: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float32]]:
        """Pass 3: the joint table and showdown sums per replicate, and the samples' second moments. One set of
        tables for every thread (2.8 GB on 52 cards with 10 buckets): each thread draws a flop's samples, then adds
        them to the tables under a lock. The sums are of whole numbers (flop weights): the flops' order is moot."""
        if not samples:
            return (*exact_tables(self, turn_seq, cuts, self.partial, self.identity), np.zeros((3, 1, 1), np.float32))
        nseq, reps = int(np.prod(self.buckets)), max(1, replicates)
        joint, result = np.zeros((reps, nseq, nseq)), np.zeros((reps, nseq, nseq))
        moments = np.zeros((3, nseq, nseq), dtype=np.float32)
        lock = threading.Lock()

        def work(f: int) -> None:
            x, value = self.strengths(f)
            first, second, won = sample_pairs(x, value, turn_seq[f], cuts, self.buckets[3], self.holes,
                                              self.pair_index, self.live, samples, seed * 1_000_003 + f)
            with lock:
                add_samples(first, second, won, samples, float(self.flop_weight[f]), joint, result, moments)

        self.each_flop(work, "joint table")
        return joint, result, moments


def _thread_slot(slots: dict) -> int:
    """A small integer per thread (each thread adds into its own tables)."""
    return slots.setdefault(threading.get_ident(), len(slots))


def build_large_abstraction(game: LimitHoldem, buckets: list[int], samples: int = SAMPLES_PER_BOARD,
                            replicates: int = REPLICATES, seed: int = 0, workers: int = 1,
                            progress: Progress | None = None, turn_path: Path | None = None,
                            partial: Path | None = None) -> LargeEHS2Abstraction:
    """Build flop by flop (no cache); see ``load_large_abstraction``. ``replicates`` below 2 keeps one table
    (its error from the samples' moments alone); ``samples=0`` counts every deal (``exact_joint``, keeping its
    sums in ``partial`` as it goes); ``progress`` hears each flop of each pass; with ``turn_path``
    the counts after the turn are written there as the game's turn table (``turn_table``)
    and the abstraction looks turn hands up in it."""
    if len(buckets) != game.num_rounds or any(not isinstance(b, int) or b < 1 for b in buckets):
        raise ValueError(f"buckets needs {game.num_rounds} positive integers (one per round), got {buckets!r}")
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    b = _Builder(game, buckets, workers, progress)
    b.partial, b.identity = partial, large_fingerprint(game, buckets, samples, replicates, seed)
    try:
        values = list(b.values())
        if turn_path is not None:
            save_turn_table(turn_path, values[2])
        built = finish_build(b, values, samples, replicates, seed, seconds, start)
    finally:
        b.close()
    if turn_path is not None:
        built.turn_table = load_turn_table(game, turn_path)
    return built


def finish_build(b: _Builder, values: list[Any], samples: int, replicates: int, seed: int,
                 seconds: dict[str, float], start: float) -> LargeEHS2Abstraction:
    """Passes 2 and 3 after the first: ``values`` is what ``_Builder.values`` returned (its strengths file
    ``b.kept`` holds the rest); the list is emptied, so that the counts after the turn (0.4 GB on 52 cards) are
    freed once bucketed."""
    game, buckets = b.game, b.buckets
    pre, after_flop, after_turn = values
    values.clear()
    seconds["flop and turn values"] = time.perf_counter() - start
    tick = time.perf_counter()
    table = flop_table(game, b.flop_keys, after_flop) if b.flop_keys is not None else None
    pre_count = b.preflop_counts(pre, after_flop)
    pre_bucket, _ = tie_buckets(pre_count, b.preflop_weight, np.zeros(len(pre_count), dtype=np.int64), 1, buckets[0])
    weight = np.broadcast_to(b.flop_weight[:, None].astype(np.float64), after_flop.shape).ravel()
    group = pre_bucket[pre].ravel()
    bucket, cuts1 = tie_buckets(after_flop.ravel(), weight, group, buckets[0], buckets[1])
    flop_seq = (group * buckets[1] + bucket).reshape(after_flop.shape)
    b._report("buckets to the turn", 0, 1, "steps")
    turn_seq, cuts2 = b.turn_buckets(after_turn, flop_seq)
    b._report("buckets to the turn", 1, 1, "steps")
    del after_turn
    seconds["buckets to the turn"] = time.perf_counter() - tick
    tick = time.perf_counter()
    cuts3 = b.river_cuts(turn_seq)
    seconds["river buckets"] = time.perf_counter() - tick
    tick = time.perf_counter()
    joint, result, moments = b.deals(turn_seq, cuts3, samples, replicates, seed)
    seconds["joint table"] = this_run = time.perf_counter() - tick
    if b.exact_seconds is not None:  # the exact pass's (wall, CPU) seconds in every run, interrupted ones too
        seconds["joint table"], seconds["joint table, CPU"] = b.exact_seconds
    del turn_seq
    dtype = table_dtype(joint.shape[1])
    keep = samples > 0 and replicates >= 2
    summed_joint, summed_result = (joint.sum(axis=0), result.sum(axis=0)) if keep else (joint[0], result[0])
    total = summed_joint.sum()
    showdown = np.divide(summed_result, summed_joint, out=np.zeros(summed_result.shape, dtype),
                         where=summed_joint > 0)
    del summed_result
    if not keep:
        del result  # the 52-card table of 10 buckets: 0.8 GB
    summed_joint = summed_joint / total if keep else np.divide(summed_joint, total, out=summed_joint)
    if samples:  # the sampling variance of each cell, of the probability and of the result scaled alike
        moments /= np.float32(total) ** 2
    seconds["total"] = time.perf_counter() - start + seconds["joint table"] - this_run
    return LargeEHS2Abstraction(
        game, list(buckets), b.preflop_keys, pre_bucket, [np.zeros((0, 0), np.int64), cuts1, cuts2, cuts3],
        summed_joint.astype(dtype, copy=False), showdown, samples, seconds,
        replicate_joint=joint if keep else None, replicate_result=result if keep else None,
        moments=moments if samples else None, flop_table=table)


def default_threads() -> int:
    """Threads of a build: two where the machine has them."""
    return min(2, os.cpu_count() or 1)


def large_fingerprint(game: LimitHoldem, buckets: list[int], samples: int, replicates: int, seed: int) -> str:
    blob = json.dumps({"game": game.fingerprint(), "buckets": buckets, "samples": samples, "replicates": replicates,
                       "seed": seed, "version": LARGE_VERSION})
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def large_cache_path(game: LimitHoldem, buckets: list[int], samples: int = SAMPLES_PER_BOARD,
                     replicates: int | None = None, seed: int = 0) -> Path:
    replicates = default_replicates(buckets) if replicates is None else replicates
    return tables_dir() / f"ehs2-large-{large_fingerprint(game, buckets, samples, replicates, seed)}.npz"


_ARRAYS = ("preflop_keys", "preflop_bucket", "joint", "showdown")
_OPTIONAL = ("replicate_joint", "replicate_result", "moments")


def load_large_abstraction(game: LimitHoldem, buckets: list[int], samples: int = SAMPLES_PER_BOARD,
                           replicates: int | None = None, seed: int = 0, workers: int | None = None,
                           use_cache: bool = True, progress: Progress | None = None) -> LargeEHS2Abstraction:
    """From the disk cache, or built and saved: telling ``progress``, or without one, with a note on stderr of
    what the build will take on a large deck (``build_estimate``: minutes on 52 cards).

    ``replicates`` defaults to ``default_replicates(buckets)``: 8 where the replicate tables are small, else 1.
    The game's flop table (``flop_table``) comes from its own cache file when there is one.
    """
    replicates = default_replicates(buckets) if replicates is None else replicates
    path = large_cache_path(game, buckets, samples, replicates, seed)
    fp = large_fingerprint(game, buckets, samples, replicates, seed)
    if use_cache and path.exists():
        try:
            arrays, meta = load_arrays(path, "E[HS^2] abstraction", skip=("moments",))  # read when needed
            if meta.get("fingerprint") == fp:
                cuts = [arrays[f"cuts{k}"] for k in range(game.num_rounds)]
                preflop_keys, preflop_bucket, joint, showdown = (arrays[name] for name in _ARRAYS)
                optional: dict[str, Any] = {name: arrays.get(name) for name in _OPTIONAL}
                return LargeEHS2Abstraction(game, list(buckets), preflop_keys, preflop_bucket, cuts, joint, showdown,
                                            samples, dict(meta["seconds"]), flop_table=load_flop_table(game),
                                            turn_table=load_turn_table(game), moments_file=path, **optional)
        except (CheckpointError, KeyError, ValueError):
            pass  # stale or corrupt: rebuild
    workers = workers or default_threads()
    if game.deck_size > 40 and progress is None:
        estimate = large_estimate(game, buckets, samples, replicates, workers)
        print(f"building the E[HS^2] abstraction of {game.spec()} with buckets {buckets} ({estimate.text()}; then "
              f"cached in {path.parent})", file=sys.stderr, flush=True)
    abstraction = build_large_abstraction(game, buckets, samples, replicates, seed, workers, progress,
                                          turn_table_path(game) if use_cache else None,
                                          path.with_name(f"{path.stem}.partial.npz") if use_cache else None)
    if use_cache:
        save_large_abstraction(abstraction, replicates, seed)
    return abstraction


def save_large_abstraction(abstraction: LargeEHS2Abstraction, replicates: int | None = None, seed: int = 0) -> None:
    """Write ``abstraction`` (built with these ``replicates`` and ``seed``) to its cache file, atomically, and its
    game's flop table to that table's file."""
    game, buckets, samples = abstraction.game, abstraction.buckets, abstraction.samples
    replicates = default_replicates(buckets) if replicates is None else replicates
    path = large_cache_path(game, buckets, samples, replicates, seed)
    arrays = {name: getattr(abstraction, name) for name in _ARRAYS}
    arrays.update({name: getattr(abstraction, name) for name in _OPTIONAL if getattr(abstraction, name) is not None})
    arrays.update({f"cuts{k}": c for k, c in enumerate(abstraction.cuts)})
    path.parent.mkdir(parents=True, exist_ok=True)
    save_arrays(path, arrays, {"kind": "ehs2-large", "fingerprint": large_fingerprint(game, buckets, samples,
                                                                                    replicates, seed),
                               "spec": game.spec(), "buckets": buckets, "samples": samples,
                               "seconds": abstraction.seconds})
    if abstraction.flop_table is not None:
        save_flop_table(abstraction.flop_table)
