"""Run a solver: iterations, stopping rules, evaluation schedule, logs, checkpoints, resume.

The CLI's ``solve`` and the public ``cfrlab.solve`` both go through ``run``. A
checkpoint is written atomically every ``checkpoint_every`` seconds, at the end
and on Ctrl-C; ``resume=True`` reloads it (refusing one made by another
algorithm, config or game) and continues, so a killed run ends exactly where an
uninterrupted one would. Evaluation only reads the solver, never changes it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from cfrlab.checkpoint import CheckpointError, check_identity
from cfrlab.distributed import startup_seconds
from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.runlog import RunLog, truncate_after
from cfrlab.solvers.base import Solver
from cfrlab.solvers.finite import check_finite
from cfrlab.tree import GameTree, load_tree

EVAL_GROWTH = 1.2
"""Evaluate at roughly geometric iteration counts (about 12 points per decade) for log-log plots."""

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
    eval_skipped: bool = False
    """The final evaluation was left out because it would have overrun the time limit."""
    ray_seconds: float = 0.0
    """Seconds spent starting or joining Ray (``distributed.startup_seconds``), not counted in ``seconds``."""

    @property
    def policy(self) -> "TabularPolicy":
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


def next_eval_point(iteration: int, every: int | None) -> int:
    """The next iteration at which to evaluate after ``iteration``."""
    geometric = max(iteration + 1, math.ceil(iteration * EVAL_GROWTH))
    if every:
        return min(geometric, (iteration // every + 1) * every)
    return geometric


def check_resume(solver: Solver, checkpoint_path: str | Path, iterations: int | None = None) -> None:
    """Raise ``CheckpointError`` unless ``solver`` can resume ``checkpoint_path`` towards ``iterations``.

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


