"""The driver's evaluation schedule on a run of given costs: which iterations are evaluated, and what share of
the time evaluating takes, for several shares (``cfrlab.schedule.eval_share``).

A stand-in solver declares fixed seconds per iteration and per exact evaluation on a clock that nothing else
moves, so the figures are the driver's decisions alone (no machine time). The defaults are CFR10 of hold'em
(``vector-dcfr+ --precision float32``: about 51 s an iteration projected, an exact evaluation 0.75 of one)
against the 2.5 hours of the README's command.

    .venv/bin/python benchmarks/bench_eval_schedule.py --iteration 51 --evaluation 40 --limit 9000
"""

from __future__ import annotations

import argparse
import json

from cfrlab import driver, schedule
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _StandIn(CFRPlus):
    """CFR+ on Kuhn whose iterations and evaluations cost the given seconds on ``clock``."""

    evaluates_itself = True

    def __init__(self, clock: _Clock, iteration: float, evaluation: float) -> None:
        super().__init__(load_game("kuhn"))
        self.clock, self.iteration_cost, self.evaluation_cost = clock, iteration, evaluation

    def iterate(self, n: int = 1):
        self.clock.now += n * self.iteration_cost
        return super().iterate(n)

    def exact_evaluation(self) -> dict[str, float]:
        self.clock.now += self.evaluation_cost
        return {"exploitability": 0.5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iteration", type=float, default=51.0)
    parser.add_argument("--evaluation", type=float, default=40.0)
    parser.add_argument("--limit", type=float, default=9000.0)
    parser.add_argument("--shares", default="0.2,0.1,0.05")
    args = parser.parse_args()
    rows = []
    for share in (float(s) for s in args.shares.split(",")):
        schedule.EVAL_SHARE = schedule.LONG_RUN_EVAL_SHARE = share
        clock = _Clock()
        driver.clock = clock
        result = driver.run(_StandIn(clock, args.iteration, args.evaluation), 10**9, time_limit=args.limit)
        points = [r["iteration"] for r in result.records]
        rows.append({"share": share, "iterations": result.iterations, "evaluations": len(points),
                     "evaluating": result.eval_seconds / result.wall_seconds, "points": points})
        print(f"share {share:.2f}: {result.iterations} iterations, {len(points)} evaluations "
              f"({100 * rows[-1]['evaluating']:.1f} % of the time) at {points}")
    print(json.dumps({"iteration": args.iteration, "evaluation": args.evaluation, "limit": args.limit,
                      "runs": rows}))


if __name__ == "__main__":
    main()
