"""The ``net`` Koi-Koi agent's cost per decision, and the speed of learning from outcomes (self-play and fitting).

* ``act``: microseconds of this thread's CPU per ``NetAgent.act`` call (features from the engine state, one forward
  pass in numba, the choice), on every decision of ``--rounds`` greedy self-play rounds (nintendo rules), best of
  three passes; the mean, and the 99th percentile of single calls. The goal is at most 500 us a decision.
* ``self-play``: ``rollout.play_shard`` of ``--shard`` rounds (half self-play, half against greedy), rounds and
  learner rows per second of CPU;
* ``fit``: ``objective.Fitter.fit`` (one torch thread, on the CPU) over those rows, rows per second of CPU.

Usage: ``python benchmarks/bench_koikoi_net.py [--weights PATH] [--rounds 100] [--shard 2000] [--method dmc]``
(without ``--weights``: the shipped ``net`` weights if present, else a fresh 256 x 32 network).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def decisions(rounds: int) -> list:
    """Every decision state of ``rounds`` greedy self-play rounds."""
    from cfrlab.games.koikoi.players.greedy import GreedyAgent
    from cfrlab.registry import load_game

    game, agent, rng = load_game("koikoi"), GreedyAgent(), np.random.default_rng(0)
    found = []
    for _ in range(rounds):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            found.append(s)
            s = s.child(agent.act(s, rng))
    return found


def main() -> None:
    from cfrlab.games.koikoi.learn.model import KoiKoiNet
    from cfrlab.games.koikoi.learn.objective import HEAD_OF, Fitter, from_file
    from cfrlab.games.koikoi.learn.rollout import play_shard
    from cfrlab.games.koikoi.neural.act import HEADS
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES
    from cfrlab.games.koikoi.players.net import SHIPPED, NetAgent, load_net
    from cfrlab.games.koikoi.rules.rules import RuleSet

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default=None)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--shard", type=int, default=2000)
    ap.add_argument("--method", default="dmc", choices=sorted(HEAD_OF))
    args = ap.parse_args()
    head = HEADS.index(HEAD_OF[args.method])
    if args.weights is not None or SHIPPED.exists():
        agent = load_net(args.weights)
    else:
        agent = NetAgent(KoiKoiNet(NUM_FEATURES, (256, 32)).to_weights(), head)
    states = decisions(args.rounds)
    rng = np.random.default_rng(0)
    agent.act(states[0], rng)  # compile
    passes = []
    singles = np.empty(len(states))
    for _ in range(3):
        began = time.thread_time()
        for i, s in enumerate(states):
            t = time.thread_time_ns()
            agent.act(s, rng)
            singles[i] = (time.thread_time_ns() - t) / 1e3
        passes.append((time.thread_time() - began) / len(states) * 1e6)
    print(f"act: {min(passes):.1f} us a decision (mean of {len(states)} decisions, best of 3 passes; "
          f"99th percentile of single calls {np.percentile(singles, 99):.1f} us), hidden {list(agent.weights.hidden)}")
    learner = agent.weights
    play_shard(RuleSet(), learner, agent.head, [], 10, 0, 0.05, 0.5)  # compile
    began = time.process_time()
    rows, _ = play_shard(RuleSet(), learner, agent.head, [], args.shard, 1, 0.05, 0.5)
    seconds = time.process_time() - began
    n = len(rows["action"])
    print(f"self-play: {args.shard / seconds:,.0f} rounds/s, {n / seconds:,.0f} rows/s ({n:,} rows)")
    fitter = Fitter(from_file(learner, args.method), args.method, 5e-4, "cpu")
    began = time.process_time()
    fitter.fit(rows, 256, 1, np.random.default_rng(0))
    print(f"fit ({args.method}, batches of 256, 1 torch thread): {n / (time.process_time() - began):,.0f} rows/s")


if __name__ == "__main__":
    main()
