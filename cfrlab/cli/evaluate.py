"""``cfrlab eval FILE`` and ``cfrlab show FILE``: exact evaluation and a readable view of a strategy file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import (
    MAX_DEALS,
    MAX_SEED,
    MAX_WORKERS,
    emit_json,
    existing_folder,
    file_heading,
    fmt,
    markup,
    stdout,
)

if TYPE_CHECKING:
    from cfrlab.game import Game
    from cfrlab.policy import TabularPolicy
    from cfrlab.tree import GameTree


def _load(path: Path, game_spec: str | None,
          on_quotient: bool = False) -> tuple[Game, TabularPolicy, dict[str, Any], GameTree, int]:
    """(game, policy, meta, tree, missing): the file checked against its game before the game's tree is built.

    A symmetric strategy of a game whose tree is larger than the driver's evaluation limit is evaluated on the
    game's symmetry quotient (the same exploitability): ``game``, ``policy`` and ``tree`` are then the quotient's.
    With ``on_quotient`` so is a file that holds the quotient's rows, whatever the game's size: the full tree is
    then never built or read from the cache (a cached one may be gigabytes).
    """
    from cfrlab.driver import DEFAULT_MAX_EVAL_NODES
    from cfrlab.policy import TabularPolicy
    from cfrlab.policy_file import read_policy_meta
    from cfrlab.registry import load_game
    from cfrlab.tree import load_tree

    file_meta = read_policy_meta(path)
    game = load_game(game_spec or file_meta["game"])
    if on_quotient and file_meta.get("quotient") is not None:
        policy, meta = TabularPolicy.load(path, game, expand=False)
        quotient_game = game.symmetry_quotient()
        if quotient_game is None:
            raise ValueError(f"{path} holds a symmetry quotient's rows, but {game.spec()} has no quotient")
        tree = load_tree(quotient_game)
        return quotient_game, policy, meta, tree, policy.check_fits(tree)
    policy, meta = TabularPolicy.load(path, game)
    small = load_tree(game, max_nodes=DEFAULT_MAX_EVAL_NODES, or_none=True)
    quotient = game.symmetry_quotient() if small is None else None
    try:
        collapsed = policy.collapse(game) if quotient is not None else None
    except ValueError as exc:
        raise ValueError(f"{path} is corrupt: {exc}") from None
    if quotient is not None and collapsed is not None:
        game, policy = quotient, collapsed
    tree = load_tree(game)
    missing = policy.check_fits(tree)
    return game, policy, meta, tree, missing


@app.command("eval", short_help="Exact exploitability of a strategy file or of an agent.",
             help="Exact exploitability, game value and best-response values of a strategy file; for "
                           "limit hold'em also LBR and head-to-head play in the real game (--lbr, --versus). With "
                           "--agent, PATH is a game whose tree enumerates and the agent's moves are tabulated on "
                           "every infoset: `cfrlab eval koikoi_mini_tsukifuda --agent search:50`.")
def evaluate(
    ctx: typer.Context,
    path: Path = typer.Argument(..., help="Strategy file (.npz) written by `cfrlab solve --out`; with --agent, a "
                                          "game spec."),
    game: str | None = typer.Option(None, help="Game spec (default: the one recorded in the file)."),
    workers: int = typer.Option(1, min=1, max=MAX_WORKERS,
                                help="Ray workers for --agent and the family's evaluations (hold'em: "
                                               "--lbr, --versus; 1 = in process); results do not depend on it."),
    address: str | None = typer.Option(None, help="Ray cluster address for --agent and the family's evaluations."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED,
                             help="Seed of --agent's moves and of the deals of the family's evaluations "
                                            "(hold'em: --lbr, --versus)."),
    agent: str | None = typer.Option(None, "--agent", help="Evaluate this agent on game PATH instead of a file "
                                        "(random, oos[:SECONDS], policy:FILE, a game family's: greedy, search:N, "
                                        "...): its moves on every infoset, as probabilities where it gives them."),
    agent_log: Path | None = typer.Option(None, "--agent-log", help="--agent: keep each infoset's row of the "
                                          "agent's table in this .jsonl as it is computed; a log an interrupted "
                                          "run left (same game, agent and seed) is continued, not replayed."),
    exact: bool = typer.Option(True, "--exact/--no-exact", help="--no-exact: only play what the family's options "
                               "ask for (hold'em: --lbr, --versus or --real-exact), without the exact evaluation "
                               "first (minutes and gigabytes for a large hold'em abstraction)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    from cfrlab.cli.family_options import family_keywords, given, given_flags
    from cfrlab.policy_file import read_policy_meta

    if agent is not None:
        refused = {"--game": game, **dict.fromkeys(given_flags(ctx, "eval"), True),
                   "--no-exact": None if exact else True}
        _evaluate_agent(path, agent, seed, json_out, refused, workers, address, agent_log)
        return
    if agent_log is not None:
        raise typer.BadParameter(f"--agent-log {agent_log} keeps the rows of --agent's table; give --agent too")
    spec = game or read_policy_meta(path)["game"]
    play = _family_play(spec, family_keywords(given(ctx, "eval", spec)), workers=workers, address=address,
                        seed=seed, exact=exact)
    if not exact and not play.wanted:
        raise typer.BadParameter("--no-exact leaves nothing to evaluate; give an option that plays the strategy "
                                 "too (hold'em: --lbr, --versus or --real-exact)")
    if play.evaluate_file(path, game, json_out):  # an abstract strategy, evaluated by its family
        return
    if not exact:
        _play_only(path, game, play, json_out)
        return
    result, the_game, policy, tree = _exact_evaluation(path, game)
    real_game, real_policy = the_game, policy
    if play.wanted:
        real_game, real_policy = _real_game(path, game, result, the_game, policy)
        play.check(real_game, real_policy)  # a mistake is told before the exact evaluation's work is printed
    if json_out:
        emit_json({**result, **play.run(real_game, real_policy, quiet=True)})
        return
    _print_evaluation(path, result, the_game, tree)
    play.run(real_game, real_policy)


def _play_only(path: Path, game: str | None, play: Any, json_out: bool) -> None:
    """``eval --no-exact``: the strategy only played in its real game (no tree built)."""
    from cfrlab.policy import TabularPolicy
    from cfrlab.policy_file import read_policy_meta
    from cfrlab.registry import load_game

    the_game = load_game(game or read_policy_meta(path)["game"])
    policy, meta = TabularPolicy.load(path, the_game)
    play.check(the_game, policy)
    head = {"game": meta["game"], "solver": meta.get("solver"), "iterations": meta.get("iterations")}
    if json_out:
        emit_json({**head, **play.run(the_game, policy, quiet=True)})
        return
    stdout.print(file_heading(path, head))
    play.run(the_game, policy)


def _evaluate_agent(path: Path, agent: str, seed: int, json_out: bool, file_options: dict[str, Any], workers: int,
                    address: str | None, agent_log: Path | None) -> None:
    """``eval PATH --agent NAME``: the agent tabulated on game PATH; the options that take a strategy file
    (``file_options``, flag to value, ``None`` when not given) are refused."""
    from cfrlab.cli.evaluate_agent import evaluate_agent

    given = [flag for flag, value in file_options.items() if value is not None]
    if given:
        raise typer.BadParameter(f"--agent evaluates an agent on game PATH; {', '.join(given)} "
                                 f"{'takes' if len(given) == 1 else 'take'} a strategy file")
    evaluate_agent(str(path), agent, seed, json_out, workers, address, agent_log)


def _exact_evaluation(path: Path, game: str | None) -> tuple[dict[str, Any], Game, TabularPolicy, GameTree]:
    """The strategy file's exact values, best-response values and exploitability (on the game's symmetry
    quotient when it holds the quotient's rows), with the game, policy and tree it was evaluated on."""
    from cfrlab.eval import best_response_values, expected_values

    the_game, policy, meta, tree, missing = _load(path, game, on_quotient=True)
    sigma = policy.to_sequences(tree, missing="uniform")  # infosets a sampling solver never visited play uniformly
    values = expected_values(tree, sigma)
    br = best_response_values(tree, sigma)
    gains = br - values
    result = {
        "game": meta["game"], "evaluated_on": the_game.spec(), "solver": meta.get("solver"),
        "iterations": meta.get("iterations"),
        "exploitability": float(gains.clip(min=0).sum() / tree.num_players),
        "nash_conv": float(gains.clip(min=0).sum()),
        "values": [float(v) for v in values], "best_response_values": [float(v) for v in br],
        "gains": [float(g) for g in gains], "infosets_missing": missing,
    }
    return result, the_game, policy, tree


