"""``cfrlab solve GAME --algo NAME ...``: run a solver with progress, logs, checkpoints and a strategy file."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import (
    MAX_DEALS,
    MAX_SEED,
    console,
    emit_json,
    existing_folder,
    fmt,
    non_negative_seconds,
    positive_seconds,
    prepare_game,
    stdout,
    target_value,
)

if TYPE_CHECKING:
    from cfrlab.cli.family_options import Given
    from cfrlab.driver import RunResult
    from cfrlab.game import Game
    from cfrlab.jit_timing import CompileTimer
    from cfrlab.solvers.base import Solver


STOP_REASONS = {"iterations": "stopped at the iteration budget", "target": "reached the target exploitability",
                "time": "stopped at the time limit", "interrupted": "stopped on request (Ctrl-C or SIGTERM)"}
"""How the summary line says why a run stopped (``RunResult.stopped``)."""


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    short_help="Compute a strategy for a game with --algo (default cfr+).",
    help="Solve GAME (e.g. leduc, 'kuhn(players=3)', openspiel:leduc_poker, game.efg). Extra --flags set solver "
    "options (see --list-options) or game parameters (leduc --ranks 4).",
)
def solve(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="Game name or spec, e.g. kuhn, leduc, 'kuhn(players=3)'."),
    algo: str = typer.Option("cfr+", "--algo", "-a", help="Algorithm (see `cfrlab algorithms`)."),
    iterations: int | None = typer.Option(None, "--iterations", "-n", min=1, max=MAX_DEALS, help="Total "
                                          "iterations (default: the algorithm's, see --list-options; 1000 for most)."),
    target_exploitability: float | None = typer.Option(None, callback=target_value,
                                                       help="Stop once exploitability is at most this."),
    time_limit: float | None = typer.Option(None, callback=positive_seconds, help="Stop after this many seconds "
                                            "of solving and evaluating (building the solver, compiling or loading "
                                            "kernels and starting Ray come on top, reported apart)."),
    out: Path | None = typer.Option(None, "--out", "-o", callback=existing_folder,
                                    help="Write the average strategy here (.npz)."),
    log: Path | None = typer.Option(None, callback=existing_folder,
                                    help="Write metrics by iteration and seconds here (.jsonl)."),
    plot: Path | None = typer.Option(None, callback=existing_folder,
                                     help="Draw the convergence plot here (.png); needs --log."),
    checkpoint: Path | None = typer.Option(None, callback=existing_folder,
                                           help="Checkpoint file (default: OUT.ckpt.npz when --out is set)."),
    checkpoint_every: float = typer.Option(30.0, callback=non_negative_seconds, help="Seconds between checkpoints "
                                           "(more where one is slow to write: at most 2 % of the run writing)."),
    resume: bool = typer.Option(False, help="Continue from the checkpoint if it exists."),
    keep_checkpoint: bool = typer.Option(False, help="Keep the checkpoint after the run ends (default: removed "
                                         "once the strategy file is written; an interrupted run keeps it)."),
    eval_every: int | None = typer.Option(None, min=1, max=MAX_DEALS, help="Also evaluate every N iterations "
                                          "(default: geometric)."),
    no_eval: bool = typer.Option(False, "--no-eval", help="Skip exact evaluation during the run."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED, help="Random seed."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    list_options: bool = typer.Option(False, "--list-options", help="List the algorithm's options, where each "
                                      "default comes from, and its presets; then exit."),
    preset: str | None = typer.Option(None, help="A named set of options, e.g. 'paper': the settings of the "
                                         "method's paper instead of the measured defaults (see --list-options)."),
) -> None:
    started = time.perf_counter()
    from cfrlab.driver import run
    from cfrlab.solvers import solver_class

    cls = solver_class(algo)
    if list_options:
        _print_options(cls)
        return
    from cfrlab.cli.options import parse_extra_flags, split_config_flags

    config_flags, game_params = split_config_flags(cls.Config, parse_extra_flags(list(ctx.args)))
    # the options are checked before the game is loaded: an abstraction can take minutes to prepare
    cls.Config.from_dict({**cls.defaults, **cls.preset_options(preset), **config_flags, "seed": seed})
    from cfrlab.cli.family_options import given

    the_game = _load_game(game, game_params, cls, algo, given(ctx, "solve", game))
    solver, built, setup = _build_solver(cls, the_game, seed=seed, preset=preset, options=config_flags)
    solver_warning = solver.workers_warning()
    if solver_warning:
        console.print(f"[yellow]warning:[/] {solver_warning}", soft_wrap=True)
    if iterations is None and target_exploitability is None and time_limit is None:
        iterations = cls.default_iterations
    checkpoint, log = _outputs(out, checkpoint, log, plot)
    if resume:
        _announce_resume(solver, checkpoint, iterations, quiet=json_out)

    result = _run_with_progress(
        run, solver, iterations, quiet or json_out,
        target_exploitability=target_exploitability, time_limit=time_limit, eval_every=eval_every,
        evaluate=not no_eval, log_path=log, checkpoint_path=checkpoint, checkpoint_every=checkpoint_every,
        resume=resume, out=out, keep_checkpoint=keep_checkpoint,
    )
    summary = _summary(the_game, algo, result, (built, setup), started, out=out, log=log, evaluate=not no_eval)
    summary["checkpoint"] = str(checkpoint) if checkpoint else None
    if plot is not None and log is not None and any(r.get("exploitability") is not None for r in result.records):
        from cfrlab.plot import plot_runs

        plot_runs([log], plot, title=f"{algo} on {the_game.spec()}")
        summary["plot"] = str(plot)
    if json_out:
        emit_json({**summary, "records": result.records})
        return
    _print_summary(summary, result.records)


def _load_game(game: str, game_params: dict[str, Any], cls: type[Solver], algo: str, options: Given) -> Game:
    """The game of the spec with ``game_params`` (the extra flags that are not solver options), as the family's
    options of ``solve`` make it (an abstraction), refused if its family says so, and prepared here, before the
    run (its family's ``prepare``: an abstraction takes minutes once, then comes from the disk cache)."""
    from cfrlab.cli.family_options import load_with_options
    from cfrlab.cli.options import unknown_flags_error
    from cfrlab.game import GameDefinitionError
    from cfrlab.registry import load_game

    try:
        the_game = load_with_options(game, options, **game_params)
    except GameDefinitionError as exc:
        unknown = {k: v for k, v in game_params.items() if k not in load_game(game).params}
        if not unknown:
            raise  # a parameter the game knows, with a value it refuses
        raise unknown_flags_error(cls.Config, algo, unknown, exc) from exc
    _refuse_unsolvable(the_game, algo)
    prepare_game(the_game)  # what it precomputes (hold'em's card abstraction), before the work and its time limit
    return the_game


def _build_solver(cls: type[Solver], game: Game, *, seed: int, preset: str | None,
                  options: dict[str, Any]) -> tuple[Solver, float, CompileTimer]:
    """The solver with ``options`` (the extra flags that are its options), the seconds building it took (the game
    tree) on ``driver.clock``, and the timer of the kernels numba compiled or loaded meanwhile. Neither counts against
    ``--time-limit``, which bounds solving and evaluation."""
    from cfrlab import driver
    from cfrlab.jit_timing import CompileTimer

    start = driver.clock()
    with CompileTimer(clock=driver.clock) as setup:  # building the tree may compile kernels too: counted apart
        solver = cls(game, seed=seed, preset=preset, **options)
    return solver, max(0.0, driver.clock() - start - setup.seconds), setup


def _outputs(out: Path | None, checkpoint: Path | None, log: Path | None,
             plot: Path | None) -> tuple[Path | None, Path | None]:
    """The checkpoint (default ``OUT.ckpt.npz``) and log (default ``PLOT.jsonl``) paths, every output distinct."""
    from cfrlab.file_checks import distinct_outputs

    if checkpoint is None and out is not None:
        checkpoint = out.with_name(out.name + ".ckpt.npz")
    if plot is not None and log is None:
        log = plot.with_suffix(".jsonl")
    distinct_outputs([("--out", out), ("--checkpoint", checkpoint), ("--log", log), ("--plot", plot)])
    return checkpoint, log


def _announce_resume(solver: Solver, checkpoint: Path | None, iterations: int | None, *, quiet: bool) -> None:
    """Check the checkpoint's metadata before the progress bar (a refusal is one line), or say in one line that
    there is none yet; the closing line says from which iteration a run resumed (once its state has loaded)."""
    from cfrlab.driver import check_resume

    if checkpoint is None:
        raise typer.BadParameter("--resume needs a checkpoint: give --checkpoint PATH or --out PATH",
                                 param_hint="--resume")
    if checkpoint.exists():
        check_resume(solver, checkpoint, iterations)
    elif not quiet:
        console.print(f"no checkpoint at {checkpoint} yet: starting from iteration 0", soft_wrap=True,
                      highlight=False)


def _summary(game: Game, algo: str, result: RunResult, setup: tuple[float, CompileTimer], started: float, *,
             out: Path | None, log: Path | None, evaluate: bool) -> dict[str, Any]:
    """What ``--json`` prints (records aside) and the closing lines show; ``setup``: building the solver, in
    seconds, and its kernels' timer."""
    built, kernels = setup
    summary = {
        "game": game.spec(), "algorithm": algo, "iterations": result.iterations,
        "seconds": round(result.seconds, 4), "eval_seconds": round(result.eval_seconds, 4),
        "compile_seconds": round(result.compile_seconds + kernels.seconds, 4),
        "setup_seconds": round(built, 4), "ray_seconds": round(result.ray_seconds, 4),
        "wall_seconds": round(result.wall_seconds, 4), "total_seconds": round(time.perf_counter() - started, 4),
        "exploitability": result.exploitability, "evaluated": evaluate,
        "eval_skipped": result.eval_skipped, "stopped": result.stopped,
        "resumed_at": result.resumed_at, "compiled": result.compiled or kernels.compiled,
        "out": str(out) if out else None, "log": str(log) if log else None,
    }
    if result.records and "mbb_per_hand" in result.records[-1]:
        summary["mbb_per_hand"] = result.records[-1]["mbb_per_hand"]
    if game.table_note() is not None:
        summary["abstraction_table"] = game.table_note()
    return summary


def _run_with_progress(run: Callable[..., RunResult], solver: Solver, iterations: int | None, quiet: bool,
                       **kwargs: Any) -> RunResult:
    """``run`` with a progress bar (plain lines off a terminal): iterations, their rate, the time left of the
    iterations or of ``--time-limit``, the last exploitability; what Ray workers wait for is shown too."""
    from cfrlab import distributed
    from cfrlab.cli.progress import tracker

    with tracker(solver.algorithm, iterations, "iterations", budget=kwargs.get("time_limit"), quiet=quiet) as bar:
        def update(record: dict) -> None:  # the iterations count resumed ones, the time limit this call's seconds
            note = f"exploitability {fmt(record['exploitability'], 4)}" if "exploitability" in record else ""
            bar.update(record["iteration"], note, spent=record["budget_seconds"])

        distributed.set_status_callback(None if quiet else bar.say)
        try:
            return run(solver, iterations, on_progress=update, on_compile=lambda: bar.say(compiling_line(solver)),
                       **kwargs)
        except KeyboardInterrupt:  # a second Ctrl-C or SIGTERM (the first stops between steps, saving all)
            kept = kwargs.get("checkpoint_path")
            print(f"interrupted at once: {kept} holds the last checkpoint; continue with --resume" if kept else
                  "interrupted at once: nothing was saved (no --out or --checkpoint)", file=sys.stderr)
            raise SystemExit(130) from None
        finally:
            distributed.set_status_callback(None)


def compiling_line(solver: Solver) -> str:
    """What the progress line says while numba compiles: once, about how long (the solver's measured figure)."""
    seconds = type(solver).first_compile_seconds
    about = f" (about {seconds:.0f} s of CPU)" if seconds else ""
    return f"compiling kernels, first run only{about}"


def _print_summary(summary: dict, records: list[dict]) -> None:
    from rich.table import Table

    title = f"{summary['algorithm']} on {summary['game']}"
    if records:
        table = Table(title=title)
        for column in ("iteration", "exploitability", "seconds"):
            table.add_column(column, justify="right")
        for record in _thin(records, 15):
            table.add_row(str(record["iteration"]), fmt(record.get("exploitability")), f"{record['seconds']:.3f}")
        stdout.print(table)
    else:
        stdout.print(title, highlight=False)
    resumed = "" if summary.get("resumed_at") is None else \
        f" ({summary['resumed_at']} of them resumed from {summary['checkpoint']})"
    stdout.print(
        f"{STOP_REASONS.get(summary['stopped'], 'stopped')} after {summary['iterations']} iterations{resumed}: "
        f"{summary['seconds']:.3f} s solving, {summary['eval_seconds']:.3f} s evaluating; {_exploitability(summary)}",
        soft_wrap=True,
    )
    if summary.get("mbb_per_hand") is not None:
        stdout.print(f"{summary['mbb_per_hand']:.2f} mb/h in the abstract game", soft_wrap=True)
    if summary.get("abstraction_table"):
        stdout.print(summary["abstraction_table"], soft_wrap=True)
    stdout.print(_setup_line(summary), highlight=False, soft_wrap=True)
    for key, label in (("out", "strategy"), ("log", "log"), ("plot", "plot")):
        if summary.get(key):
            stdout.print(f"{label}: {summary[key]}")


def _exploitability(summary: dict) -> str:
    """``exploitability 0.0012``, or why the run has none."""
    if summary["exploitability"] is not None:
        return f"exploitability {fmt(summary['exploitability'])}"
    if summary["eval_skipped"]:
        return "the final evaluation was skipped to keep within --time-limit (`cfrlab eval OUT` computes it)"
    if not summary["evaluated"]:
        later = f" (`cfrlab eval {summary['out']}` computes it)" if summary.get("out") else ""
        return f"exploitability not evaluated (--no-eval){later}"
    if summary["iterations"] == 0:
        return "no iterations, nothing to evaluate"
    return "exploitability not evaluated: the game is too large to evaluate exactly"


def _setup_line(summary: dict) -> str:
    """Time spent outside the iterations: building the solver (game tree), compiling kernels, starting Ray."""
    from cfrlab.jit_timing import describe_compile

    parts = [f"solver built in {summary['setup_seconds']:.1f} s"]
    compiled = describe_compile(summary["compile_seconds"], summary["compiled"])
    if compiled:
        parts.append(compiled)
    if summary.get("ray_seconds", 0.0) >= 0.05:
        parts.append(f"Ray started in {summary['ray_seconds']:.1f} s")
    return f"not counted above: {', '.join(parts)}; {summary['total_seconds']:.1f} s in all"


def _thin(records: list[dict], n: int) -> list[dict]:
    if len(records) <= n:
        return records
    idx = sorted({round(i * (len(records) - 1) / (n - 1)) for i in range(n)})
    return [records[i] for i in idx]


WIDE_OPTIONS_TABLE = 150
"""Terminals narrower than this get ``--list-options`` as one block per option instead of a four-column table."""


def _print_options(cls: type[Solver]) -> None:
    import textwrap

    from rich.markup import escape
    from rich.table import Table

    from cfrlab.cli.options import option_rows, preset_lines, summary
    from cfrlab.solvers import describe_algorithm

    title = f"options of --algo {cls.algorithm}: {describe_algorithm(cls.algorithm)}"
    caption = "--name value; booleans --name or --no-name; lists comma-separated, e.g. --hidden-sizes 32,32"
    narrow = stdout.width < WIDE_OPTIONS_TABLE  # a table's meaning column would wrap into tall cells: one block each
    meaning_width = stdout.width - 4 if narrow else stdout.width // 3
    cells = [(flag, default, source, summary(doc, meaning_width)) for flag, default, source, doc in option_rows(cls)]
    if narrow:
        stdout.print(title, highlight=False)
        stdout.print("each option: flag, default (default from), meaning", highlight=False)
        for flag, default, source, doc in cells:
            stdout.print(f"[bold]{flag}[/]  default {escape(default)} ({escape(source)})", highlight=False)
            stdout.print(escape(textwrap.indent(textwrap.fill(doc, meaning_width), "    ")), highlight=False,
                         soft_wrap=True)
        stdout.print(caption, highlight=False)
    else:
        table = Table(title=title, caption=caption)
        for column in ("flag", "default", "default from", "meaning"):
            table.add_column(column)
        for cell in cells:
            table.add_row(*cell)
        stdout.print(table)
    stdout.print(f"-n default: {cls.default_iterations} iterations")
    for line in preset_lines(cls):
        stdout.print(line)


def _refuse_unsolvable(game: Any, algo: str) -> None:
    """Refuse a game the family says ``solve`` cannot solve with ``algo`` (``GameFamily.solvers.refusal``: full
    Koi-Koi's deal is sampled, never enumerated), with what to do instead."""
    from cfrlab.registry import family_of, resolve

    family = family_of(game)
    refusal = resolve(family.solvers.refusal)(game, algo) if family is not None and family.solvers.refusal else None
    if refusal is not None:
        raise typer.BadParameter(refusal, param_hint="GAME")
