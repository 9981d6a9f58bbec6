"""What a first build of the E[HS^2] tables will take, said before it starts: time, peak memory, disk.

From the deck and the bucket counts: the sizes of the builders' arrays (``large_builder``: the flop classes,
private hands and run-outs a flop, the bucket sequences; ``abstraction``: the board classes and private hands)
and each unit of work's cost measured on the full deck (``LARGE_COSTS``: the CFR10 build of 2026-11-26 on two
quiet cores, 545 CPU seconds) or on small decks (``EXACT_COSTS``). Checked against measured builds of small decks
in BENCHMARKS.md ("The first build of the tables"); a loaded machine takes longer by its load.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb, prod

import numpy as np

from cfrlab.games.holdem.abstraction.abstraction import canonical_flops
from cfrlab.games.holdem.abstraction.large_abstraction import FLOAT32_CELLS
from cfrlab.games.holdem.rules.game import LimitHoldem

LARGE_COSTS = {"evaluation": 1.74e-7, "turn item": 6e-8, "river item": 2.4e-9, "sample": 4.2e-7,
               "pair": 3.2e-10, "pair, large table": 1.4e-9}
"""CPU seconds a unit of the flop-by-flop builder: a hand evaluated and sorted in pass 1 (388 CPU s for 2.2e9 on
52 cards), a count after the turn bucketed, a river item histogrammed, a sampled deal tabled (224 CPU s for
5.3e8), a pair of private hands on a run-out of the exact table (``exact_joint``: 0.89 and 3.90 CPU s a flop of 52
cards with 5 and 10 buckets, ``benchmarks/bench_holdem_exact_table.py``; the tables of 10 buckets, 1e8 cells, miss
the cache)."""
EXACT_COSTS = {"pair": 1.5e-8, "class": 2e-6}
"""CPU seconds a unit of the exact builder: a pair of private hands on a board class (the joint table), a
river class valued (4.7 and 23.5 CPU s measured for 20 and 24 cards, 4.8 and 27.6 estimated)."""
BASE_BYTES = 0.2e9
"""Python, numba's kernels and the evaluator's tables: the resident memory of a build of a tiny deck."""


@dataclass(frozen=True)
class BuildEstimate:
    cpu_seconds: float
    threads: int
    peak_bytes: float
    disk_bytes: float = 0.0

    @property
    def seconds(self) -> float:
        return self.cpu_seconds / self.threads

    def text(self) -> str:
        """``about 6 min on 2 quiet threads, 3.9 GB of memory at peak, a 9.7 GB temporary file``."""
        disk = f", a {self.disk_bytes / 1e9:.1f} GB temporary file" if self.disk_bytes >= 1e8 else ""
        return (f"about {_duration(self.seconds)} on {self.threads} quiet thread{'s' * (self.threads > 1)}, "
                f"{self.peak_bytes / 1e9:.1f} GB of memory at peak{disk}")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _sequences(deck: int, sizes: list[int]) -> int:
    """Card sequences dealt in parts of ``sizes`` cards (each part a set) from ``deck`` cards."""
    out = 1
    for size in sizes:
        out, deck = out * comb(deck, size), deck - size
    return out


def large_estimate(game: LimitHoldem, buckets: list[int], samples: int, replicates: int,
                   threads: int) -> BuildEstimate:
    """The flop-by-flop builder (``large_builder``) on ``game``: from its arrays' sizes and ``LARGE_COSTS``."""
    flops = len(canonical_flops(game)[0])
    hc, nf = game.hole_cards, game.board_cards[1]
    m = game.deck_size - nf
    hands, runouts, live = comb(m, hc), comb(m, 2), comb(m - 2, hc)
    boards = flops * m * (m - 1)  # ordered turn and river
    items = flops * m * hands
    cpu = LARGE_COSTS["evaluation"] * flops * runouts * live + LARGE_COSTS["turn item"] * items \
        + LARGE_COSTS["river item"] * boards * hands \
        + (LARGE_COSTS["sample"] * boards * samples if samples else _pair_cost(prod(buckets)) * boards * live * live)
    nseq = prod(buckets)
    reps = max(1, replicates) if samples else threads  # the exact pass: a pair of tables a thread
    tables = 2 * reps * nseq**2 * 8 + (3 * nseq**2 * 4 if samples else 0)
    cell = 4 if nseq**2 > FLOAT32_CELLS else 8
    per_flop = 3 * flops * hands * 8  # classes, flop keys and counts after the flop of each hand
    turn = flops * m * hands * 4  # counts after the turn, then turn bucket sequences (int32)
    sorted_items = items * 8 + items * 3 // 4 * 8  # grouped counts and their flops; the runs (about a quarter)
    summed = 2 * nseq**2 * 8 if reps > 1 else 0  # the replicates summed
    finish = tables + summed + nseq**2 * (cell + 1)  # the showdowns divided out, where a cell has deals
    peak = max(turn + sorted_items, turn + tables, finish)
    return BuildEstimate(cpu, threads, BASE_BYTES + per_flop + peak, flops * runouts * hands * 4)


def _pair_cost(nseq: int) -> float:
    return LARGE_COSTS["pair" if nseq**2 <= FLOAT32_CELLS else "pair, large table"]


def exact_estimate(game: LimitHoldem, buckets: list[int]) -> BuildEstimate:
    """The exact builder (``abstraction``, decks of up to 32 cards): from the deals it enumerates."""
    deck, hc, board = game.deck_size, game.hole_cards, sum(game.board_cards)
    symmetry = float(np.prod(np.arange(1, game.suits + 1)))  # suit renamings: classes are about raw / suits!
    board_classes = _sequences(deck, list(game.board_cards)) / symmetry
    hands = comb(deck - board, hc)
    river_classes = _sequences(deck, [hc, *game.board_cards]) / symmetry
    cpu = EXACT_COSTS["pair"] * board_classes * hands * hands + EXACT_COSTS["class"] * river_classes
    nseq = prod(buckets)
    # the river round's 7 tables and np.unique's arrays over its raw keys (about 5 more), the river strengths
    river_arrays = 12 * 8 * river_classes + 4 * comb(deck, board) * comb(deck, hc)
    return BuildEstimate(cpu, 1, BASE_BYTES + river_arrays + 2 * 2 * nseq**2 * 8)
