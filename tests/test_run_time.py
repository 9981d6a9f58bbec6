"""Seconds a run reports are solver seconds; ``time_limit`` bounds the whole run, evaluation included.

The driver reads ``cfrlab.driver.clock`` (wall time). These tests give it this process's CPU time, or a stand-in
clock, so a loaded machine (other processes taking the cores) cannot stretch what they measure: they check the
driver's schedule against the clock it reads, never the machine's speed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from cfrlab import schedule
from cfrlab.driver import make_solver, run
from cfrlab.schedule import EVAL_SHARE, eval_share
from cfrlab.solvers import algorithms
from cfrlab.solvers.cfr import CFRPlus


@pytest.fixture
def cpu_clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    """The driver's clock: this process's CPU time, plus what a stand-in declares it spent (``_Clock.extra``)."""
    clock = _Clock()
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    return clock


class _Clock:
    """``time.process_time()`` plus ``extra`` seconds; with ``cpu=False`` only ``extra`` (a clock that moves only
    when a stand-in says it spent time, so the driver's decisions are exact)."""

    def __init__(self, cpu: bool = True) -> None:
        self.cpu, self.extra = cpu, 0.0

    def __call__(self) -> float:
        return (time.process_time() if self.cpu else 0.0) + self.extra


class _FreshKernelCFR(CFRPlus):
    """CFR+ that also calls a kernel compiled on its first call (a cold numba cache, every time)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        from numba import njit

        @njit(cache=False)
        def fresh(x):
            total = 0.0
            for v in x:
                total += v * v
            return total

        self._fresh = fresh

    def _iterate_once(self) -> None:
        self._fresh(np.ones(4))
        super()._iterate_once()


def test_logged_seconds_exclude_compilation(kuhn, cpu_clock) -> None:
    solver = _FreshKernelCFR(kuhn)
    started = cpu_clock()
    result = run(solver, 20, evaluate=True)
    wall = cpu_clock() - started
    assert result.compiled and result.compile_seconds > 0.02
    assert result.seconds < result.compile_seconds  # 20 CFR+ iterations on Kuhn take far less than compiling
    assert abs(result.seconds + result.eval_seconds + result.compile_seconds - wall) < 0.2 * wall + 0.05
    assert all(r["seconds"] <= result.seconds + 1e-6 for r in result.records)
    again = run(_FreshKernelCFR(kuhn), 20)  # a new dispatcher compiles again; the seconds stay solver seconds
    assert again.seconds < again.compile_seconds


class _SlowEvaluation(CFRPlus):
    """CFR+ whose solved policy (what every evaluation reads) takes 0.15 s more to build, on ``clock``."""

    def __init__(self, game, clock: _Clock) -> None:
        super().__init__(game)
        self.clock = clock

    def solved_policy(self):
        self.clock.extra += 0.15
        return super().solved_policy()


def test_time_limit_includes_evaluation(kuhn, cpu_clock) -> None:
    result = run(_SlowEvaluation(kuhn, cpu_clock), 10**6, time_limit=1.0)
    assert result.stopped == "time"
    assert result.wall_seconds - result.compile_seconds <= 1.0 + 0.3
    assert result.eval_seconds > 0.1 and result.exploitability is not None  # time was kept for the last evaluation
    assert result.records[-1]["iteration"] == result.iterations


class _TimedStandIn(CFRPlus):
    """CFR+ whose iterations and exact evaluations cost fixed seconds on a clock that nothing else moves."""

    evaluates_itself = True

    def __init__(self, game, clock: _Clock, iteration: float, evaluation: float) -> None:
        super().__init__(game)
        self.clock, self.iteration_cost, self.evaluation_cost = clock, iteration, evaluation

    def iterate(self, n: int = 1):
        self.clock.extra += n * self.iteration_cost
        return super().iterate(n)

    def exact_evaluation(self) -> dict[str, float]:
        self.clock.extra += self.evaluation_cost
        return {"exploitability": 0.5}


@pytest.mark.parametrize("iteration,evaluation", [(0.01, 0.05), (0.003, 0.2), (0.2, 0.01), (0.001, 0.0)])
def test_time_limit_schedule_on_an_exact_clock(kuhn, monkeypatch, iteration, evaluation) -> None:
    """The driver's decisions alone: with costs known exactly it ends within the limit plus one iteration (no
    margin), evaluates the last iteration (the time kept for it was enough), never spends much more on evaluating
    than on solving, and uses most of the time."""
    clock = _Clock(cpu=False)
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    limit = 2.0
    result = run(_TimedStandIn(kuhn, clock, iteration, evaluation), 10**6, time_limit=limit)
    assert result.stopped == "time" and result.compile_seconds == 0.0
    assert result.wall_seconds <= limit + iteration + 1e-9
    assert result.wall_seconds == pytest.approx(result.seconds + result.eval_seconds, abs=1e-9)
    assert result.seconds == pytest.approx(result.iterations * iteration, rel=1e-9)
    assert result.records[-1]["iteration"] == result.iterations and result.exploitability == 0.5
    assert not result.eval_skipped
    share = EVAL_SHARE / (1 - EVAL_SHARE)
    assert result.eval_seconds <= share * result.seconds + 3 * evaluation  # the first two and the last are paid
    assert result.wall_seconds >= limit - 2 * evaluation - iteration - 0.1 * limit


def test_a_long_run_spends_its_smaller_share_on_evaluation(kuhn, monkeypatch) -> None:
    """CFR10 of hold'em's costs (51 s an iteration, 40 s an evaluation) against 2.5 hours: evaluating stays within
    ``eval_share`` of the run (a tenth), which passes over points that the short runs' fifth would have taken."""
    def long_run(share: float):
        clock = _Clock(cpu=False)
        monkeypatch.setattr("cfrlab.driver.clock", clock)
        monkeypatch.setattr(schedule, "LONG_RUN_EVAL_SHARE", share)
        return run(_TimedStandIn(kuhn, clock, 51.0, 40.0), 10**6, time_limit=9000.0)

    assert eval_share(9000.0) == schedule.LONG_RUN_EVAL_SHARE < eval_share(600.0) == EVAL_SHARE
    result, fifth = long_run(schedule.LONG_RUN_EVAL_SHARE), long_run(EVAL_SHARE)
    share = schedule.LONG_RUN_EVAL_SHARE
    assert result.eval_seconds <= share / (1 - share) * result.seconds + 3 * 40.0
    assert len(result.records) < len(fifth.records) and result.iterations > fifth.iterations
    assert result.wall_seconds <= 9000.0 + 51.0 and result.records[-1]["iteration"] == result.iterations


