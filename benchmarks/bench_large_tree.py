"""A Leduc variant of over 1e8 nodes, compiled and solved in memory: nodes, bytes per node, compile time,
seconds per iteration, ns per node per iteration and peak memory (max RSS), in a fresh process.

    python benchmarks/bench_large_tree.py                                   # leduc(ranks=13,suits=4,max_raises=8)
    python benchmarks/bench_large_tree.py --game "leduc(ranks=13,suits=4,max_raises=4)" --iterations 3
    python benchmarks/bench_large_tree.py --quotient-iterations 400     # then solve it through its quotient

The tree is built by Leduc's direct builder (``cfrlab.games.leduc_tree``) and not cached on disk; the
solver sweeps the full tree (``--no-symmetric``) with float32 regrets and strategy sums.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="leduc(ranks=13,suits=4,max_raises=8)")
    parser.add_argument("--algo", default="dcfr+")
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--quotient-iterations", type=int, default=0,
                        help="then solve the game through its suit quotient this long and report exploitability")
    args = parser.parse_args()

    from cfrlab.registry import load_game
    from cfrlab.solvers import solver_class
    from cfrlab.tree.compile import compile_tree

    def rss_gib() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20

    cls = solver_class(args.algo)
    warm = load_game("leduc(ranks=2)")
    cls(warm, symmetric=False, precision=args.precision).iterate(2)
    compile_tree(warm)  # numba kernels compiled outside the timings
    base = rss_gib()
    game = load_game(args.game)
    t0, c0 = time.perf_counter(), time.process_time()
    tree = compile_tree(game, max_nodes=2**31 - 1)
    compile_s, compile_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    tree_bytes = sum(a.nbytes for a in tree.arrays().values())
    after_compile = rss_gib()
    solver = cls(game, tree=tree, symmetric=False, precision=args.precision)
    solver_bytes = sum(a.nbytes for a in vars(solver).values() if hasattr(a, "nbytes"))
    times, cpu = [], []
    for _ in range(args.iterations):
        t0, c0 = time.perf_counter(), time.process_time()
        solver.iterate(1)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    per_it = min(times)
    out = {"game": args.game, "algorithm": args.algo, "precision": args.precision, "nodes": tree.num_nodes,
           "infosets": tree.num_infosets, "sequences": tree.num_sequences, "compile_s": compile_s,
           "compile_cpu_s": compile_cpu_s, "nodes_per_second_compile": tree.num_nodes / compile_s,
           "tree_bytes_per_node": tree_bytes / tree.num_nodes,
           "solver_bytes_per_node": solver_bytes / tree.num_nodes, "seconds_per_iteration": per_it,
           "iteration_times": times, "iteration_cpu_times": cpu, "cpu_seconds_per_iteration": min(cpu),
           "ns_per_node_iteration": 1e9 * per_it / tree.num_nodes,
           "cpu_ns_per_node_iteration": 1e9 * min(cpu) / tree.num_nodes,
           "peak_rss_gib": rss_gib(), "rss_after_compile_gib": after_compile, "rss_before_gib": base,
           "load_average": os.getloadavg()[0]}
    if args.quotient_iterations:
        del solver, tree
        out.update(_solve_quotient(game, cls, args.quotient_iterations, args.precision))
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(out, handle, indent=1)


def _solve_quotient(game, cls, iterations: int, precision: str) -> dict:
    """Solve through the suit quotient; its exploitability is the full game's (``tests/solvers/test_symmetry.py``)."""
    from cfrlab.eval import exploitability
    from cfrlab.tree.compile import compile_tree

    t0, c0 = time.perf_counter(), time.process_time()
    quotient = compile_tree(game.symmetry_quotient(), max_nodes=2**31 - 1)
    out = {"quotient_nodes": quotient.num_nodes, "quotient_compile_s": time.perf_counter() - t0,
           "quotient_compile_cpu_s": time.process_time() - c0, "quotient_trace": []}
    solver = cls(game, tree=quotient, precision=precision)
    solve_s = solve_cpu = 0.0
    done = 0
    for target in sorted({max(1, iterations // 8), iterations // 4, iterations // 2, iterations}):
        t0, c0 = time.perf_counter(), time.process_time()
        solver.iterate(target - done)
        solve_s, solve_cpu, done = solve_s + time.perf_counter() - t0, solve_cpu + time.process_time() - c0, target
        value = exploitability(quotient, solver.solved_policy()[0])
        out["quotient_trace"].append({"iterations": done, "seconds": solve_s, "cpu_seconds": solve_cpu,
                                      "exploitability": value})
        print(json.dumps(out["quotient_trace"][-1]), flush=True)
    return out


if __name__ == "__main__":
    main()
