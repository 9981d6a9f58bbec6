"""``cfrlab arena GAME AGENT_A AGENT_B --rounds N``: head-to-head play with duplicate deals and 95 % intervals."""

from __future__ import annotations

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS, emit_json, prepare_agents
from cfrlab.cli.progress import tracker


@app.command(short_help="Play two agents against each other on duplicate deals.",
             help="Play AGENT_A against AGENT_B (random, greedy, search[:N|:Tms], cfr[:N|:Tms][:DIR], "
                  "neural[:N|:Tms][:DIR], blueprint[:DIR], net[:DIR], "
                  "oos[:SECONDS], policy:PATH; hold'em: call, raise, strength) and print win rates and points "
                  "per round with 95 % intervals, e.g. "
                  "`cfrlab arena koikoi greedy random --rounds 2000`.")
def arena(
    game: str = typer.Argument(..., help="Game spec: koikoi, koikoi_mini, 'koikoi(rules=fudawiki)', kuhn, ..."),
    agent_a: str = typer.Argument(..., help="random, greedy, search[:N|:Tms], cfr[:N|:Tms][:DIR], "
                                            "neural[:N|:Tms][:DIR], blueprint[:DIR], net[:DIR], "
                                            "oos[:SECONDS] or policy:PATH (hold'em: call, raise, strength)."),
    agent_b: str = typer.Argument(..., help="The same choices as AGENT_A."),
    rounds: int = typer.Option(1000, "--rounds", "-n", min=1, max=MAX_DEALS, help="Deals to play (each from both "
                                                                                "seats unless --no-duplicate)."),
    match: bool = typer.Option(False, "--match", help="Koi-Koi: play matches (the preset's rounds, 12 unless "
                                                      "koikoi_japan's 8) instead of single rounds."),
    duplicate: bool = typer.Option(True, "--duplicate/--no-duplicate", help="Play each deal from both seats."),
    workers: int = typer.Option(1, min=1, help="Ray workers (1 = in process)."),
    address: str | None = typer.Option(None, help="Ray cluster address (default: start Ray locally)."),
    seed: int = typer.Option(0, min=0, help="Random seed."),
    rollouts: int | None = typer.Option(None, "--rollouts", help="Playouts per action of a `search` agent "
                                                                    "(Koi-Koi; default 200)."),
    objective: str | None = typer.Option(None, "--objective", help="What a `search` or `oos` agent maximises: "
                                                                      "points (the round's) or match (the match-win "
                                                                      "probability)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    from cfrlab.agents import make_agent, with_search_options_for
    from cfrlab.eval.arena import arena as run_arena
    from cfrlab.game_spec import parse_spec
    from cfrlab.registry import load_game

    name, params = parse_spec(game)
    if match:
        from cfrlab.registry import match_params

        params = match_params(name, params)
    g = load_game(name, **params)
    agent_a, agent_b = with_search_options_for([agent_a, agent_b], rollouts, objective)
    a, b = make_agent(agent_a, g), make_agent(agent_b, g)
    prepare_agents(a, b)
    if a.name == b.name:
        a.name, b.name = f"{a.name}(A)", f"{b.name}(B)"
    from cfrlab import distributed

    with tracker(f"{a.name} vs {b.name}", rounds, "deals", quiet=json_out, transient=True) as bar:
        distributed.set_status_callback(None if json_out else bar.say)  # starting Ray, its workers
        try:
            result = run_arena(g, a, b, deals=rounds, seed=seed, duplicate=duplicate, workers=workers,
                               address=address, on_deal=bar.update)
        finally:
            distributed.set_status_callback(None)
    scale = getattr(g, "milli_bets_per_chip", None)  # poker: returns in mb/h as well
    ret = result.return_a
    mbb = None if scale is None else {k: getattr(ret, k) * scale for k in ("mean", "low", "high")}
    if json_out:
        emit_json({**result.to_dict(), **({"mbb_per_hand_a": mbb} if mbb else {})})
    else:
        print(result.table())
        if mbb:
            print(f"{a.name} return in mb/h (thousandths of a small bet per hand): "
                  f"{mbb['mean']:+.1f} [{mbb['low']:+.1f}, {mbb['high']:+.1f}]")
