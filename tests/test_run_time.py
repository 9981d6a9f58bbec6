"""Seconds a run reports are solver seconds; ``time_limit`` bounds the whole run, evaluation included."""

from __future__ import annotations

import time

import numpy as np
import pytest

from cfrlab.driver import make_solver, run
from cfrlab.solvers import algorithms
from cfrlab.solvers.cfr import CFRPlus


class _FreshKernelCFR(CFRPlus):
    """CFR+ that also calls a kernel compiled on its first call (a cold numba cache, every time)."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        from numba import njit

        @njit(cache=False)
        def fresh(x):  # type: ignore[no-untyped-def]
            total = 0.0
            for v in x:
                total += v * v
            return total

        self._fresh = fresh

    def _iterate_once(self) -> None:
        self._fresh(np.ones(4))
        super()._iterate_once()


def test_logged_seconds_exclude_compilation(kuhn) -> None:  # type: ignore[no-untyped-def]
    solver = _FreshKernelCFR(kuhn)
    started = time.perf_counter()
    result = run(solver, 20, evaluate=True)
    wall = time.perf_counter() - started
    assert result.compiled and result.compile_seconds > 0.02
    assert result.seconds < result.compile_seconds  # 20 CFR+ iterations on Kuhn take far less than compiling
    assert abs(result.seconds + result.eval_seconds + result.compile_seconds - wall) < 0.2 * wall + 0.05
    assert all(r["seconds"] <= result.seconds + 1e-6 for r in result.records)
    again = run(_FreshKernelCFR(kuhn), 20)  # a new dispatcher compiles again; the seconds stay solver seconds
    assert again.seconds < again.compile_seconds


class _SlowEvaluation(CFRPlus):
    """CFR+ whose solved policy (what every evaluation reads) takes 0.15 s to build."""

    def solved_policy(self):  # type: ignore[no-untyped-def]
        time.sleep(0.15)
        return super().solved_policy()


def test_time_limit_includes_evaluation(kuhn) -> None:  # type: ignore[no-untyped-def]
    result = run(_SlowEvaluation(kuhn), 10**6, time_limit=1.0)
    assert result.stopped == "time"
    assert result.wall_seconds - result.compile_seconds <= 1.0 + 0.3
    assert result.eval_seconds > 0.1 and result.exploitability is not None  # time was kept for the last evaluation
    assert result.records[-1]["iteration"] == result.iterations


# Algorithms for one family of games only run on a small member of it.
GAME_OF = {
    algo: "holdem_ehs2(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1],buckets=2)"
    for algo in ("pvt-cfr", "vector-cfr+")
}


@pytest.mark.parametrize("algo", sorted(algorithms()))
def test_time_limit_ends_every_algorithm_within_one_iteration(algo: str) -> None:
    pytest.importorskip("torch") if algo in ("nfsp", "nfsp-ppo", "nfsp-sac", "deep-cfr", "dncfr") else None
    limit = 0.4
    solver = make_solver(GAME_OF.get(algo, "kuhn"), algo)
    result = run(solver, 10**6, time_limit=limit)  # the iteration budget only keeps a broken limit from hanging
    assert result.stopped == "time" and result.iterations < 10**6
    one_iteration = result.seconds / max(1, result.iterations)
    assert result.wall_seconds - result.compile_seconds <= limit + one_iteration + 0.3, (  # 0.3 s: a loaded machine
        result.wall_seconds, result.compile_seconds, result.iterations)
