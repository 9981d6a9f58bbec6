"""Full-tree CFR: cfrlab against OpenSpiel (C++ through pyspiel, and its Python ``cfr`` module), side by side.

Both solve the *same* trees: OpenSpiel's ``kuhn_poker`` and ``leduc_poker``, which
cfrlab reads through its OpenSpiel adapter. Each measurement runs in a fresh
subprocess so peak memory (max RSS) is the solver's own. Reported per solver and
game: milliseconds per iteration, iterations and seconds to exploitability
1e-3 (evaluation time excluded, for both sides), peak RSS; then our/their
ratios. A second table shows cfrlab's cost per iteration against tree size on
larger Leduc variants (linear scaling means constant ns per node).

    python benchmarks/bench_cfr.py                 # everything (about 5 minutes)
    python benchmarks/bench_cfr.py --skip-python   # without OpenSpiel's slow Python CFR
    python benchmarks/bench_cfr.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time

TARGET = 1e-3


def _measure(kind: str, game: str, max_seconds: float) -> dict:
    """Run inside the subprocess: solve until TARGET or max_seconds, timing iterations only."""
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if kind.startswith("cfrlab"):
        from cfrlab.eval import exploitability
        from cfrlab.registry import load_game
        from cfrlab.solvers.cfr import CFRPlus
        from cfrlab.tree import compile_tree

        spec = game if ":" in game or "(" in game else f"openspiel:{game}"
        g = load_game(spec)
        warm = load_game("kuhn")  # compile numba kernels outside the timing
        CFRPlus(warm).iterate(2)
        exploitability(warm, CFRPlus(warm).average_policy())
        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        tree = compile_tree(g)
        compile_s = time.perf_counter() - t0
        solver = CFRPlus(g, tree=tree)

        def step(n: int) -> None:
            solver.iterate(n)

        def evaluate() -> float:
            return exploitability(tree, solver.average_policy())

        extra = {"nodes": tree.num_nodes, "compile_s": compile_s}
    elif kind == "openspiel-cpp":
        import pyspiel

        g = pyspiel.load_game(game)
        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        solver = pyspiel.CFRPlusSolver(g)
        compile_s = time.perf_counter() - t0

        def step(n: int) -> None:
            for _ in range(n):
                solver.evaluate_and_update_policy()

        def evaluate() -> float:
            return pyspiel.exploitability(g, solver.average_policy())

        extra = {"compile_s": compile_s}
    elif kind == "openspiel-python":
        import pyspiel
        from open_spiel.python.algorithms import cfr, exploitability as osx

        g = pyspiel.load_game(game)
        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        solver = cfr.CFRPlusSolver(g)
        compile_s = time.perf_counter() - t0

        def step(n: int) -> None:
            for _ in range(n):
                solver.evaluate_and_update_policy()

        def evaluate() -> float:
            return osx.exploitability(g, solver.average_policy())

        extra = {"compile_s": compile_s}
    else:
        raise ValueError(kind)

    iterations, solve_s, expl = 0, 0.0, float("inf")
    chunk = 10
    while expl > TARGET and solve_s < max_seconds:
        t0 = time.perf_counter()
        step(chunk)
        solve_s += time.perf_counter() - t0
        iterations += chunk
        expl = evaluate()
    expl = float(expl)
    reached = bool(expl <= TARGET)
    return {
        "solver": kind, "game": game, "iterations": iterations, "seconds": solve_s,
        "ms_per_iteration": 1000 * solve_s / iterations, "exploitability": expl, "reached": reached,
        "peak_rss_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) / 1024, **extra,
    }


def _scaling(spec: str, iterations: int) -> dict:
    from cfrlab.registry import load_game
    from cfrlab.solvers.cfr import CFRPlus
    from cfrlab.tree import compile_tree

    CFRPlus(load_game("kuhn")).iterate(2)
    tree = compile_tree(load_game(spec))
    solver = CFRPlus(load_game(spec), tree=tree).iterate(2)
    t0 = time.perf_counter()
    solver.iterate(iterations)
    s = (time.perf_counter() - t0) / iterations
    return {"game": spec, "nodes": tree.num_nodes, "infosets": tree.num_infosets, "ms_per_iteration": 1000 * s,
            "ns_per_node": 1e9 * s / tree.num_nodes}


def _in_subprocess(func: str, *args) -> dict:
    code = f"import json,sys; sys.path.insert(0,'benchmarks'); import bench_cfr as b; print(json.dumps(b.{func}(*{args!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-python", action="store_true", help="skip OpenSpiel's Python CFR")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="cap per solver run")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    kinds = ["cfrlab", "openspiel-cpp"] + ([] if args.skip_python else ["openspiel-python"])
    rows = []
    for game in ("kuhn_poker", "leduc_poker"):
        for kind in kinds:
            row = _in_subprocess("_measure", kind, game, args.max_seconds)
            rows.append(row)
            print(f"{game:12} {kind:17} {row['ms_per_iteration']:9.3f} ms/it  {row['iterations']:6d} it "
                  f"{row['seconds']:9.3f} s to {TARGET:g} ({'reached' if row['reached'] else 'NOT reached'})  "
                  f"peak {row['peak_rss_mb']:7.1f} MB", flush=True)
    print("\nratios (their time / our time, to exploitability 1e-3; per iteration)")
    for game in ("kuhn_poker", "leduc_poker"):
        ours = next(r for r in rows if r["game"] == game and r["solver"] == "cfrlab")
        for r in rows:
            if r["game"] == game and r["solver"] != "cfrlab":
                print(f"  {game:12} vs {r['solver']:17} time-to-target x{r['seconds'] / ours['seconds']:8.1f}   "
                      f"per-iteration x{r['ms_per_iteration'] / ours['ms_per_iteration']:8.1f}")
    print("\ncfrlab CFR+ cost per iteration against tree size")
    scaling = []
    for spec in ("leduc", "leduc(ranks=4)", "leduc(ranks=5)", "leduc(ranks=6)", "leduc(ranks=8)"):
        row = _in_subprocess("_scaling", spec, 50)
        scaling.append(row)
        print(f"  {spec:16} {row['nodes']:9d} nodes {row['ms_per_iteration']:9.3f} ms/it "
              f"{row['ns_per_node']:6.1f} ns/node", flush=True)
    machine = f"{platform.machine()} {platform.processor() or ''}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}"
    print(f"\nmachine: {machine}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"machine": machine, "rows": rows, "scaling": scaling}, handle, indent=2)


if __name__ == "__main__":
    main()
