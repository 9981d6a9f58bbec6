"""The first solve's one-time cost per algorithm, as on a fresh install (a benchmark, not a test).

For each algorithm, a fresh process with an empty numba cache (``NUMBA_CACHE_DIR`` pointing at a new temporary
folder) solves a game once, then solves it again in the same process; the difference in the process's CPU time
is what the first solve paid for compiling its kernels (and building what it caches in memory). A second fresh
process then solves with the cache the first one filled: the cost a later run pays to load the kernels. CPU
seconds, not wall seconds, so that a loaded machine changes the figures little. The compile seconds that the
run itself reports (``RunResult.compile_seconds``, time inside numba's compiler lock) are printed beside them.

    python benchmarks/bench_first_compile.py [--game leduc] [--algos cfr+,dcfr,...] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

# one or two algorithms of each family (CFR, MCCFR, OOS, fictitious play), with iterations enough to touch every
# kernel a run uses
DEFAULT_ALGOS = {
    "cfr+": 20, "cfr": 20, "dcfr": 20, "pcfr+": 20, "linear-cfr": 20,
    "external": 200, "outcome": 200, "robust": 200, "chance": 200, "mccfr+": 20,
    "xfp": 20, "fsp-table": 20, "fsp-softmax": 20, "oos": 200,
}

_CHILD = r"""
import json, sys, time
t0 = time.process_time()
import cfrlab
from cfrlab import driver
driver.clock = time.process_time  # the run's compile seconds in CPU time as well
algo, game, its = sys.argv[1], sys.argv[2], int(sys.argv[3])
t1 = time.process_time()
first = cfrlab.solve(game, algo, iterations=its)
t2 = time.process_time()
second = cfrlab.solve(game, algo, iterations=its)
t3 = time.process_time()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2,
                  "compile_reported": first.compile_seconds, "compiled": first.compiled,
                  "exploitability": first.exploitability}))
"""


def measure(algo: str, game: str, iterations: int, cache_dir: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", _CHILD, algo, game, str(iterations)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="leduc")
    parser.add_argument("--algos", default=",".join(DEFAULT_ALGOS), help="comma-separated algorithm names")
    parser.add_argument("--json", default=None, help="write the figures here")
    args = parser.parse_args()
    rows = []
    from cfrlab.solvers import solver_class

    print(f"{'algorithm':<12} {'first compile':>14} {'reported':>9} {'from cache':>11} {'warm solve':>11} "
          f"{'estimate':>9}   (CPU seconds, {args.game}, load {os.getloadavg()[0]:.1f})")
    for algo in args.algos.split(","):
        iterations = DEFAULT_ALGOS.get(algo, 20)
        with tempfile.TemporaryDirectory(prefix="cfrlab-numba-") as cache:
            cold = measure(algo, args.game, iterations, cache)
            warm = measure(algo, args.game, iterations, cache)
        row = {"algorithm": algo, "game": args.game, "iterations": iterations,
               "first_compile_cpu_s": cold["first"] - cold["second"],
               "compile_reported_cpu_s": cold["compile_reported"],
               "cache_load_cpu_s": warm["first"] - warm["second"], "warm_solve_cpu_s": cold["second"],
               "import_cpu_s": cold["import"], "load": os.getloadavg()[0],
               "estimate_cpu_s": solver_class(algo).first_compile_seconds}
        rows.append(row)
        estimate = row["estimate_cpu_s"] or 0.0  # what the progress line says (Solver.first_compile_seconds)
        off = estimate / row["first_compile_cpu_s"] - 1 if row["first_compile_cpu_s"] > 0 else 0.0
        print(f"{algo:<12} {row['first_compile_cpu_s']:>14.2f} {row['compile_reported_cpu_s']:>9.2f} "
              f"{row['cache_load_cpu_s']:>11.2f} {row['warm_solve_cpu_s']:>11.2f} {estimate:>9.1f}"
              f"{'  (off by more than 30 %)' if abs(off) > 0.3 else ''}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": platform.platform(), "cpus": os.cpu_count(), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
