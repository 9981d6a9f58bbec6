"""vector-cfr+'s levers on abstract hold'em: numba threads, float32 tables, the discounted and predictive updates.

1. ``--time``: time per iteration. One solver per (threads, precision) setting; after a warm-up iteration each
   (kernels compiled) they take turns, one iteration each, for ``--rounds`` rounds (a loaded machine's speed
   moves from minute to minute); the median per setting and its ratio to one thread in float64.
2. ``--converge``: iterations to a target. Each update rule (vector-cfr+, -pcfr+, -dcfr+, -pdcfr+) runs
   ``--iterations`` iterations with the exact exploitability after each; the first iteration at or below
   each ``--targets`` value (mb/h), and the ratio of CFR+'s count to each rule's.

    python benchmarks/bench_holdem_levers.py --game 'holdem(ranks=5,suits=4)' --buckets 5 --time
    python benchmarks/bench_holdem_levers.py --game 'holdem(ranks=5,suits=4)' --buckets 3 --converge

The JSON (``--out``) records the code version (``git describe``), the load average and every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
from cfrlab.registry import load_game
from cfrlab.solvers import algorithms

RULES = ("vector-cfr+", "vector-pcfr+", "vector-dcfr+", "vector-pdcfr+")


def code_version() -> str:
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def time_settings(game, settings: list[tuple[int, str]], rounds: int) -> list[dict]:
    solvers = [algorithms()["vector-cfr+"](game, threads=t, precision=p).iterate(1) for t, p in settings]
    seconds: list[list[float]] = [[] for _ in settings]
    for _ in range(rounds):
        for i, solver in enumerate(solvers):
            start = time.perf_counter()
            solver.iterate(1)
            seconds[i].append(time.perf_counter() - start)
    base = statistics.median(seconds[0])
    rows = []
    for (threads, precision), times, solver in zip(settings, seconds, solvers):
        mb = solver.exact_exploitability() * game.milli_bets_per_chip
        rows.append({"threads": threads, "precision": precision, "median_s": statistics.median(times),
                     "seconds": times, "speedup": base / statistics.median(times), "mbb_per_hand": mb})
        print(f"threads {threads} {precision}: {statistics.median(times):.3f} s an iteration "
              f"(x{base / statistics.median(times):.2f}), {mb:.3f} mb/h after {solver.iterations}", flush=True)
    return rows


def converge(game, iterations: int, targets: list[float]) -> list[dict]:
    rows = []
    for rule in RULES:
        solver, curve, start = algorithms()[rule](game), [], time.perf_counter()
        for _ in range(iterations):
            curve.append(solver.iterate(1).exact_exploitability() * game.milli_bets_per_chip)
        reached = {str(t): next((i + 1 for i, v in enumerate(curve) if v <= t), None) for t in targets}
        rows.append({"algorithm": rule, "curve_mbb": curve, "iterations_to": reached,
                     "seconds": time.perf_counter() - start})
        print(f"{rule}: {curve[-1]:.4f} mb/h after {iterations}; iterations to {reached}", flush=True)
    base = rows[0]["iterations_to"]
    for row in rows:
        row["fewer_than_cfr_plus"] = {t: (base[t] / n if base[t] and n else None)
                                      for t, n in row["iterations_to"].items()}
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem(ranks=5,suits=4)")
    parser.add_argument("--buckets", type=int, default=5)
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--converge", action="store_true")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--targets", type=float, nargs="+", default=[10.0, 1.0, 0.1])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    game = with_abstraction(load_game(args.game), f"ehs2:{args.buckets}")
    report: dict = {"game": args.game, "buckets": args.buckets, "code": code_version(), "cores": os.cpu_count(),
                    "load_before": os.getloadavg()}
    if args.time:
        settings = [(1, "float64"), (2, "float64"), (1, "float32"), (2, "float32")]
        report["time"] = time_settings(game, settings, args.rounds)
    if args.converge:
        report["converge"] = converge(game, args.iterations, args.targets)
    report["load_after"] = os.getloadavg()
    print(f"code {report['code']}, load average {report['load_before'][0]:.1f} -> {report['load_after'][0]:.1f} "
          f"on {os.cpu_count()} cores")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
