"""Koi-Koi self-play data for the learned evaluator: recorded decisions per hour of ``learn.selfplay.generate``.

For each budget of ``--budgets`` (``search:N``, N determinizations per decision, every legal action played out on
each) and each game kind (single ``nintendo`` rounds, 12-round ``nintendo`` matches): ``generate`` of ``--decisions``
recorded decisions (two or more legal actions) into shards of a temporary folder, in process, timed in CPU seconds
of the process (steadier than wall time on a shared machine; compilation or numba's cache load done before the
clock starts). The time is split into the search itself (``agent.search``, timed inside a wrapper) and the rest
(the flow, ``Information``, features, the shard writes). With ``--workers N`` the same run is repeated on N spawned
processes (started before the clocks, as ``generate`` keeps them between runs); its CPU time is the workers' own.

Printed per row: decisions per CPU-hour, the search's share, decisions per wall-hour of the worker run, and the
goal's check (issue 22: one million decisions an hour on 2 cores).

Usage: ``python benchmarks/bench_koikoi_selfplay.py [--decisions 20000] [--budgets 8 16 32] [--workers 2]
[--json out.json]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import tempfile
import time

from cfrlab.games.koikoi.learn import selfplay
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
from cfrlab.games.koikoi.rules.rules import RuleSet

GOAL = 1_000_000


class TimedSearch(SearchAgent):
    """``SearchAgent`` that adds the CPU time of its searches to ``spent``."""

    spent = [0.0]

    def search(self, info, rng):  # as SearchAgent.search
        start = time.process_time()
        try:
            return super().search(info, rng)
        finally:
            TimedSearch.spent[0] += time.process_time() - start


def run(rules: RuleSet, rollouts: int, decisions: int, workers: int, seed: int) -> dict:
    """One ``generate`` run; CPU seconds (in process, or the workers' own) and wall seconds."""
    factory = functools.partial(TimedSearch if workers == 1 else SearchAgent, rules, SearchConfig(rollouts=rollouts))
    with tempfile.TemporaryDirectory() as folder:
        TimedSearch.spent[0] = 0.0
        t0, c0 = time.perf_counter(), time.process_time()
        reports = selfplay.generate(factory, rules, decisions, seed, folder, workers=workers,
                                    shard_size=min(4096, max(1, decisions // (4 * workers))))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    made = sum(r.decisions for r in reports)
    if workers > 1:
        cpu = sum(r.cpu_seconds for r in reports)
    return {"decisions": made, "cpu_s": cpu, "wall_s": wall, "search_s": TimedSearch.spent[0] if workers == 1 else None,
            "games": sum(r.games for r in reports)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--budgets", type=int, nargs="+", default=[8, 16, 32])
    parser.add_argument("--workers", type=int, default=2, help="also run on this many processes (1: skip)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    kinds = {"rounds": RuleSet(rounds=1), "matches": RuleSet()}
    for rules in kinds.values():  # compile, or load numba's cache, and start the workers before any clock starts
        run(rules, 2, 30, 1, 99)
        if args.workers > 1:
            run(rules, 2, 30, args.workers, 99)
    rows = []
    print(f"# {platform.machine()} {platform.processor() or ''} cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    print("| game | search | decisions | decisions / CPU-h | search share | workers | decisions / wall-h "
          "| workers' decisions / CPU-h |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for rollouts in args.budgets:
        for kind, rules in kinds.items():
            one = run(rules, rollouts, args.decisions, 1, args.seed)
            many = run(rules, rollouts, args.decisions, args.workers, args.seed) if args.workers > 1 else None
            row = {"game": kind, "rollouts": rollouts, "one": one, "many": many, "workers": args.workers,
                   "load": os.getloadavg()[0]}
            rows.append(row)
            rate = one["decisions"] / one["cpu_s"] * 3600
            wall = f"{many['decisions'] / many['wall_s'] * 3600:,.0f}" if many else "-"
            worker_rate = f"{many['decisions'] / many['cpu_s'] * 3600:,.0f}" if many else "-"
            print(f"| {kind} | search:{rollouts} | {one['decisions']:,} | {rate:,.0f} | "
                  f"{one['search_s'] / one['cpu_s']:.0%} | {args.workers} | {wall} | {worker_rate} |", flush=True)
    worst = min(r["one"]["decisions"] / r["one"]["cpu_s"] * 3600 * 2 for r in rows)
    print(f"goal {GOAL:,} decisions an hour on 2 cores: {'met' if worst >= GOAL else 'not met'} by every row "
          f"(2 x the slowest row's CPU rate: {worst:,.0f})")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
