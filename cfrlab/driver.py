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

from cfrlab.game import Game, GameDefinitionError
from cfrlab.policy import TabularPolicy
from cfrlab.runlog import RunLog, truncate_after
from cfrlab.solvers.base import Solver
from cfrlab.tree import GameTree, load_tree

EVAL_GROWTH = 1.2
"""Evaluate at roughly geometric iteration counts (about 12 points per decade) for log-log plots."""

DEFAULT_MAX_EVAL_NODES = 5_000_000


@dataclass
class RunResult:
    """What a run produced."""

    iterations: int
    seconds: float
    exploitability: float | None
    stopped: str
    """Why the run stopped: 'iterations', 'target', 'time' or 'interrupted'."""
    records: list[dict[str, Any]] = field(default_factory=list)
    solver: Solver | None = None

    @property
    def policy(self) -> "TabularPolicy":
        """The solver's average policy."""
        assert self.solver is not None
        return self.solver.average_policy()


def evaluation_tree(solver: Solver, max_nodes: int = DEFAULT_MAX_EVAL_NODES) -> GameTree | None:
    """The compiled tree to evaluate ``solver`` on exactly, or None if the game is too large to enumerate."""
    tree = getattr(solver, "tree", None)
    if isinstance(tree, GameTree):
        return tree
    return try_load_tree(solver.game, max_nodes)


def try_load_tree(game: Game, max_nodes: int = DEFAULT_MAX_EVAL_NODES) -> GameTree | None:
    """``load_tree`` for games that enumerate within ``max_nodes``; None otherwise."""
    try:
        from cfrlab.tree.cache import cache_path

        if cache_path(game).exists():
            return load_tree(game)
        from cfrlab.tree.cache import save_tree
        from cfrlab.tree.compile import compile_tree

        tree = compile_tree(game, max_nodes=max_nodes)
        try:
            save_tree(tree, cache_path(game))
        except OSError:
            pass
        return tree
    except (GameDefinitionError, NotImplementedError, MemoryError):
        return None


def next_eval_point(iteration: int, every: int | None) -> int:
    """The next iteration at which to evaluate after ``iteration``."""
    geometric = max(iteration + 1, math.ceil(iteration * EVAL_GROWTH))
    if every:
        return min(geometric, (iteration // every + 1) * every)
    return geometric


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
) -> RunResult:
    """Iterate ``solver`` until ``iterations`` (total, counting resumed ones), the target or the time limit."""
    from cfrlab.eval import deviation_gains

    if iterations is None and target_exploitability is None and time_limit is None:
        raise ValueError("give at least one stopping rule: iterations, target_exploitability or time_limit")
    elapsed_before = 0.0
    if resume and checkpoint_path and Path(checkpoint_path).exists():
        meta = solver.load_checkpoint(checkpoint_path)
        elapsed_before = float(meta.get("seconds", 0.0))
        if log_path and Path(log_path).exists():
            truncate_after(log_path, solver.iterations)
    log = RunLog(log_path, meta={"game": solver.game.spec(), **solver.metadata()},
                 append=bool(resume and solver.iterations > 0))
    tree = evaluation_tree(solver) if evaluate or target_exploitability is not None else None
    if target_exploitability is not None and tree is None:
        raise ValueError("--target-exploitability needs a game small enough to evaluate exactly")

    records: list[dict[str, Any]] = []
    last_expl: float | None = None
    solve_seconds = elapsed_before
    last_checkpoint = time.perf_counter()
    next_eval = next_eval_point(solver.iterations, eval_every) if solver.iterations else 1
    stopped = "iterations"

    def evaluate_now() -> dict[str, Any]:
        nonlocal last_expl
        record: dict[str, Any] = {"iteration": solver.iterations, "seconds": round(solve_seconds, 6)}
        if tree is not None:
            # sampling solvers store only the infosets they have visited: the rest play uniformly
            gains = deviation_gains(tree, solver.average_policy().to_sequences(tree, missing="uniform"))
            last_expl = float(gains.clip(min=0).sum() / tree.num_players)
            record.update(exploitability=last_expl, nash_conv=float(gains.clip(min=0).sum()),
                          gains=[float(g) for g in gains])
        records.append(record)
        log.log(**record)
        if on_progress:
            on_progress(record)
        return record

    def save() -> None:
        if checkpoint_path:
            solver.save_checkpoint(checkpoint_path, seconds=solve_seconds)

    try:
        while True:
            if iterations is not None and solver.iterations >= iterations:
                break
            if time_limit is not None and solve_seconds >= time_limit:
                stopped = "time"
                break
            step = max(1, next_eval - solver.iterations)
            if iterations is not None:
                step = min(step, iterations - solver.iterations)
            start = time.perf_counter()
            solver.iterate(step)
            solve_seconds += time.perf_counter() - start
            if solver.iterations >= next_eval or (iterations is not None and solver.iterations >= iterations):
                if evaluate or target_exploitability is not None:
                    evaluate_now()
                elif on_progress:
                    on_progress({"iteration": solver.iterations, "seconds": solve_seconds})
                next_eval = next_eval_point(solver.iterations, eval_every)
                if target_exploitability is not None and last_expl is not None and last_expl <= target_exploitability:
                    stopped = "target"
                    break
            if checkpoint_path and time.perf_counter() - last_checkpoint >= checkpoint_every:
                save()
                last_checkpoint = time.perf_counter()
    except KeyboardInterrupt:
        stopped = "interrupted"
    if not records or records[-1]["iteration"] != solver.iterations:
        if evaluate and solver.iterations > 0:
            evaluate_now()
    save()
    return RunResult(solver.iterations, solve_seconds, last_expl, stopped, records, solver)


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
