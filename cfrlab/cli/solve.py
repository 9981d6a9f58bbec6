"""``cfrlab solve GAME --algo NAME ...``: run a solver with progress, logs, checkpoints and a strategy file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import console, emit_json, fmt, stdout


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    help="Solve GAME (e.g. leduc, 'kuhn(players=3)', openspiel:leduc_poker). Extra --flags set solver options "
    "(see --list-options) or game parameters (leduc --ranks 4).",
)
def solve(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="Game name or spec, e.g. kuhn, leduc, 'kuhn(players=3)'."),
    algo: str = typer.Option("cfr+", "--algo", "-a", help="Algorithm (see `cfrlab algorithms`)."),
    iterations: Optional[int] = typer.Option(None, "--iterations", "-n", help="Total iterations (default 1000)."),
    target_exploitability: Optional[float] = typer.Option(None, help="Stop once exploitability is at most this."),
    time_limit: Optional[float] = typer.Option(None, help="Stop after this many seconds of solving."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the average strategy here (.npz)."),
    log: Optional[Path] = typer.Option(None, help="Write metrics by iteration and seconds here (.jsonl)."),
    plot: Optional[Path] = typer.Option(None, help="Draw the convergence plot here (.png); needs --log."),
    checkpoint: Optional[Path] = typer.Option(None, help="Checkpoint file (default: OUT.ckpt.npz when --out is set)."),
    checkpoint_every: float = typer.Option(30.0, help="Seconds between checkpoints."),
    resume: bool = typer.Option(False, help="Continue from the checkpoint if it exists."),
    eval_every: Optional[int] = typer.Option(None, help="Also evaluate every N iterations (default: geometric)."),
    no_eval: bool = typer.Option(False, "--no-eval", help="Skip exact evaluation during the run."),
    seed: int = typer.Option(0, help="Random seed."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    list_options: bool = typer.Option(False, "--list-options", help="List the algorithm's options and exit."),
) -> None:
    from cfrlab.cli.options import describe_config, parse_extra_flags, split_config_flags
    from cfrlab.driver import run
    from cfrlab.registry import load_game
    from cfrlab.solvers import solver_class

    cls = solver_class(algo)
    if list_options:
        _print_options(cls, describe_config(cls.Config))
        return
    config_flags, game_params = split_config_flags(cls.Config, parse_extra_flags(list(ctx.args)))
    the_game = load_game(game, **game_params)
    solver = cls(the_game, seed=seed, **config_flags)
    if iterations is None and target_exploitability is None and time_limit is None:
        iterations = 1000
    if checkpoint is None and out is not None:
        checkpoint = out.with_name(out.name + ".ckpt.npz")
    if plot is not None and log is None:
        log = plot.with_suffix(".jsonl")

    result = _run_with_progress(
        run, solver, iterations, quiet or json_out,
        target_exploitability=target_exploitability, time_limit=time_limit, eval_every=eval_every,
        evaluate=not no_eval, log_path=log, checkpoint_path=checkpoint, checkpoint_every=checkpoint_every,
        resume=resume,
    )
    summary = {
        "game": the_game.spec(), "algorithm": algo, "iterations": result.iterations,
        "seconds": round(result.seconds, 4), "exploitability": result.exploitability, "stopped": result.stopped,
        "out": str(out) if out else None, "log": str(log) if log else None,
    }
    if out is not None:
        solver.average_policy().save(out, the_game, **solver.metadata(), exploitability=result.exploitability,
                                     seconds=result.seconds)
    if plot is not None and log is not None and result.exploitability is not None:
        from cfrlab.plot import plot_runs

        plot_runs([log], plot, title=f"{algo} on {the_game.spec()}")
        summary["plot"] = str(plot)
    if json_out:
        emit_json({**summary, "records": result.records})
        return
    _print_summary(summary, result.records)


def _run_with_progress(run, solver, iterations, quiet, **kwargs):  # type: ignore[no-untyped-def]
    if quiet:
        return run(solver, iterations, **kwargs)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("exploitability {task.fields[expl]}"), TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(solver.algorithm, total=iterations, expl="-")

        def update(record: dict) -> None:
            progress.update(task, completed=record["iteration"], expl=fmt(record.get("exploitability"), 4))

        return run(solver, iterations, on_progress=update, **kwargs)


def _print_summary(summary: dict, records: list[dict]) -> None:
    from rich.table import Table

    table = Table(title=f"{summary['algorithm']} on {summary['game']}")
    for column in ("iteration", "exploitability", "seconds"):
        table.add_column(column, justify="right")
    for record in _thin(records, 15):
        table.add_row(str(record["iteration"]), fmt(record.get("exploitability")), f"{record['seconds']:.3f}")
    stdout.print(table)
    stdout.print(
        f"stopped by {summary['stopped']} after {summary['iterations']} iterations, {summary['seconds']:.3f} s;"
        f" exploitability {fmt(summary['exploitability'])}"
    )
    for key, label in (("out", "strategy"), ("log", "log"), ("plot", "plot")):
        if summary.get(key):
            stdout.print(f"{label}: {summary[key]}")


def _thin(records: list[dict], n: int) -> list[dict]:
    if len(records) <= n:
        return records
    idx = sorted({round(i * (len(records) - 1) / (n - 1)) for i in range(n)})
    return [records[i] for i in idx]


def _print_options(cls: type, rows: list[tuple[str, str, str]]) -> None:
    from rich.table import Table

    table = Table(title=f"options of --algo {cls.algorithm} ({cls.__doc__.strip().splitlines()[0] if cls.__doc__ else ''})")
    for column in ("flag", "default", "meaning"):
        table.add_column(column)
    defaults = getattr(cls, "defaults", {})
    for flag, default, doc in rows:
        name = flag[2:].replace("-", "_")
        table.add_row(flag, repr(defaults[name]) if name in defaults else default, doc)
    stdout.print(table)


@app.command(help="List the algorithms `solve` knows.")
def algorithms(json_out: bool = typer.Option(False, "--json")) -> None:
    from cfrlab.solvers import ALGORITHMS, solver_class

    rows = []
    for name in sorted(ALGORITHMS):
        try:
            doc = (solver_class(name).__doc__ or "").strip().splitlines()[0]
        except Exception as exc:  # noqa: BLE001 - an optional dependency may be missing
            doc = f"(unavailable: {exc})"
        rows.append({"name": name, "description": doc})
    if json_out:
        emit_json(rows)
        return
    for row in rows:
        stdout.print(f"[bold]{row['name']:<14}[/] {row['description']}")


@app.command(help="List the built-in games.")
def games() -> None:
    from cfrlab.registry import list_games

    for name in list_games():
        stdout.print(name)
    stdout.print("openspiel:NAME  (any OpenSpiel game, e.g. openspiel:leduc_poker)")
