"""The first build of the large-deck E[HS^2] tables: time, peak memory and the estimate said before it.

Builds ``--game`` with ``--buckets`` (no cache) and prints the stage times, the traced peak of Python's and
numpy's allocations (``--traced``: tracemalloc), the process's peak resident memory, and the estimate that
``cfrlab`` prints before a build (``abstraction.build_estimate``). Run it once per version of the code
with ``PYTHONPATH`` pointing at each to compare them (kernels compiled by a first run).

    .venv/bin/python benchmarks/bench_holdem_build.py --game 'holdem(ranks=8,suits=4)' --buckets 10,10,3,3 --traced
"""

from __future__ import annotations

import argparse
import json
import resource
import time
import tracemalloc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem(ranks=7,suits=4)")
    parser.add_argument("--buckets", default="10,10,10,5")
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--replicates", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--traced", action="store_true", help="trace allocations (tracemalloc) for their peak")
    args = parser.parse_args()
    from cfrlab.games.holdem.abstraction.large_builder import build_large_abstraction
    from cfrlab.registry import load_game

    game, buckets = load_game(args.game), [int(b) for b in args.buckets.split(",")]
    if args.traced:
        tracemalloc.start()
    started, cpu = time.perf_counter(), time.process_time()
    built = build_large_abstraction(game, buckets, args.samples, args.replicates, 0, args.threads)
    report = {"game": args.game, "buckets": buckets, "threads": args.threads, "wall": time.perf_counter() - started,
              "cpu_seconds": time.process_time() - cpu, "seconds": built.seconds,
              "traced_peak_bytes": tracemalloc.get_traced_memory()[1] if args.traced else None,
              "peak_resident_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    try:
        from cfrlab.games.holdem.abstraction.build_estimate import large_estimate
    except ImportError:  # a version of the code before the estimate
        pass
    else:
        estimate = large_estimate(game, buckets, args.samples, args.replicates, args.threads)
        report.update(estimate_cpu_seconds=estimate.cpu_seconds, estimate_peak_bytes=estimate.peak_bytes,
                      estimate=estimate.text())
    print(json.dumps(report))


if __name__ == "__main__":
    main()
