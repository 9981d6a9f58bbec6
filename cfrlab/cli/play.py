"""``cfrlab play GAME``: play against an agent or a strategy file in the terminal.

A game family with a terminal loop of its own (``Views.terminal``: Koi-Koi's cards, yaku and koi-koi calls)
plays through it; every other game with a web view is played through ``cfrlab.cli.table_game``, with the web
page's player view. Bad input prints what is allowed and the game goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS, MAX_PLAYERS, MAX_SEED, positive_seconds
from cfrlab.registry import play_default

if TYPE_CHECKING:
    from cfrlab.agents.spec import AgentSpec


@app.command(short_help="Play a game in the terminal.",
             help="Play GAME against an agent or a strategy file in the terminal: `cfrlab play kuhn`, "
             "`cfrlab play leduc --strategy leduc.npz`, `cfrlab play koikoi --opponent search:20ms`. A game family "
             "adds options of its own (Koi-Koi: --rules, --rounds, --rollouts, --objective).")
def play(
    ctx: typer.Context,
    game: str | None = typer.Argument(play_default(), help="kuhn, leduc, 'leduc(ranks=4)', koikoi, koikoi_mini, "
                                                         "'koikoi(rules=fudawiki)'."),
    opponent: str | None = typer.Option(None, "--opponent", help="random, oos (Online Outcome Sampling), policy "
                                           "(with --strategy), or an agent of the game's family (`cfrlab agents "
                                           "GAME` lists them: for Koi-Koi greedy, search[:N|:Tms], cfr[:N|:Tms][:DIR], "
                                           "neural[:N|:Tms][:DIR], blueprint[:DIR], net[:DIR]) or policy:PATH. "
                                           "Default: policy with --strategy; for Koi-Koi the strongest, cfr:500ms "
                                           "(search:500ms on the small variants); else random."),
    strategy: Path | None = typer.Option(None, "--strategy", "-s", help="Strategy file (.npz) from "
                                            "`cfrlab solve --out` for GAME: the opponent plays it."),
    seconds: float | None = typer.Option(None, "--seconds", callback=positive_seconds,
                                         help="Seconds per move of the oos opponent "
                                            "(Online Outcome Sampling; default 0.5), by the wall clock: the "
                                            "time you wait for its move (--opponent oos:S:cpu counts CPU time)."),
    hands: int | None = typer.Option(None, min=1, max=MAX_DEALS, help="Stop after this many hands (default: until "
                                        "q)."),
    seat: int = typer.Option(0, min=0, max=MAX_PLAYERS - 1, help="Your seat: 0 acts first (Koi-Koi: the first oya)."),
    seed: int | None = typer.Option(None, min=0, max=MAX_SEED, help="Random seed (cards and the opponent)."),
) -> None:
    from cfrlab.cli.family_options import agent_fields, family_keywords, given
    from cfrlab.registry import family_of, resolve

    if game is None:  # no registered family offers a default game
        raise ValueError("name the game to play: cfrlab play GAME (cfrlab games lists them)")
    options = given(ctx, "play", game)
    the_opponent = _opponent(game, opponent, strategy, seconds, agent_fields(options))
    family = family_of(game)
    if family is not None and family.views.terminal is not None:
        resolve(family.views.terminal)(game, the_opponent, strategy, seat=seat, seed=seed, hands=hands,
                                 **family_keywords(options))
        return
    from cfrlab.cli.table_game import run_table_game

    run_table_game(game, the_opponent, strategy, seat=seat, hands=hands, seed=seed)


def _opponent(game: str, opponent: str | None, strategy: Path | None, seconds: float | None,
              fields: dict[str, Any]) -> AgentSpec | str | None:
    """The opponent's spec: ``--opponent`` (or, for the command's agent options, the opponent met without one)
    with ``--seconds`` and the family's agent options set, timed on the wall clock (a person waits for each move);
    as given for the default opponent or a strategy file's."""
    from cfrlab.agents.names import fill_agents, parse_agent, wall_clock
    from cfrlab.agents.opponents import default_opponent_name
    from cfrlab.registry import load_game

    if seconds is not None and opponent != "oos":
        raise ValueError("--seconds sets the search time of --opponent oos")
    if opponent in (None, "policy") and seconds is None and all(value is None for _, value in fields.values()):
        return opponent  # the family's default, or the strategy file's agent
    name = opponent or ("policy" if strategy is not None else default_opponent_name(load_game(game)))
    if name == "policy" and strategy is not None:
        name = f"policy:{strategy}"
    spec = parse_agent(name, game)
    if seconds is not None:
        spec = spec.filled(seconds=seconds)
    [spec] = fill_agents([spec], fields)
    return wall_clock(spec)
