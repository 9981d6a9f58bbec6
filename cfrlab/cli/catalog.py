"""``cfrlab algorithms``, ``cfrlab games`` and ``cfrlab agents GAME``: what ``solve`` knows, each algorithm with its
paper, each game with its parameters, and the agents a game offers with their options."""

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
        _say(f"[bold]{row['name']:<12}[/] {escape(str(row['description']))}")


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
        _say(f"[bold]{row['name']}[/]  {row['description']}")
        for param in row["parameters"]:
            default = "" if param["default"] is None else f" = {param['default']}"
            bounds = "" if param["bounds"] is None else " [{}..{}]".format(*param["bounds"])
            _say(f"    {param['name']}{default}: {param['help']}{bounds}")
    _say("[bold]openspiel:NAME[/]  any OpenSpiel game, e.g. openspiel:leduc_poker "
         "(parameters as openspiel:NAME(key=value))")
    _say("[bold]efg:PATH[/]  a Gambit extensive-form file (or PATH.efg alone), e.g. cfrlab solve game.efg; "
         "cfrlab export GAME --efg out.efg writes one")
    _say("Parameters go in the spec, leduc(ranks=4), or as flags, cfrlab solve leduc --ranks 4.")


@app.command(short_help="List the agents a game offers and their options.",
             help="List the agents GAME offers (the generic ones and its family's), each with how it is written, its "
                  "options and the command options that fill them: `cfrlab agents koikoi`.")
def agents(game: str = typer.Argument(..., help="Game name or spec, e.g. kuhn, koikoi, holdem."),
           json_out: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    from rich.markup import escape

    from cfrlab.agents.names import describe_agents
    from cfrlab.game_spec import parse_spec
    from cfrlab.registry import game_class

    game_class(parse_spec(game)[0])  # an unknown game: one line naming the known ones
    rows = describe_agents(game)
    if json_out:
        emit_json(rows)
        return
    for row in rows:
        _say(f"[bold]{escape(row['usage'])}[/]  {escape(row['about'])}")
        for option in row["options"]:
            _say(f"    {escape(option)}")
        if row["filled_by"]:
            _say(f"    filled in by {escape(', '.join(row['filled_by']))} where the name leaves it out")


def _say(line: str) -> None:
    """One line of a listing, wrapped by the terminal and with no highlighting of its own."""
    stdout.print(line, soft_wrap=True, highlight=False)
