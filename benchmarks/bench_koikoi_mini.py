"""Mini Koi-Koi where koi-koi matters (``koikoi_mini_tsukifuda``): exact solution, and what calls and doubling do.

Measures on one core:
1. compile time and size of the tree;
2. CFR+ exploitability (exact) and the oya's value after 10 ... N iterations;
3. the equilibrium value and the expected numbers of KOI-KOI and STOP per round for the variant, the same game without
   koi-koi (every yaku stops at once) and without the 7+ doubling;
4. the exact exploitability of the heuristic agents on it: ``greedy`` and ``search:N`` (their moves tabulated on
   every information set, then a best response computed on the tree).

Usage: ``python benchmarks/bench_koikoi_mini.py [--iterations 1000] [--rollouts 50] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import time


def solve(spec: str, checkpoints: list[int]) -> dict:
    from cfrlab.eval import action_frequency, expected_values, exploitability
    from cfrlab.games.koikoi.rules.engine import KOIKOI, STOP
    from cfrlab.registry import load_game
    from cfrlab.solvers.cfr import CFRPlus
    from cfrlab.tree import compile_tree

    game = load_game(spec)
    t0 = time.perf_counter()
    tree = compile_tree(game)
    compile_s = time.perf_counter() - t0
    solver = CFRPlus(game, tree=tree)
    curve, done = [], 0
    for n in checkpoints:
        solver.iterate(n - done)
        done = n
        policy = solver.average_policy()
        curve.append({"iterations": n, "exploitability": exploitability(tree, policy),
                      "oya_value": float(expected_values(tree, policy)[0])})
    return {"spec": spec, "nodes": tree.num_nodes, "infosets": tree.num_infosets, "compile_s": compile_s,
            "curve": curve, "koikoi_per_round": action_frequency(tree, policy, KOIKOI),
            "stop_per_round": action_frequency(tree, policy, STOP), "game": game,
            "tree": tree}


def agent_exploitability(game, tree, name: str) -> float:
    from cfrlab.agents import make_agent
    from cfrlab.agents.tabulate import agent_policy
    from cfrlab.eval import exploitability

    return exploitability(tree, agent_policy(game, tree, make_agent(name, game)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--rollouts", type=int, default=50)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    checkpoints = [n for n in (10, 30, 100, 300, 1000, 3000) if n < args.iterations] + [args.iterations]
    base = "koikoi_mini_tsukifuda"
    rows = [solve(base, checkpoints)]
    for variant in ("koikoi_allowed=false", "seven_plus_double=false"):
        rows.append(solve(f"{base}({variant})", [args.iterations]))
    main_row = rows[0]
    print(f"{base}: {main_row['nodes']:,} nodes, {main_row['infosets']:,} infosets, compiled in "
          f"{main_row['compile_s']:.1f} s")
    for point in main_row["curve"]:
        print(f"  CFR+ {point['iterations']:>5} iterations: exploitability {point['exploitability']:.2e}, "
              f"oya value {point['oya_value']:+.4f}")
    for row in rows:
        last = row["curve"][-1]
        print(f"{row['spec']:<50} oya value {last['oya_value']:+.4f} (exploitability {last['exploitability']:.1e}), "
              f"KOI-KOI calls per round {row['koikoi_per_round']:.4f}, STOPs {row['stop_per_round']:.4f}")
    agents = {}
    for name in ("greedy", f"search:{args.rollouts}"):
        t0 = time.perf_counter()
        agents[name] = agent_exploitability(main_row["game"], main_row["tree"], name)
        print(f"exploitability of {name}: {agents[name]:.4f} ({time.perf_counter() - t0:.0f} s to tabulate)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": [{k: v for k, v in r.items() if k not in ("game", "tree")} for r in rows],
                       "agents": agents}, fh, indent=2)


if __name__ == "__main__":
    main()
