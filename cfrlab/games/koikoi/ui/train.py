"""``cfrlab train koikoi --method mccfr``: train a Koi-Koi blueprint by sampled CFR over the abstraction.

Progress goes to stderr as a bar (``cfrlab.cli.progress``: iterations, their rate, the time left; traversals/s,
abstract infosets) updated after every slice and, every ``--eval-minutes`` and at the end, the blueprint's score
against ``greedy`` on duplicate deals with its 95 % interval. ``--hours`` is kept, the final score included. The run
checkpoints after every slice and continues with ``--resume``; ``OUT/blueprint.npz`` plays alone as
``blueprint:OUT`` and inside the search as ``cfr:OUT``.
"""

from __future__ import annotations

import sys

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS
from cfrlab.cli.progress import tracker

METHODS = ("mccfr",)


@app.command(short_help="Train a Koi-Koi blueprint (tabular MCCFR).",
             help="Train a Koi-Koi blueprint by tabular MCCFR over an information abstraction, e.g. `cfrlab train "
                  "koikoi --method mccfr --hours 0.5 --out blueprint/`; play it with `--opponent cfr:blueprint/`.")
def train(
    game: str = typer.Argument("koikoi", help="Koi-Koi game spec (single rounds): koikoi, 'koikoi(rules=fudawiki)'."),
    method: str = typer.Option("mccfr", "--method", help="Training method: mccfr (Monte Carlo CFR over the "
                                                         "abstraction; its sampling scheme follows --plays)."),
    out: str = typer.Option(..., "--out", help="Directory for checkpoint.npz, blueprint.npz and progress.jsonl."),
    hours: float | None = typer.Option(None, "--hours", help="Wall-clock budget of this run, in hours (the "
                                                               "final score against greedy included)."),
    iterations: int | None = typer.Option(None, "--iterations", "-n", help="Total iterations (2 sampled rounds "
                                                                                "each, one per traverser)."),
    plays: str = typer.Option("greedy", "--plays", help="Card plays: greedy (the greedy card; CFR learns capture "
                                                        "choices and koi-koi/stop, external sampling) or features "
                                                        "(CFR over abstract plays too, outcome sampling)."),
    seed: int = typer.Option(0, min=0, help="Random seed: same seed, same blueprint."),
    resume: bool = typer.Option(False, "--resume", help="Continue OUT/checkpoint.npz."),
    eval_minutes: float = typer.Option(3.0, "--eval-minutes", help="Minutes between arena scores against greedy."),
    eval_deals: int = typer.Option(200, "--eval-deals", min=0, max=MAX_DEALS, help="Duplicate deals per arena score "
                                                                                  "(0: none)."),
) -> None:
    from cfrlab.games.koikoi.players.blueprint import train_blueprint

    if not out.strip():
        raise ValueError("--out needs a folder name, e.g. --out blueprint/")
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if plays not in ("greedy", "features"):
        raise ValueError(f"--plays must be greedy or features, got {plays!r}")
    if hours is None and iterations is None:
        raise ValueError("give a budget: --hours H or --iterations N")
    if hours is not None and not 0 < hours < float("inf"):
        raise ValueError(f"--hours must be positive and finite, got {hours}")
    if iterations is not None and iterations < 1:
        raise ValueError(f"--iterations must be >= 1, got {iterations}")
    if eval_deals < 0 or not eval_minutes > 0:
        raise ValueError("--eval-deals must be >= 0 and --eval-minutes positive")

    seconds = None if hours is None else hours * 3600.0
    with tracker("train", iterations, "iterations", budget=seconds) as bar:
        def report(line: dict) -> None:
            note = f"{line['traversals_per_s']:.0f} traversals/s, {line['infosets']} infosets"
            if "vs_greedy" in line:
                m, lo, hi = line["vs_greedy"]
                note += f", vs greedy {m:+.2f} [{lo:+.2f}, {hi:+.2f}] points/round ({line['eval_deals']} deals)"
            bar.update(line["iterations"], note)

        try:
            train_blueprint(out, iterations=iterations, seconds=seconds, seed=seed, game=game,
                            eval_seconds=eval_minutes * 60.0, eval_deals=eval_deals, resume=resume, report=report,
                            say=bar.say, plays=plays)
        except KeyboardInterrupt:  # the checkpoint of the last finished slice is kept (written atomically)
            print(f"interrupted: {out}/checkpoint.npz holds the last finished slice; continue with --resume",
                  file=sys.stderr)
            raise SystemExit(130) from None
    print(f"blueprint written to {out}/blueprint.npz (play it: --opponent cfr:{out})")
