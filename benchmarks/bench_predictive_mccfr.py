"""Does the predictive update (or the linear rule) help MCCFR? Leduc, each sampling scheme with and without it.

Predictive regret matching (Farina, Kroer & Sandholm 2021) plays RM(R + m) with m the last instantaneous
regret; on sampled regrets (``MCCFRConfig.predictive``) m is the last pass's sampled regret. ``--variant linear``
compares the linear rule instead (iteration t's sampled regrets weighted by t, linear averaging: Linear CFR,
Brown & Sandholm 2019). The same seeds, the same iteration budgets, exact exploitability of the average
strategy; the ratio is variant / plain (below 1: the variant helps).

    .venv/bin/python benchmarks/bench_predictive_mccfr.py [--game leduc] [--seeds 3] [--variant linear] [--json out]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

SCHEMES = {
    "external": ({"sampling": "external"}, (1_000, 10_000, 100_000)),
    "external, RM+ linear": ({"sampling": "external", "regret_matching_plus": True, "averaging": "linear"},
                             (1_000, 10_000, 100_000)),
    "chance, RM+ linear": ({"sampling": "chance", "regret_matching_plus": True, "averaging": "linear"},
                           (1_000, 10_000, 100_000)),
    "outcome": ({"sampling": "outcome"}, (10_000, 100_000, 1_000_000)),
    "mccfr+ (robust k=3, b=16, RM+, linear)": ({"sampling": "robust", "k": 3, "batch": 16,
                                                "regret_matching_plus": True, "averaging": "linear"},
                                               (1_000, 10_000, 40_000)),
}


def curve(game, options: dict, budgets: tuple[int, ...], seed: int) -> tuple[list[float], float]:
    """Exploitability after each budget, and the solver's seconds to the last one."""
    from cfrlab.eval.metrics import exploitability
    from cfrlab.solvers.mccfr import MCCFR

    solver = MCCFR(game, seed=seed, path="tree", **options)
    values, spent = [], 0.0
    for n in budgets:
        start = time.perf_counter()
        solver.iterate(n - solver.iterations)
        spent += time.perf_counter() - start
        values.append(exploitability(game, solver.average_policy()))
    return values, spent


VARIANTS = {"predictive": {"predictive": True}, "linear": {"rule": "linear", "averaging": "linear"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="predictive")
    args = parser.parse_args()
    variant = VARIANTS[args.variant]
    from cfrlab.registry import load_game

    game = load_game(args.game)
    curve(game, {"sampling": "external", **variant}, (10,), 0)  # compile the kernels first
    results = []
    print(f"{args.game}, seeds 0..{args.seeds - 1}, load average {os.getloadavg()[0]:.1f}: "
          f"geometric mean of exploitability over seeds (plain -> {args.variant}, ratio)")
    for name, (options, budgets) in SCHEMES.items():
        row = {"scheme": name, "budgets": list(budgets)}
        for side, extra in (("plain", {}), (args.variant, variant)):
            runs = [curve(game, {**options, **extra}, budgets, seed) for seed in range(args.seeds)]
            row[side] = [[float(v) for v in r[0]] for r in runs]
            row[side + "_seconds"] = [r[1] for r in runs]
        plain = np.exp(np.log(row["plain"]).mean(axis=0))
        pred = np.exp(np.log(row[args.variant]).mean(axis=0))
        cells = ", ".join(f"{n:,}: {a:.4f} -> {b:.4f} ({b / a:.2f})" for n, a, b in zip(budgets, plain, pred))
        print(f"{name}: {cells}; seconds {np.mean(row['plain_seconds']):.1f} -> "
              f"{np.mean(row[args.variant + '_seconds']):.1f}", flush=True)
        results.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "variant": args.variant, "load_average": os.getloadavg(),
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
