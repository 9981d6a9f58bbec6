"""``cfrlab algorithms`` and ``cfrlab games``: what ``solve`` knows, each algorithm with its paper and each game with
its parameters."""

from __future__ import annotations

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import emit_json, stdout


@app.command(short_help="List the algorithms and their papers.",
             help="List the algorithms `solve` knows, each with the paper it comes from.")
def algorithms(json_out: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    from rich.markup import escape

    from cfrlab.extras import install_hint
    from cfrlab.solvers import catalog

    rows = [{"name": row["name"], "description": row["description"] if not row["missing"] else
             f"{row['description']} (needs {row['missing']}: {install_hint(str(row['missing']))})"}
            for row in sorted(catalog(), key=lambda row: str(row["name"]))]
    if json_out:
        emit_json(rows)
        return
    for row in rows:
        stdout.print(f"[bold]{row['name']:<12}[/] {escape(str(row['description']))}", soft_wrap=True,
                     highlight=False)


@app.command(short_help="List the games and their parameters.",
             help="List the games: each with its parameters, their defaults and the values they take.")
def games(json_out: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    from cfrlab.cli.options import cite
    from cfrlab.registry import describe_games

    rows = [{**row, "description": cite(row["description"])} for row in describe_games()]
    if json_out:
        emit_json(rows)
        return
    for row in rows:
        stdout.print(f"[bold]{row['name']}[/]  {row['description']}", soft_wrap=True, highlight=False)
        for param in row["parameters"]:
            default = "" if param["default"] is None else f" = {param['default']}"
            stdout.print(f"    {param['name']}{default}: {param['help']}", soft_wrap=True, highlight=False)
    stdout.print("[bold]openspiel:NAME[/]  any OpenSpiel game, e.g. openspiel:leduc_poker "
                 "(parameters as openspiel:NAME(key=value))", soft_wrap=True, highlight=False)
    stdout.print("[bold]efg:PATH[/]  a Gambit extensive-form file (or PATH.efg alone), e.g. cfrlab solve game.efg; "
                 "cfrlab export GAME --efg out.efg writes one", soft_wrap=True, highlight=False)
    stdout.print("Parameters go in the spec, leduc(ranks=4), or as flags, cfrlab solve leduc --ranks 4.",
                 soft_wrap=True, highlight=False)