PROGRESS_SECONDS = 2.0
"""The longest stretch of iterations between two progress reports (and time-limit checks)."""
EVAL_SHARE = 0.2
"""Against a time limit, exact evaluation takes at most about this share of the run (the first two evaluations
aside): an evaluation point is passed over until the solving since the last evaluation is
(1 - EVAL_SHARE) / EVAL_SHARE times what an evaluation costs. A long run of a large game (CFR10 of hold'em)
spent 13 % of its time evaluating under the former rule of a half."""


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

    ``time_limit`` bounds the whole call in wall-clock seconds, evaluation included (a cold cache's one-time
    kernel compilation comes on top): iterations run in steps sized from the measured cost of one iteration,
    time is kept for the final evaluation, an evaluation point is passed over while evaluating would take
    more than ``EVAL_SHARE`` of the time since the last one, and an evaluation that would overrun the limit is
    skipped.
    ``on_progress`` gets a record after every step (at least every ``PROGRESS_SECONDS``); ``on_compile`` is
    called once if numba starts compiling kernels.

    ``out`` receives the average strategy with the run's metadata; the checkpoint then defaults to
    ``OUT.ckpt.npz`` and is removed once the strategy file is written, unless ``keep_checkpoint`` or the run
    was interrupted. The solver is closed (worker pools released) however the run ends.
    """
    if checkpoint_path is None and out is not None:
        checkpoint_path = Path(str(out) + ".ckpt.npz")
    try:
        result = _run(solver, iterations, target_exploitability, time_limit, eval_every, evaluate, log_path,
                      checkpoint_path, checkpoint_every, resume, on_progress, on_compile)
    finally:
        solver.close()
    if out is not None:
        policy, solved = solver.solved_policy()
        policy.save(out, solver.game, quotient=solved is not solver.game, **solver.metadata(),
                    exploitability=result.exploitability, seconds=result.seconds)
        if checkpoint_path is not None and not keep_checkpoint and result.stopped != "interrupted":
            Path(checkpoint_path).unlink(missing_ok=True)
    return result


def _run(
    solver: Solver,
    iterations: int | None,
    target_exploitability: float | None,
    time_limit: float | None,
    eval_every: int | None,
    evaluate: bool,
    log_path: str | Path | None,
    checkpoint_path: str | Path | None,
    checkpoint_every: float,
    resume: bool,
    on_progress: Callable[[dict[str, Any]], None] | None,
    on_compile: Callable[[], None] | None,
) -> RunResult:
    from cfrlab.eval import deviation_gains
    from cfrlab.jit_timing import CompileTimer

    if iterations is None and target_exploitability is None and time_limit is None:
        raise ValueError("give at least one stopping rule: iterations, target_exploitability or time_limit")
    wall_start, ray_start = clock(), startup_seconds()
    deadline = None if time_limit is None else wall_start + time_limit
    elapsed_before = eval_before = 0.0
    if resume and checkpoint_path and Path(checkpoint_path).exists():
        check_resume(solver, checkpoint_path, iterations)
        meta = solver.load_checkpoint(checkpoint_path)
        elapsed_before = float(meta.get("seconds", 0.0))
        eval_before = float(meta.get("eval_seconds", 0.0))
        if log_path and Path(log_path).exists():
            truncate_after(log_path, solver.iterations)
    log = RunLog(log_path, meta={"game": solver.game.spec(), **solver.metadata()},
                 append=bool(resume and solver.iterations > 0))
    compile_timer = CompileTimer(on_compile, clock)
    # solvers of games too large to compile may evaluate exactly themselves (dict with "exploitability")
    exact: Callable[[], dict[str, float]] | None = solver.exact_evaluation if solver.evaluates_itself else None
    with compile_timer:
        wanted = evaluate or target_exploitability is not None
        tree = evaluation_tree(solver) if wanted and exact is None else None
    if target_exploitability is not None and tree is None and exact is None:
        raise ValueError("--target-exploitability needs a game small enough to evaluate exactly")

    records: list[dict[str, Any]] = []
    last_expl: float | None = None
    solve_seconds, eval_seconds = elapsed_before, eval_before
    eval_costs: list[float] = []

    def eval_cost() -> float:
        """What the next evaluation should cost: the cheaper of the last two (the first pays one-time setup)."""
        return min(eval_costs[-2:]) if eval_costs else 0.0

    def eval_guess() -> float:
        """``eval_cost``, or before any evaluation was timed, as long as the solving so far (a learned method's
        first evaluation trains its average network: it may cost many iterations)."""
        return eval_cost() if eval_costs else solve_seconds
    solved_at_eval = solve_seconds
    per_iteration: float | None = None
    last_checkpoint = clock()
    next_eval = next_eval_point(solver.iterations, eval_every) if solver.iterations else 1
    stopped = "iterations"
    eval_skipped = False

    def timed(fn: Callable[[], Any]) -> float:
        """Seconds ``fn`` took, numba compilation and starting Ray excluded."""
        before, start, ray_before = compile_timer.seconds, clock(), startup_seconds()
        with compile_timer:
            fn()
        setup = compile_timer.seconds - before + startup_seconds() - ray_before
        return max(0.0, clock() - start - setup)

    def left() -> float:
        """Seconds left before the time limit; one-time kernel compilation does not count against it."""
        return math.inf if deadline is None else deadline + compile_timer.seconds - clock()

    def fits(seconds: float) -> bool:
        return seconds <= left()

    def record_now(with_eval: bool) -> dict[str, Any]:
        nonlocal last_expl, eval_seconds, solved_at_eval
        record: dict[str, Any] = {"iteration": solver.iterations, "seconds": round(solve_seconds, 6)}
        if with_eval:
            if tree is not None or exact is not None:
                result: dict[str, Any] = {}

                def measure() -> None:
                    if exact is not None:
                        result.update(exact())
                        return
                    # sampling solvers store only the infosets they have visited: the rest play uniformly
                    policy = solver.solved_policy()[0]
                    gains = deviation_gains(tree, policy.to_sequences(tree, missing="uniform"))
                    result.update(exploitability=float(gains.clip(min=0).sum() / tree.num_players),
                                  nash_conv=float(gains.clip(min=0).sum()), gains=[float(g) for g in gains])

                eval_costs.append(timed(measure))
                eval_seconds += eval_costs[-1]
                solved_at_eval = solve_seconds
                last_expl = result["exploitability"]
                if not math.isfinite(last_expl):
                    check_finite(solver, tree, last_expl)
                record.update(result)
                record["eval_seconds"] = round(eval_seconds, 6)
        record["wall_seconds"] = round(clock() - wall_start, 6)
        if with_eval:
            records.append(record)
            log.log(**record)
        if on_progress:
            on_progress(record)
        return record

    def save() -> None:
        if checkpoint_path:
            solver.save_checkpoint(checkpoint_path, seconds=solve_seconds, eval_seconds=eval_seconds)

    try:
        while True:
            if iterations is not None and solver.iterations >= iterations:
                break
            # keep room for the final evaluation, which costs about what the last one did
            reserve = 1.5 * eval_cost() if evaluate else 0.0
            if left() <= reserve:
                stopped = "time"
                break
            step = max(1, next_eval - solver.iterations)
            if iterations is not None:
                step = min(step, iterations - solver.iterations)
            if per_iteration is not None and per_iteration > 0:
                budget = PROGRESS_SECONDS
                if deadline is not None:
                    budget = min(budget, left() - reserve)
                step = max(1, min(step, int(budget / per_iteration)))
            elif deadline is not None:
                step = 1  # measure one iteration before running many against a deadline
            before = solver.iterations
            seconds = timed(lambda: solver.iterate(step))
            solve_seconds += seconds
            per_iteration = seconds / max(1, solver.iterations - before)
            check_finite(solver, tree)  # a NaN stops the run before it is evaluated, logged or checkpointed
            at_eval = solver.iterations >= next_eval or (iterations is not None and solver.iterations >= iterations)
            wants_eval = at_eval and (evaluate or target_exploitability is not None)
            if wants_eval and deadline is not None and target_exploitability is None and \
                    len(eval_costs) >= 2 and \
                    EVAL_SHARE * (solve_seconds - solved_at_eval) < (1 - EVAL_SHARE) * eval_cost():
                wants_eval = False  # against a time limit, evaluating takes at most EVAL_SHARE of the time
            elif wants_eval and not fits(eval_guess()):
                wants_eval, eval_skipped = False, True
            elif wants_eval:
                eval_skipped = False
            record_now(wants_eval)
            if at_eval:
                next_eval = next_eval_point(solver.iterations, eval_every)
                if target_exploitability is not None and last_expl is not None and last_expl <= target_exploitability:
                    stopped = "target"
                    break
            if checkpoint_path and clock() - last_checkpoint >= checkpoint_every:
                save()
                last_checkpoint = clock()
    except KeyboardInterrupt:
        stopped = "interrupted"
    if evaluate and solver.iterations > 0 and (not records or records[-1]["iteration"] != solver.iterations):
        if fits(eval_guess()):
            record_now(True)
            eval_skipped = False
        else:
            eval_skipped = True
    save()
    final = last_expl if records and records[-1]["iteration"] == solver.iterations else None
    return RunResult(solver.iterations, solve_seconds, final, stopped, records, solver, eval_seconds=eval_seconds,
                     compile_seconds=compile_timer.seconds, compiled=compile_timer.compiled,
                     wall_seconds=clock() - wall_start, eval_skipped=eval_skipped,
                     ray_seconds=startup_seconds() - ray_start)


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
