"""Convergence plots from run logs: exploitability against iterations and against seconds, log-log."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from cfrlab.runlog import read_runlog


def run_label(path: str | os.PathLike[str], meta: dict) -> str:
    algo = meta.get("solver")
    game = meta.get("game")
    return f"{algo} on {game}" if algo and game else Path(path).stem


def plot_runs(logs: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], metric: str = "exploitability",
              labels: Sequence[str] | None = None, title: str | None = None) -> Path:
    """Draw ``metric`` of every log on two log-log panels (vs iterations, vs seconds) and save a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_it, ax_s) = plt.subplots(1, 2, figsize=(11, 4.2))
    drawn = 0
    for i, path in enumerate(logs):
        meta, records = read_runlog(path)
        points = [(r["iteration"], r["seconds"], r[metric]) for r in records if r.get(metric) is not None]
        points = [p for p in points if p[2] > 0 and p[0] > 0]
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
    from matplotlib.ticker import NullFormatter

    for ax, xlabel in ((ax_it, "iterations"), (ax_s, "seconds")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels collide on short decades
        ax.set_xlabel(xlabel)
        ax.set_ylabel(metric.replace("_", " "))
        ax.grid(True, which="both", alpha=0.3)
    ax_it.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