class _SlowingStandIn(_TimedStandIn):
    """Its iterations cost half as much again once the clock passes ``slow_after``: a step sized from the
    earlier cost overruns into the time kept for the final evaluation (a machine that becomes loaded)."""

    def __init__(self, game, clock: _Clock, slow_after: float) -> None:
        super().__init__(game, clock, 0.001, 0.05)
        self.slow_after = slow_after

    def iterate(self, n: int = 1):
        if self.clock.extra >= self.slow_after:
            self.clock.extra += 0.5 * n * self.iteration_cost
        return super().iterate(n)


def test_a_time_limited_run_is_evaluated_at_its_end_even_after_an_overrun(
        kuhn, monkeypatch) -> None:
    """A --time-limit run's result carries its exploitability: the final evaluation is made even when the last
    step overran the time kept for it (it was skipped, and the run ended with no exploitability)."""
    clock = _Clock(cpu=False)
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    result = run(_SlowingStandIn(kuhn, clock, slow_after=1.5), 10**6, time_limit=2.0)
    assert result.stopped == "time" and result.exploitability == 0.5 and not result.eval_skipped
    assert result.records[-1]["iteration"] == result.iterations
    assert result.wall_seconds <= 2.0 * 1.1  # the budget is kept within 10 %


# Algorithms for one family of games only run on a small member of it.
GAME_OF = {
    algo: "holdem_ehs2(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1],buckets=2)"
    for algo in ("pvt-cfr", "vector-cfr+", "vector-pcfr+", "vector-dcfr+", "vector-pdcfr+")
}
# Deep CFR's defaults train its networks for seconds an iteration; the driver's schedule needs no more than a few.
CONFIG_OF = {"deep-cfr": {"traversals": 10, "advantage_steps": 20, "strategy_steps": 50}}


@pytest.mark.parametrize("algo", sorted(algorithms()))
def test_time_limit_ends_every_algorithm_within_one_iteration(algo: str, monkeypatch) -> None:
    """Each algorithm's ``iterate(n)`` runs the n iterations the driver sized its step for, so a limit ends the run
    at most one iteration late. Its iterations are counted on a clock that moves a fixed cost for each one the
    solver reports done, so what is bounded is the overshoot in iterations, not the machine's speed."""
    pytest.importorskip("torch") if algo in ("nfsp", "nfsp-ppo", "nfsp-sac", "deep-cfr", "dncfr") else None
    clock = _Clock(cpu=False)
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    cost, limit = 0.04, 0.4
    solver = make_solver(GAME_OF.get(algo, "kuhn"), algo, **CONFIG_OF.get(algo, {}))
    iterate = solver.iterate

    def counted(n: int = 1):
        before = solver.iterations
        out = iterate(n)
        clock.extra += cost * (solver.iterations - before)
        return out

    solver.iterate = counted
    result = run(solver, 10**6, time_limit=limit)  # the iteration budget only keeps a broken limit from hanging
    assert result.stopped == "time" and 1 <= result.iterations <= limit / cost + 1
    assert result.seconds == pytest.approx(result.iterations * cost)
    assert result.wall_seconds <= limit + cost + 1e-9, (result.wall_seconds, result.iterations)


class _RayStandIn(_TimedStandIn):
    """Its first iteration also starts Ray, which takes ``ray`` seconds (as a WorkerPool records them)."""

    def __init__(self, game, clock: _Clock, ray: float) -> None:
        super().__init__(game, clock, 0.01, 0.0)
        self.ray = ray

    def iterate(self, n: int = 1):
        if self.iterations == 0:
            import cfrlab.distributed

            self.clock.extra += self.ray
            cfrlab.distributed._STARTUP_SECONDS[0] += self.ray
        return super().iterate(n)


