"""Run a solver: iterations, stopping rules, evaluation schedule, logs, checkpoints, resume.

The CLI's ``solve`` and the public ``cfrlab.solve`` both go through ``run``. A
checkpoint is written atomically every ``checkpoint_every`` seconds (less often
where a write is slow), at the end and on Ctrl-C or SIGTERM; ``resume=True`` reloads it (refusing one made by another
algorithm, config or game) and continues, so a killed run ends exactly where an
uninterrupted one would. Evaluation only reads the solver, never changes it.
"""

from __future__ import annotations

import math
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfrlab.checkpoint import CheckpointError, check_identity
from cfrlab.distributed import startup_seconds
from cfrlab.game import Game
from cfrlab.jit_timing import CompileTimer
from cfrlab.policy import TabularPolicy
from cfrlab.runlog import RunLog, truncate_after
from cfrlab.schedule import FINAL_EVAL_RESERVE, Budget, Checkpoints, EvalSchedule, StopRequest, eval_share
from cfrlab.solvers.base import Solver
from cfrlab.solvers.finite import check_finite
from cfrlab.tree import GameTree, load_tree

clock: Callable[[], float] = time.perf_counter
"""The clock ``run`` reads for its time limit, seconds and schedule: wall time. Tests substitute the process's
CPU time or a stand-in, so that what they check of the schedule does not depend on the machine's load."""

DEFAULT_MAX_EVAL_NODES = 5_000_000


@dataclass
class RunResult:
    """What a run produced. ``seconds`` is solver time only: compilation and evaluation are counted apart."""

    iterations: int
    seconds: float
    exploitability: float | None
    stopped: str
    """Why the run stopped: 'iterations', 'target', 'time' or 'interrupted'."""
    records: list[dict[str, Any]] = field(default_factory=list)
    solver: Solver | None = None
    eval_seconds: float = 0.0
    """Seconds spent evaluating (exact best responses), not counted in ``seconds``."""
    compile_seconds: float = 0.0
    """Seconds numba spent compiling or loading kernels (``cfrlab.jit_timing``), in neither of the above."""
    compiled: bool = False
    """Whether kernels were compiled from scratch (a cold cache) during this run."""
    wall_seconds: float = 0.0
    """Wall-clock seconds of this call to ``run``, everything included."""
    ray_seconds: float = 0.0
    """Seconds spent starting or joining Ray (``distributed.startup_seconds``), not counted in ``seconds``."""
    resumed_at: int | None = None
    """The iterations of the checkpoint this run resumed from (None: it started afresh)."""
    eval_skipped: bool = False
    """The final evaluation was left out: it would have ended past the time limit and its slack
    (``schedule.FINAL_EVAL_SLACK``)."""

    @property
    def policy(self) -> TabularPolicy:
        """The solver's average policy."""
        assert self.solver is not None
        return self.solver.average_policy()


def evaluation_tree(solver: Solver, max_nodes: int = DEFAULT_MAX_EVAL_NODES) -> GameTree | None:
    """The compiled tree to evaluate ``solver``'s ``solved_policy`` on exactly (a symmetry quotient's when it
    swept one: the exploitability of a symmetric strategy is the same there, and the game's full tree is never
    built), or None if the game is too large to enumerate."""
    solved, tree = solver.solved_game, solver.tree
    if tree is not None and tree.fingerprint == solved.fingerprint():
        return tree
    return load_tree(solved, max_nodes=max_nodes, or_none=True)


def check_resume(solver: Solver, checkpoint_path: str | Path, iterations: int | None = None) -> int:
    """Raise ``CheckpointError`` unless ``solver`` can resume ``checkpoint_path`` towards ``iterations``; the
    iterations the checkpoint holds.

    Reads only the checkpoint's metadata: the same algorithm, config and game, and no more iterations done
    than asked for (a run never silently returns more than it was asked to).
    """
    meta = solver.checkpoint_meta(checkpoint_path)
    check_identity(checkpoint_path, meta, solver.identity())
    done = meta.get("iterations")
    if iterations is not None and isinstance(done, int) and done > iterations:
        raise CheckpointError(
            f"checkpoint {str(checkpoint_path)!r} already holds {done} iterations, more than the {iterations} "
            f"asked for; ask for at least {done} (-n {done}) or start a fresh run without --resume"
        )
    return int(done) if isinstance(done, int) else 0


