"""``cfrlab play GAME``: play against an agent or a strategy file in the terminal.

A game family with a terminal loop of its own (``GameFamily.terminal``: Koi-Koi's cards, yaku and koi-koi calls)
plays through it; every other game with a web view is played through ``cfrlab.cli.table_game``, with the web
page's player view. Bad input prints what is allowed and the game goes on.
"""

from __future__ import annotations

from pathlib import Path

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS
from cfrlab.registry import play_default


@app.command(short_help="Play a game in the terminal.",
             help="Play GAME against an agent or a strategy file in the terminal: `cfrlab play kuhn`, "
             "`cfrlab play leduc --strategy leduc.npz`, `cfrlab play koikoi --opponent greedy`.")
def play(
    game: str | None = typer.Argument(play_default(), help="kuhn, leduc, 'leduc(ranks=4)', koikoi, koikoi_mini, "
                                                         "'koikoi(rules=fudawiki)'."),
    opponent: str | None = typer.Option(None, "--opponent", help="random, oos (Online Outcome Sampling), policy "
                                           "(with --strategy); for Koi-Koi also greedy, search[:N|:Tms], "
                                           "cfr[:N|:Tms][:DIR] (search refined by the CFR blueprint), "
                                           "neural[:N|:Tms][:DIR] (search valued by a learned network), "
                                           "blueprint[:DIR] (the blueprint alone), net[:DIR] (a learned policy "
                                           "alone) or policy:PATH. Default: policy "
                                           "with --strategy, greedy for Koi-Koi, else random."),
    strategy: Path | None = typer.Option(None, "--strategy", "-s", help="Strategy file (.npz) from "
                                            "`cfrlab solve --out` for GAME: the opponent plays it."),
    rollouts: int | None = typer.Option(None, "--rollouts", help="Playouts per action of the search or cfr "
                                                                    "opponent."),
    seconds: float | None = typer.Option(None, "--seconds", help="Seconds per move of the oos opponent "
                                            "(Online Outcome Sampling; default 0.5), by the wall clock: the "
                                            "time you wait for its move (--opponent oos:S:cpu counts CPU time)."),
    objective: str | None = typer.Option(None, "--objective", help="What a search or oos opponent maximises "
                                            "in Koi-Koi: points (the round's) or match (the match-win "
                                            "probability)."),
    rules: str | None = typer.Option(None, help="Koi-Koi rules preset (nintendo, fudawiki, koikoi_japan, ...)."),
    rounds: int | None = typer.Option(None, help="Koi-Koi: 1 for one round, 6 or 12 for a match."),
    hands: int | None = typer.Option(None, min=1, max=MAX_DEALS, help="Poker: stop after this many hands "
                                        "(default: until q)."),
    seat: int = typer.Option(0, help="Your seat: 0 acts first (Koi-Koi: the first oya)."),
    seed: int | None = typer.Option(None, min=0, help="Random seed (cards and the opponent)."),
) -> None:
    from cfrlab.agents.base import on_wall_clock
    from cfrlab.registry import family_of, resolve

    if game is None:  # no registered family offers a default game
        raise ValueError("name the game to play: cfrlab play GAME (cfrlab games lists them)")
    if seconds is not None:
        if opponent != "oos":
            raise ValueError("--seconds sets the search time of --opponent oos")
        opponent = f"oos:{seconds}"
    if opponent is not None:
        opponent = on_wall_clock(opponent)  # a person waits wall-clock time for each move
    given = {"rules": rules, "rounds": rounds, "rollouts": rollouts, "objective": objective, "hands": hands}
    options = {key: value for key, value in given.items() if value is not None}
    family = family_of(game)
    if family is not None and family.terminal is not None:
        resolve(family.terminal)(game, opponent, strategy, seat=seat, seed=seed, **options)
        return
    from cfrlab.cli.table_game import run_table_game

    for key in ("rules", "rounds", "rollouts", "objective"):
        if key in options:
            raise ValueError(f"--{key} applies to games with a terminal loop of their own (such as Koi-Koi), "
                             f"not to {game}")
    run_table_game(game, opponent, strategy, seat=seat, hands=hands, seed=seed)
