"""Training the Koi-Koi blueprint (``players.blueprint``): the solver in slices with checkpoints and progress.

``train_blueprint`` runs ``BlueprintMCCFR`` in slices, checkpoints after each (``Solver.save_checkpoint``, so a run
resumes exactly), and reports traversals/s, abstract infosets and, every ``eval_seconds``, the arena score against
``greedy`` on duplicate deals (``cfrlab.eval.arena``). It keeps its own slice loop rather than ``driver.run``: the
driver's evaluation is exact exploitability on a compiled tree, which full Koi-Koi has none of, and its time budget
does not reserve a final arena evaluation, which this loop sizes from the measured time per deal.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfrlab.file_checks import output_target
from cfrlab.games.koikoi.players.blueprint import BLUEPRINT, CHECKPOINT, PROGRESS, SAMPLING, Blueprint, BlueprintAgent
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.solvers.abstraction import AbstractKoiKoiGame
from cfrlab.games.koikoi.solvers.blueprint import BlueprintMCCFR

FIRST_SLICE = 10
"""Iterations of a run's first slice: few, since it pays the first compile and the rate is not known yet."""
SLICE_SECONDS = 10.0
"""Seconds a later slice aims at (by the last slice's rate): progress, and a checkpoint, that often."""
PROBE_DEALS = 2
"""Deals of the first evaluation of a timed run, played to learn the time per deal before any is reserved."""
EVAL_SHARE = 0.25
"""The most of a timed run's budget kept for its final evaluation; fewer deals are played when more is needed."""


