"""The search's playouts: the tuned playout policy against greedy (duplicate self-play) and the cost per playout.

1. ``--grid``: ``policy_edge`` (``cfrlab.games.koikoi.players.cfr``) of every weight vector of a small grid around
   ``playout_policy.TUNED_WEIGHTS``, ``--rounds`` duplicate rounds on seed 0; the best few again on seed 5 with five
   times the rounds (the tuning of ``TUNED_WEIGHTS``).
2. Always: CPU time per decision of ``search:200`` with greedy and with tuned playouts, and microseconds per playout,
   over ``--states`` decision states of greedy self-play (best of three passes; CPU seconds of this thread).

Usage: ``python benchmarks/bench_koikoi_playout.py [--grid] [--rounds 30000] [--states 300]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np


def grid(rounds: int) -> None:
    from cfrlab.games.koikoi.players.cfr import policy_edge

    rows = []
    for deny, expose, threat, pair in itertools.product([0, 5, 10], [0, 0.5, 1, 2], [0, 10, 20, 40], [0, 15, 30, 60]):
        w = (1.0, 100.0, deny, expose, threat, pair)
        rows.append((policy_edge(weights=w, rounds=rounds, seed=0).mean, w))
    rows.sort(reverse=True)
    for mean, w in rows[:6]:
        check = policy_edge(weights=w, rounds=5 * rounds, seed=5)
        print(f"weights {w}: {mean:+.3f} (seed 0), {check.mean:+.3f} [{check.low:+.3f}, {check.high:+.3f}] (seed 5)")


def decision_infos(n: int):
    from cfrlab.games.koikoi.players.greedy import GreedyAgent
    from cfrlab.games.koikoi.rules.information import information
    from cfrlab.registry import load_game

    game, rng, greedy, infos = load_game("koikoi"), np.random.default_rng(0), GreedyAgent(), []
    while len(infos) < n:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            info = information(game.engine, s.es, s.current_player())
            if len(info.legal) > 1:
                infos.append(info)
            s = s.child(greedy.act(s, rng))
    return game, infos[:n]


def speed(states: int) -> None:
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.playout_policy import TUNED_WEIGHTS

    game, infos = decision_infos(states)
    playouts = sum(len(i.legal) for i in infos) * 200
    for name, weights in (("greedy", None), ("tuned", TUNED_WEIGHTS)):
        agent = SearchAgent(game.rules, SearchConfig(rollouts=200), weights=weights)
        agent.search(infos[0], np.random.default_rng(0))  # compile
        best = float("inf")
        for _ in range(3):
            t = time.thread_time()
            for info in infos:
                agent.search(info, np.random.default_rng(1))
            best = min(best, time.thread_time() - t)
        print(f"search:200, {name} playouts: {1000 * best / len(infos):.3f} ms / decision, "
              f"{1e6 * best / playouts:.3f} us / playout (search included)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--rounds", type=int, default=30000)
    ap.add_argument("--states", type=int, default=300)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.grid:
        grid(args.rounds)
    speed(args.states)


if __name__ == "__main__":
    main()
