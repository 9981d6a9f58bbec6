"""Full-tree CFR family: cfrlab's CFR+, DCFR, PCFR+, DCFR+, PDCFR+ against OpenSpiel's C++ CFR+, side by side.

Every solver runs in a fresh subprocess (so peak memory, the growth of max RSS, is its own), on
OpenSpiel's ``leduc_poker`` (cfrlab reads it through its adapter: the full 9,457-node tree, no symmetry
declared), on cfrlab's ``leduc`` (the same game; cfrlab sweeps its suit quotient, 1,939 nodes) and on a
larger Leduc variant. Reported per solver and game: iterations and solver seconds to exploitability
1e-3, 1e-4, 1e-5 and 1e-6 (evaluation excluded, checked after every chunk of iterations, chunks growing
by 10 %; wall and CPU seconds of the solver process, the second being what an idle core would give on
a shared machine), milliseconds per iteration, peak RSS; then the ratio to OpenSpiel's C++ CFR+ and the goals
(1e-3 on Leduc within 15 ms, 1e-6 within 2 s). A second table: CFR+ cost per node against tree size.

    python benchmarks/bench_cfr.py                      # everything (about 10 minutes)
    python benchmarks/bench_cfr.py --quick              # leduc_poker and leduc only, 1e-3 and 1e-4
    python benchmarks/bench_cfr.py --json out.json --plot out.png   # exploitability against seconds
    python benchmarks/bench_cfr.py --with-python        # also OpenSpiel's Python CFR+ (slow)
    python benchmarks/bench_cfr.py --quick --eval-every 1   # the exact iteration each target is crossed
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

TARGETS = (1e-3, 1e-4, 1e-5, 1e-6)
OURS = ("cfr+", "dcfr", "pcfr+", "dcfr+", "pdcfr+")
GAMES = ("leduc_poker", "leduc", "leduc(ranks=5,suits=4)")
GOALS = {1e-3: 0.015, 1e-6: 2.0}


def _setup(kind: str, game: str):
    """(step(n), evaluate() -> exploitability, facts) for one solver on one game, kernels compiled."""
    if kind.startswith("cfrlab:"):
        from cfrlab.eval import exploitability
        from cfrlab.registry import load_game
        from cfrlab.solvers import solver_class
        from cfrlab.tree import compile_tree

        cls = solver_class(kind.split(":", 1)[1])
        g = load_game(game if "(" in game or not game.endswith("_poker") else f"openspiel:{game}")
        warm = load_game("leduc(ranks=2)")  # compiles the kernels, the quotient path included
        cls(warm).iterate(2).average_policy()
        exploitability(warm, cls(warm).average_policy())
        t0 = time.perf_counter()
        solved = g.symmetry_quotient() or g
        tree = compile_tree(solved)
        compile_s = time.perf_counter() - t0
        full = compile_tree(g) if solved is not g else tree  # for exact evaluation on the full game
        solver = cls(g, tree=tree)
        return solver.iterate, lambda: exploitability(full, solver.average_policy()), {
            "nodes": tree.num_nodes, "full_nodes": full.num_nodes, "compile_s": compile_s}
    import pyspiel

    g = pyspiel.load_game(game)
    if kind == "openspiel-cpp":
        solver = pyspiel.CFRPlusSolver(g)
        expl = pyspiel.exploitability
    else:
        from open_spiel.python.algorithms import cfr
        from open_spiel.python.algorithms import exploitability as osx

        solver = cfr.CFRPlusSolver(g)
        expl = osx.exploitability

    def step(n: int) -> None:
        for _ in range(n):
            solver.evaluate_and_update_policy()

    return step, lambda: expl(g, solver.average_policy()), {}


def _measure(kind: str, game: str, max_seconds: float, targets: tuple[float, ...], every: int | None = None) -> dict:
    """Run inside the subprocess: iterate until the last target or ``max_seconds`` of solver time, evaluating
    after chunks growing by 10 % (or after every ``every`` iterations: the exact crossing, at more cost)."""
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    step, evaluate, facts = _setup(kind, game)
    hits: dict[str, dict] = {}
    trace = []
    iterations, solve_s, cpu_s, expl, chunk = 0, 0.0, 0.0, float("inf"), every or 10
    while solve_s < max_seconds and len(hits) < len(targets):
        t0, c0 = time.perf_counter(), time.process_time()
        step(chunk)
        solve_s += time.perf_counter() - t0
        cpu_s += time.process_time() - c0
        iterations += chunk
        expl = float(evaluate())
        trace.append((iterations, solve_s, expl))
        for target in targets:
            if expl <= target and str(target) not in hits:
                hits[str(target)] = {"iterations": iterations, "seconds": solve_s, "cpu_seconds": cpu_s}
        chunk = every or max(10, int(iterations * 0.1) // 10 * 10)
    return {"solver": kind, "game": game, "iterations": iterations, "seconds": solve_s, "cpu_seconds": cpu_s,
            "ms_per_iteration": 1000 * solve_s / iterations, "cpu_ms_per_iteration": 1000 * cpu_s / iterations,
            "exploitability": expl, "hits": hits, "trace": trace,
            "peak_rss_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) / 1024, **facts}


def _scaling(spec: str, iterations: int) -> dict:
    from cfrlab.registry import load_game
    from cfrlab.solvers.cfr import CFRPlus
    from cfrlab.tree import compile_tree

    CFRPlus(load_game("kuhn")).iterate(2)
    tree = compile_tree(load_game(spec))
    solver = CFRPlus(load_game(spec), tree=tree, symmetric=False).iterate(2)
    t0 = time.perf_counter()
    solver.iterate(iterations)
    s = (time.perf_counter() - t0) / iterations
    return {"game": spec, "nodes": tree.num_nodes, "infosets": tree.num_infosets, "ms_per_iteration": 1000 * s,
            "ns_per_node": 1e9 * s / tree.num_nodes}


def _in_subprocess(func: str, *args) -> dict:
    code = (f"import json,sys; sys.path.insert(0,'benchmarks'); import bench_cfr as b; "
            f"print(json.dumps(b.{func}(*{args!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cell(row: dict, target: float) -> str:
    hit = row["hits"].get(str(target))
    return (f"{hit['iterations']:>6d} it {hit['seconds']:8.3f} s ({hit['cpu_seconds']:7.3f} cpu)" if hit
            else f"{'not reached':>30}")


def _plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cfrlab.plot import readable_ticks

    games = sorted({r["game"] for r in rows}, key=[r["game"] for r in rows].index)
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), 4.2), squeeze=False)
    for ax, game in zip(axes[0], games):
        for r in rows:
            if r["game"] == game:
                _, seconds, expl = zip(*r["trace"])
                ax.loglog(seconds, expl, label=r["solver"].replace("cfrlab:", "cfrlab "))
        for target, limit in GOALS.items():
            ax.plot([limit], [target], "k*", markersize=10)
        ax.set(title=game, xlabel="solver seconds", ylabel="exploitability")
        ax.grid(True, which="both", alpha=0.3)
        readable_ticks(ax)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--with-python", action="store_true", help="also OpenSpiel's Python CFR+ (slow)")
    parser.add_argument("--quick", action="store_true", help="leduc_poker and leduc, targets 1e-3 and 1e-4")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="cap of solver time per run")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--plot", help="write exploitability against seconds here (.png)")
    parser.add_argument("--eval-every", type=int, default=None,
                        help="evaluate after every N iterations (default: after chunks growing by 10 %%)")
    args = parser.parse_args()

    targets = TARGETS[:2] if args.quick else TARGETS
    games = GAMES[:2] if args.quick else GAMES
    rows = []
    for game in games:
        kinds = [f"cfrlab:{a}" for a in OURS]
        if game.endswith("_poker"):
            kinds += ["openspiel-cpp"] + (["openspiel-python"] if args.with_python else [])
        for kind in kinds:
            row = _in_subprocess("_measure", kind, game, args.max_seconds, targets, args.eval_every)
            rows.append(row)
            cells = "  ".join(_cell(row, t) for t in targets)
            nodes = f"{row['nodes']:>8d} nodes" if "nodes" in row else " " * 14
            print(f"{game:24} {kind:16} {nodes} {row['ms_per_iteration']:8.3f} ms/it "
                  f"({row['cpu_ms_per_iteration']:.3f} cpu)  {cells}  "
                  f"peak {row['peak_rss_mb']:6.1f} MB", flush=True)
    print(f"\ntargets: {', '.join(f'{t:g}' for t in targets)}; goals: 1e-3 within 15 ms, 1e-6 within 2 s (on Leduc)")
    reference = next((r for r in rows if r["solver"] == "openspiel-cpp"), None)
    for r in rows:
        if reference and r["game"] == reference["game"] and r is not reference:
            ratios = [f"x{reference['hits'][str(t)]['seconds'] / r['hits'][str(t)]['seconds']:.0f}"
                      for t in targets if str(t) in r["hits"] and str(t) in reference["hits"]]
            print(f"  {r['solver']:16} time to target, OpenSpiel C++ CFR+ / ours: {' '.join(ratios) or '-'}")
    print("\ncfrlab CFR+ cost per iteration against tree size (full trees)")
    scaling = []
    for spec in ("leduc", "leduc(ranks=4)", "leduc(ranks=6)", "leduc(ranks=8)"):
        row = _in_subprocess("_scaling", spec, 50)
        scaling.append(row)
        print(f"  {spec:16} {row['nodes']:9d} nodes {row['ms_per_iteration']:9.3f} ms/it "
              f"{row['ns_per_node']:6.1f} ns/node", flush=True)
    load = os.getloadavg()[0]
    machine = (f"{platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
               f"Python {platform.python_version()}, load average {load:.1f} at the end")
    print(f"\nmachine: {machine}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"machine": machine, "rows": rows, "scaling": scaling}, handle, indent=1)
    if args.plot:
        _plot(rows, args.plot)


if __name__ == "__main__":
    main()
