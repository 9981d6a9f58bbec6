"""``cfrlab arena GAME AGENT_A AGENT_B --rounds N``: head-to-head play with duplicate deals and 95 % intervals."""

from __future__ import annotations

from typing import Optional

import typer

from cfrlab.cli.app import app


@app.command(help="Play AGENT_A against AGENT_B (random, greedy, search[:N], policy:PATH) and print win rates and "
                  "points per round with 95 % intervals, e.g. `cfrlab arena koikoi greedy random --rounds 2000`.")
def arena(
    game: str = typer.Argument(..., help="Game spec: koikoi, koikoi_mini, 'koikoi(rules=fudawiki)', kuhn, ..."),
    agent_a: str = typer.Argument(..., help="random, greedy, search[:N] or policy:PATH."),
    agent_b: str = typer.Argument(..., help="random, greedy, search[:N] or policy:PATH."),
    rounds: int = typer.Option(1000, "--rounds", "-n", help="Deals to play (each from both seats unless "
                                                             "--no-duplicate)."),
    match: bool = typer.Option(False, "--match", help="Koi-Koi: play matches (the preset's rounds, 12 unless "
                                                      "koikoi_japan's 8) instead of single rounds."),
    duplicate: bool = typer.Option(True, "--duplicate/--no-duplicate", help="Play each deal from both seats."),
    workers: int = typer.Option(1, help="Ray workers (1 = in process)."),
    address: Optional[str] = typer.Option(None, help="Ray cluster address (default: start Ray locally)."),
    seed: int = typer.Option(0, help="Random seed."),
    rollouts: Optional[int] = typer.Option(None, "--rollouts", help="Playouts per action of a `search` agent "
                                                                    "(Koi-Koi; default 200)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    import json

    from cfrlab.agents import make_agent
    from cfrlab.eval.arena import arena as run_arena
    from cfrlab.game import parse_spec
    from cfrlab.registry import load_game

    name, params = parse_spec(game)
    if match:
        if not name.startswith("koikoi"):
            raise ValueError("--match applies to Koi-Koi games")
        from cfrlab.games.koikoi.rules import match_rounds

        params.setdefault("rounds", match_rounds(params.get("rules", "mini" if name == "koikoi_mini" else "nintendo")))
        params.setdefault("first_oya", "coin")
    g = load_game(name, **params)
    if rollouts is not None:
        agent_a, agent_b = (f"search:{rollouts}" if x == "search" else x for x in (agent_a, agent_b))
    a, b = make_agent(agent_a, g), make_agent(agent_b, g)
    if a.name == b.name:
        a.name, b.name = f"{a.name}(A)", f"{b.name}(B)"
    result = run_arena(g, a, b, deals=rounds, seed=seed, duplicate=duplicate, workers=workers, address=address)
    if json_out:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.table())
