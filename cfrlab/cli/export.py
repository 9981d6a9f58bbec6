"""``cfrlab export GAME --efg out.efg``: a game's whole tree as a Gambit file, to check cfrlab's results with
Gambit's exact solvers."""

from __future__ import annotations

from pathlib import Path

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import console, existing_folder


@app.command(short_help="Write a game as a Gambit .efg file.",
             help="Write GAME's tree as a Gambit extensive-form file: `cfrlab export kuhn --efg kuhn.efg`. "
             "Games whose tree cannot be listed (full Koi-Koi, hold'em) are refused.")
def export(
    game: str = typer.Argument(..., help="Game name or spec, e.g. kuhn, 'kuhn(players=3)', koikoi_mini."),
    efg: Path = typer.Option(..., "--efg", callback=existing_folder, help="The .efg file to write."),
) -> None:
    from cfrlab.efg import write_efg
    from cfrlab.efg.parse import MAX_NODES
    from cfrlab.efg.write import estimate_nodes
    from cfrlab.registry import load_game

    the_game = load_game(game)
    builder = the_game.tree_builder()
    size = builder[0] if builder is not None else estimate_nodes(the_game)
    if size == float("inf"):
        raise ValueError(f"{the_game.spec()}: a chance node does not list its outcomes, so the game has no tree "
                         "to write (it does not compile either)")
    if size > MAX_NODES * (1 if builder is not None else 10):  # an estimate far beyond: no walk to find out
        raise ValueError(f"{the_game.spec()} has more than {MAX_NODES:,} nodes (about {size:.2g}): too large for "
                         "an .efg file")
    count = write_efg(the_game, efg)
    console.print(f"wrote {the_game.spec()} ({count:,} nodes) to {efg}", highlight=False, soft_wrap=True)
