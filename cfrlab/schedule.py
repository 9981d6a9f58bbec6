"""The steps of a run that ``cfrlab.driver.run`` takes: the time budget, the evaluation schedule, checkpoints.

Each reads the clock it is given (``driver.clock``: wall time, which tests replace by CPU time or a stand-in).
``Budget`` keeps the time limit to solving plus evaluation and sizes the steps of iterations; ``EvalSchedule``
says which iterations are evaluated (geometric points for log-log plots, and at most ``eval_share`` of the time
against a limit); ``Checkpoints`` writes the solver's state every so many seconds; ``StopRequest`` lets Ctrl-C and
SIGTERM stop a run between steps.
"""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cfrlab.distributed import startup_seconds
from cfrlab.jit_timing import CompileTimer
from cfrlab.solvers.base import Solver

EVAL_GROWTH = 1.2
"""Evaluate at roughly geometric iteration counts (about 12 points per decade) for log-log plots."""

PROGRESS_SECONDS = 2.0
"""The longest stretch of iterations between two progress reports (and time-limit checks)."""
EVAL_SHARE = 0.2
"""Against a time limit, exact evaluation takes at most about this share of the run (the first two evaluations
aside): an evaluation point is passed over until the solving since the last evaluation is
(1 - share) / share times what an evaluation costs. A long run of a large game (CFR10 of hold'em)
spent 13 % of its time evaluating under the former rule of a half."""
LONG_RUN_SECONDS = 3600.0
LONG_RUN_EVAL_SHARE = 0.1
"""The share against a time limit of ``LONG_RUN_SECONDS`` or more: an exact evaluation of CFR10 costs about an
iteration, and a 2.5-hour run keeps 14 points of its curve instead of 17 for 2 % more iterations
(BENCHMARKS.md, "The evaluation schedule of a long run")."""
FINAL_EVAL_RESERVE = 1.5
"""Against a time limit, solving stops this many times an evaluation's cost before the limit, so that the
final evaluation ends within it."""
FINAL_EVAL_SLACK = 0.1
"""The final evaluation is made when it ends within the time limit plus this share of it (a last step that ran
longer than its iterations' measured cost took from the time kept for it); beyond, it is skipped."""


def eval_share(time_limit: float) -> float:
    """The most of a run against ``time_limit`` that exact evaluation may take: ``EVAL_SHARE``, or
    ``LONG_RUN_EVAL_SHARE`` for runs of ``LONG_RUN_SECONDS`` or more."""
    return LONG_RUN_EVAL_SHARE if time_limit >= LONG_RUN_SECONDS else EVAL_SHARE


