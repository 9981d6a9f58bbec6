"""``cfrlab experiment NAME``: reproduce a seed's experiment (figures, CSV and a short summary)."""

from __future__ import annotations

import importlib
from pathlib import Path

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_SEED
from cfrlab.cli.progress import Tracker, tracker


@app.command(short_help="Reproduce a paper's experiment (fsp-kuhn).",
             help="Reproduce an experiment: fsp-kuhn (the Kuhn poker figures of Kawamura, Mizukami & "
             "Tsuruoka 2017, with NFSP added; about 7 minutes of CPU, --quick about 25 s).")
def experiment(
    name: str = typer.Argument(..., help="Experiment name: fsp-kuhn."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder for the CSV, PNGs and summary "
                                       "(default: experiments-out/NAME)."),
    quick: bool = typer.Option(False, "--quick", help="A small budget (about 25 s of CPU): every curve falls, none "
                               "reaches the full run's values."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED, help="Random seed."),
    json_out: bool = typer.Option(False, "--json", help="Print the final figures as JSON (progress goes to stderr)."),
) -> None:
    from cfrlab.experiments import EXPERIMENTS

    if name not in EXPERIMENTS:
        raise typer.BadParameter(f"unknown experiment {name!r}; known: {', '.join(sorted(EXPERIMENTS))}")
    module, attr = EXPERIMENTS[name].split(":")
    run = getattr(importlib.import_module(module), attr)
    target = out if out is not None else Path("experiments-out") / name
    with tracker(name, unit="iterations") as bar:
        final = run(target, quick=quick, seed=seed, progress=_Bar(bar))
    if json_out:
        from cfrlab.cli.common import emit_json

        emit_json({"experiment": name, "out": str(target), "final": final})
        return
    typer.echo((target / "summary.md").read_text())
    typer.echo(f"wrote {target}/results.csv, fig1..fig5 PNGs and summary.md")


class _Bar:
    """An experiment's progress (``phase``, ``done``) on a ``Tracker``: a bar per run, with its rate and time left."""

    def __init__(self, bar: Tracker) -> None:
        self.bar = bar

    def phase(self, name: str, total: int) -> None:
        self.bar.restart(name, total)

    def done(self, iterations: int) -> None:
        self.bar.update(iterations)
