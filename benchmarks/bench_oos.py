"""Online Outcome Sampling: samples per second (numba tree path beside the game-protocol path), and online
exploitability against offline outcome-sampling MCCFR (a benchmark).

* samples/s: OOS traversals per second on one core, targeted at an infoset, on the compiled tree (numba,
  ``cfrlab.solvers.oos.tree_walk``) and on the game protocol (Python), and their ratio;
* online exploitability (Lisy, Lanctot & Bowling 2015, sec. 5): the exact exploitability of the strategy OOS
  plays along matches with a fixed budget of samples per move, each search continuing from the tables of the
  same player's earlier moves (``cfrlab.agents.oos.online_policy``); beside it, offline outcome-sampling MCCFR
  given the same total samples (budget times the number of infosets, the searches' total), evaluated exactly.
  ``--variants``: 'ist' (information-set targeting, delta 0.9), 'pst' (public-subgame targeting, games with
  public states), 'untargeted' (delta 0: outcome-sampling MCCFR run as a search, the paper's MCCFR baseline).
* ``--games koikoi``: full Koi-Koi rounds, searched through the conditioned deal (seed 000 sec. 10.1; no tree):
  OOS samples/s on the numba round walk (``games.koikoi.solvers.oos_walk``) and on the game protocol, targeted at
  decisions
  of random rounds, the samples a 0.1 s move gets, then a short duplicate arena of OOS with
  ``--koikoi-samples`` per move against ``greedy`` and ``search`` (``--koikoi-deals`` deals each).
Each curve is written as a run log (``iteration`` = samples per move, ``exploitability`` = mean over seeds), so
``cfrlab plot`` draws them:

    .venv/bin/python benchmarks/bench_oos.py --games kuhn leduc --budgets 100 1000 10000 100000 --out out/oos
    .venv/bin/cfrlab plot out/oos/leduc-*.jsonl -o out/oos/leduc.png
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.agents.oos import online_policy
from cfrlab.eval import exploitability
from cfrlab.registry import load_game
from cfrlab.runlog import RunLog
from cfrlab.solvers.mccfr import OutcomeSamplingMCCFR
from cfrlab.solvers.oos import OnlineOutcomeSampling
from cfrlab.tree import load_tree
from cfrlab.tree.states import infoset_states

VARIANTS = {"ist": {}, "pst": {"targeting": "pst"}, "untargeted": {"delta": 0.0}}
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
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=["ist"])
    parser.add_argument("--no-offline", action="store_true", help="skip offline outcome sampling")
    parser.add_argument("--seconds", type=float, default=3.0, help="for each samples/s measurement")
    parser.add_argument("--koikoi-samples", type=int, default=200, help="OOS samples per move in the arena")
    parser.add_argument("--koikoi-deals", type=int, default=10, help="duplicate deals per Koi-Koi opponent")
    parser.add_argument("--out", type=Path, default=Path("out/oos"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.games:
        if name == "koikoi":
            koikoi(args.seconds, args.koikoi_samples, args.koikoi_deals)
            continue
        spec = NAMES.get(name, name)
        fast, slow = (samples_per_second(spec, path, args.seconds) for path in ("tree", "generic"))
        print(f"{name}: OOS samples/s, one process: numba tree {fast:,.0f}, game protocol {slow:,.0f} "
              f"(x{fast / slow:.0f})", flush=True)
        game = load_game(spec)
        tree = load_tree(game)
        variants = [v for v in args.variants if v != "pst" or has_public_states(game)]
        if variants != args.variants:
            print(f"  ({name} defines no public states: no PST)")
        online = {v: RunLog(args.out / f"{name}-oos-{v}.jsonl", meta={"game": spec, "algorithm": f"oos-{v}"})
                  for v in variants}
        offline = None if args.no_offline else RunLog(args.out / f"{name}-outcome-offline.jsonl",
                                                      meta={"game": spec, "algorithm": "outcome-offline"})
        for budget in args.budgets:
            total = budget * tree.num_infosets
            for variant, log in online.items():
                def run(seed: int) -> float:
                    return exploitability(tree, online_policy(game, tree, budget, seed=seed, **VARIANTS[variant]))
                record(log, budget, run, args.seeds, f"online {variant}")
            if offline is not None:
                def offline_run(seed: int) -> float:
                    solver = OutcomeSamplingMCCFR(game, seed=seed, path="tree")
                    return exploitability(tree, solver.iterate(-(-total // game.num_players)).average_policy())
                record(offline, budget, offline_run, args.seeds, f"offline outcome sampling, {total:,} samples",
                       total_samples=total)


def koikoi_targets(game: Any, rng: np.random.Generator, count: int = 4) -> list[Any]:
    """``count`` decisions at several depths of random Koi-Koi rounds (each action kept with probability 0.8)."""
    targets = []
    for _ in range(count):
        state = game.new_initial_state()
        while state.is_chance_node() or (len(state.legal_actions()) > 1 and rng.random() < 0.8):
            legal = None if state.is_chance_node() else state.legal_actions()
            state = state.child(state.sample_chance(rng) if legal is None else legal[int(rng.integers(len(legal)))])
            if state.is_terminal():
                state = game.new_initial_state()
        targets.append(state)
    return targets


def koikoi(seconds: float, samples: int, deals: int) -> None:
    """Full Koi-Koi rounds: OOS samples/s through the conditioned deal on the numba round walk and on the game
    protocol, samples per 0.1 s move of the agent, and a short arena against two agents."""
    from cfrlab.agents import make_agent
    from cfrlab.agents.oos import OOSAgent
    from cfrlab.eval.arena import arena

    game = load_game("koikoi")
    targets = koikoi_targets(game, np.random.default_rng(0))
    rates = {}
    for path, chunk in (("auto", 500), ("generic", 10)):
        rates[path] = []
        for state in targets:
            player = state.current_player()
            solver = OnlineOutcomeSampling(game, seed=0, path=path)
            solver.set_target(state.information_state_key(player), player)
            solver.iterate(2)  # compiled (numba) before the clock starts
            done, start = 0, time.process_time()  # CPU seconds: per core, whatever the machine's load
            while time.process_time() - start < seconds / 8:
                solver.iterate(chunk)
                done += chunk * game.num_players
            rates[path].append(done / (time.process_time() - start))
    fast, slow = (float(np.mean(rates[p])) for p in ("auto", "generic"))
    print(f"koikoi: OOS samples per CPU second, one process, conditioned deal: numba round walk {fast:,.0f} "
          f"{np.round(rates['auto']).astype(int).tolist()}, game protocol {slow:,.0f} "
          f"{np.round(rates['generic']).astype(int).tolist()} (x{fast / slow:.0f})", flush=True)
    agent, per_move = OOSAgent(game, seconds=0.1), []
    for state in targets:
        before = agent.solver.iterations
        agent.act(state, np.random.default_rng(0))
        per_move.append(2 * (agent.solver.iterations - before))
    print(f"  oos:0.1 (CPU seconds per move): {np.mean(per_move):,.0f} samples per move {per_move}", flush=True)
    for opponent in ("greedy", "search"):
        start = time.perf_counter()
        result = arena(game, OOSAgent(game, samples=samples), make_agent(opponent, game), deals=deals, seed=0)
        r = result.return_a
        print(f"  oos:{samples} samples/move vs {opponent}, {deals} duplicate deals: {r.mean:+.2f} points/round "
              f"[{r.low:+.2f}, {r.high:+.2f}] ({time.perf_counter() - start:.0f} s)", flush=True)


def has_public_states(game: Any) -> bool:
    """Whether ``game`` defines ``State.public_state_key`` (public-subgame targeting needs it)."""
    try:
        game.new_initial_state().public_state_key()
    except NotImplementedError:
        return False
    return True


def record(log: RunLog, budget: int, run: Callable[[int], float], seeds: int, label: str, **extra: Any) -> None:
    """Run ``run(seed)`` for each seed; log and print the mean exploitability and seconds per seed."""
    values, seconds = [], []
    for seed in range(seeds):
        start = time.perf_counter()
        values.append(run(seed))
        seconds.append(time.perf_counter() - start)
    log.log(iteration=budget, seconds=float(np.mean(seconds)), exploitability=float(np.mean(values)),
            per_seed=values, **extra)
    print(f"  {budget:>7} samples/move, {label}: {np.mean(values):.4f} {np.round(values, 4).tolist()} "
          f"({np.mean(seconds):.1f} s/seed)", flush=True)


if __name__ == "__main__":
    main()
