"""Koi-Koi's numba kernels, two source trees side by side: the batched simulator, ``search:200`` and OOS.

Three fixed workloads, timed in CPU seconds of one process (steadier than wall time on a shared machine):
1. ``batched``: ``batched.simulate`` with greedy self-play on ``--rounds`` sampled ``nintendo`` rounds (kernel only);
2. ``search``: decisions of ``search:200`` on ``--decisions`` decision states of rounds played with the first legal
   action (the same states for every tree);
3. ``oos``: Online Outcome Sampling's numba round walk, ``--iterations`` iterations targeted at each of four
   decisions of random rounds (two samples per iteration).
With ``--trees A B ...`` each repeat runs every workload once per tree, each in a fresh process whose ``PYTHONPATH``
is that tree, the trees interleaved (A B A B ...), so that the machine's load falls on all of them alike; the medians
over ``--repeats`` and their ratios to the first tree are printed. Compilation (or loading numba's cache) is done
before each clock starts. A tree to compare with is a plain export of a commit, e.g.
``git archive ffda1e8 | tar -x -C /tmp/base``.

Usage: ``python benchmarks/bench_koikoi_kernels.py --trees /tmp/base . [--repeats 5] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

WORKLOADS = ("batched", "search", "oos")
UNITS = {"batched": "rounds / CPU-s", "search": "decisions / CPU-s", "oos": "samples / CPU-s"}


def batched(rounds: int) -> float:
    from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
    from cfrlab.games.koikoi.rules.rules import RuleSet

    rules = RuleSet(rounds=1)
    simulate(rules, sample_inputs(rules, 100, np.random.default_rng(0), policy="greedy"), policy="greedy")
    inputs = sample_inputs(rules, rounds, np.random.default_rng(1), policy="greedy")
    c0 = time.process_time()
    simulate(rules, inputs, policy="greedy")
    return rounds / (time.process_time() - c0)


def search(decisions: int) -> float:
    from bench_koikoi import bench_search  # the same decision states as bench_koikoi's search row

    return bench_search(decisions, 200, 2)[1]


def oos(iterations: int) -> float:
    from bench_oos import koikoi_targets  # the same targets as bench_oos's Koi-Koi rows

    from cfrlab.registry import load_game
    from cfrlab.solvers.oos import OnlineOutcomeSampling

    game = load_game("koikoi")
    solvers = []
    for state in koikoi_targets(game, np.random.default_rng(4)):
        player = state.current_player()
        solver = OnlineOutcomeSampling(game, seed=0)
        solver.set_target(state.information_state_key(player), player)
        solver.iterate(2)  # compiled before the clock starts
        solvers.append(solver)
    c0 = time.process_time()
    for solver in solvers:
        solver.iterate(iterations)
    return 2 * iterations * len(solvers) / (time.process_time() - c0)


def measure(args: argparse.Namespace) -> dict[str, float]:
    """The three workloads in this process (this tree's ``cfrlab``)."""
    sizes = {"batched": args.rounds, "search": args.decisions, "oos": args.iterations}
    funcs = {"batched": batched, "search": search, "oos": oos}
    return {w: funcs[w](sizes[w]) for w in args.workloads}


def compare(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    """Every workload per tree, ``--repeats`` times, trees interleaved, each in a fresh process."""
    runs: dict[str, dict[str, list[float]]] = {t: {w: [] for w in args.workloads} for t in args.trees}
    for r in range(args.repeats):
        for w in args.workloads:
            for tree in args.trees:
                env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
                cmd = [sys.executable, os.path.abspath(__file__), "--measure", "--workloads", w, "--rounds",
                       str(args.rounds), "--decisions", str(args.decisions), "--iterations", str(args.iterations)]
                out = subprocess.run(cmd, env=env, cwd=os.path.abspath(tree), capture_output=True, text=True,
                                     check=True)
                value = json.loads(out.stdout.strip().splitlines()[-1])[w]
                runs[tree][w].append(value)
                print(f"repeat {r + 1} {w:8s} {tree}: {value:,.1f} {UNITS[w]}", flush=True)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=["."], help="source trees to compare (the first is the base)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    parser.add_argument("--rounds", type=int, default=200_000, help="batched greedy rounds per run")
    parser.add_argument("--decisions", type=int, default=300, help="search:200 decisions per run")
    parser.add_argument("--iterations", type=int, default=5_000, help="OOS iterations per target per run")
    parser.add_argument("--measure", action="store_true", help="measure this tree once and print JSON")
    parser.add_argument("--json", help="write the runs here")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args)))
        return
    runs = compare(args)
    base = args.trees[0]
    print(f"\nmedians over {args.repeats} interleaved repeats (CPU seconds of each process), and the median of each "
          f"repeat's ratio to {base}:")
    for w in args.workloads:
        b = np.asarray(runs[base][w])
        cells = [f"{t}: {float(np.median(runs[t][w])):,.1f} (x{float(np.median(np.asarray(runs[t][w]) / b)):.3f})"
                 for t in args.trees]
        print(f"  {w:8s} {UNITS[w]:18s} " + "  ".join(cells))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"trees": args.trees, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
