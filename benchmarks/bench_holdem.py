"""Limit hold'em: the hand evaluator against eval7, the E[HS^2] precomputation, and CFR on the abstract game.

Three parts (a benchmark, not a test):

* ``--evaluator N``: N random 7-card hands (default 1,000,000) through cfrlab's
  numba evaluator and through eval7; both must order every hand identically;
  hands per second of each and the ratio.
* ``--abstraction``: the E[HS^2] abstraction of ``--game`` with ``--buckets``
  per round, built without the cache (then cached for ``--solve``); seconds
  per stage and classes per round. Decks over 32 cards (the full 52) take the
  flop-by-flop builder on ``--workers`` threads: exact buckets, a joint table
  sampled with ``--samples`` deals per board, and the table's expected error.
* ``--solve``: the paper's chance-sampled CFR (``pvt-cfr``) and vectorised CFR+
  (``vector-cfr+``) on that abstract game for ``--seconds`` each; exact
  abstract-game exploitability in mb/h against seconds (one plot), iterations
  per second, and the betting-tree states each chance-sampled iteration visits
  (the paper: 18,496 states, about 750 iterations per second in 2008). With
  a sampled joint table, each final strategy is also evaluated on the table of
  every replicate alone: the spread shows how much the mb/h figure owes to the
  sampling.

    .venv/bin/python benchmarks/bench_holdem.py --evaluator 1000000
    .venv/bin/python benchmarks/bench_holdem.py --abstraction --solve --game 'holdem(ranks=6,suits=4)' \\
        --buckets 5 --seconds 600
    .venv/bin/python benchmarks/bench_holdem.py --abstraction --game holdem --buckets 5 --workers 2
    .venv/bin/python benchmarks/bench_holdem.py --solve --game holdem --buckets 5 --seconds 2400 \\
        --algos vector-cfr+ --name holdem-cfr5-52cards
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

NAMES = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def bench_evaluator(count: int) -> dict:
    import eval7

    from cfrlab.games.holdem.rules.evaluator import hand_values

    rng = np.random.default_rng(0)
    hands = np.argsort(rng.random((count, 52)), axis=1)[:, :7]
    hand_values(hands[:10])  # tables and kernel
    t0 = time.perf_counter()
    ours = hand_values(hands)
    ours_s = time.perf_counter() - t0
    deck = [eval7.Card(n) for n in NAMES]
    rows = [[deck[c] for c in hand] for hand in hands.tolist()]
    t0 = time.perf_counter()
    theirs = np.array([eval7.evaluate(row) for row in rows])
    theirs_s = time.perf_counter() - t0
    order = np.lexsort((theirs, ours))
    same = bool(np.all(np.diff(theirs[order]) >= 0) and np.array_equal(np.diff(ours[order]) == 0,
                                                                          np.diff(theirs[order]) == 0))
    out = {"hands": count, "same_order": same, "cfrlab_hands_per_s": count / ours_s,
           "eval7_hands_per_s": count / theirs_s, "ratio": theirs_s / ours_s}
    print(f"evaluator: {count:,} hands, same order as eval7: {same}; cfrlab {count / ours_s:,.0f} hands/s, "
          f"eval7 {count / theirs_s:,.0f} hands/s (one Python call a hand), ratio {theirs_s / ours_s:.1f}x")
    return out


def bench_abstraction(spec: str, buckets: list[int], workers: int, samples: int) -> dict:
    from cfrlab.games.holdem.abstraction.abstraction import MAX_DECK, build_abstraction, save_abstraction
    from cfrlab.games.holdem.abstraction.large_builder import build_large_abstraction, save_large_abstraction
    from cfrlab.registry import load_game

    game = load_game(spec)
    small = "holdem(ranks=5,suits=2,board_cards=[0,3,1,1])"
    if game.deck_size > MAX_DECK:
        build_large_abstraction(load_game(small), [2, 2, 2, 2], samples=2)  # compile the kernels first
        abstraction = build_large_abstraction(game, buckets, samples=samples, workers=workers)
        save_large_abstraction(abstraction)
        error = abstraction.joint_error()
        print(f"abstraction {spec} buckets {buckets} (flop by flop, {workers} threads): "
              f"{abstraction.seconds['total']:.1f} s; "
              + ", ".join(f"{k} {v:.1f} s" for k, v in abstraction.seconds.items() if k != "total"))
        print(f"  joint table sampled, {samples} deals per board: expected error {error['joint_l1']:.4f} summed over "
              f"the probabilities, {error['showdown']:.4f} on an expected showdown (probability-weighted)")
        return {"game": spec, "buckets": buckets, "seconds": abstraction.seconds, "samples": samples,
                "preflop_classes": len(abstraction.preflop_keys), "error": error, "workers": workers}
    build_abstraction(load_game(small), [2, 2, 2, 2])  # compile the kernels first
    abstraction = build_abstraction(game, buckets)
    save_abstraction(abstraction)  # cached for --solve
    classes = [len(r.keys) for r in abstraction.rounds]
    raw = [float(r.weights.sum()) for r in abstraction.rounds]
    print(f"abstraction {spec} buckets {buckets}: {abstraction.seconds['total']:.1f} s; "
          + ", ".join(f"{k} {v:.1f} s" for k, v in abstraction.seconds.items() if k != "total"))
    print(f"  classes per round {classes} for {[int(x) for x in raw]} raw card sequences")
    return {"game": spec, "buckets": buckets, "seconds": abstraction.seconds, "classes": classes, "raw": raw}


def replicate_spread(game, table: np.ndarray) -> dict:
    """Exploitability (mb/h) of one strategy table on the table of each replicate of a sampled joint table alone."""
    from cfrlab.games.holdem.solvers.cfr import Layout

    abstraction = game.abstraction
    values = [Layout(game.with_table(*abstraction.replicate_table(i))).exploitability(table) * game.milli_bets_per_chip
              for i in range(len(abstraction.replicate_joint))]
    spread = float(np.std(values, ddof=1))
    out = {"replicates_mbb": values, "sd": spread, "se_full_table": spread / np.sqrt(len(values))}
    print(f"  on each replicate's table alone: {np.mean(values):.2f} +- {spread:.2f} mb/h (sd); "
          f"for the full table about +- {out['se_full_table']:.2f}")
    return out


def _timed_run(solver, seconds: float, log_path: Path) -> dict:
    """Iterate for ``seconds`` of solver time, evaluating exactly at geometric points of solver time (not counted)."""
    from cfrlab.runlog import RunLog

    log = RunLog(log_path, meta={"game": solver.game.spec(), **solver.metadata()})
    solver.iterate(1)  # load or compile the kernels
    start = solver.iterations
    spent, next_eval, per_it, last = 0.0, 1.0, None, {}
    while True:
        target = min(next_eval, seconds) - spent
        step = 1 if per_it is None else max(1, int(target / per_it))
        t0 = time.perf_counter()
        solver.iterate(step)
        spent += time.perf_counter() - t0
        per_it = spent / (solver.iterations - start)
        if spent >= next_eval or spent >= seconds:
            t0 = time.perf_counter()
            last = {"iteration": solver.iterations, "seconds": round(spent, 3), **solver.exact_evaluation()}
            last["eval_seconds"] = round(time.perf_counter() - t0, 3)
            log.log(**last)
            print(f"  {type(solver).__name__}: {last['iteration']:,} iterations, {spent:.1f} s, "
                  f"{last['mbb_per_hand']:.2f} mb/h (eval {last['eval_seconds']:.1f} s)", flush=True)
            next_eval *= 1.6
        if spent >= seconds:
            return last


def bench_solve(spec: str, buckets: list[int], seconds: float, out_dir: Path,
                algos: tuple[str, ...] = ("pvt-cfr", "vector-cfr+"), name: str = "holdem") -> dict:
    from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
    from cfrlab.games.holdem.solvers.cfr import ChanceSampledHoldemCFR
    from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
    from cfrlab.plot import plot_runs
    from cfrlab.registry import load_game

    game = with_abstraction(load_game(spec), "ehs2:" + ",".join(map(str, buckets)))
    results: dict = {"betting_tree_nodes": int(game.tree.num_nodes), "table": game.table_note()}
    print(game.table_note())
    logs = []
    for algo, cls, options in (("pvt-cfr", ChanceSampledHoldemCFR, {"batch": 5000}),
                               ("vector-cfr+", VectorHoldemCFRPlus, {})):
        log = out_dir / f"{name}-{algo}.jsonl"
        if algo not in algos:  # plotted from an earlier run's log when there is one
            if log.exists():
                logs.append(log)
            continue
        solver = cls(game, **options)
        last = _timed_run(solver, seconds, log)
        results[algo] = {**last, "iterations_per_s": last["iteration"] / last["seconds"]}
        if getattr(game.abstraction, "replicates", 0) >= 2:
            results[algo]["replicates"] = replicate_spread(game, solver.average)
        logs.append(log)
        print(f"{algo}: {last['iteration']:,} iterations in {last['seconds']:.1f} s "
              f"({last['iteration'] / last['seconds']:,.1f}/s), exploitability {last['mbb_per_hand']:.2f} mb/h")
    plot_runs(logs, out_dir / f"{name}-abstract.png", metric="mbb_per_hand",
              title=f"{spec}, E[HS^2] buckets {buckets}: abstract-game exploitability")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluator", type=int, nargs="?", const=1_000_000, default=None)
    parser.add_argument("--abstraction", action="store_true")
    parser.add_argument("--solve", action="store_true")
    parser.add_argument("--game", default="holdem(ranks=6,suits=4)")
    parser.add_argument("--buckets", default="5")
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--algos", default="pvt-cfr,vector-cfr+", help="Solvers to run (the others' logs in --out "
                        "are plotted again).")
    parser.add_argument("--workers", type=int, default=2, help="Threads of the flop-by-flop builder.")
    parser.add_argument("--samples", type=int, default=None, help="Deals per board of a sampled joint table "
                        "(default: the library's).")
    parser.add_argument("--name", default="holdem", help="Prefix of the logs and the plot.")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict = {"machine": platform.platform(), "cpus": os.cpu_count(), "load_before": os.getloadavg()}
    rounds = len(__import__("cfrlab").load_game(args.game).board_cards)
    counts = [int(b) for b in args.buckets.split(",")]
    buckets = counts * rounds if len(counts) == 1 else counts
    if args.evaluator:
        report["evaluator"] = bench_evaluator(args.evaluator)
    if args.abstraction:
        from cfrlab.games.holdem.abstraction.large_abstraction import SAMPLES_PER_BOARD

        report["abstraction"] = bench_abstraction(args.game, buckets, args.workers, args.samples or SAMPLES_PER_BOARD)
    if args.solve:
        report["solve"] = bench_solve(args.game, buckets, args.seconds, args.out, tuple(args.algos.split(",")),
                                      args.name)
    report["load_after"] = os.getloadavg()
    print(f"load average before {report['load_before']}, after {report['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
