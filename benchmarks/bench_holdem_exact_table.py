"""What the exact joint table of the full deck costs, from a sample of flops (``exact_joint``).

    nice -n 19 python benchmarks/bench_holdem_exact_table.py --flops 12 --buckets 5 10

The exact pass visits each of the 1,755 flop classes once, every canonical (turn, river) of it, and on each board
works on the histograms of its bucket sequences. Its cost per flop depends on the flop's stabiliser (how many
run-outs are canonical) and on how many distinct bucket sequences a board holds, so the sample is of flop classes
drawn at random (seeded), and the buckets are the builder's rule on the sample's own counts (percentiles of the
sampled flops stand in for those of all flops: the same number of buckets, a similar spread on a board). The
figure is CPU seconds on one thread, extrapolated to the 1,755 classes; the first passes (strengths, buckets) are
the sampled build's and are measured in BENCHMARKS.md's build rows. Writes ``--out`` (JSON) when given.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time

import numpy as np

from cfrlab.games.holdem.abstraction.abstraction import tie_buckets
from cfrlab.games.holdem.abstraction.exact_joint import board_work, canonical_runouts, flop_tables
from cfrlab.games.holdem.abstraction.large_builder import _Builder
from cfrlab.games.holdem.rules.game import LimitHoldem


def sample_sequences(b: _Builder, folder: str) -> tuple[np.ndarray, np.ndarray]:
    """The builder's bucket rule on the sampled flops: each hand's turn sequence and the river cuts."""
    pre, after_flop, after_turn = b.values(folder)
    weight = np.broadcast_to(b.flop_weight[:, None].astype(np.float64), after_flop.shape).ravel()
    pre_count = np.bincount(pre.ravel(), weights=weight * after_flop.ravel(), minlength=len(b.preflop_keys))
    pre_weight = np.bincount(pre.ravel(), weights=weight, minlength=len(b.preflop_keys))
    pre_mean = np.divide(pre_count, pre_weight, out=np.zeros_like(pre_count), where=pre_weight > 0)
    pre_bucket, _ = tie_buckets(pre_mean.astype(np.int64), b.preflop_weight, np.zeros(len(pre_mean), np.int64), 1,
                                b.buckets[0])
    group = pre_bucket[pre].ravel()
    bucket, _ = tie_buckets(after_flop.ravel(), weight, group, b.buckets[0], b.buckets[1])
    flop_seq = (group * b.buckets[1] + bucket).reshape(after_flop.shape)
    turn_seq, _ = b.turn_buckets(after_turn, flop_seq)
    return turn_seq, b.river_cuts(turn_seq)


def measure(buckets: list[int], flops: int, seed: int) -> dict:
    game = LimitHoldem()
    b = _Builder(game, buckets, 1)
    total = len(b.flops)
    chosen = np.sort(np.random.default_rng(seed).choice(total, size=flops, replace=False))
    b.flops, b.flop_weight = b.flops[chosen], b.flop_weight[chosen]
    with tempfile.TemporaryDirectory(prefix="cfrlab-exact-") as folder:
        started = time.process_time()
        turn_seq, cuts = sample_sequences(b, folder)
        first = time.process_time() - started
        nseq = int(np.prod(buckets))
        table = np.zeros((nseq, nseq, 2))
        work = board_work(nseq, b.live.shape[1], b.m)
        seconds, boards = [], 0
        for f in range(len(b.flops)):
            x, value = b.strengths(f)
            turns, rivers, weights = canonical_runouts(int(b.flops[f]), b._rest(f), b.maps)
            began = time.process_time()
            flop_tables(x, value, turn_seq[f], cuts, buckets[3], b.hole_pos, b.pair_index, b.live, turns, rivers,
                        weights, float(b.flop_weight[f]), work, table)
            seconds.append(time.process_time() - began)
            boards += len(turns)
        b.close()
    per_flop = float(np.mean(seconds[1:])) if len(seconds) > 1 else seconds[0]  # the first compiles or loads
    return {"buckets": buckets, "flops_sampled": flops, "flop_classes": total, "canonical_boards": boards,
            "boards_if_all_runouts": flops * b.m * (b.m - 1), "cpu_seconds_per_flop": seconds,
            "first_passes_cpu_seconds": round(first, 1),
            "exact_pass_cpu_seconds_estimate": round(per_flop * total, 0),
            "exact_pass_cpu_minutes_estimate": round(per_flop * total / 60, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flops", type=int, default=12)
    parser.add_argument("--buckets", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = []
    for n in args.buckets:
        row = measure([n] * 4, args.flops, args.seed)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        with open(args.out, "w") as handle:
            json.dump({"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                       "load_average": os.getloadavg(), "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
