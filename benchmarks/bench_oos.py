"""Online Outcome Sampling: samples per second (numba tree path beside the game-protocol path), and online
exploitability against offline outcome-sampling MCCFR (a benchmark).

* samples/s: OOS traversals per second on one core, targeted at an infoset, on the compiled tree (numba,
  ``cfrlab.solvers.mccfr.oos_walk``) and on the game protocol (Python), and their ratio;
* online exploitability (Lisy, Lanctot & Bowling 2015, sec. 5): the exact exploitability of the strategy OOS
  plays along matches with a fixed budget of samples per move, each search continuing from the tables of the
  same player's earlier moves (``cfrlab.agents.oos.online_policy``); beside it, offline outcome-sampling MCCFR
  given the same total samples (budget times the number of infosets, the searches' total), evaluated exactly.
Each curve is written as a run log (``iteration`` = samples per move, ``exploitability`` = mean over seeds), so
``cfrlab plot`` draws them:

    .venv/bin/python benchmarks/bench_oos.py --games kuhn leduc --budgets 100 1000 10000 100000 --out out/oos
    .venv/bin/cfrlab plot out/oos/leduc-*.jsonl -o out/oos/leduc.png
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cfrlab.agents.oos import online_policy
from cfrlab.eval import exploitability
from cfrlab.registry import load_game
from cfrlab.runlog import RunLog
from cfrlab.solvers.mccfr import OutcomeSamplingMCCFR
from cfrlab.solvers.oos import OnlineOutcomeSampling
from cfrlab.tree import load_tree
from cfrlab.tree.states import infoset_states

GOOFSPIEL = "openspiel:turn_based_simultaneous_game(game=goofspiel(num_cards=4,imp_info=true,points_order=descending))"
NAMES = {"goofspiel": GOOFSPIEL}


def samples_per_second(spec: str, path: str, seconds: float) -> float:
    """OOS traversals per second on ``path`` ('tree' or 'generic'), targeted at a middle infoset."""
    game = load_game(spec)
    tree = load_tree(game)
    states = infoset_states(game, tree)
    state = states[len(states) // 2]
    solver = OnlineOutcomeSampling(game, seed=0, path=path)
    solver.set_target(state.information_state_key(state.current_player()), state.current_player())
    solver.iterate(10)  # compiled (numba) before the clock starts
    chunk = 20_000 if path == "tree" else 50
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        solver.iterate(chunk)
        done += chunk * game.num_players
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kuhn", "leduc", "goofspiel"],
                        help=f"game specs; 'goofspiel' is {GOOFSPIEL}")
    parser.add_argument("--budgets", nargs="+", type=int, default=[100, 1000, 10000])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0, help="for each samples/s measurement")
    parser.add_argument("--out", type=Path, default=Path("out/oos"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.games:
        spec = NAMES.get(name, name)
        fast, slow = (samples_per_second(spec, path, args.seconds) for path in ("tree", "generic"))
        print(f"{name}: OOS samples/s, one process: numba tree {fast:,.0f}, game protocol {slow:,.0f} "
              f"(x{fast / slow:.0f})", flush=True)
        game = load_game(spec)
        tree = load_tree(game)
        online = RunLog(args.out / f"{name}-oos-online.jsonl", meta={"game": spec, "algorithm": "oos-online"})
        offline = RunLog(args.out / f"{name}-outcome-offline.jsonl",
                         meta={"game": spec, "algorithm": "outcome-offline"})
        for budget in args.budgets:
            rows: list[tuple[float, float, float, float]] = []
            total = budget * tree.num_infosets
            for seed in range(args.seeds):
                start = time.perf_counter()
                on = exploitability(tree, online_policy(game, tree, budget, seed=seed))
                mid = time.perf_counter()
                solver = OutcomeSamplingMCCFR(game, seed=seed, path="tree").iterate(-(-total // game.num_players))
                off = exploitability(tree, solver.average_policy())
                rows.append((on, off, mid - start, time.perf_counter() - mid))
            on_s, off_s, t_on, t_off = (np.array(c) for c in zip(*rows))
            online.log(iteration=budget, seconds=float(t_on.mean()), exploitability=float(on_s.mean()),
                       per_seed=on_s.tolist())
            offline.log(iteration=budget, seconds=float(t_off.mean()), exploitability=float(off_s.mean()),
                        per_seed=off_s.tolist(), total_samples=total)
            print(f"  {budget:>7} samples/move, {args.seeds} seeds: online {on_s.mean():.4f} "
                  f"({np.round(on_s, 4).tolist()}, {t_on.mean():.1f} s/seed); offline outcome sampling with "
                  f"{total:,} samples {off_s.mean():.4f} ({t_off.mean():.1f} s/seed)", flush=True)


if __name__ == "__main__":
    main()
