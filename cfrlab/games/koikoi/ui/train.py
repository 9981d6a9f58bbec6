"""``cfrlab train koikoi --method mccfr|exit|dmc|afterstate|ppo``: train a Koi-Koi blueprint by sampled CFR over
the abstraction, a network by expert iteration (``cfrlab.games.koikoi.learn.exit``), or a policy from self-play
outcomes alone (``dmc``, ``afterstate``, ``ppo``: ``cfrlab.games.koikoi.learn.outcome``).

Progress goes to stderr as a bar (``cfrlab.cli.progress``: iterations, their rate, the time left; traversals/s,
abstract infosets) updated after every slice and, every ``--eval-minutes`` and at the end, the blueprint's score
against ``greedy`` on duplicate deals with its 95 % interval. ``--hours`` is kept, the final score included. The run
checkpoints after every slice and continues with ``--resume``; ``OUT/blueprint.npz`` plays alone as
``blueprint:OUT`` and inside the search as ``cfr:OUT``.

``--method exit`` plays generations of self-play with the search, each teaching the next network (``--iterations``
counts generations); the bar shows decisions/s, the last fit's losses and every ``--eval-minutes`` the arena score
of the newest generation against ``search`` at ``--eval-budget`` (duplicate deals, 95 % interval). ``OUT/weights.npz``
(the best generation) plays as ``neural:OUT``.

``--method dmc|afterstate|ppo`` plays iterations of ``--rounds`` self-play rounds, each followed by a fit; the bar
shows rows/s, the losses and every ``--eval-minutes`` the network's arena score against ``greedy``.
``--objective match`` (afterstate) learns the match-win probability instead of the round's points.
``OUT/weights.npz`` plays as ``net:OUT``.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, NoReturn

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS, MAX_SECONDS, MAX_SEED, MAX_WIDTH, MAX_WORKERS, number_in
from cfrlab.cli.progress import tracker

METHODS = ("mccfr", "exit", "dmc", "afterstate", "ppo")


LR_OPTION = typer.Option(None, "--lr", callback=number_in(0.0, 1.0, low_included=False),
                         help="dmc, afterstate, ppo: Adam's step size (default 3e-4).")
HIDDEN_OPTION = typer.Option(None, "--hidden", help="dmc, afterstate, ppo: the two hidden layers' widths, H1,H2 "
                                                    "(default 256,32; with --init, its widths).")
AVERAGE_OPTION = typer.Option(None, "--average", min=0, max=10**7,
                              help="dmc, afterstate, ppo: the horizon in iterations of the moving average of the "
                                   "weights the run writes and scores (default 1000; 0: the last iteration's "
                                   "weights, as runs before this option).")
INIT_OPTION = typer.Option(None, "--init", help="dmc, afterstate, ppo: start a new run from these weights (a weights "
                                                "file or a run's folder) instead of fresh ones, e.g. to go on at a "
                                                "smaller --lr.")
OBJECTIVE_OPTION = typer.Option(None, "--objective", help="afterstate: what the values learn, points (the round's, "
                                                          "default) or match (the probability of winning the match, "
                                                          "each self-play round given a place in one).")
WARMUP_OPTION = typer.Option(None, "--warmup", min=1, max=MAX_DEALS, help="--objective match: the first iterations "
                                                                          "play by the points values (an --init "
                                                                          "file's policy) while the win output learns.")
TD_LAMBDA_OPTION = typer.Option(None, "--td-lambda", callback=number_in(0.0, 1.0, low_included=True),
                                help="dmc, afterstate, ppo: the targets' lambda (default 1: the round's final "
                                     "points; below 1, lambda-returns through the network's own later values, "
                                     "TD(lambda): less variance, some bias; 0: the next row's value alone).")
EXPLORE_OPTION = typer.Option(None, "--explore", callback=number_in(0.0, 0.99, low_included=True),
                              help="dmc, afterstate, ppo: the learner's probability of a uniform legal action at a "
                                   "decision (default 0.05 for dmc and afterstate, 0 for ppo, whose policy "
                                   "explores; 0: none).")
SEARCH_SHARE_OPTION = typer.Option(None, "--search-share", callback=number_in(0.0, 1.0, low_included=True),
                                   help="dmc, afterstate, ppo: share of the self-play rounds played against a "
                                        "determinized search instead (default 0: none).")
SEARCH_ROLLOUTS_OPTION = typer.Option(None, "--search-rollouts", min=1, max=100_000,
                                      help="dmc, afterstate, ppo: that search's determinizations a decision "
                                           "(default 32).")
SEARCH_AGENT_OPTION = typer.Option(None, "--search-agent",
                                   help="dmc, afterstate, ppo: that search's playouts, search (greedy's, default) or "
                                        "cfr (with the shipped blueprint's koi-koi decisions, as the cfr agent).")
"""The network options of ``--method dmc|afterstate|ppo`` (``Network``)."""


@app.command(short_help="Train a Koi-Koi player: MCCFR blueprint or expert iteration.",
             help="Train a Koi-Koi blueprint by tabular MCCFR over an information abstraction, e.g. `cfrlab train "
                  "koikoi --method mccfr --hours 0.5 --out blueprint/` (play it with `--opponent cfr:blueprint/`), "
                  "or a network by expert iteration, e.g. `cfrlab train koikoi --method exit --hours 1 --workers 2 "
                  "--out net/` (play it with `--opponent neural:net/`).")
def train(
    game: str = typer.Argument("koikoi", help="Koi-Koi game spec (single rounds): koikoi, 'koikoi(rules=fudawiki)'."),
    method: str = typer.Option("mccfr", "--method", help="Training method: mccfr (Monte Carlo CFR over the "
                                                         "abstraction; its sampling scheme follows --plays), exit "
                                                         "(expert iteration: self-play of the search teaches a "
                                                         "network that then values its playouts), dmc (Deep Monte "
                                                         "Carlo: action values regressed on self-play outcomes), "
                                                         "afterstate (Deep Monte Carlo on the values of the "
                                                         "positions actions lead to) or ppo (a policy by PPO on "
                                                         "them)."),
    out: str = typer.Option(..., "--out", help="Directory for checkpoint.npz, blueprint.npz (mccfr) or weights.npz "
                                               "and the self-play shards (exit), and progress.jsonl."),
    hours: float | None = typer.Option(None, "--hours", callback=number_in(0.0, MAX_SECONDS / 3600, low_included=False),
                                       help="Wall-clock budget of this run, in hours (the "
                                                               "final score against greedy included)."),
    iterations: int | None = typer.Option(None, "--iterations", "-n", min=1, max=MAX_DEALS,
                                          help="Total iterations (mccfr: 2 sampled "
                                                                                "rounds each, one per traverser; "
                                                                                "exit: generations; dmc, afterstate, "
                                                                                "ppo: iterations)."),
    plays: str = typer.Option("greedy", "--plays", help="Card plays: greedy (the greedy card; CFR learns capture "
                                                        "choices and koi-koi/stop, external sampling) or features "
                                                        "(CFR over abstract plays too, outcome sampling)."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED, help="Random seed: same seed, same blueprint."),
    resume: bool = typer.Option(False, "--resume", help="Continue OUT/checkpoint.npz."),
    eval_minutes: float = typer.Option(3.0, "--eval-minutes",
                                       callback=number_in(0.0, MAX_SECONDS / 60, low_included=False),
                                       help="Minutes between arena scores (mccfr: against "
                                                                   "greedy; exit: against search)."),
    eval_deals: int = typer.Option(200, "--eval-deals", min=0, max=MAX_DEALS, help="Duplicate deals per arena score "
                                                                                  "(0: none)."),
    workers: int = typer.Option(1, "--workers", min=1, max=MAX_WORKERS,
                                help="exit, dmc, afterstate, ppo: self-play processes."),
    rounds: int = typer.Option(512, "--rounds", min=1, max=MAX_DEALS,
                               help="dmc, afterstate, ppo: self-play rounds per iteration."),
    decisions: int = typer.Option(50_000, "--decisions", min=1, max=MAX_DEALS,
                                  help="exit: self-play decisions per generation."),
    rollouts: int = typer.Option(16, "--rollouts", min=1, max=MAX_DEALS,
                                 help="exit: the self-play search's playouts per action."),
    cutoff: int | None = typer.Option(None, "--cutoff", min=1, max=MAX_DEALS,
                                      help="exit: half-turns a playout plays after the root's "
                                                            "before the network values it (default: half a round's, "
                                                            "8 on full rounds, 2 on the mini variants')."),
    eval_budget: str = typer.Option("20ms", "--eval-budget", help="exit: both searches' budget in the arena, Tms "
                                                                  "(CPU time per decision) or playouts."),
    lr: float | None = LR_OPTION,
    hidden: str | None = HIDDEN_OPTION,
    average: int | None = AVERAGE_OPTION,
    init: str | None = INIT_OPTION,
    objective: str | None = OBJECTIVE_OPTION,
    warmup: int | None = WARMUP_OPTION,
    td_lambda: float | None = TD_LAMBDA_OPTION,
    explore: float | None = EXPLORE_OPTION,
    search_share: float | None = SEARCH_SHARE_OPTION,
    search_rollouts: int | None = SEARCH_ROLLOUTS_OPTION,
    search_agent: str | None = SEARCH_AGENT_OPTION,
) -> None:
    if method in ("dmc", "afterstate", "ppo"):
        _train_from_outcomes(game, method, out, hours, iterations, seed, resume, eval_minutes, eval_deals, workers,
                             rounds, Network(lr, hidden, init, average, objective, warmup, td_lambda, explore,
                                             search_share, search_rollouts, search_agent))
        return
    network = (lr, hidden, init, average, objective, warmup, td_lambda, explore, search_share, search_rollouts,
               search_agent)
    if any(v is not None for v in network):
        raise ValueError(f"--lr, --hidden, --init, --average, --objective, --warmup, --td-lambda, --explore and "
                         f"--search-* are options of --method dmc, afterstate or ppo, not {method}")
    if method == "exit":
        _train_exit(game, out, hours, iterations, seed, resume, eval_minutes, eval_deals, workers, decisions,
                    rollouts, cutoff, eval_budget)
        return
    _train_blueprint(game, out, hours, iterations, seed, resume, eval_minutes, eval_deals, method, plays)


def _train_blueprint(game: str, out: str, hours: float | None, iterations: int | None, seed: int, resume: bool,
                     eval_minutes: float, eval_deals: int, method: str, plays: str) -> None:
    """``--method mccfr``: the blueprint by sampled CFR with a progress bar (traversals/s, the score)."""
    from cfrlab.games.koikoi.learn.blueprint import train_blueprint

    if not out.strip():
        raise ValueError("--out needs a folder name, e.g. --out blueprint/")
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if plays not in ("greedy", "features"):
        raise ValueError(f"--plays must be greedy or features, got {plays!r}")
    _check_budget(out, hours, iterations, eval_minutes, eval_deals)

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
            interrupted(out, "slice")
    print(f"blueprint written to {out}/blueprint.npz (play it: --opponent cfr:{out})")


def interrupted(out: str, what: str) -> NoReturn:
    """Say where a run stopped by Ctrl-C stands (its checkpoint of the last finished ``what``) and exit 130."""
    print(f"interrupted: {out}/checkpoint.npz holds the last finished {what}; continue with --resume", file=sys.stderr)
    raise SystemExit(130) from None


def _check_budget(out: str, hours: float | None, iterations: int | None, eval_minutes: float,
                  eval_deals: int) -> None:
    if not out.strip():
        raise ValueError("--out needs a folder name, e.g. --out trained/")
    if hours is None and iterations is None:
        raise ValueError("give a budget: --hours H or --iterations N")


def _train_exit(game: str, out: str, hours: float | None, iterations: int | None, seed: int, resume: bool,
                eval_minutes: float, eval_deals: int, workers: int, decisions: int, rollouts: int,
                cutoff: int | None, eval_budget: str) -> None:
    """``--method exit``: expert iteration with a progress bar (decisions/s, losses, the arena score)."""
    from cfrlab.games.koikoi.learn.exit import ExitConfig, train_exit

    _check_budget(out, hours, iterations, eval_minutes, eval_deals)
    config = ExitConfig(game=game, decisions=decisions, chunk=min(decisions, 10_000), rollouts=rollouts,
                        cutoff=cutoff, eval_budget=eval_budget, eval_deals=eval_deals)
    seconds = None if hours is None else hours * 3600.0
    with tracker("train", iterations, "generations", budget=seconds) as bar:
        def report(line: dict) -> None:
            note = f"{line['decisions']:,} decisions, {line['decisions_per_s']:.0f} decisions/s"
            if line["losses"]:
                note += ", losses " + " ".join(f"{k} {v:.3g}" for k, v in line["losses"].items())
            if "vs_search" in line:
                m, lo, hi = line["vs_search"]
                note += (f", generation {line['generation']} vs search:{eval_budget} {m:+.2f} [{lo:+.2f}, {hi:+.2f}] "
                         f"points/round ({line['eval_deals']} deals)")
            bar.update(line["generation"], note)

        try:
            state = train_exit(out, config, generations=iterations, seconds=seconds, seed=seed, workers=workers,
                               resume=resume, eval_seconds=eval_minutes * 60.0, report=report, say=bar.say)
        except KeyboardInterrupt:  # the checkpoint of the last finished step is kept (written atomically)
            interrupted(out, "step")
    if state.generation < 1:
        print(f"no generation trained yet: {out}/checkpoint.npz holds the self-play so far; continue with --resume "
              "and a larger budget")
        return
    best = state.best()
    print(f"weights written to {out}/weights.npz (generation {state.generation if best is None else best}; "
          f"play it: --opponent neural:{out})")


class Network(NamedTuple):
    """The network options of ``--method dmc|afterstate|ppo`` as given (None: the default)."""

    lr: float | None
    hidden: str | None
    init: str | None
    average: int | None
    objective: str | None = None
    warmup: int | None = None
    td_lambda: float | None = None
    explore: float | None = None
    search_share: float | None = None
    search_rollouts: int | None = None
    search_agent: str | None = None

    def fields(self) -> dict[str, Any]:
        """``OutcomeConfig``'s fields these options set (``--hidden`` read as two widths; with ``--init`` and no
        ``--hidden``, the file's widths)."""
        named = (("lr", self.lr), ("average", self.average), ("objective", self.objective), ("warmup", self.warmup),
                 ("td_lambda", self.td_lambda), ("explore", self.explore), ("search_share", self.search_share),
                 ("search_rollouts", self.search_rollouts), ("search_agent", self.search_agent))
        out: dict[str, Any] = {k: v for k, v in named if v is not None}
        if self.hidden is not None:
            out["hidden"] = widths(self.hidden)
        if self.init is not None:
            from cfrlab.games.koikoi.neural.weights import load_weights
            from cfrlab.games.koikoi.players.net import weights_file

            out["init"] = self.init
            out.setdefault("hidden", tuple(load_weights(weights_file(self.init))[0].hidden))
        return out