def train_blueprint(out: str | Path, iterations: int | None = None, seconds: float | None = None,
                    seed: int = 0, game: str = "koikoi", eval_seconds: float = 180.0, eval_deals: int = 200,
                    slice_iterations: int = 2000, resume: bool = False, plays: str = "greedy",
                    report: Callable[[dict[str, Any]], None] | None = None,
                    say: Callable[[str], None] | None = None,
                    clock: Callable[[], float] = time.monotonic) -> BlueprintMCCFR:
    """Train (or resume) a blueprint into directory ``out`` until ``iterations`` in total or ``seconds`` of this run
    (the final evaluation included); ``plays`` is the play abstraction (``abstraction.decide``).

    Writes ``out/checkpoint.npz`` after every slice (at most ``slice_iterations``, about ``SLICE_SECONDS`` each),
    ``out/blueprint.npz`` and a line per report in ``out/progress.jsonl``; ``say`` hears what a long step is.
    The tables depend only on the seed and the iteration count, never on the slicing, the evaluations or the time."""
    from cfrlab.registry import load_game

    started = clock()
    if iterations is None and seconds is None:
        raise ValueError("give a budget: iterations or seconds")
    inner = load_game(game)
    if inner.name != "koikoi":
        raise ValueError(f"the blueprint trains on full Koi-Koi rounds (koikoi[...]), not {game}")
    out = Path(out)
    if not out.parent.is_dir():
        raise FileNotFoundError(f"cannot write to {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    for name in (CHECKPOINT, BLUEPRINT, PROGRESS):  # a FIFO or device there would block or be replaced
        output_target(out / name, f"--out {out}'s")
    solver = BlueprintMCCFR(AbstractKoiKoiGame(plays=plays, **inner.params), seed=seed, sampling=SAMPLING[plays])
    if resume and (out / CHECKPOINT).exists():
        solver.load_checkpoint(out / CHECKPOINT)
        if iterations is not None and iterations < solver.iterations:
            raise ValueError(f"{out / CHECKPOINT} has {solver.iterations} iterations, more than the {iterations} "
                             "asked for: give a larger total")
    elif not resume and (out / CHECKPOINT).exists():
        raise ValueError(f"{out / CHECKPOINT} exists: pass --resume to continue it, or choose another --out")
    out.mkdir(exist_ok=True)
    _Training(solver, inner, out, iterations, seconds, eval_seconds, eval_deals, slice_iterations, report,
              say or (lambda message: None), clock, started).run()
    return solver


class _Training:
    """The slice loop of ``train_blueprint``: slices sized by the measured rate so that a time budget, the final
    evaluation included, is kept; an arena score against ``greedy`` every ``eval_seconds`` and at the end."""

    def __init__(self, solver: BlueprintMCCFR, inner: Any, out: Path, iterations: int | None, seconds: float | None,
                 eval_seconds: float, eval_deals: int, slice_iterations: int,
                 report: Callable[[dict[str, Any]], None] | None, say: Callable[[str], None],
                 clock: Callable[[], float], started: float) -> None:
        self.solver, self.inner, self.out, self.iterations, self.seconds = solver, inner, out, iterations, seconds
        self.eval_seconds, self.eval_deals, self.slice_iterations = eval_seconds, eval_deals, slice_iterations
        self.report, self.say, self.clock = report, say, clock
        self.start, self.last_eval = started, clock()
        self.done_before = solver.iterations
        self.rate: float | None = None  # iterations per second of the last slice
        self.per_deal: float | None = None  # seconds per evaluation deal, once measured

    def run(self) -> None:
        evaluated_last = False
        while (size := self._next_slice()) > 0:
            if self.rate is None:
                self.say(f"training the first {size} iterations (a first run compiles the kernels) ...")
            began = self.clock()
            self.solver.iterate(size)
            self.rate = size / max(self.clock() - began, 1e-9)
            self.solver.save_checkpoint(self.out / CHECKPOINT)
            evaluated_last = self._periodic_eval_due()
            self._emit(self.eval_deals if evaluated_last else 0)
        Blueprint.from_solver(self.solver).save(self.out / BLUEPRINT)
        if self.eval_deals > 0 and not evaluated_last:
            self._emit(self._final_deals())

    def _left(self) -> float:
        return math.inf if self.seconds is None else self.seconds - (self.clock() - self.start)

    def _reserve(self) -> float:
        """Seconds kept for the final evaluation (a timed run measures the time per deal first)."""
        if self.seconds is None or self.eval_deals == 0:
            return 0.0
        if self.per_deal is None:
            self._evaluate(PROBE_DEALS)
        return min(self.eval_deals * (self.per_deal or 0.0), EVAL_SHARE * self.seconds)

    def _next_slice(self) -> int:
        """Iterations of the next slice: 0 when the count is reached or the time left would not hold one."""
        solver = self.solver
        size = self.slice_iterations if self.iterations is None else \
            min(self.slice_iterations, self.iterations - solver.iterations)
        size = min(size, FIRST_SLICE if self.rate is None else max(1, int(self.rate * SLICE_SECONDS)))
        if self.seconds is not None and self.rate is not None:  # a run trains one slice at least
            size = min(size, int(self.rate * (self._left() - self._reserve())))
        return max(0, size)

    def _periodic_eval_due(self) -> bool:
        """An evaluation every ``eval_seconds``, unless it would eat into the final evaluation's time."""
        now = self.clock()
        if self.eval_deals == 0 or now - self.last_eval < self.eval_seconds:
            return False
        if self.per_deal is not None and self._left() < 2 * self.eval_deals * self.per_deal:
            return False
        self.last_eval = now
        return True

    def _final_deals(self) -> int:
        """The final evaluation's deals: all of ``eval_deals``, or as many as the time left holds (one at least)."""
        if self.seconds is None or self.per_deal is None:
            return self.eval_deals
        return max(1, min(self.eval_deals, int(self._left() / self.per_deal)))

    def _evaluate(self, deals: int) -> Any:
        from cfrlab.eval.arena import arena

        self.say(f"playing {deals} duplicate deals against greedy ...")
        began = self.clock()
        result = arena(self.inner, BlueprintAgent(Blueprint.from_solver(self.solver)), GreedyAgent(), deals=deals,
                       seed=1)
        self.per_deal = (self.clock() - began) / deals
        return result

    def _emit(self, deals: int) -> None:
        """A progress line (with an arena score on ``deals`` deals when > 0), to the file and to ``report``."""
        solver, elapsed = self.solver, self.clock() - self.start
        line: dict[str, Any] = {"iterations": solver.iterations, "seconds": round(elapsed, 1),
                                "traversals_per_s": round(2 * (solver.iterations - self.done_before)
                                                          / max(elapsed, 1e-9), 1),
                                "infosets": len(solver.store.table_regret)}
        if deals > 0:
            res = self._evaluate(deals).return_a
            line["vs_greedy"] = [round(res.mean, 3), round(res.low, 3), round(res.high, 3)]
            line["eval_deals"] = deals
            line["seconds"] = round(self.clock() - self.start, 1)
        with open(self.out / PROGRESS, "a") as fh:
            fh.write(json.dumps(line) + "\n")
        if self.report is not None:
            self.report(line)
