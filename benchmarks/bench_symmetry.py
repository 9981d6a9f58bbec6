"""What sweeping a game's suit quotient saves: nodes, compile time and CFR+ time per iteration (a benchmark).

For each game: the full tree and the quotient's (``Game.symmetry_quotient``), compiled fresh; then CFR+ with
``symmetric`` on and off for the same iterations, its CPU seconds per iteration, and the exact exploitability
of both average strategies (equal up to rounding: the iterates are the same).

    .venv/bin/python benchmarks/bench_symmetry.py [--iterations 200] [--json out.json] [SPEC ...]
"""

from __future__ import annotations

import argparse
import json
import os
import time

HOLDEM = "holdem(ranks={r},suits={s},hole_cards={h},board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"
SPECS = ["leduc", "leduc(ranks=5,suits=4)", HOLDEM.format(r=4, s=2, h=1), HOLDEM.format(r=3, s=3, h=1),
         HOLDEM.format(r=3, s=3, h=2)]


def measure(spec: str, iterations: int) -> dict:
    from cfrlab.eval import exploitability
    from cfrlab.registry import load_game
    from cfrlab.solvers import solver_class
    from cfrlab.tree import compile_tree

    game = load_game(spec)
    row: dict = {"game": spec}
    for label, g in (("full", game), ("quotient", game.symmetry_quotient())):
        start = time.process_time()
        tree = compile_tree(g)
        row[label] = {"nodes": tree.num_nodes, "infosets": tree.num_infosets,
                      "compile_cpu_s": round(time.process_time() - start, 3)}
        solver = solver_class("cfr+")(game, symmetric=label == "quotient", tree=tree)
        solver.iterate(1)  # kernels loaded
        start = time.process_time()
        solver.iterate(iterations)
        row[label]["ms_per_iteration"] = round(1000 * (time.process_time() - start) / iterations, 4)
        row[label]["exploitability"] = exploitability(game, solver.average_policy())
    row["speedup"] = round(row["full"]["ms_per_iteration"] / row["quotient"]["ms_per_iteration"], 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=SPECS)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds")
    for spec in args.specs:
        row = measure(spec, args.iterations)
        f, q = row["full"], row["quotient"]
        print(f"{spec}: nodes {f['nodes']:,} -> {q['nodes']:,}; compile {f['compile_cpu_s']} s -> "
              f"{q['compile_cpu_s']} s; CFR+ {f['ms_per_iteration']} -> {q['ms_per_iteration']} ms/iteration "
              f"({row['speedup']}x); exploitability after {args.iterations + 1}: {f['exploitability']:.6g} / "
              f"{q['exploitability']:.6g}", flush=True)
        rows.append(row)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"load_average": os.getloadavg(), "iterations": args.iterations, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
