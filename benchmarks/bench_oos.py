"""Online Outcome Sampling: samples per second, and online exploitability against offline MCCFR (a benchmark).

* samples/s: OOS traversals per second on one core, targeted at an infoset, on each game given;
* online exploitability (Lisy, Lanctot & Bowling 2015, sec. 5): the exact exploitability of the strategy OOS
  plays when it searches at every information set with a fixed budget of samples per move (fresh tables),
  for each budget; beside it, offline outcome-sampling MCCFR given the same total samples (budget times the
  number of infosets), run once and evaluated exactly.
Each curve is written as a run log (``iteration`` = samples per move), so ``cfrlab plot`` draws them:

    .venv/bin/python benchmarks/bench_oos.py --games kuhn leduc --budgets 10 100 1000 --out out/oos
    .venv/bin/cfrlab plot out/oos/*.jsonl -o out/oos/online.png
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from cfrlab.agents.oos import online_policy
from cfrlab.eval import exploitability
from cfrlab.registry import load_game
from cfrlab.runlog import RunLog
from cfrlab.solvers.mccfr import OutcomeSamplingMCCFR
from cfrlab.solvers.oos import OnlineOutcomeSampling
from cfrlab.tree import load_tree
from cfrlab.tree.states import infoset_states


def samples_per_second(spec: str, seconds: float) -> float:
    game = load_game(spec)
    tree = load_tree(game)
    state = infoset_states(game, tree)[len(infoset_states(game, tree)) // 2]
    solver = OnlineOutcomeSampling(game, seed=0)
    solver.set_target(state.information_state_key(state.current_player()), state.current_player())
    solver.iterate(10)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        solver.iterate(50)
        done += 50 * game.num_players
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kuhn", "leduc"])
    parser.add_argument("--budgets", nargs="+", type=int, default=[10, 100, 1000])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0, help="for the samples/s measurement")
    parser.add_argument("--out", type=Path, default=Path("out/oos"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in args.games:
        print(f"{spec}: {samples_per_second(spec, args.seconds):,.0f} OOS samples/s (one process)", flush=True)
        game = load_game(spec)
        tree = load_tree(game)
        online = RunLog(args.out / f"{spec}-oos-online.jsonl", meta={"game": spec, "algorithm": "oos-online"})
        offline = RunLog(args.out / f"{spec}-outcome-offline.jsonl",
                         meta={"game": spec, "algorithm": "outcome-offline"})
        for budget in args.budgets:
            for seed in range(args.seeds):
                start = time.perf_counter()
                on = exploitability(tree, online_policy(game, tree, budget, seed=seed))
                mid = time.perf_counter()
                total = budget * tree.num_infosets
                solver = OutcomeSamplingMCCFR(game, seed=seed).iterate(-(-total // game.num_players))
                off = exploitability(tree, solver.average_policy())
                online.log(iteration=budget, seconds=mid - start, exploitability=on, seed=seed)
                offline.log(iteration=budget, seconds=time.perf_counter() - mid, exploitability=off, seed=seed)
                print(f"  {budget:>6} samples/move seed {seed}: online {on:.4f} ({mid - start:.1f} s), "
                      f"offline outcome sampling with {total:,} samples {off:.4f}", flush=True)


if __name__ == "__main__":
    main()
