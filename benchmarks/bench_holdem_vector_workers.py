"""Vectorised CFR+ (vector-cfr+) on abstract hold'em: one process against its split over Ray workers.

Times vector-cfr+ three ways after a warm-up iteration (kernels compiled, Ray and the replicas started):
one process, the split by betting sequence with its one replica in process, and the split on each number of
Ray workers given, the runs taking turns for ``--rounds`` rounds of ``--iterations`` each (a loaded
machine's speed moves from minute to minute). The tables are then compared with one process's: bit for
bit, or the largest difference relative to the table's largest entry (the rounding of BLAS products run
with another thread count on the workers; OPENBLAS_NUM_THREADS=1 gives one BLAS thread everywhere). For the
split it also reports what a reader needs to judge it where the machine is too loaded to show it: the
bytes sent and received an iteration (reach vectors to the replicas, value vectors back, as pickled), the
replicas' own compute time an iteration (the busiest and all together) and the rest of the wall time (the
driver's first rounds, Ray's calls and transfers), with the machine's load average.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_holdem_vector_workers.py --game holdem --buckets 5
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import time

import numpy as np

from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
from cfrlab.games.holdem.solvers.vector import VectorReplica, VectorSplitRunner
from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
from cfrlab.registry import load_game


class TimedReplica(VectorReplica):
    """A replica that counts the seconds its passes compute."""

    busy = 0.0

    def run(self, *args):
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

    def pass_values(self, p, mode, weight, regret, average):
        call = self._start().call

        def counting(method, items, common=()):
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


def started(game, workers: int | None, split_rounds: int) -> VectorHoldemCFRPlus:
    """A solver after one warm-up iteration (kernels compiled, Ray and the replicas started, counters reset);
    ``workers`` None: no split (one process)."""
    solver = VectorHoldemCFRPlus(game, split_rounds=split_rounds)
    if workers is not None:
        solver.split = TimedRunner(solver.layout, workers, None)
    solver.iterate(1)
    if workers is not None:
        solver.split.sent = solver.split.received = 0
        solver.split.replicas.call("busy_seconds", [(True,)] * solver.split.replicas.size)
    return solver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--buckets", default="5")
    parser.add_argument("--iterations", type=int, default=2, help="iterations a run times in each round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds, the runs taking turns in each (the "
                        "machine's load moves: each run's median and best round are reported)")
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--split-rounds", type=int, default=1, help="vector-cfr+'s --split-rounds")
    parser.add_argument("--out", help="write the figures here (.json)")
    args = parser.parse_args()

    game = with_abstraction(load_game(args.game), f"ehs2:{args.buckets}")
    n = args.iterations
    runs = {"one process": None, "split, 1 replica in process": 1,
            **{f"split, {w} Ray workers": w for w in args.workers}}
    solvers = {label: started(game, workers, args.split_rounds) for label, workers in runs.items()}
    seconds: dict[str, list[float]] = {label: [] for label in runs}
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for label, solver in solvers.items():
            start = time.perf_counter()
            solver.iterate(n)
            seconds[label].append((time.perf_counter() - start) / n)
        loads.append(os.getloadavg()[0])
    total = n * args.rounds
    reference = solvers["one process"].state_dict()["arrays"]
    rows: dict[str, dict] = {}
    for label, solver in solvers.items():
        row: dict = {"s/iteration per round": seconds[label], "median": float(np.median(seconds[label])),
                     "best": min(seconds[label])}
        split = solver.split
        if split is not None:
            busy = split.replicas.call("busy_seconds", [()] * split.replicas.size)
            row.update({"replicas": split.replicas.size, "subtrees": [len(g) for g in split.groups],
                        "busiest": max(busy) / total, "all": sum(busy) / total,
                        "rest": sum(seconds[label]) / args.rounds - max(busy) / total,
                        "sent": split.sent / total, "received": split.received / total})
            arrays = solver.state_dict()["arrays"]
            solver.close()
            row["bitwise"] = all(np.array_equal(arrays[k], reference[k]) for k in reference)
            row["max relative difference"] = max(float(np.abs(arrays[k] - reference[k]).max()
                                                       / np.abs(reference[k]).max()) for k in reference)
            assert row["max relative difference"] < 1e-12, "tables differ from one process beyond rounding"
        rows[label] = row
    base = rows["one process"]
    print(f"{args.game} under ehs2:{args.buckets}, split below {args.split_rounds} round(s): {args.rounds} rounds "
          f"of {n} iterations a run, after a warm-up; "
          f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}")
    print(f"{'run':<30} {'median':>7} {'x':>6} {'best':>7} {'x':>6} {'busiest':>8} {'all':>6} {'rest':>6} "
          f"{'KB out':>7} {'KB in':>6} {'tables':>8}")
    for name, row in rows.items():
        extra = ""
        if "replicas" in row:
            same = "bitwise" if row["bitwise"] else format(row["max relative difference"], ".1e")
            extra = (f" {row['busiest']:8.3f} {row['all']:6.3f} {row['rest']:6.3f} {row['sent'] / 1e3:7.1f}"
                     f" {row['received'] / 1e3:6.1f} {same:>8}")
        print(f"{name:<30} {row['median']:7.3f} {base['median'] / row['median']:5.2f}x {row['best']:7.3f} "
              f"{base['best'] / row['best']:5.2f}x{extra}")
    print("median, best: seconds an iteration over the rounds (x: speed-up on one process's); busiest, all: the "
          "replicas' compute seconds an iteration (the busiest one, all together); rest: the remaining wall seconds "
          "(the driver's first rounds, Ray's calls and transfers); KB out, in: pickled bytes sent to and received "
          "from the replicas an iteration")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"legend": "seconds an iteration; sent, received: pickled bytes an iteration",
                       "game": args.game, "buckets": args.buckets, "split_rounds": args.split_rounds,
                       "iterations per round": n, "rounds": args.rounds,
                       "load_average": loads, "cores": os.cpu_count(),
                       "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