def test_starting_ray_is_not_solver_time(kuhn, monkeypatch) -> None:
    """Ray's start-up (10-20 s, inside the first iteration of a --workers run) is reported apart, as compilation is."""
    clock = _Clock(cpu=False)
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    result = run(_RayStandIn(kuhn, clock, 7.0), 20)
    assert result.ray_seconds == pytest.approx(7.0) and result.seconds == pytest.approx(20 * 0.01)
    assert result.wall_seconds == pytest.approx(7.0 + 20 * 0.01)


def test_slow_checkpoints_are_spaced_to_a_small_share_of_the_run() -> None:
    """A checkpoint that takes s seconds to write waits s / CHECKPOINT_SHARE before the next (never less than
    ``every``): CFR10's 7-second writes every 30 s took 13 % of a run."""
    clock = _Clock(cpu=False)

    class Slow:
        saves = 0

        def save_checkpoint(self, path: str, **seconds: float) -> None:
            Slow.saves += 1
            clock.extra += 7.0

    solver, checkpoints = Slow(), schedule.Checkpoints("run.ckpt.npz", 30.0, clock)
    for _ in range(3600):  # an hour of one-second steps
        clock.extra += 1.0
        checkpoints.save_if_due(solver)
    written = Slow.saves * 7.0
    assert Slow.saves >= 2 and written <= schedule.CHECKPOINT_SHARE * clock.extra * 1.05
    fast = schedule.Checkpoints("run.ckpt.npz", 30.0, lambda: 0.0)
    fast.save(Slow())  # an instant write keeps the asked spacing
    assert fast.gap == 30.0


def test_a_resumed_run_counts_only_its_own_seconds_against_the_limit(kuhn, tmp_path, monkeypatch) -> None:
    """``time_limit`` bounds this call's solving and evaluation: a run resumed from a checkpoint of 100 s of
    solving (more than the limit) gets the whole limit, ``budget_seconds`` counts its seconds only, and it is
    evaluated (every evaluation was passed over, guessed to cost as long as the checkpoint's solving)."""
    clock = _Clock(cpu=False)
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    ckpt = tmp_path / "c.npz"
    first = run(_TimedStandIn(kuhn, clock, 1.0, 1.0), 100, checkpoint_path=ckpt)
    result = run(_TimedStandIn(kuhn, clock, 1.0, 1.0), 10**6, time_limit=60.0, checkpoint_path=ckpt, resume=True)
    assert result.resumed_at == 100 and result.stopped == "time"
    spent = result.seconds + result.eval_seconds - first.seconds - first.eval_seconds
    assert 60.0 - 1.0 - 1e-9 <= spent <= 60.0 + 1e-9  # the whole limit, to an iteration
    assert result.records[-1]["budget_seconds"] == pytest.approx(spent)
    assert len(result.records) >= 2 and result.exploitability == 0.5 and not result.eval_skipped


def test_the_time_limit_does_not_count_compiling_before_it_began() -> None:
    """Kernels compiled before the budget began (building the evaluation tree) were counted as if compiled
    within it, lengthening the limit by their seconds."""
    now = [50.0]

    class Timer:  # a CompileTimer's count: 10 s of compiling already
        seconds = 10.0

    budget = schedule.Budget(60.0, Timer(), lambda: now[0])
    assert budget.left() == 60.0
    now[0], Timer.seconds = 58.0, 13.0  # 8 s, 3 of them compiling
    assert budget.spent() == 5.0 and budget.left() == 55.0
    assert schedule.Budget(None, Timer(), lambda: now[0]).left() == float("inf")


def test_the_progress_line_of_a_resumed_run_counts_down_its_own_time_limit(
        kuhn, tmp_path, monkeypatch, capsys) -> None:
    """``solve --time-limit 60 --resume`` from a checkpoint of 100 s: the iterations shown count the resumed ones,
    the time left is the driver's (it said "0 s left" throughout, counting the checkpoint's seconds)."""
    import re

    import cfrlab.cli.common as common
    from cfrlab.cli.solve import _run_with_progress

    clock = _Clock(cpu=False)
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    ckpt = tmp_path / "c.npz"
    run(_TimedStandIn(kuhn, clock, 1.0, 0.0), 100, evaluate=False, checkpoint_path=ckpt)
    result = _run_with_progress(run, _TimedStandIn(kuhn, clock, 1.0, 0.0), None, False, time_limit=60.0,
                                evaluate=False, checkpoint_path=ckpt, resume=True)
    assert result.iterations == 160 and result.stopped == "time"  # 60 iterations of 1 s: the whole limit
    shown = [(int(done), int(left)) for done, left in
             re.findall(r"^cfr\+: ([\d,]+) iterations, .*?, (\d+) s left", capsys.readouterr().err, re.M)]
    assert shown[0] == (101, 59) and shown[-1] == (160, 0) and len(shown) >= 5
    assert all(left == 160 - done for done, left in shown)  # one second of the limit per iteration
