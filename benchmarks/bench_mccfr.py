"""MCCFR throughput and convergence against OpenSpiel's samplers (a benchmark, not a test).

Compares, on the same game through the adapter:
* cfrlab external / outcome sampling (compiled-tree path, and the generic path),
* OpenSpiel C++ ``pyspiel.ExternalSamplingMCCFRSolver`` / ``OutcomeSamplingMCCFRSolver``,
* OpenSpiel Python ``external_sampling_mccfr`` / ``outcome_sampling_mccfr``.

One OpenSpiel iteration, like ours, is one traversal per player, so iterations
per second compare like with like. "Sampled nodes per second" counts the nodes
our traversals enter; OpenSpiel does not count, so its figure is its
iterations/s times our measured nodes per iteration (the same algorithm on the
same game visits the same number of nodes in expectation). Exploitability is
OpenSpiel's ``exploitability`` for its solvers and cfrlab's exact one for ours
(the same convention: NashConv / 2). A second part measures the speed-up of
the Ray mini-batch from 1 to 2 workers on a game too large to compile
(``leduc`` on the tree path, ``leduc(ranks=13)`` on the generic path). It
records the load average of the machine around each run, and splits the
2-worker wall time into the time spent waiting for the replicas and the
driver's own serial work (syncing regret rows, adding chunk sums, updating the
tables), which bounds the speed-up (Amdahl). As a reference for what the
machine itself allows at that moment, it also runs the in-process solver in 1
and then 2 plain processes at once (no Ray, nothing exchanged): on a shared
machine that ratio, not 2, is the ceiling.

    .venv/bin/python benchmarks/bench_mccfr.py [--seconds 10] [--json out.json] [--workers-only]
"""

from __future__ import annotations

import argparse
import json
import platform
import time


def _ours(game, sampling: str, seconds: float, path: str = "tree", step: int = 2000, **options):
    from cfrlab.eval.metrics import exploitability
    from cfrlab.solvers.mccfr import MCCFR

    solver = MCCFR(game, sampling=sampling, path=path, seed=0, **options)
    solver.iterate(1)  # load the kernels
    solver.nodes_visited, start_it = 0, solver.iterations
    curve, spent = [], 0.0
    while spent < seconds:
        t0 = time.perf_counter()
        solver.iterate(step)
        spent += time.perf_counter() - t0
        if path == "tree":
            curve.append((round(spent, 3), exploitability(game, solver.average_policy())))
        step = int(step * 1.5)
    iters = solver.iterations - start_it
    return {"iterations": iters, "seconds": spent, "it_per_s": iters / spent,
            "nodes_per_it": solver.nodes_visited / iters, "nodes_per_s": solver.nodes_visited / spent,
            "curve": curve}


def _openspiel_cpp(name: str, sampling: str, seconds: float, step: int = 2000):
    import pyspiel

    game = pyspiel.load_game(name)
    cls = pyspiel.ExternalSamplingMCCFRSolver if sampling == "external" else pyspiel.OutcomeSamplingMCCFRSolver
    solver = cls(game, seed=0)
    spent, iters, curve = 0.0, 0, []
    while spent < seconds:
        t0 = time.perf_counter()
        for _ in range(step):
            solver.run_iteration()
        spent += time.perf_counter() - t0
        iters += step
        curve.append((round(spent, 3), pyspiel.exploitability(game, solver.average_policy())))
        step = int(step * 1.5)
    return {"iterations": iters, "seconds": spent, "it_per_s": iters / spent, "curve": curve}


def _openspiel_python(name: str, sampling: str, seconds: float):
    import pyspiel
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    game = pyspiel.load_game(name)
    if sampling == "external":
        solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    else:
        solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    iters, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        solver.iteration()
        iters += 1
    spent = time.perf_counter() - t0
    return {"iterations": iters, "seconds": spent, "it_per_s": iters / spent}


def _first_below(curve, target):
    return next((s for s, e in curve if e < target), None)


def _loadavg() -> float:
    try:
        with open("/proc/loadavg") as fh:
            return float(fh.read().split()[0])
    except OSError:  # not Linux
        return float("nan")