def _real_game(path: Path, game: str | None, result: dict[str, Any], the_game: Game,
               policy: TabularPolicy) -> tuple[Game, TabularPolicy]:
    """The game and policy a real-game evaluation plays: the full game's when the file was evaluated on its
    symmetry quotient (the real game is played with the full game's keys)."""
    if result["evaluated_on"] == result["game"]:
        return the_game, policy
    from cfrlab.policy import TabularPolicy
    from cfrlab.registry import load_game

    real_game = load_game(game or result["game"])
    real_policy, _ = TabularPolicy.load(path, real_game)
    return real_game, real_policy


def _print_evaluation(path: Path, result: dict[str, Any], the_game: Game, tree: GameTree) -> None:
    """The exact evaluation as a table per player, the exploitability (in mb/h too where the game has a scale)."""
    from rich.table import Table

    table = Table(title=file_heading(path, result))
    for column in ("player", "value", "best-response value", "gain"):
        table.add_column(column, justify="right")
    for p in range(tree.num_players):
        table.add_row(str(p), fmt(result["values"][p]), fmt(result["best_response_values"][p]),
                      fmt(result["gains"][p]))
    stdout.print(table)
    stdout.print(f"exploitability {fmt(result['exploitability'])}   NashConv {fmt(result['nash_conv'])}")
    if result["evaluated_on"] != result["game"]:
        stdout.print(f"(evaluated on the symmetry quotient {result['evaluated_on']}: the same values for this "
                     "symmetric strategy, without the full tree)")
    scale = getattr(the_game, "milli_bets_per_chip", None)
    if scale:
        stdout.print(f"exploitability {result['exploitability'] * scale:.2f} mb/h "
                     "(thousandths of a small bet per hand)")
    missing = result["infosets_missing"]
    if missing:
        stdout.print(f"{missing} of {tree.num_infosets} infosets are not in the file and were played uniformly")


