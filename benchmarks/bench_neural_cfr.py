"""Neural CFR on Leduc, CPU: exploitability against wall time, ours and OpenSpiel's PyTorch Deep CFR, one run.

Runs, one after the other in this process, each with one torch thread (the same for all):
  1. cfrlab Double Neural CFR (``dncfr``) for ``--dncfr-seconds``;
  2. OpenSpiel's ``open_spiel.python.pytorch.deep_cfr.DeepCFRSolver`` with the settings of OpenSpiel's own
     ``examples/deep_cfr_pytorch.py`` (one iteration at a time, as its ``solve`` does) for ``--os-seconds``;
  3. cfrlab Deep CFR (``deep-cfr``) with the same hyper-parameters for ``--deep-seconds``.
The clock counts solving only: traversals and advantage/regret training. Evaluations are paused out of
it, and so is the strategy-network training that each Deep CFR needs before its average policy can be
evaluated (done at every evaluation point, for both implementations alike; its cost is reported apart).

Every policy is evaluated by cfrlab's exact best response on the same compiled tree: OpenSpiel's
policy network is read through the OpenSpiel adapter (``openspiel:leduc_poker``), whose tree maps
state by state onto OpenSpiel's game, so both sides are measured by one evaluator.

Output: a JSON file of (iteration, seconds, exploitability) per method, and one PNG plot (log-log).
Usage: ``python benchmarks/bench_neural_cfr.py --out benchmarks/results/neural_cfr``; ``--only`` runs some of
the methods and ``--merge earlier.json`` adds an earlier run's other methods to the file and the plot.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cfrlab.eval import exploitability
from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.registry import load_game
from cfrlab.tree import load_tree

# OpenSpiel's examples/deep_cfr_pytorch.py settings, used for both Deep CFRs.
DEEP_CFR = dict(traversals=375, advantage_hidden=(64,), strategy_hidden=(64,), learning_rate=1e-3,
                batch_size=256, strategy_batch_size=256, advantage_capacity=100_000, strategy_capacity=100_000,
                advantage_steps=375, strategy_steps=2500, reinitialize=True, layer_norm=True)
DNCFR = dict(network="mlp", sampling="robust", k=3, batch=256, hidden=(128, 128), rsn_steps=50, asn_steps=50,
             layer_norm=True, keep_optimizer=True)


class Clock:
    """Wall time that can be paused (evaluation is not solving)."""

    def __init__(self) -> None:
        self.total = 0.0
        self._start: float | None = None

    def __enter__(self) -> Clock:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._start is not None
        self.total += time.perf_counter() - self._start
        self._start = None


def run(name: str, step: Callable[[], int], evaluate: Callable[[], tuple[float, float]], budget: float,
        eval_every: float) -> list[dict[str, float]]:
    """Call ``step`` (one iteration; returns the iteration count) until ``budget`` solving seconds pass."""
    clock, records, next_eval = Clock(), [], 0.0
    while clock.total < budget:
        with clock:
            iteration = step()
        if clock.total >= next_eval or clock.total >= budget:
            expl, extra = evaluate()
            records.append({"iteration": iteration, "seconds": round(clock.total, 3), "exploitability": expl,
                            "policy_training_seconds": round(extra, 3)})
            print(f"{name:>14} it {iteration:5d}  {clock.total:7.1f} s  exploitability {expl:.4f}", flush=True)
            next_eval = clock.total + eval_every
    return records


def bench_dncfr(game: Any, tree: Any, budget: float, eval_every: float, seed: int) -> list[dict[str, float]]:
    from cfrlab.solvers.neural.double_neural_cfr import DoubleNeuralCFR

    solver = DoubleNeuralCFR(game, seed=seed, **DNCFR)
    return run("dncfr", lambda: solver.iterate(1).iterations,
               lambda: (exploitability(tree, solver.average_policy()), 0.0), budget, eval_every)


def bench_deep_cfr(game: Any, tree: Any, budget: float, eval_every: float, seed: int) -> list[dict[str, float]]:
    from cfrlab.solvers.neural.deep_cfr import DeepCFR

    solver = DeepCFR(game, seed=seed, **DEEP_CFR)

    def evaluate() -> tuple[float, float]:
        start = time.perf_counter()
        solver.train_strategy_network()
        trained = time.perf_counter() - start
        return exploitability(tree, solver.average_policy()), trained

    return run("cfrlab deep-cfr", lambda: solver.iterate(1).iterations, evaluate, budget, eval_every)


def bench_openspiel_deep_cfr(budget: float, eval_every: float, seed: int) -> list[dict[str, float]]:
    import pyspiel
    from open_spiel.python.pytorch import deep_cfr

    os_game = pyspiel.load_game("leduc_poker")
    solver = deep_cfr.DeepCFRSolver(
        os_game, policy_network_layers=(64,), advantage_network_layers=(64,), num_iterations=1,
        num_traversals=DEEP_CFR["traversals"], learning_rate=DEEP_CFR["learning_rate"],
        batch_size_advantage=DEEP_CFR["batch_size"], batch_size_strategy=DEEP_CFR["strategy_batch_size"],
        memory_capacity=DEEP_CFR["advantage_capacity"], policy_network_train_steps=DEEP_CFR["strategy_steps"],
        advantage_network_train_steps=DEEP_CFR["advantage_steps"], reinitialize_advantage_networks=True,
        seed=seed)
    adapter = load_game("openspiel:leduc_poker")
    adapter_tree = load_tree(adapter)
    root = os_game.new_initial_state()

    def step() -> int:
        # The body of DeepCFRSolver.solve() for one iteration.
        for p in range(os_game.num_players()):
            for _ in range(DEEP_CFR["traversals"]):
                solver._traverse_game_tree(root, p)
            solver._reinitialize_advantage_network(p)
            solver._learn_advantage_network(p)
        solver._iteration += 1
        return solver._iteration - 1

    def probs(states: list[Any]) -> np.ndarray:
        out = np.zeros((len(states), adapter.max_actions))
        for row, state in enumerate(states):
            for action, p in solver.action_probabilities(state._state).items():
                out[row, action] = p
        return out

    def evaluate() -> tuple[float, float]:
        # As solve(print_nash_convs=True): train the policy network, evaluate, then reinitialise it.
        start = time.perf_counter()
        solver._learn_strategy_network()
        trained = time.perf_counter() - start
        value = exploitability(adapter_tree, tabulate_policy(adapter, adapter_tree, probs))
        solver._reinitialize_policy_network()
        return value, trained

    return run("openspiel deep", step, evaluate, budget, eval_every)


def plot(results: dict[str, list[dict[str, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cfrlab.plot import readable_ticks

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, records in results.items():
        ax.plot([r["seconds"] for r in records], [r["exploitability"] for r in records], marker=".", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solving wall time (s, evaluation excluded)")
    ax.set_ylabel("exploitability (exact)")
    ax.set_title("Leduc hold'em, CPU, 1 torch thread")
    ax.axhline(0.1, color="grey", lw=0.8, ls="--")
    ax.grid(True, which="both", alpha=0.3)
    readable_ticks(ax)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/results/neural_cfr", help="output prefix (.json, .png)")
    parser.add_argument("--dncfr-seconds", type=float, default=600.0)
    parser.add_argument("--os-seconds", type=float, default=600.0)
    parser.add_argument("--deep-seconds", type=float, default=300.0)
    parser.add_argument("--eval-every", type=float, default=30.0, help="solving seconds between evaluations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["dncfr", "openspiel", "deep-cfr"], action="append")
    parser.add_argument("--merge", action="append", default=[],
                        help="JSON of an earlier run whose other methods join this run's file and plot")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small networks: one thread is fastest on a shared machine; same for all
    game = load_game("leduc")
    tree = load_tree(game)
    which = args.only or ["dncfr", "openspiel", "deep-cfr"]
    results: dict[str, list[dict[str, float]]] = {}
    started = time.time()
    if "dncfr" in which:
        results["cfrlab dncfr"] = bench_dncfr(game, tree, args.dncfr_seconds, args.eval_every, args.seed)
    if "openspiel" in which:
        results["openspiel deep_cfr (pytorch)"] = bench_openspiel_deep_cfr(args.os_seconds, args.eval_every,
                                                                           args.seed)
    if "deep-cfr" in which:
        results["cfrlab deep-cfr"] = bench_deep_cfr(game, tree, args.deep_seconds, args.eval_every, args.seed)
    merged_from = []
    for path in args.merge:
        earlier = json.loads(Path(path).read_text())
        for name, records in earlier["results"].items():
            if name not in results:
                results[name] = records
        merged_from.append({"file": path, "meta": earlier["meta"]})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.platform(), "processor": platform.processor(), "python": platform.python_version(),
            "torch": torch.__version__, "torch_threads": 1, "wall_seconds": round(time.time() - started, 1),
            "dncfr": DNCFR, "merged_from": merged_from,
            "deep_cfr": {k: list(v) if isinstance(v, tuple) else v for k, v in DEEP_CFR.items()}}
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    plot(results, out.with_suffix(".png"))
    print(f"wrote {out.with_suffix('.json')} and {out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
