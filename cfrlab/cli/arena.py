"""``cfrlab arena GAME AGENT_A AGENT_B --rounds N``: head-to-head play with duplicate deals and 95 % intervals."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS, MAX_SEED, MAX_WORKERS, emit_json, prepare_agents, terminal_print
from cfrlab.cli.progress import tracker


@app.command(short_help="Play two agents against each other on duplicate deals.",
             help="Play AGENT_A against AGENT_B (random, oos[:SECONDS], policy:PATH, or an agent of the game's "
                  "family: `cfrlab agents GAME` lists them) and print win rates and points per round with 95 % "
                  "intervals, e.g. `cfrlab arena koikoi greedy random --rounds 2000`. A game family adds options of "
                  "its own (Koi-Koi: --match, --rollouts, --objective).")
def arena(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="Game spec: koikoi, koikoi_mini, 'koikoi(rules=fudawiki)', kuhn, ..."),
    agent_a: str = typer.Argument(..., help="random, oos[:SECONDS], policy:PATH or an agent of the game's family "
                                            "(Koi-Koi: greedy, search[:N|:Tms], cfr[:N|:Tms][:DIR], "
                                            "neural[:N|:Tms][:DIR], blueprint[:DIR], net[:DIR]; hold'em: call, "
                                            "raise, "
                                            "strength)."),
    agent_b: str = typer.Argument(..., help="The same choices as AGENT_A."),
    rounds: int = typer.Option(1000, "--rounds", "-n", min=1, max=MAX_DEALS, help="Deals to play (each from both "
                                                                                "seats unless --no-duplicate)."),
    duplicate: bool = typer.Option(True, "--duplicate/--no-duplicate", help="Play each deal from both seats."),
    workers: int = typer.Option(1, min=1, max=MAX_WORKERS, help="Ray workers (1 = in process)."),
    address: str | None = typer.Option(None, help="Ray cluster address (default: start Ray locally)."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED, help="Random seed."),
    log: Path | None = typer.Option(None, "--log", help="Keep each deal's result in this .jsonl as it ends; a log "
                                    "an interrupted match left (same game, agents, seed) is continued, not replayed "
                                    "(benchmarks/bench_arena_log.py recomputes the figure from it)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    from cfrlab.agents.names import fill_agents, make_agent, parse_agent
    from cfrlab.cli.family_options import agent_fields, given, load_with_options
    from cfrlab.eval.arena import arena as run_arena
    from cfrlab.eval.arena_log import open_arena_log

    options = given(ctx, "arena", game)
    g = load_with_options(game, options)
    specs = fill_agents([parse_agent(agent_a, g), parse_agent(agent_b, g)], agent_fields(options))
    a, b = (make_agent(spec, g) for spec in specs)
    prepare_agents(a, b)
    if a.name == b.name:
        a.name, b.name = f"{a.name}(A)", f"{b.name}(B)"
    deal_log = open_arena_log(log, g, a, b, seed, duplicate)
    from cfrlab import distributed

    with tracker(f"{a.name} vs {b.name}", rounds, "deals", quiet=json_out, transient=True) as bar:
        distributed.set_status_callback(None if json_out else bar.say)  # starting Ray, its workers
        try:
            result = run_arena(g, a, b, deals=rounds, seed=seed, duplicate=duplicate, workers=workers,
                               address=address, on_deal=bar.update, log=deal_log)
        except KeyboardInterrupt:
            if deal_log is None:
                raise
            print(f"interrupted: {len(deal_log.done)} deals kept in {str(log)!r}; the same command continues them",
                  file=sys.stderr)
            raise SystemExit(130) from None
        finally:
            distributed.set_status_callback(None)
    scale = getattr(g, "milli_bets_per_chip", None)  # poker: returns in mb/h as well
    ret = result.return_a
    mbb = None if scale is None else {k: getattr(ret, k) * scale for k in ("mean", "low", "high")}
    if json_out:
        emit_json({**result.to_dict(), **({"mbb_per_hand_a": mbb} if mbb else {})})
    else:
        terminal_print(result.table())  # agent names may name files
        if mbb:
            terminal_print(f"{a.name} return in mb/h (thousandths of a small bet per hand): "
                  f"{mbb['mean']:+.1f} [{mbb['low']:+.1f}, {mbb['high']:+.1f}]")