@app.command(short_help="Show a strategy file, one row per infoset.",
             help="Show a strategy file as a table: one row per infoset, action probabilities by name.")
def show(
    path: Path = typer.Argument(..., help="Strategy file (.npz)."),
    game: str | None = typer.Option(None, help="Game spec (default: the one recorded in the file)."),
    filter: str | None = typer.Option(None, "--filter", "-f", help="Only infosets whose key contains this."),
    limit: int = typer.Option(200, min=0, max=MAX_DEALS, help="At most this many rows (0: all)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    from cfrlab.policy import TabularPolicy
    from cfrlab.policy_file import read_policy_meta
    from cfrlab.registry import load_game
    from cfrlab.tree.states import infoset_states

    the_game = load_game(game or read_policy_meta(path)["game"])
    game_rows = the_game.infoset_rows()
    if game_rows is not None:  # abstract hold'em: keys, players and action names without a tree
        policy, meta = TabularPolicy.load(path, the_game)
        keys = policy.keys

        named: Any = game_rows  # abstract hold'em's rows name each row's player and actions

        def describe(row: int) -> tuple[int, Any]:
            return named.player(row), named.action_name
    else:
        the_game, policy, meta, tree, _ = _load(path, game)
        keys, states = tree.infoset_keys, infoset_states(the_game, tree)

        def describe(row: int) -> tuple[int, Any]:
            return int(tree.infoset_player[row]), states[row].action_to_string
    rows: list[dict[str, Any]] = []
    for i, key in enumerate(keys):
        if (filter and filter not in key) or key not in policy:
            continue
        player, action_name = describe(i)
        probs = policy.action_probabilities(key)
        rows.append({"infoset": key, "player": player, "actions": {action_name(a): p for a, p in probs.items()}})
        if limit and len(rows) >= limit:
            break
    if json_out:
        emit_json(rows)
        return
    from rich.table import Table

    table = Table(title=f"{markup(path.name)}: {markup(meta.get('solver'))} on {markup(the_game.spec())} "
                        f"({len(rows)} of {len(keys)} infosets)")
    table.add_column("infoset")
    table.add_column("player", justify="right")
    table.add_column("strategy")
    for row in rows:  # keys and action names come from the files: escaped for the terminal and rich markup
        table.add_row(markup(row["infoset"]), str(row["player"]),
                      "  ".join(f"{markup(name)} {p:.3f}" for name, p in row["actions"].items()))
    stdout.print(table)


@app.command(short_help="Plot exploitability curves of run logs.",
             help="Plot exploitability against iterations and seconds (log-log) for one or more run logs.")
def plot(
    logs: list[Path] = typer.Argument(..., help="Run logs (.jsonl) written by `cfrlab solve --log`."),
    output: Path = typer.Option(Path("convergence.png"), "--output", "-o", callback=existing_folder,
                                help="PNG file to write."),
    metric: str = typer.Option("exploitability", help="Metric to plot (exploitability, nash_conv, ...)."),
    title: str | None = typer.Option(None, help="Title of the plot (default: none)."),
    json_out: bool = typer.Option(False, "--json", help="Print the written file as JSON."),
) -> None:
    from cfrlab.plot import plot_runs

    for log in logs:
        if not log.exists():
            raise FileNotFoundError(f"run log {str(log)!r} does not exist")
    written = plot_runs(logs, output, metric=metric, title=title)
    if json_out:
        emit_json({"plot": str(written), "logs": [str(log) for log in logs], "metric": metric})
        return
    stdout.print(f"wrote {written}")


class _NoFamilyPlay:
    """A game whose family adds no evaluation: nothing beyond the exact one is wanted (its options are refused
    before, ``family_options.given``)."""

    wanted = False

    def evaluate_file(self, path: Path, game_spec: str | None, json_out: bool) -> bool:
        return False

    def check(self, game: Any, policy: Any) -> None:
        """Nothing to check: nothing is played."""

    def run(self, game: Any, policy: Any, quiet: bool = False) -> dict[str, Any]:
        return {}


def _family_play(spec: str, options: dict[str, Any], **common: Any) -> Any:
    """What the strategy's game family evaluates beyond the exact evaluation (``GameFamily.evaluation``: hold'em's
    LBR, real-game exploitability and head-to-head play), built from the family's options that were given and
    ``common`` (workers, address, seed, exact)."""
    from cfrlab.registry import family_of, resolve

    family = family_of(spec)
    if family is None or family.evaluation is None:
        return _NoFamilyPlay()
    return resolve(family.evaluation)(**options, **common)