def run(
    solver: Solver,
    iterations: int | None = None,
    *,
    target_exploitability: float | None = None,
    time_limit: float | None = None,
    eval_every: int | None = None,
    evaluate: bool = True,
    log_path: str | Path | None = None,
    checkpoint_path: str | Path | None = None,
    checkpoint_every: float = 30.0,
    resume: bool = False,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    on_compile: Callable[[], None] | None = None,
    out: str | Path | None = None,
    keep_checkpoint: bool = False,
) -> RunResult:
    """Iterate ``solver`` until ``iterations`` (total, counting resumed ones), the target or the time limit.

    ``time_limit`` bounds the seconds of solving plus evaluation (``Budget``: compiling or loading numba kernels
    and starting Ray come on top, reported apart): iterations run in steps sized from the measured cost of one
    iteration, evaluation points are passed over while evaluating would take more than ``schedule.eval_share`` of the
    time since the last one, and solving stops early enough for the final evaluation, which is made unless it
    would end past the limit by more than ``schedule.FINAL_EVAL_SLACK`` of it.
    ``on_progress`` gets a record after every step (at least every ``schedule.PROGRESS_SECONDS``): ``iteration``,
    ``seconds``, ``eval_seconds``, ``wall_seconds``, ``cpu_seconds`` (this process's, ``process_usage``) and
    ``peak_rss_mb`` count the runs resumed from too, ``budget_seconds`` (what ``time_limit`` has counted) this
    call only; ``on_compile`` is called once if numba starts compiling kernels.

    ``out`` receives the average strategy with the run's metadata; the checkpoint then defaults to
    ``OUT.ckpt.npz`` and is removed once the strategy file is written, unless ``keep_checkpoint`` or the run
    was interrupted. The solver is closed (worker pools released) however the run ends.
    """
    if iterations is None and target_exploitability is None and time_limit is None:
        raise ValueError("give at least one stopping rule: iterations, target_exploitability or time_limit")
    if checkpoint_path is None and out is not None:
        checkpoint_path = Path(str(out) + ".ckpt.npz")
    plan = _Plan(iterations, target_exploitability, time_limit, eval_every, evaluate, log_path, checkpoint_path,
                 checkpoint_every, resume, on_progress, on_compile)
    try:
        result = _Run(solver, plan).until_stopped()
    finally:
        solver.close()
    if out is not None:
        policy, solved = solver.solved_policy()
        policy.save(out, solver.game, quotient=solved is not solver.game, **solver.metadata(),
                    exploitability=result.exploitability, seconds=result.seconds)
        if checkpoint_path is not None and not keep_checkpoint and result.stopped != "interrupted":
            Path(checkpoint_path).unlink(missing_ok=True)
    return result


@dataclass(frozen=True)
class _Plan:
    """``run``'s options, as one value."""

    iterations: int | None
    target: float | None
    time_limit: float | None
    eval_every: int | None
    evaluate: bool
    log_path: str | Path | None
    checkpoint_path: str | Path | None
    checkpoint_every: float
    resume: bool
    on_progress: Callable[[dict[str, Any]], None] | None
    on_compile: Callable[[], None] | None


class Evaluator:
    """Exact evaluation of a solver: its own (``Solver.evaluates_itself``), or ``cfrlab.eval`` on the compiled
    tree of the game it solved; ``available`` is False when neither can be had (a game too large to compile)."""

    def __init__(self, solver: Solver, wanted: bool) -> None:
        self.own = solver.evaluates_itself
        self.tree = evaluation_tree(solver) if wanted and not self.own else None
        self.available = self.own or self.tree is not None

    def measure(self, solver: Solver) -> dict[str, Any]:
        """``{"exploitability": ..., ...}`` of ``solver``'s average policy."""
        if self.own:
            return solver.exact_evaluation()
        from cfrlab.eval import exploitability_report

        assert self.tree is not None
        # sampling solvers store only the infosets they have visited: the rest play uniformly
        policy = solver.solved_policy()[0]
        return exploitability_report(self.tree, policy.to_sequences(self.tree, missing="uniform"))


