"""The E[HS^2] card abstraction of Zinkevich et al. (2008), sec. 4.1, computed exactly on a deck.

Round by round, the card sequences a player may have seen (private cards and
each round's board) are split into ``buckets[k]`` percentile buckets of equal
size by E[HS^2] (``cfrlab.games.holdem.abstraction.strength``): in round 0 all private
hands together, in round k > 0 separately within each bucket sequence of the
rounds before (nested buckets, so a player's information is the bucket
sequence and the abstraction keeps perfect recall).

Specification in cfrlab:
* Suit isomorphism: values and buckets are computed once per class of card
  sequences equal up to renaming suits (``cfrlab.games.holdem.rules.suits``); a class
  is never split, so bucket sizes are equal up to one class's weight (weights
  count the raw sequences, all equally likely).
* Within a group, the classes of one E[HS^2] value (compared exactly, as
  integer strength counts: ``cfrlab.games.holdem.abstraction.strength``) form a run; runs
  are sorted by value and a run goes to bucket
  ``floor(n * (weight before + run weight / 2) / group weight)``. Equal values
  are never separated, so a bucket is a function of the value and the group:
  ``cuts[g, j - 1]`` is the least value of bucket j or above (``tie_buckets``),
  which is how hands of a deck too large to list are bucketed
  (``cfrlab.games.holdem.abstraction.large_abstraction``).
* Bucket sequence id after round k: ``id[k-1] * buckets[k] + bucket[k]``.
* ``joint``: for every pair of last-round bucket sequences, the probability of
  the deal (both players' sequences) and the expected showdown result for
  player 0 (+1 win, -1 loss, 0 tie), enumerated exactly over all deals.
* Cached on disk by a fingerprint (game, bucket counts, version) under
  ``$CFRLAB_CACHE_DIR/holdem``; ``seconds`` holds each stage's build time.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from math import comb
from pathlib import Path

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays
from cfrlab.games.holdem.abstraction.strength import (
    cards_left,
    chosen_mask,
    ehs2_value,
    expected_hs2,
    next_combination,
    river_strengths,
)
from cfrlab.games.holdem.rules.evaluator import hand_value_nb, tables, tables_dir
from cfrlab.games.holdem.rules.game import LimitHoldem
from cfrlab.games.holdem.rules.suits import binomials, canonical_key, key_masks, radices, suit_permutations

ABSTRACTION_VERSION = 2
MAX_DECK = 32
Progress = Callable[[str, int, int, str], None]
"""``progress(stage, done, total, unit)``: how far a build's stage is (called from the building thread)."""
_ROUND_ARRAYS = ("keys", "weights", "parent", "count", "value", "bucket", "sequence")


@dataclass
class RoundClasses:
    """The suit-isomorphism classes of one round's card sequences, sorted by canonical key."""

    keys: NDArray[np.int64]
    weights: NDArray[np.float64]
    """Raw card sequences in each class."""
    parent: NDArray[np.int64]
    """Class of the previous round's prefix (-1 in round 0)."""
    count: NDArray[np.int64]
    """Summed squared strength counts (``cfrlab.games.holdem.abstraction.strength``): E[HS^2] exactly, scaled."""
    value: NDArray[np.float64]
    """E[HS^2]."""
    bucket: NDArray[np.int64]
    sequence: NDArray[np.int64]
    """Bucket sequence id up to this round."""