def _busy(spec: str, path: str, batch: int, seconds: float, barrier, results) -> None:
    """One process of the machine reference: the in-process solver's traversals/s, timed after ``barrier``."""
    from cfrlab.registry import load_game
    from cfrlab.solvers.mccfr import MCCFR

    game = load_game(spec)
    solver = MCCFR(game, sampling="outcome", batch=batch, chunk=max(1, batch // 8), path=path, seed=0)
    solver.iterate(1)
    barrier.wait()  # every process starts its timed run at once
    t0, iters = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        solver.iterate(1)
        iters += 1
    results.put(iters * batch * game.num_players / (time.perf_counter() - t0))


def _machine_speedup(spec: str, path: str, batch: int, seconds: float) -> float:
    """Throughput of 2 independent processes over 1 (the machine's own 2-process ceiling right now)."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    rates = {}
    for procs in (1, 2):
        barrier, results = ctx.Barrier(procs), ctx.Queue()
        workers = [ctx.Process(target=_busy, args=(spec, path, batch, seconds, barrier, results))
                   for _ in range(procs)]
        for w in workers:
            w.start()
        rates[procs] = sum(results.get() for _ in workers)
        for w in workers:
            w.join()
    return rates[2] / rates[1]


def _workers(spec: str, seconds: float, batch: int, path: str):
    from cfrlab.registry import load_game
    from cfrlab.solvers.mccfr import MCCFR

    game = load_game(spec)
    out, load, split = {}, {}, {}
    for workers in (1, 2):
        solver = MCCFR(game, sampling="outcome", batch=batch, chunk=max(1, batch // 8), path=path,
                       workers=workers, seed=0)
        solver.iterate(1)  # start Ray and the replicas, load the kernels
        waited = [0.0]
        replicas = solver._parallel.replicas if solver._parallel is not None else None
        if replicas is not None:  # time the round trips to the replicas; the rest is the driver's
            call = replicas.call

            def timed(*args, **kwargs):
                t = time.perf_counter()
                try:
                    return call(*args, **kwargs)
                finally:
                    waited[0] += time.perf_counter() - t

            replicas.call = timed
        load_before = _loadavg()
        t0, iters = time.perf_counter(), 0
        while time.perf_counter() - t0 < seconds:
            solver.iterate(1)
            iters += 1
        spent = time.perf_counter() - t0
        load[workers] = (load_before, _loadavg())
        out[workers] = iters * batch * game.num_players / spent
        if workers > 1:
            split = {"wall_s": spent, "replicas_s": waited[0], "driver_s": spent - waited[0],
                     "driver_fraction": (spent - waited[0]) / spent}
        solver.close()
    return {"traversals_per_s": out, "speedup": out[2] / out[1], "loadavg_1min": load, "two_workers": split,
            "machine_2_process_speedup": _machine_speedup(spec, path, batch, seconds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time budget per solver")
    parser.add_argument("--json", default=None, help="write all figures here")
    parser.add_argument("--skip-workers", action="store_true")
    parser.add_argument("--workers-only", action="store_true", help="only the Ray mini-batch speed-up")
    args = parser.parse_args()

    from cfrlab.registry import load_game

    results = {"machine": f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}"}
    game = None if args.workers_only else load_game("openspiel:leduc_poker")
    for sampling in () if args.workers_only else ("external", "outcome"):
        ours = _ours(game, sampling, args.seconds, step=2000 if sampling == "external" else 20000)
        cpp = _openspiel_cpp("leduc_poker", sampling, args.seconds, step=2000 if sampling == "external" else 20000)
        py = _openspiel_python("leduc_poker", sampling, min(args.seconds, 5.0))
        generic = _ours(game, sampling, min(args.seconds, 5.0), path="generic", step=50)
        for r in (cpp, py, generic):
            r["nodes_per_s"] = r["it_per_s"] * ours["nodes_per_it"]
        target = 0.1 if sampling == "external" else 0.3
        t_ours, t_cpp = _first_below(ours["curve"], target), _first_below(cpp["curve"], target)
        results[f"leduc/{sampling}"] = {"cfrlab": ours, "openspiel_cpp": cpp, "openspiel_python": py,
                                        "cfrlab_generic": generic, "target": target,
                                        "seconds_to_target": {"cfrlab": t_ours, "openspiel_cpp": t_cpp}}
        print(f"Leduc {sampling}: cfrlab {ours['it_per_s']:,.0f} it/s ({ours['nodes_per_s']:,.0f} nodes/s, "
              f"{ours['nodes_per_it']:.1f} nodes/it); OpenSpiel C++ {cpp['it_per_s']:,.0f} it/s; "
              f"Python {py['it_per_s']:,.0f} it/s; cfrlab generic {generic['it_per_s']:,.0f} it/s")
        print(f"  ratios: cfrlab / C++ = {ours['it_per_s'] / cpp['it_per_s']:.2f}x, "
              f"cfrlab / Python = {ours['it_per_s'] / py['it_per_s']:.0f}x, "
              f"generic / Python = {generic['it_per_s'] / py['it_per_s']:.2f}x")
        print(f"  seconds to exploitability < {target}: cfrlab {t_ours}, OpenSpiel C++ {t_cpp}")
    if not args.workers_only:
        big = load_game("leduc(ranks=13)")
        big_generic = _ours(big, "external", min(args.seconds, 5.0), path="generic", step=20)
        big_outcome = _ours(big, "outcome", min(args.seconds, 5.0), path="generic", step=200)
        results["leduc13/generic"] = {"external": big_generic, "outcome": big_outcome}
        print(f"leduc(ranks=13), generic path (never compiled): external {big_generic['it_per_s']:,.0f} it/s "
              f"({big_generic['nodes_per_s']:,.0f} nodes/s); outcome {big_outcome['it_per_s']:,.0f} it/s "
              f"({big_outcome['nodes_per_s']:,.0f} nodes/s)")
    if not args.skip_workers:
        for spec, path, batch in (("leduc", "tree", 65536), ("leduc(ranks=13)", "generic", 256)):
            w = _workers(spec, min(args.seconds, 8.0), batch=batch, path=path)
            results[f"workers/{spec}/{path}"] = w
            two, load = w["two_workers"], w["loadavg_1min"]
            print(f"Ray mini-batch (outcome, b={batch}, {path} path, {spec}): 1 worker (in process) "
                  f"{w['traversals_per_s'][1]:,.0f} traversals/s, 2 Ray workers {w['traversals_per_s'][2]:,.0f}; "
                  f"speed-up {w['speedup']:.2f}x")
            print(f"  2 workers: {two['driver_fraction']:.1%} of the wall time in the driver, the rest waiting for "
                  f"the replicas; load average (1 min) {load[1][0]:.2f}-{load[1][1]:.2f} (1 worker), "
                  f"{load[2][0]:.2f}-{load[2][1]:.2f} (2 workers); 2 plain processes over 1 on this machine "
                  f"now: {w['machine_2_process_speedup']:.2f}x")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, default=float)


if __name__ == "__main__":
    main()