class _Run:
    """One call of ``run``: resume, then steps of iterations with evaluations and checkpoints between them."""

    def __init__(self, solver: Solver, plan: _Plan) -> None:
        self.solver, self.plan = solver, plan
        self.wall_start, self.ray_start = clock(), startup_seconds()
        self.compile_timer = CompileTimer(plan.on_compile, clock)
        self.solve_seconds = self.eval_seconds = 0.0
        self.before = RunUsage()
        """What the runs this one resumed spent (wall and CPU seconds, peak memory), from the checkpoint."""
        self.resumed_at = self._resume()
        self.log = RunLog(plan.log_path, meta={"game": solver.game.spec(), **solver.metadata()},
                          append=self.resumed_at is not None and solver.iterations > 0)
        with self.compile_timer:
            self.evaluator = Evaluator(solver, plan.evaluate or plan.target is not None)
        if plan.target is not None and not self.evaluator.available:
            raise ValueError("--target-exploitability needs a game small enough to evaluate exactly")
        self.budget = Budget(plan.time_limit, self.compile_timer, clock)
        share = eval_share(plan.time_limit) if plan.time_limit is not None and plan.target is None else None
        self.schedule = EvalSchedule(plan.eval_every, solver.iterations, self.solve_seconds, share)
        self.checkpoints = Checkpoints(plan.checkpoint_path, plan.checkpoint_every, clock)
        self.stop = StopRequest(lambda line: print(line, file=sys.stderr, flush=True))
        self.records: list[dict[str, Any]] = []
        self.per_iteration: float | None = None

    def _resume(self) -> int | None:
        """Load the checkpoint when asked to resume and one exists: the iterations it held, else None."""
        path = self.plan.checkpoint_path
        if not (self.plan.resume and path and Path(path).exists()):
            return None
        check_resume(self.solver, path, self.plan.iterations)
        meta = self.solver.load_checkpoint(path)
        self.solve_seconds = float(meta.get("seconds", 0.0))
        self.eval_seconds = float(meta.get("eval_seconds", 0.0))
        self.before = RunUsage(*(float(meta.get(name, 0.0)) for name in RUN_USAGE))
        if self.plan.log_path and Path(self.plan.log_path).exists():
            truncate_after(self.plan.log_path, self.solver.iterations)
        return self.solver.iterations

    def until_stopped(self) -> RunResult:
        with self.stop.watching():  # a second signal raises KeyboardInterrupt: the last checkpoint stands
            stopped = self._iterate()
            if stopped == "interrupted":  # asked between steps: the state is whole, kept before the evaluation
                self.checkpoints.save(self.solver, **self._clocks())
            eval_skipped = False
            if self.plan.evaluate and self.evaluator.available and self.solver.iterations > 0 and \
                    (not self.records or self.records[-1]["iteration"] != self.solver.iterations):
                eval_skipped = not self.budget.fits_final(self.schedule.guess(self.solve_seconds))
                if not eval_skipped:
                    self._record(with_eval=True)
        self.checkpoints.save(self.solver, **self._clocks())
        last = self.records[-1] if self.records else {}
        final = last.get("exploitability") if last.get("iteration") == self.solver.iterations else None
        return RunResult(self.solver.iterations, self.solve_seconds, final, stopped, self.records, self.solver,
                         eval_seconds=self.eval_seconds, compile_seconds=self.compile_timer.seconds,
                         compiled=self.compile_timer.compiled, wall_seconds=clock() - self.wall_start,
                         ray_seconds=startup_seconds() - self.ray_start, resumed_at=self.resumed_at,
                         eval_skipped=eval_skipped)

    def _iterate(self) -> str:
        """Steps until a stopping rule holds; which one."""
        solver, plan = self.solver, self.plan
        while True:
            if self.stop.asked:
                return "interrupted"
            if plan.iterations is not None and solver.iterations >= plan.iterations:
                return "iterations"
            reserve = FINAL_EVAL_RESERVE * self.schedule.cost() if plan.evaluate else 0.0
            if self.budget.left() <= reserve:
                return "time"
            self._step(reserve)
            if self._report() and self._reached_target():
                return "target"
            self.checkpoints.save_if_due(solver, **self._clocks())

    def _step(self, reserve: float) -> None:
        """Run the iterations up to the next evaluation point, the budget allowing."""
        solver, wanted = self.solver, max(1, self.schedule.next - self.solver.iterations)
        if self.plan.iterations is not None:
            wanted = min(wanted, self.plan.iterations - solver.iterations)
        step = self.budget.step(wanted, self.per_iteration, reserve)
        before = solver.iterations
        seconds = self._timed(lambda: solver.iterate(step))
        self.solve_seconds += seconds
        self.per_iteration = seconds / max(1, solver.iterations - before)
        check_finite(solver, self.evaluator.tree)  # a NaN stops the run before it is evaluated, logged or saved

    def _report(self) -> bool:
        """Report progress after a step, evaluating first if the solver reached an evaluation point (or the last
        iteration asked for) and the schedule wants one there; whether it reached a point."""
        plan, iterations = self.plan, self.solver.iterations
        at_point = iterations >= self.schedule.next or (plan.iterations is not None and iterations >= plan.iterations)
        wants = at_point and (plan.evaluate or plan.target is not None) and self.evaluator.available and \
            self.schedule.wanted(self.solve_seconds, self.budget)
        self._record(with_eval=wants)
        if at_point:
            self.schedule.passed(iterations)
        return at_point

    def _reached_target(self) -> bool:
        """Whether the last evaluation met the target exploitability."""
        last = self.records[-1] if self.records else {}
        return self.plan.target is not None and last.get("exploitability", math.inf) <= self.plan.target

    def _timed(self, fn: Callable[[], Any]) -> float:
        """Seconds ``fn`` took, numba compilation and starting Ray excluded."""
        before, start, ray_before = self.compile_timer.seconds, clock(), startup_seconds()
        with self.compile_timer:
            fn()
        setup = self.compile_timer.seconds - before + startup_seconds() - ray_before
        return max(0.0, clock() - start - setup)

    def _usage(self) -> RunUsage:
        """Wall and CPU seconds and peak memory so far, the resumed runs' included."""
        return self.before.add(clock() - self.wall_start)

    def _clocks(self) -> dict[str, float]:
        """The counts a checkpoint keeps for a resumed run to continue from."""
        return {"seconds": self.solve_seconds, "eval_seconds": self.eval_seconds, **self._usage().record()}

    def _record(self, with_eval: bool) -> dict[str, Any]:
        """The progress record of this iteration, evaluated (then also logged and kept) or not."""
        solver = self.solver
        record: dict[str, Any] = {"iteration": solver.iterations, "seconds": round(self.solve_seconds, 6)}
        if with_eval:
            measured: dict[str, Any] = {}
            seconds = self._timed(lambda: measured.update(self.evaluator.measure(solver)))
            self.eval_seconds += seconds
            self.schedule.evaluated(seconds, self.solve_seconds)
            if not math.isfinite(measured["exploitability"]):
                check_finite(solver, self.evaluator.tree, measured["exploitability"])
            record.update(measured, eval_seconds=round(self.eval_seconds, 6))
        record.update(self._usage().record())
        record["budget_seconds"] = round(self.budget.spent(), 6)
        if with_eval:
            self.records.append(record)
            self.log.log(**record)
        if self.plan.on_progress:
            self.plan.on_progress(record)
        return record


