"""Vectorised CFR+ (vector-cfr+) on abstract hold'em: one process against its split over Ray workers.

Times ``--iterations`` iterations three ways after a warm-up iteration (kernels compiled, Ray and the
replicas started): one process, the split by first-round betting with its one replica in process, and the
split on each number of Ray workers given (tables compared with one process's: bit for bit, or the largest
difference relative to the table's largest entry, from the rounding of BLAS products run with another
thread count on the workers; set OPENBLAS_NUM_THREADS=1 for one BLAS thread everywhere). For the
Ray runs it also reports what a reader needs to judge the split where the machine is too loaded to show
it: the bytes sent and received per iteration (reach vectors to the replicas, value vectors back, as
pickled), the replicas' own compute time per iteration (the busiest and all together) and the rest of the
wall time (the driver's first round, Ray's calls and transfers), with the machine's load average.

    python benchmarks/bench_holdem_vector_workers.py --game holdem --buckets 5 --iterations 10
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import time

import numpy as np

from cfrlab.games.holdem.abstract_game import with_abstraction
from cfrlab.registry import load_game
from cfrlab.solvers.holdem import VectorHoldemCFRPlus
from cfrlab.solvers.holdem_vector import VectorReplica, VectorSplitRunner


class TimedReplica(VectorReplica):
    """A replica that counts the seconds its passes compute."""

    busy = 0.0

    def run(self, *args):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        out = super().run(*args)
        self.busy += time.perf_counter() - start
        return out

    def busy_seconds(self, reset: bool = False) -> float:
        busy = self.busy
        if reset:
            self.busy = 0.0
        return busy


class TimedRunner(VectorSplitRunner):
    """The split with timed replicas, counting the bytes each pass sends and receives."""

    replica = TimedReplica
    sent = received = 0

    def pass_values(self, p, mode, weight, regret, average):  # type: ignore[no-untyped-def]
        call = self._start().call

        def counting(method, items, common=()):  # type: ignore[no-untyped-def]
            out = call(method, items, common)
            if method == "run":
                self.sent += len(pickle.dumps(common)) * len(items) + sum(len(pickle.dumps(i)) for i in items)
                self.received += sum(len(pickle.dumps(o)) for o in out)
            return out

        self.replicas.call = counting
        try:
            return super().pass_values(p, mode, weight, regret, average)
        finally:
            del self.replicas.call


def timed(game, iterations: int, workers: int | None) -> tuple[float, VectorHoldemCFRPlus]:  # type: ignore[no-untyped-def]
    """Seconds for ``iterations`` after one warm-up iteration; ``workers`` None: no split (one process)."""
    solver = VectorHoldemCFRPlus(game)
    if workers is not None:
        solver.split = TimedRunner(solver.layout, workers, None)
    solver.iterate(1)
    if workers is not None:
        solver.split.sent = solver.split.received = 0
        solver.split.replicas.call("busy_seconds", [(True,)] * solver.split.replicas.size)
    start = time.perf_counter()
    solver.iterate(iterations)
    return time.perf_counter() - start, solver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--buckets", default="5")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--out", help="write the figures here (.json)")
    args = parser.parse_args()

    game = with_abstraction(load_game(args.game), f"ehs2:{args.buckets}")
    n = args.iterations
    loads = [os.getloadavg()[0]]
    rows: dict[str, dict] = {}
    seconds, single = timed(game, n, None)
    rows["one process"] = {"seconds": seconds}
    reference = single.state_dict()["arrays"]
    for label, workers in [("split, 1 replica in process", 1)] + [(f"split, {w} Ray workers", w)
                                                                   for w in args.workers]:
        loads.append(os.getloadavg()[0])
        seconds, solver = timed(game, n, workers)
        split = solver.split
        busy = split.replicas.call("busy_seconds", [()] * split.replicas.size)
        row = {"seconds": seconds, "replicas": split.replicas.size, "subtrees": [len(g) for g in split.groups],
               "busiest": max(busy) / n, "all": sum(busy) / n, "rest": (seconds - max(busy)) / n,
               "sent": split.sent / n, "received": split.received / n}
        arrays = solver.state_dict()["arrays"]
        solver.close()
        row["bitwise"] = all(np.array_equal(arrays[k], reference[k]) for k in reference)
        row["max relative difference"] = max(float(np.abs(arrays[k] - reference[k]).max() / np.abs(reference[k]).max())
                                             for k in reference)
        assert row["max relative difference"] < 1e-12, "tables differ from one process beyond rounding"
        rows[label] = row
    loads.append(os.getloadavg()[0])
    base = rows["one process"]["seconds"]
    print(f"{args.game} under ehs2:{args.buckets}: {n} iterations timed after a warm-up; load average "
          f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}")
    print(f"{'run':<32} {'s/iter':>8} {'speed-up':>9} {'busiest':>8} {'all':>8} {'rest':>7} {'KB out':>7} {'KB in':>7}"
          f" {'tables':>10}")
    for name, row in rows.items():
        extra = ""
        if "replicas" in row:
            extra = (f" {row['busiest']:8.3f} {row['all']:8.3f} {row['rest']:7.3f} {row['sent'] / 1e3:7.1f}"
                     f" {row['received'] / 1e3:7.1f} {'bitwise' if row['bitwise'] else format(row['max relative difference'], '.1e'):>10}")
        print(f"{name:<32} {row['seconds'] / n:8.3f} {base / row['seconds']:8.2f}x{extra}")
    print("busiest, all: the replicas' compute seconds per iteration (the busiest one, all together); rest: the "
          "remaining wall seconds (the driver's first round, Ray's calls and transfers); KB out, in: pickled bytes "
          "sent to and received from the replicas per iteration")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"legend": "seconds: total for the iterations; busiest, all, rest: seconds per iteration; "
                       "sent, received: pickled bytes per iteration",
                       "game": args.game, "buckets": args.buckets, "iterations": n, "load_average": loads,
                       "cores": os.cpu_count(), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
