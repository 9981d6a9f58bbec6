"""Koi-Koi engine throughput on one core: random-play and greedy rounds per second.

Measures, for single rounds under the ``nintendo`` rules with uniform random play and always-STOP:
1. ``engine``: the pure engine (``Engine.step``), deals through ``Engine.deal`` with sampled masks;
2. ``protocol``: the cfrlab Game adapter (``State.child`` with ``sample_chance``, keys kept up to date);
3. ``batched``: the numba simulator, kernel alone and end to end (input sampling included; compile excluded);
4. ``greedy``: greedy against greedy through the adapter and the arena's game loop, and in the batched simulator;
5. ``search``: decisions per second of the search agent (``--rollouts`` playouts per action).
Each figure is given per wall-clock second and per CPU-second of this process (the second is steadier on a shared
machine).

Usage: ``python benchmarks/bench_koikoi.py [--rounds N] [--batched N] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np


def bench_engine(n: int, seed: int) -> tuple[float, float]:
    from cfrlab.games.koikoi.rules import engine as E
    from cfrlab.games.koikoi.rules.rules import RuleSet

    eng = E.Engine(RuleSet(rounds=1))
    rng = np.random.default_rng(seed)
    step, legal_actions = eng.step, eng.legal_actions
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        s = eng.initial_state()
        while s.phase == E.DEAL:
            s = eng.deal(s, *eng.sample_deal(rng))
        while s.phase != E.TERMINAL:
            if s.phase == E.DRAW:
                a = eng.sample_chance(s, rng)
            elif s.phase == E.DECIDE:
                a = E.STOP
            else:
                legal = legal_actions(s)
                a = legal[int(rng.random() * len(legal))]
            s = step(s, a)
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def bench_protocol(n: int, seed: int) -> tuple[float, float]:
    from cfrlab.games.koikoi.rules.engine import STOP
    from cfrlab.registry import load_game

    game = load_game("koikoi")
    rng = np.random.default_rng(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
            else:
                legal = s.legal_actions()
                a = STOP if STOP in legal else legal[int(rng.random() * len(legal))]
                s = s.child(a)
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def bench_batched(n: int, seed: int) -> tuple[tuple[float, float], tuple[float, float]]:
    from cfrlab.games.koikoi.rules.batched import random_rounds, sample_inputs, simulate
    from cfrlab.games.koikoi.rules.rules import RuleSet

    rules = RuleSet(rounds=1)
    random_rounds(rules, 100, np.random.default_rng(0))  # compile (or load the numba cache)
    rng = np.random.default_rng(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    inputs = sample_inputs(rules, n, rng)
    t1, c1 = time.perf_counter(), time.process_time()
    simulate(rules, inputs)
    t2, c2 = time.perf_counter(), time.process_time()
    return (n / (t2 - t1), n / (c2 - c1)), (n / (t2 - t0), n / (c2 - c0))


def bench_greedy(n: int, seed: int) -> tuple[float, float]:
    from cfrlab.eval.arena import play_game
    from cfrlab.games.koikoi.players.greedy import GreedyAgent
    from cfrlab.registry import load_game

    game = load_game("koikoi")
    agents = [GreedyAgent(), GreedyAgent()]
    rng = np.random.default_rng(seed)
    rngs = [np.random.default_rng(seed + 1), np.random.default_rng(seed + 2)]
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        play_game(game, agents, rng, rngs)
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def bench_batched_greedy(n: int, seed: int) -> tuple[float, float]:
    from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
    from cfrlab.games.koikoi.rules.rules import RuleSet

    rules = RuleSet(rounds=1)
    simulate(rules, sample_inputs(rules, 100, np.random.default_rng(0), policy="greedy"), policy="greedy")
    inputs = sample_inputs(rules, n, np.random.default_rng(seed), policy="greedy")
    t0, c0 = time.perf_counter(), time.process_time()
    simulate(rules, inputs, policy="greedy")
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def bench_search(n: int, rollouts: int, seed: int) -> tuple[float, float]:
    """Decisions per second of ``search:rollouts`` on ``n`` decision states of rounds played with the first legal
    action (the same states for every run with this seed)."""
    from cfrlab.agents import make_agent
    from cfrlab.registry import load_game

    game = load_game("koikoi")
    agent = make_agent(f"search:{rollouts}", game)
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < n:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            states.append(s)
            s = s.child(s.legal_actions()[0])
    states = states[:n]
    for s in states[:5]:
        agent.act(s, rng)  # compile (or load the numba cache)
    t0, c0 = time.perf_counter(), time.process_time()
    for s in states:
        agent.act(s, rng)
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000, help="rounds for the engine and protocol paths")
    parser.add_argument("--greedy-rounds", type=int, default=2000)
    parser.add_argument("--batched", type=int, default=500_000, help="rounds for the batched simulator")
    parser.add_argument("--search-states", type=int, default=300, help="decisions for the search agent")
    parser.add_argument("--rollouts", type=int, default=200, help="playouts per action of the search agent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=str, default=None, help="write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    kernel, end_to_end = bench_batched(args.batched, args.seed)
    figures = {
        "engine_random_rounds_per_s": bench_engine(args.rounds, args.seed),
        "protocol_random_rounds_per_s": bench_protocol(args.rounds, args.seed),
        "batched_kernel_rounds_per_s": kernel,
        "batched_end_to_end_rounds_per_s": end_to_end,
        "greedy_vs_greedy_rounds_per_s": bench_greedy(args.greedy_rounds, args.seed),
        "batched_greedy_rounds_per_s": bench_batched_greedy(args.batched // 5, args.seed),
        "search_decisions_per_s": bench_search(args.search_states, args.rollouts, args.seed),
    }
    meta = {"machine": platform.machine(), "python": platform.python_version(), "cpus": os.cpu_count(),
            "rounds": args.rounds, "batched": args.batched}
    print(f"{'rounds per second':34s} {'wall':>12s} {'per CPU-second':>16s}")
    for name, (wall, cpu) in figures.items():
        print(f"{name:34s} {wall:12,.0f} {cpu:16,.0f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"figures": figures, "meta": meta}, fh, indent=2)


if __name__ == "__main__":
    main()