def widths(text: str) -> tuple[int, int]:
    """Two layer widths from ``H1,H2`` (each 1 .. ``MAX_WIDTH``)."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and 1 <= int(p) <= MAX_WIDTH for p in parts):
        raise ValueError(f"--hidden must be two widths H1,H2, each 1..{MAX_WIDTH}, e.g. 256,32; got {text!r:.40}")
    return int(parts[0]), int(parts[1])


def _train_from_outcomes(game: str, method: str, out: str, hours: float | None, iterations: int | None, seed: int,
                         resume: bool, eval_minutes: float, eval_deals: int, workers: int, rounds: int,
                         network: Network) -> None:
    """``--method dmc|afterstate|ppo``: learning from self-play outcomes (``cfrlab.games.koikoi.learn.outcome``)
    with a progress bar (rows/s, the losses, the arena score against greedy)."""
    from cfrlab.games.koikoi.learn.outcome import train_outcomes
    from cfrlab.games.koikoi.learn.outcome_config import OutcomeConfig

    _check_budget(out, hours, iterations, eval_minutes, eval_deals)
    config = OutcomeConfig(game=game, method=method, rounds=rounds, eval_deals=eval_deals, **network.fields())
    seconds = None if hours is None else hours * 3600.0
    with tracker("train", iterations, "iterations", budget=seconds) as bar:
        def report(line: dict) -> None:
            note = f"{line['rows_per_s']:,.0f} rows/s, losses " + " ".join(
                f"{k} {v:.3g}" for k, v in line["losses"].items() if k != "total")
            if "vs_greedy" in line:
                m, lo, hi = line["vs_greedy"]
                note += f", vs greedy {m:+.2f} [{lo:+.2f}, {hi:+.2f}] points/round ({line['eval_deals']} deals)"
            bar.update(line["iteration"], note)

        try:
            state = train_outcomes(out, config, iterations=iterations, seconds=seconds, seed=seed, workers=workers,
                                   resume=resume, eval_seconds=eval_minutes * 60.0, report=report, say=bar.say)
        except KeyboardInterrupt:  # the checkpoint of the last finished iteration is kept (written atomically)
            interrupted(out, "iteration")
    print(f"weights written to {out}/weights.npz (iteration {state.iteration}; play it: --opponent net:{out})")
