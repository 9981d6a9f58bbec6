"""The progress of every long command, one mechanism: a rich bar on a terminal, plain lines off one.

Both show the same figures: done of total (a count: iterations, deals, episodes), the rate since the first update
(so compiling before it is not counted as slowness), the time left (from the rate and the count, or from a time
budget, whichever ends first) and the time elapsed. ``tracker(label, total, unit)`` is a context manager yielding
a ``Tracker``: ``update(done)`` after each piece of work, ``say(message)`` for what it waits on (Ray starting,
kernels compiling), ``restart(label, total)`` for the next phase of a command of several.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from cfrlab.cli import common

BAR_STEPS = 1000
"""Resolution of the rich bar (it shows the fraction done, of a count or of a time budget)."""


def duration(seconds: float) -> str:
    """``seconds`` as a person reads it: 42 s, 3 min 05 s, 2 h 10 min."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"


def _rate(rate: float) -> str:
    """A rate with three significant digits, without an exponent: 28,100, 35.2, 0.0412."""
    return f"{rate:,.0f}" if rate >= 100 else f"{rate:.3g}"


class Meter:
    """Done of total and the share of a time budget spent, with the rate and the time left they give.

    ``clock`` is injectable (tests); ``spent`` in ``update`` is the budget's own count of seconds when it is not
    the wall clock (``solve --time-limit`` counts solving and evaluation, not compiling)."""

    def __init__(self, total: float | None = None, unit: str = "", budget: float | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.total, self.unit, self.budget, self.clock = total, unit, budget, clock
        self.started = clock()
        self.done = 0.0
        self.spent: float | None = None
        self._first: tuple[float, float] | None = None  # (time, done) of the first update: the rate's origin

    def update(self, done: float, spent: float | None = None) -> None:
        now = self.clock()
        if self._first is None:
            self._first = (now, done)
        self.done, self.spent = done, spent

    def elapsed(self) -> float:
        return self.clock() - self.started

    def rate(self) -> float | None:
        """Units per second since the first update, or None before there is a second point."""
        if self._first is None:
            return None
        at, done = self._first
        seconds = self.clock() - at
        return (self.done - done) / seconds if seconds > 0 and self.done > done else None

    def left(self) -> float | None:
        """Seconds until the count or the budget runs out, whichever is first; None when unknown."""
        guesses = []
        rate = self.rate()
        if self.total is not None and rate:
            guesses.append(max(0.0, self.total - self.done) / rate)
        if self.budget is not None:
            guesses.append(max(0.0, self.budget - (self.elapsed() if self.spent is None else self.spent)))
        return min(guesses) if guesses else None

    def fraction(self) -> float | None:
        """The fraction done: of the count, or of the budget if that is further along."""
        parts = []
        if self.total:
            parts.append(self.done / self.total)
        if self.budget:
            parts.append((self.elapsed() if self.spent is None else self.spent) / self.budget)
        return min(1.0, max(parts)) if parts else None

    def text(self) -> str:
        """``120/1,000 iterations, 35.2 iterations/s, 25 s left``."""
        count = f"{self.done:,.0f}" + (f"/{self.total:,.0f}" if self.total is not None else "")
        rate, left = self.rate(), self.left()
        parts = [f"{count} {self.unit}".rstrip()]
        parts.append(f"{_rate(rate)} {self.unit or 'units'}/s" if rate else "rate -")
        parts.append(f"{duration(left)} left" if left is not None else "time left -")
        return ", ".join(parts)


class Tracker:
    """What a command updates; draws a rich bar (``progress``) or prints plain lines (``progress`` None)."""

    def __init__(self, label: str, meter: Meter, progress: Any = None) -> None:
        self.label, self.meter, self._progress = label, meter, progress
        self.note = ""
        self._last_line = -float("inf")
        self._said = False  # a status line was printed: the next update is shown at once, as its outcome
        self._task = None if progress is None else progress.add_task(label, total=BAR_STEPS, meter="")

    def update(self, done: float, note: str = "", spent: float | None = None) -> None:
        """``done`` units so far (``note``: a figure to show beside them, such as the exploitability)."""
        self.meter.update(done, spent)
        self.note = note or self.note
        finished = self.meter.total is not None and done >= self.meter.total
        self._show(force=finished)

    def say(self, message: str) -> None:
        """What the command waits on now, shown in place of the label until the next ``update``."""
        if self._progress is not None:
            self._progress.update(self._task, description=f"{self.label}: {message}")
        else:
            common.console.print(f"{self.label}: {message}", highlight=False, soft_wrap=True)
            self._said = True

    def restart(self, label: str, total: float | None = None, unit: str | None = None) -> None:
        """A new phase: a new label and count, in ``unit`` if given (the previous bar stays, finished; an unused one
        is relabelled)."""
        used = self.meter.done > 0 or self.note
        self.label = label
        self.meter = Meter(total, self.meter.unit if unit is None else unit, self.meter.budget, self.meter.clock)
        self.note, self._last_line = "", -float("inf")
        if self._progress is not None:
            if used:
                self._task = self._progress.add_task(label, total=BAR_STEPS, meter="")
            else:
                self._progress.update(self._task, description=label)
        else:
            common.console.print(label, highlight=False, soft_wrap=True)

    def _show(self, force: bool = False) -> None:
        text = self.meter.text() + (f", {self.note}" if self.note else "")
        if self._progress is not None:
            fraction = self.meter.fraction()
            self._progress.update(self._task, description=self.label, meter=text,
                                  completed=None if fraction is None else fraction * BAR_STEPS)
            return
        now = time.perf_counter()
        if force or self._said or now - self._last_line >= common.PLAIN_PROGRESS_SECONDS:
            self._last_line, self._said = now, False
            common.console.print(f"{self.label}: {text}, {duration(self.meter.elapsed())} elapsed",
                                 highlight=False, soft_wrap=True)


class _Silent(Tracker):
    def __init__(self) -> None:  # nothing shown
        super().__init__("", Meter())

    def update(self, done: float, note: str = "", spent: float | None = None) -> None:
        self.meter.update(done, spent)

    def say(self, message: str) -> None:
        pass

    def restart(self, label: str, total: float | None = None, unit: str | None = None) -> None:
        pass


@contextmanager
def tracker(label: str, total: float | None = None, unit: str = "", budget: float | None = None,
            quiet: bool = False, transient: bool = False) -> Iterator[Tracker]:
    """A ``Tracker`` on stderr for the duration of the block; ``quiet``: one that shows nothing."""
    if quiet:
        yield _Silent()
        return
    meter = Meter(total, unit, budget)
    if not common.console.is_terminal:
        yield Tracker(label, meter)
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[meter]}"),
               TimeElapsedColumn()]
    with Progress(*columns, console=common.console, transient=transient) as progress:
        yield Tracker(label, meter, progress)
