"""What a network-valued cut playout costs in the Koi-Koi search: playouts per CPU second with the playout cut after
2, 4 or 8 half-turns and valued by the network (``neural.cut``), against full greedy playouts; and the cost of one
evaluation (features + forward pass of the value head).

Decision states (two or more legal actions) come from whole rounds of search against search
(``bench_koikoi_search_noise.decision_states``). On each, every
variant plays every legal action on ``--batch`` determinizations (``SearchAgent._values``: the determinizations, the
playouts, the values), the variants interleaved state by state so that a loaded machine slows them alike; times are
CPU seconds of the thread. ``--repeat`` passes. The evaluation is timed alone over the decision states' positions
(``encode`` + ``infer.value`` in one numba loop), and the share of the decisions the cut search chooses otherwise
than the full one (200 determinizations, the same draws). The network: ``--weights`` (a trained one: its cost
depends on how many first-layer units are active) or random weights of ``--hidden``.

Usage: ``python benchmarks/bench_koikoi_cut.py [--states 60] [--batch 64] [--weights PATH | --hidden 128 32]
[--repeat 3] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

import numba as nb
import numpy as np
from bench_koikoi_search_noise import decision_states

from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, encode
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.rules.flow import load

CUTS = (None, 2, 4, 8)


@nb.njit(cache=True)
def _evaluate_all(w, sts, cards, seats, reps):
    idx = np.empty(MAX_ACTIVE, dtype=np.int32)
    total = 0.0
    for _ in range(reps):
        for i in range(len(seats)):
            n = encode(load(sts[i], cards[i]), seats[i], 0, 0, idx)
            total += value(w, idx, n)
    return total


def evaluation_seconds(w, states: list[Any], reps: int) -> float:
    """CPU seconds of one evaluation (features and value head) at the decision states' positions."""
    from cfrlab.games.koikoi.rules.information import information, root_position

    infos = [information(s.game.engine, s.es, s.current_player()) for s in states]
    roots = [root_position(info) for info in infos]
    sts, cards = np.stack([r[0] for r in roots]), np.stack([r[1] for r in roots])
    seats = np.array([info.player for info in infos], dtype=np.int64)
    _evaluate_all(w, sts, cards, seats, 1)
    start = time.thread_time()
    _evaluate_all(w, sts, cards, seats, reps)
    return (time.thread_time() - start) / (reps * len(infos))


def changed_share(full: Any, cut: Any, infos: list[Any], rollouts: int = 200) -> float:
    """The share of ``infos`` where the cut search chooses otherwise than the full one, both on the same
    ``rollouts`` determinizations (the same seed)."""
    from dataclasses import replace

    full, cut = (type(a)(a.rules, replace(a.config, rollouts=rollouts), evaluator=a.evaluator) for a in (full, cut))
    return float(np.mean([full.search(info, np.random.default_rng(i)).action != cut.search(
        info, np.random.default_rng(i)).action for i, info in enumerate(infos)]))


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from cfrlab.games.koikoi.neural.cut import NetEvaluator
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES
    from cfrlab.games.koikoi.neural.weights import random_weights
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.information import information

    states = decision_states(args.states, args.seed)[0][:args.states]
    game = states[0].game
    if args.weights:
        from cfrlab.games.koikoi.players.neural import load_network

        w = load_network(args.weights)
    else:
        w = random_weights(NUM_FEATURES, tuple(args.hidden), np.random.default_rng(0), 0.1)
    agents = {cut: SearchAgent(game.rules, SearchConfig(cutoff=cut), evaluator=None if cut is None else NetEvaluator(w))
              for cut in CUTS}
    infos = [information(game.engine, s.es, s.current_player()) for s in states]
    seconds, playouts = dict.fromkeys(CUTS, 0.0), dict.fromkeys(CUTS, 0)
    for agent in agents.values():  # compile
        agent._values(infos[0], 2, np.random.default_rng(0), None)
    for rep in range(args.repeat):
        for i, info in enumerate(infos):
            for cut, agent in agents.items():
                rng = np.random.default_rng(1000 * rep + i)
                start = time.thread_time()
                values = agent._values(info, args.batch, rng, None)
                seconds[cut] += time.thread_time() - start
                playouts[cut] += values.size
    rate = {("full" if c is None else f"cut{c}"): playouts[c] / seconds[c] for c in CUTS}
    changed = {f"cut{c}": changed_share(agents[None], agent, infos) for c, agent in agents.items() if c is not None}
    return {"playouts_per_cpu_second": rate,
            "ratio_to_full": {k: v / rate["full"] for k, v in rate.items()},
            "evaluation_us": 1e6 * evaluation_seconds(w, states, args.eval_reps),
            "decisions_changed": changed,
            "hidden": list(w.hidden), "weights": args.weights or "random", "states": len(states), "batch": args.batch,
            "repeat": args.repeat,
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (loaded by others)"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=60)
    ap.add_argument("--batch", type=int, default=64, help="determinizations per state and variant")
    ap.add_argument("--hidden", type=int, nargs=2, default=[128, 32])
    ap.add_argument("--weights", default=None, help="a trained network (file or folder) instead of random weights")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--eval-reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    result = measure(args)
    for name, rate in result["playouts_per_cpu_second"].items():
        print(f"{name:>5}: {rate:12,.0f} playouts per CPU second  ({result['ratio_to_full'][name]:.2f} x full)")
    for name, share in result["decisions_changed"].items():
        print(f"{name:>5}: {share:.0%} of the decisions chosen otherwise than by full playouts (200 per action)")
    print(f"one evaluation (features + value head, hidden {tuple(result['hidden'])}, {result['weights']} weights): "
          f"{result['evaluation_us']:.2f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