@dataclass
class EHS2Abstraction:
    """Per-round classes, buckets and the joint bucket-sequence table of a deck."""

    game: LimitHoldem
    buckets: list[int]
    rounds: list[RoundClasses]
    joint: NDArray[np.float64]
    """``joint[s0, s1]``: probability that the players end with last-round bucket sequences s0, s1."""
    showdown: NDArray[np.float64]
    """``showdown[s0, s1]``: expected showdown result for player 0 given s0, s1 (0 where impossible)."""
    seconds: dict[str, float] = field(default_factory=dict)

    def num_sequences(self, round_index: int) -> int:
        return int(np.prod(self.buckets[: round_index + 1]))

    @cached_property
    def _key_tables(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Suit permutations, radices and binomials for ``canonical_key``."""
        c = self.game
        return suit_permutations(c.ranks, c.suits), radices(c.deck_size, self.part_sizes()), binomials()

    def part_sizes(self) -> list[int]:
        return [self.game.hole_cards, *self.game.board_cards]

    def class_index(self, hole: tuple[int, ...], board_by_round: list[tuple[int, ...]]) -> int:
        """Index of a player's card sequence (up to the last round given) in that round's classes."""
        k = len(board_by_round) - 1
        masks = np.array([_mask(hole), *(_mask(b) for b in board_by_round)], dtype=np.int64)
        key = canonical_key(masks, k + 2, *self._key_tables)
        classes = self.rounds[k]
        i = int(np.searchsorted(classes.keys, key))
        if i >= len(classes.keys) or classes.keys[i] != key:
            raise ValueError(f"no class for private {hole} and board {board_by_round}")
        return i

    def bucket_sequence(self, hole: tuple[int, ...], board_by_round: list[tuple[int, ...]]) -> int:
        """Bucket sequence id of a player's cards up to the last round in ``board_by_round``."""
        return int(self.rounds[len(board_by_round) - 1].sequence[self.class_index(hole, board_by_round)])


def _mask(cards: tuple[int, ...]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def fingerprint(game: LimitHoldem, buckets: list[int]) -> str:
    blob = json.dumps({"game": game.fingerprint(), "buckets": buckets, "version": ABSTRACTION_VERSION})
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@njit(cache=True, nogil=True)
def _extend(parent_keys, nparts, size, sizes, deck, radix, binom, maps):  # pragma: no cover - numba
    """Canonical keys of every extension of each parent by a part of ``size`` cards."""
    used = 0
    for j in range(nparts):
        used += sizes[j]
    ncomb = binom[deck - used, size]
    out = np.empty(len(parent_keys) * ncomb, dtype=np.int64)
    masks = np.zeros(nparts + 1, dtype=np.int64)
    rest = np.empty(deck, dtype=np.int64)
    idx = np.arange(max(size, 1))
    for p in range(len(parent_keys)):
        masks[:nparts] = key_masks(parent_keys[p], nparts, sizes, deck, radix, binom)
        seen = np.int64(0)
        for j in range(nparts):
            seen |= masks[j]
        m = cards_left(seen, deck, rest)
        idx[:] = np.arange(len(idx))
        e = 0
        while True:
            masks[nparts] = chosen_mask(rest, idx, size)
            out[p * ncomb + e] = canonical_key(masks, nparts + 1, maps, radix, binom)
            e += 1
            if not next_combination(idx, size, m):
                break
    return out


@njit(cache=True, nogil=True)
def _counts(keys, nparts, sizes, deck, radix, binom, final_board, hs):  # pragma: no cover - numba
    out = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        masks = key_masks(keys[i], nparts, sizes, deck, radix, binom)
        board = np.int64(0)
        for j in range(1, nparts):
            board |= masks[j]
        out[i] = expected_hs2(masks[0], board, final_board, deck, hs, binom)
    return out


@njit(cache=True, nogil=True)
def _joint(boards, weights, keys, sequence, nseq, nparts, sizes, deck, radix, binom, maps, absolute,
           flush, counts, dp, offsets):  # pragma: no cover - numba
    """Deal counts and summed showdown results per pair of last-round bucket sequences.

    ``boards``/``weights``: the canonical board sequences (keys with an empty private part) and how
    many raw board sequences each stands for. Per board, every private hand's class and hand value
    once, then every pair of disjoint private hands.
    """
    joint = np.zeros((nseq, nseq), dtype=np.float64)
    result = np.zeros((nseq, nseq), dtype=np.float64)
    hole = sizes[0]
    ncards = np.int64(0)
    for j in range(nparts):
        ncards += sizes[j]
    cards = np.empty(ncards, dtype=np.int64)
    rest = np.empty(deck, dtype=np.int64)
    idx = np.arange(max(hole, 1))
    nholes = binom[deck - ncards + hole, hole]
    hole_mask = np.empty(nholes, dtype=np.int64)
    hole_seq = np.empty(nholes, dtype=np.int64)
    hole_value = np.empty(nholes, dtype=np.int64)
    board_sizes = sizes.copy()
    board_sizes[0] = 0
    for i in range(len(boards)):
        masks = key_masks(boards[i], nparts, board_sizes, deck, radix, binom)
        board = np.int64(0)
        for j in range(1, nparts):
            board |= masks[j]
        m = cards_left(board, deck, rest)
        idx[:] = np.arange(len(idx))
        h = 0
        while True:
            masks[0] = chosen_mask(rest, idx, hole)
            hole_mask[h] = masks[0]
            hole_seq[h] = sequence[np.searchsorted(keys, canonical_key(masks, nparts, maps, radix, binom))]
            n = np.int64(0)
            for c in range(deck):
                if (masks[0] | board) >> c & 1:
                    cards[n] = absolute[c]
                    n += 1
            hole_value[h] = hand_value_nb(cards, ncards, flush, counts, dp, offsets)
            h += 1
            if not next_combination(idx, hole, m):
                break
        w = weights[i]
        for a in range(nholes):
            for b in range(nholes):
                if hole_mask[a] & hole_mask[b]:
                    continue
                joint[hole_seq[a], hole_seq[b]] += w
                if hole_value[a] > hole_value[b]:
                    result[hole_seq[a], hole_seq[b]] += w
                elif hole_value[a] < hole_value[b]:
                    result[hole_seq[a], hole_seq[b]] -= w
    return joint, result


def tie_buckets(count: NDArray[np.int64], weight: NDArray[np.floating], group: NDArray[np.int64], ngroups: int,
                n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Equal-weight buckets 0..n-1 by ``count`` within each group, equal counts together (the module's rule).

    Returns each item's bucket and ``cuts[g, j - 1]``, the least count of bucket j or above in group g
    (the int64 maximum where the group has no such bucket).
    """
    span = int(count.max()) + 1 if len(count) else 1
    if span * max(ngroups, 1) >= 2**62:
        raise ValueError("strength counts too large to key")
    runs, inverse = np.unique(group.astype(np.int64) * span + count, return_inverse=True)
    inverse = inverse.ravel()
    run_weight = np.asarray(np.bincount(inverse, weights=weight, minlength=len(runs)), dtype=np.float64)
    run_bucket, cuts = run_buckets(runs // span, runs % span, run_weight, ngroups, n)
    return run_bucket[inverse], cuts


def run_buckets(run_group: NDArray[np.int64], run_count: NDArray[np.int64], run_weight: NDArray[np.floating],
                ngroups: int, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``tie_buckets`` on runs: each distinct (group, count), sorted by group then count, with its weight.
    Returns each run's bucket and the cuts."""
    totals = np.bincount(run_group, weights=run_weight, minlength=ngroups)
    starts = np.cumsum(totals) - totals
    before = np.cumsum(run_weight) - run_weight - starts[run_group]
    run_bucket = np.minimum((n * (before + run_weight / 2) / totals[run_group]).astype(np.int64), n - 1)
    cuts = np.full((ngroups, max(n - 1, 0)), np.iinfo(np.int64).max, dtype=np.int64)
    for j in range(1, n):
        above = run_bucket >= j
        np.minimum.at(cuts[:, j - 1], run_group[above], run_count[above])
    return run_bucket, cuts


def _chunks(n: int, stage: str, unit: str, report: Progress, parts: int = 100) -> Iterator[slice]:
    """Slices of ``range(n)`` in about ``parts`` pieces, reporting each piece done under ``stage``."""
    step = max(1, -(-n // parts))
    for start in range(0, n, step):
        yield slice(start, start + step)
        report(stage, min(n, start + step), n, unit)


def build_abstraction(game: LimitHoldem, buckets: list[int], progress: Progress | None = None) -> EHS2Abstraction:
    """Compute the abstraction exactly (no cache); see ``load_abstraction``. ``progress`` hears each stage's
    work done (classes valued, boards tabled)."""
    if len(buckets) != game.num_rounds or any(not isinstance(b, int) or b < 1 for b in buckets):
        raise ValueError(f"buckets needs {game.num_rounds} positive integers (one per round), got {buckets!r}")
    if game.deck_size > MAX_DECK:
        raise ValueError(f"exact E[HS^2] tables are built for decks of at most {MAX_DECK} cards, not {game.deck_size}")
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    deck, binom = game.deck_size, binomials()
    sizes = np.array([game.hole_cards, *game.board_cards], dtype=np.int64)
    radix = radices(deck, list(sizes))
    maps = suit_permutations(game.ranks, game.suits)
    final_board = int(sizes[1:].sum())
    evaluator = tables()
    report = progress or (lambda *_: None)
    report("river hand strengths", 0, 1, "tables")
    hs = river_strengths(deck, game.hole_cards, final_board, game.absolute, binom, *evaluator)
    report("river hand strengths", 1, 1, "tables")
    seconds["river hand strength"] = time.perf_counter() - start
    keys = _extend(np.zeros(1, dtype=np.int64), 0, game.hole_cards, sizes, deck, radix, binom, maps)
    keys, weights, _ = _classes(keys, np.ones(1))
    rounds: list[RoundClasses] = []
    opponents = comb(deck - game.hole_cards - final_board, game.hole_cards)
    for k in range(game.num_rounds):
        tick = time.perf_counter()
        raw = _extend(keys, k + 1, int(sizes[k + 1]), sizes, deck, radix, binom, maps)
        keys, weights, parent = _classes(raw, weights)
        count = np.concatenate([_counts(keys[part], k + 2, sizes, deck, radix, binom, final_board, hs)
                                for part in _chunks(len(keys), f"round {k} values", "classes", report)])
        seen = int(sizes[1 : k + 2].sum())
        value = ehs2_value(count, comb(deck - game.hole_cards - seen, final_board - seen), opponents)
        group = np.zeros(len(keys), dtype=np.int64) if k == 0 else rounds[-1].sequence[parent]
        bucket, _ = tie_buckets(count, weights, group, int(np.prod(buckets[:k])), buckets[k])
        parent_out = np.full(len(keys), -1, dtype=np.int64) if k == 0 else parent
        rounds.append(RoundClasses(keys, weights, parent_out, count, value, bucket, group * buckets[k] + bucket))
        seconds[f"round {k} classes and buckets"] = time.perf_counter() - tick
    tick = time.perf_counter()
    last = rounds[-1]
    nseq = int(np.prod(buckets))
    no_hole = sizes.copy()
    no_hole[0] = 0
    boards, board_weights = np.zeros(1, dtype=np.int64), np.ones(1)
    for k in range(game.num_rounds):
        raw = _extend(boards, k + 1, int(sizes[k + 1]), no_hole, deck, radix, binom, maps)
        boards, board_weights, _ = _classes(raw, board_weights)
    joint, result = np.zeros((nseq, nseq)), np.zeros((nseq, nseq))
    for part in _chunks(len(boards), "joint table", "boards", report):  # sums of whole weights: exact in any order
        j, r = _joint(boards[part], board_weights[part], last.keys, last.sequence, nseq, game.num_rounds + 1, sizes,
                      deck, radix, binom, maps, game.absolute, *evaluator)
        joint += j
        result += r
    seconds["joint table"] = time.perf_counter() - tick
    showdown = np.divide(result, joint, out=np.zeros_like(result), where=joint > 0)
    seconds["total"] = time.perf_counter() - start
    return EHS2Abstraction(game, list(buckets), rounds, joint / joint.sum(), showdown, seconds)


def _classes(raw: NDArray[np.int64], parent_weights: NDArray[np.float64]):
    """Unique canonical keys of ``raw`` (entries grouped by parent), their weights and parents."""
    per_parent = len(raw) // len(parent_weights)
    keys, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    entry_weight = np.repeat(parent_weights, per_parent)
    weights = np.bincount(inverse.ravel(), weights=entry_weight, minlength=len(keys))
    return keys, weights, (first // per_parent).astype(np.int64)


def canonical_flops(game: LimitHoldem) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """One card mask per suit-isomorphism class of flops (1,755 on 52 cards) and how many flops each stands for."""
    deck, nf, binom = game.deck_size, game.board_cards[1], binomials()
    maps = suit_permutations(game.ranks, game.suits)
    sizes = np.array([0, nf], dtype=np.int64)
    radix = radices(deck, [0, nf])
    raw = _extend(np.zeros(1, dtype=np.int64), 1, nf, sizes, deck, radix, binom, maps)
    keys, weights, _ = _classes(raw, np.ones(1))
    flops = np.array([key_masks(k, 2, sizes, deck, radix, binom)[1] for k in keys], dtype=np.int64)
    return flops, weights.astype(np.int64)


def cache_path(game: LimitHoldem, buckets: list[int]) -> Path:
    """The cache file of the abstraction of ``game`` with ``buckets`` per round."""
    return tables_dir() / f"ehs2-{fingerprint(game, buckets)}.npz"


def load_abstraction(game: LimitHoldem, buckets: list[int], use_cache: bool = True,
                     progress: Progress | None = None) -> EHS2Abstraction:
    """The abstraction of ``game`` with ``buckets`` per round, from the disk cache or built (telling
    ``progress``) and saved."""
    path = cache_path(game, buckets)
    if use_cache and path.exists():
        try:
            arrays, meta = load_arrays(path, "E[HS^2] abstraction")
            if meta.get("fingerprint") == fingerprint(game, buckets):
                rounds = [RoundClasses(*(arrays[f"r{k}_{name}"] for name in _ROUND_ARRAYS))
                          for k in range(game.num_rounds)]
                return EHS2Abstraction(game, list(buckets), rounds, arrays["joint"], arrays["showdown"],
                                       dict(meta["seconds"]))
        except (CheckpointError, KeyError, ValueError):
            pass  # stale or corrupt: rebuild
    abstraction = build_abstraction(game, buckets, progress)
    if use_cache:
        save_abstraction(abstraction)
    return abstraction


def save_abstraction(abstraction: EHS2Abstraction) -> None:
    """Write ``abstraction`` to its cache file (atomically)."""
    game, buckets = abstraction.game, abstraction.buckets
    arrays = {f"r{k}_{name}": getattr(r, name) for k, r in enumerate(abstraction.rounds) for name in _ROUND_ARRAYS}
    arrays.update(joint=abstraction.joint, showdown=abstraction.showdown)
    path = cache_path(game, buckets)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_arrays(path, arrays, {"kind": "ehs2", "fingerprint": fingerprint(game, buckets),
                               "spec": game.spec(), "buckets": list(buckets), "seconds": abstraction.seconds})