def next_eval_point(iteration: int, every: int | None) -> int:
    """The next iteration at which to evaluate after ``iteration``."""
    geometric = max(iteration + 1, math.ceil(iteration * EVAL_GROWTH))
    if every:
        return min(geometric, (iteration // every + 1) * every)
    return geometric


class Budget:
    """The time limit: seconds of solving plus evaluation on ``clock`` since the budget began (a resumed run's
    earlier seconds, kept in its checkpoint, do not count). Compiling or loading numba kernels and starting Ray
    meanwhile do not count either (``compile_timer``, ``distributed.startup_seconds``): they are one-time
    costs, reported apart."""

    def __init__(self, limit: float | None, compile_timer: CompileTimer, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.slack = 0.0 if limit is None else FINAL_EVAL_SLACK * limit
        self.compile_timer, self.clock = compile_timer, clock
        self.compiled_before, self.ray_start = compile_timer.seconds, startup_seconds()
        self.start = clock()

    def spent(self) -> float:
        """Seconds counted against the limit so far: since the start, less compiling and starting Ray since."""
        setup = self.compile_timer.seconds - self.compiled_before + startup_seconds() - self.ray_start
        return self.clock() - self.start - setup

    def left(self) -> float:
        """Seconds left before the limit (infinite without one)."""
        if self.limit is None:
            return math.inf
        return self.limit - self.spent()

    def fits(self, seconds: float) -> bool:
        return seconds <= self.left()

    def fits_final(self, seconds: float) -> bool:
        """Whether the final evaluation, ``seconds`` long, ends within the limit and its ``FINAL_EVAL_SLACK``."""
        return seconds <= self.left() + self.slack

    def step(self, wanted: int, per_iteration: float | None, reserve: float) -> int:
        """How many of ``wanted`` iterations to run next: a step of at most ``PROGRESS_SECONDS`` that ends
        ``reserve`` seconds before the limit, from the measured cost of an iteration; against a limit, one
        iteration first, to measure it."""
        if per_iteration is None or per_iteration <= 0:
            return 1 if self.limit is not None else wanted
        seconds = min(PROGRESS_SECONDS, self.left() - reserve)
        return max(1, min(wanted, int(seconds / per_iteration)))


class EvalSchedule:
    """Which iterations are evaluated: geometric points (``EVAL_GROWTH``) or every ``every`` iterations, and the
    last. Against a time limit without a target (``share``: ``eval_share`` of the limit; None without one), a point
    is passed over while evaluating would take more than that share of the time, and one that would overrun the
    limit is skipped."""

    def __init__(self, every: int | None, iteration: int, solve_seconds: float, share: float | None) -> None:
        self.every, self.share = every, share
        self.next = next_eval_point(iteration, every) if iteration else 1
        self.costs: list[float] = []
        self.solved_at_start = self.solved_at_last = solve_seconds

    def cost(self) -> float:
        """What the next evaluation should cost: the cheaper of the last two (the first pays one-time setup)."""
        return min(self.costs[-2:]) if self.costs else 0.0

    def guess(self, solve_seconds: float) -> float:
        """``cost``, or before any evaluation was timed, as long as the solving so far in this run (a learned
        method's first evaluation trains its average network: it may cost many iterations; a resumed run's
        checkpoint brings more solving than a time limit holds, and every evaluation was passed over)."""
        return self.cost() if self.costs else solve_seconds - self.solved_at_start

    def wanted(self, solve_seconds: float, budget: Budget) -> bool:
        """Whether to evaluate at a point reached after ``solve_seconds`` of solving."""
        if self.share is not None and len(self.costs) >= 2 and \
                self.share * (solve_seconds - self.solved_at_last) < (1 - self.share) * self.cost():
            return False
        return budget.fits(self.guess(solve_seconds))

    def passed(self, iteration: int) -> None:
        """The point at ``iteration`` was reached (evaluated or passed over): aim at the next."""
        self.next = next_eval_point(iteration, self.every)

    def evaluated(self, seconds: float, solve_seconds: float) -> None:
        self.costs.append(seconds)
        self.solved_at_last = solve_seconds


CHECKPOINT_SHARE = 0.02
"""Most of a run's time that writing checkpoints may take: a checkpoint that took s seconds to write is followed
by the next no sooner than s / CHECKPOINT_SHARE seconds later (CFR10's 1.4 GB takes about 7 s: every 6 minutes,
where every 30 s cost 13 % of the run)."""


class Checkpoints:
    """The solver's state written atomically to ``path`` every ``every`` seconds, or less often where a write is
    slow (``CHECKPOINT_SHARE``), and when the run ends (nothing without a path)."""

    def __init__(self, path: str | Path | None, every: float, clock: Callable[[], float]) -> None:
        self.path, self.every, self.clock = path, every, clock
        self.last = clock()
        self.gap = every

    def save(self, solver: Solver, **seconds: float) -> None:
        if self.path:
            started = self.clock()
            solver.save_checkpoint(self.path, **seconds)
            self.last = self.clock()
            self.gap = max(self.every, (self.last - started) / CHECKPOINT_SHARE)

    def save_if_due(self, solver: Solver, **seconds: float) -> None:
        if self.clock() - self.last >= self.gap:
            self.save(solver, **seconds)


class StopRequest:
    """Ctrl-C (SIGINT) or SIGTERM (``kill``, ``timeout``, a service manager) asks a run to stop after the step in
    progress, so that its checkpoint never holds a half-updated table and ``--resume`` stays exact; a second
    signal stops at once (``KeyboardInterrupt``). Installed by ``watching`` in the main thread only; an ignored
    signal (a shell's background job ignores SIGINT) stays ignored, and a handler that Ray work
    (``cfrlab.distributed``) put in place meanwhile is left as it is."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self.asked = False
        self.say = say

    @contextmanager
    def watching(self) -> Iterator[StopRequest]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        before = {sig: signal.signal(sig, self._heard) for sig in self.SIGNALS
                  if signal.getsignal(sig) is not signal.SIG_IGN}  # ignored (a background job's SIGINT) stays so
        try:
            yield self
        finally:
            for sig, handler in before.items():
                if signal.getsignal(sig) == self._heard:
                    signal.signal(sig, handler)

    def _heard(self, signum: int, frame: Any) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True
        if self.say is not None:
            self.say("stopping after the step in progress (again to stop at once, without a checkpoint)")
