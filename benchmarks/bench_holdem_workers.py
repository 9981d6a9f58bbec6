"""Chance-sampled CFR (pvt-cfr) on abstract hold'em: one process against the tree split over Ray workers.

Times the same deals three ways after a warm-up (kernels compiled, Ray and the replicas started):
the paper's one-deal-at-a-time order (``pass_deals=0``), the split by first-round betting in process
(``pass_deals=P, workers=1``) and on each number of Ray workers given (``workers=N``, same tables bit for bit as
``workers=1``: checked). Prints iterations per second and the ratios, with the machine's load average.

    python benchmarks/bench_holdem_workers.py --game 'holdem(ranks=6,suits=4)' --buckets 5 --deals 40000
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
from cfrlab.games.holdem.solvers.cfr import ChanceSampledHoldemCFR
from cfrlab.registry import load_game


def timed(game, deals: int, **options) -> tuple[float, ChanceSampledHoldemCFR]:
    """Seconds for ``deals`` iterations after a warm-up of one pass (the solver, still open, is returned)."""
    solver = ChanceSampledHoldemCFR(game, seed=0, **options)
    solver.iterate(options.get("pass_deals") or 1000)  # compile, start Ray and the replicas
    start = time.perf_counter()
    solver.iterate(deals)
    return time.perf_counter() - start, solver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem(ranks=6,suits=4)")
    parser.add_argument("--buckets", default="5")
    parser.add_argument("--deals", type=int, default=40_000)
    parser.add_argument("--pass-deals", type=int, default=4096)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--out", help="write the figures here (.json)")
    args = parser.parse_args()

    game = with_abstraction(load_game(args.game), f"ehs2:{args.buckets}")
    rows = {}
    seconds, _ = timed(game, args.deals)
    rows["one process, one deal at a time (the paper's order)"] = seconds
    seconds, split = timed(game, args.deals, pass_deals=args.pass_deals)
    rows[f"split, passes of {args.pass_deals}, in process"] = seconds
    reference = split.state_dict()["arrays"]
    for workers in args.workers:
        seconds, solver = timed(game, args.deals, pass_deals=args.pass_deals, workers=workers)
        arrays = solver.state_dict()["arrays"]
        solver.close()
        assert all(np.array_equal(arrays[k], reference[k]) for k in reference), "tables differ from one process"
        rows[f"split, passes of {args.pass_deals}, {workers} Ray workers"] = seconds
    base = rows["one process, one deal at a time (the paper's order)"]
    print(f"{args.game} under ehs2:{args.buckets}: {args.deals} deals timed after a warm-up; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'run':<58} {'seconds':>8} {'iter/s':>9} {'speed-up':>9}")
    for name, seconds in rows.items():
        print(f"{name:<58} {seconds:8.2f} {args.deals / seconds:9.1f} {base / seconds:8.2f}x")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"game": args.game, "buckets": args.buckets, "deals": args.deals,
                       "load_average": os.getloadavg()[0], "seconds": rows}, f, indent=2)


if __name__ == "__main__":
    main()
