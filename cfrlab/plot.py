"""Convergence plots from run logs: exploitability against iterations and against seconds, log-log."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cfrlab.checkpoint import atomic_write_bytes
from cfrlab.file_checks import note_input
from cfrlab.runlog import read_runlog

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure


def run_label(path: str | os.PathLike[str], meta: dict) -> str:
    algo = meta.get("solver")
    game = meta.get("game")
    return f"{algo} on {game}" if algo and game else Path(path).stem


def plot_runs(logs: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], metric: str = "exploitability",
              labels: Sequence[str] | None = None, title: str | None = None) -> Path:
    """Draw ``metric`` of every log on two log-log panels (vs iterations, vs seconds) and save a PNG."""
    import matplotlib.pyplot as plt

    fig = convergence_figure(logs, metric, labels, title)
    out = Path(out)
    try:  # atomic: a failed write (a full disk) is an error and leaves no half-written image
        atomic_write_bytes(out, lambda handle: fig.savefig(handle, dpi=110, format=out.suffix[1:] or "png"))
    finally:
        plt.close(fig)
    return out


def _point(path: str | os.PathLike[str], record: dict, metric: str) -> tuple[float, float, float]:
    """(iteration, seconds, metric) of one run-log record; a clear error when one is missing or not a number."""
    values = []
    for name in ("iteration", "seconds", metric):
        value = record.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{str(path)!r} has a record whose {name} is {value!r:.60}, not a number: "
                             "not a run log `cfrlab solve --log` wrote")
        values.append(value)
    return values[0], values[1], values[2]


def convergence_figure(logs: Sequence[str | os.PathLike[str]], metric: str = "exploitability",
                       labels: Sequence[str] | None = None, title: str | None = None) -> Figure:
    """The matplotlib figure ``plot_runs`` saves: ``metric`` against iterations and against solver seconds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []  # every log read and checked before a figure is opened
    for path in logs:
        meta, records = read_runlog(path)
        note_input(path, "run log")  # `plot run.jsonl -o run.jsonl` would replace it
        points = [_point(path, r, metric) for r in records if r.get(metric) is not None]
        runs.append((path, meta, [p for p in points if all(map(math.isfinite, p)) and p[2] > 0 and p[0] > 0]))
    fig, (ax_it, ax_s) = plt.subplots(1, 2, figsize=(11, 4.2))
    drawn = 0
    for i, (path, meta, points) in enumerate(runs):
        if not points:
            continue
        label = labels[i] if labels and i < len(labels) else run_label(path, meta)
        its, secs, vals = zip(*points)
        ax_it.plot(its, vals, marker=".", label=label)
        ax_s.plot([max(s, 1e-6) for s in secs], vals, marker=".", label=label)
        drawn += 1
    if drawn == 0:
        plt.close(fig)
        raise ValueError(f"no {metric!r} values in {', '.join(map(str, logs))}")
    for ax, xlabel in ((ax_it, "iterations"), (ax_s, "solver seconds (compilation excluded)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(metric.replace("_", " "))
        ax.grid(True, which="both", alpha=0.3)
        readable_ticks(ax)
    ax_it.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def readable_ticks(ax: Axes) -> None:
    """Give every log-scaled axis of ``ax`` at least two labelled ticks, whatever its range.

    Matplotlib labels only powers of ten on a log axis, so a range inside one decade (1.2-1.43 s) shows no
    number at all. Wide ranges keep the powers of ten; one to two decades get 1-2-5 steps; narrower ranges
    get evenly spaced ticks with as many digits as tell them apart. Call it after plotting.
    """
    for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if axis.get_scale() == "log":
            _label_log_axis(axis, *sorted(limits))


def _label_log_axis(axis: Axis, lo: float, hi: float) -> None:
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator

    if lo <= 0 or hi <= lo:
        return
    decades = math.log10(hi / lo)
    axis.set_minor_formatter(NullFormatter())
    if decades >= 2.0:
        return  # at least two powers of ten lie inside: matplotlib's own labels
    if decades >= 0.7:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        return
    locator = MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10])
    ticks = [t for t in locator.tick_values(lo, hi) if lo <= t <= hi]
    step = (ticks[1] - ticks[0]) if len(ticks) > 1 else hi - lo
    digits = max(0, -math.floor(math.log10(step)) + 1) if step > 0 else 3
    axis.set_major_locator(locator)
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda x, _: _fixed(x, digits)))


def _fixed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals and no trailing zeros (1.250 -> 1.25), or 3 significant digits if huge/tiny."""
    if not 1e-4 <= abs(x) < 1e6:
        return f"{x:.3g}"
    text = f"{x:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
