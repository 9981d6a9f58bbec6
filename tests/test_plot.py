"""Every axis of the convergence plot has readable tick labels, whatever the range of its data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from cfrlab.plot import convergence_figure, plot_runs


def _write_log(path: Path, iterations: list[int], seconds: list[float], values: list[float]) -> Path:
    with path.open("w") as handle:
        handle.write(json.dumps({"meta": {"solver": "cfr+", "game": "leduc"}}) + "\n")
        for it, sec, val in zip(iterations, seconds, values):
            handle.write(json.dumps({"iteration": it, "seconds": sec, "exploitability": val}) + "\n")
    return path


def _visible_labels(axis, limits: tuple[float, float]) -> list[str]:
    lo, hi = sorted(limits)
    labels = []
    for locator, formatter in ((axis.get_major_locator(), axis.get_major_formatter()),
                               (axis.get_minor_locator(), axis.get_minor_formatter())):
        ticks = [t for t in locator() if lo <= t <= hi]
        formatter.set_locs(ticks)
        labels += [formatter(t, i) for i, t in enumerate(ticks)]
    return [label for label in labels if label.strip()]


RANGES = {
    # make run's seconds: 1.2-1.43 s lies inside one decade; exploitability barely moving
    "narrow": ([1000, 1100, 1200, 1300], [1.2, 1.3, 1.38, 1.43], [0.011, 0.0105, 0.0102, 0.0100]),
    "one decade": ([10, 30, 60, 90], [0.02, 0.05, 0.1, 0.15], [0.5, 0.2, 0.1, 0.06]),
    "tiny": ([5000, 5001], [2.0001, 2.0002], [1e-3, 0.99999e-3]),
    "wide": ([1, 10, 1000, 100000], [1e-4, 1e-2, 1.0, 100.0], [3.0, 0.1, 1e-3, 1e-6]),
}


@pytest.mark.parametrize("name", sorted(RANGES))
def test_every_axis_has_at_least_two_distinct_labels(name: str, tmp_path: Path) -> None:
    log = _write_log(tmp_path / f"{name}.jsonl", *RANGES[name])
    fig = convergence_figure([log])
    fig.canvas.draw()
    for ax in fig.axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            labels = _visible_labels(axis, limits)
            assert len(set(labels)) >= 2 and len(set(labels)) == len(labels), (name, ax.get_xlabel(), labels)
    assert plot_runs([log], tmp_path / f"{name}.png").stat().st_size > 1000
