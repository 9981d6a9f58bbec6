"""How much of the Koi-Koi search's error at a short time per decision is sampling noise: its choices against the
same search given many times the time, on decision states of real play.

Decision states (two or more legal actions) are collected from whole rounds of ``search`` against ``search`` (the
default 200 determinizations). On each, plain search decides with ``--short`` ms and with
``--long`` ms of CPU (independent draws). Reported: how often the two choices agree, and the value the short
choice gives up as the long search values it (its mean playout utility of its own choice minus that of the short
search's choice, in points of the round; summed over one player's decisions, per round): about what more samples
can gain while the playouts stay greedy's (the long search's means are noisy too, so a little more). Times per
decision are CPU seconds of the searching thread, as in ``bench_koikoi_cfr``.

Usage: ``python benchmarks/bench_koikoi_search_noise.py --states 300 --short 20 --long 400 [--seed 0]
[--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

import numpy as np


def decision_states(n: int, seed: int) -> tuple[list[Any], int]:
    """The decision states with two or more legal actions of whole rounds of search against search, rounds
    played until there are at least ``n``, and the number of rounds."""
    from cfrlab.agents import make_agent
    from cfrlab.registry import load_game

    game = load_game("koikoi")
    agent = make_agent("search", game)
    rng = np.random.default_rng(seed)
    states: list[Any] = []
    rounds = 0
    while len(states) < n:
        state = game.new_initial_state()
        rounds += 1
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            if len(state.legal_actions()) > 1:
                states.append(state)
            state = state.child(agent.act(state, rng))
    return states, rounds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=300)
    ap.add_argument("--short", type=float, default=20.0, help="ms of CPU per decision of the short search")
    ap.add_argument("--long", type=float, default=400.0, help="ms of CPU per decision of the long search")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.information import information
    from cfrlab.registry import load_game

    rules = load_game("koikoi").rules
    short = SearchAgent(rules, SearchConfig(seconds=args.short / 1000.0))
    long = SearchAgent(rules, SearchConfig(seconds=args.long / 1000.0))
    states, rounds = decision_states(args.states, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    short.search(information(states[0].game.engine, states[0].es, states[0].current_player()), rng)  # compile
    agree, losses, samples = 0, [], [[], []]
    t0 = time.perf_counter()
    for state in states:
        info = information(state.game.engine, state.es, state.current_player())
        a, b = short.search(info, rng), long.search(info, rng)
        samples[0].append(a.samples)
        samples[1].append(b.samples)
        agree += a.action == b.action
        losses.append(float(b.means.max() - b.means[list(b.actions).index(a.action)]))
    loss = np.array(losses)
    row = {"states": len(states), "short_ms": args.short, "long_ms": args.long, "seed": args.seed,
           "agreement": agree / len(states), "value_given_up_mean": float(loss.mean()),
           "value_given_up_stderr": float(loss.std(ddof=1) / np.sqrt(len(loss))),
           "value_given_up_max": float(loss.max()), "rounds": rounds,
           "value_given_up_per_player_round": float(loss.sum() / (2 * rounds)),
           "decisions_losing_over_0.5": int((loss > 0.5).sum()),
           "determinizations_short": float(np.mean(samples[0])), "determinizations_long": float(np.mean(samples[1])),
           "wall_s": time.perf_counter() - t0, "load": os.getloadavg()[0]}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {row['load']:.1f}")
    print(f"{len(states)} decision states; {args.short:g} ms ({row['determinizations_short']:.0f} determinizations) "
          f"against {args.long:g} ms ({row['determinizations_long']:.0f}): agreement {row['agreement']:.3f}; value "
          f"the short choice gives up per decision {row['value_given_up_mean']:.4f} +- "
          f"{1.96 * row['value_given_up_stderr']:.4f} points (max {row['value_given_up_max']:.3f}; "
          f"{row['decisions_losing_over_0.5']} decisions over 0.5); {len(states) / rounds:.1f} decisions with a "
          f"choice per round (both players): {row['value_given_up_per_player_round']:.3f} points per round of "
          "one player's decisions")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(row, fh, indent=1)


if __name__ == "__main__":
    main()