RUN_USAGE = ("wall_seconds", "cpu_seconds", "peak_rss_mb")
"""The usage counts a checkpoint keeps and every log record holds (``RunUsage``)."""


def process_usage() -> tuple[float, float]:
    """This process's CPU seconds (user and system, its threads included; not Ray's worker processes) and its
    peak resident memory in MB, from ``resource.getrusage`` (Linux reports ``ru_maxrss`` in KiB, macOS in bytes)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    kib = usage.ru_maxrss / 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return usage.ru_utime + usage.ru_stime, kib / 1024


@dataclass(frozen=True)
class RunUsage:
    """Wall and CPU seconds and peak resident memory (MB) of a run, across the processes that resumed it."""

    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_rss_mb: float = 0.0

    def add(self, wall: float) -> RunUsage:
        """These counts continued by a process that has run ``wall`` seconds since it resumed them."""
        cpu, peak = process_usage()
        return RunUsage(self.wall_seconds + wall, self.cpu_seconds + cpu, max(self.peak_rss_mb, peak))

    def record(self) -> dict[str, float]:
        return {"wall_seconds": round(self.wall_seconds, 6), "cpu_seconds": round(self.cpu_seconds, 3),
                "peak_rss_mb": round(self.peak_rss_mb, 1)}


def make_solver(game: Game | str, algorithm: str = "cfr+", **config: Any) -> Solver:
    """Build the solver registered as ``algorithm`` for ``game`` (a Game or a spec string)."""
    from cfrlab.registry import load_game
    from cfrlab.solvers import solver_class

    if isinstance(game, str):
        game = load_game(game)
    return solver_class(algorithm)(game, **config)


def solve(game: Game | str, algorithm: str = "cfr+", iterations: int | None = 1000, **kwargs: Any) -> RunResult:
    """Solve ``game`` with ``algorithm``; ``kwargs`` go to ``run`` if they are its options, else to the config.

    >>> result = solve("kuhn", "cfr+", iterations=200)
    >>> result.exploitability < 1e-3
    True
    """
    import inspect

    run_names = set(inspect.signature(run).parameters) - {"solver", "iterations"}
    run_kwargs = {k: v for k, v in kwargs.items() if k in run_names}
    config = {k: v for k, v in kwargs.items() if k not in run_names}
    return run(make_solver(game, algorithm, **config), iterations, **run_kwargs)
