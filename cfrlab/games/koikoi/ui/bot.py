"""``cfrlab bot koikoi --agent search``: cfrlab as the AI of another program, one JSON observation per line.

Each input line is an observation (schema: ``cfrlab.games.koikoi.observation``); each answer is one JSON line,
``{"action": 12, "name": "Play Wisteria Cuckoo (Apr, animal)"}`` (0-47 a card to play or take, 48 STOP, 49 KOI-KOI),
or ``{"error": "line 3: ..."}`` for a line that is not a valid observation. The bot answers every line in order and
keeps serving after an error; its exit code is 2 if any line was refused. Blank lines are skipped.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Optional

import typer

from cfrlab.cli.app import app


def serve_lines(game, agent, lines: IO[str], out: IO[str], seed: int = 0) -> int:  # noqa: ANN001
    """Answer each observation line of ``lines`` on ``out``; the number of refused lines."""
    import numpy as np

    from cfrlab.file_checks import JSONInputError, parse_json
    from cfrlab.games.koikoi.observation import ObservationError, state_from_observation

    rng = np.random.default_rng(seed)
    refused = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obs = parse_json(line, "the observation")  # bounded depth; a 5,000-digit number ended the bot
            state = state_from_observation(obs, game.rules, rng)
            action = int(agent.act(state, rng))
            answer = {"action": action, "name": state.action_to_string(action)}
        except (JSONInputError, ObservationError) as exc:
            answer, refused = {"error": f"line {number}: {exc}"}, refused + 1
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return refused


@app.command(short_help="Answer Koi-Koi observations (JSON lines) with actions.",
             help="Answer Koi-Koi observations read as JSON lines on stdin with actions as JSON lines (a hanafuda "
                  "program in any language can use cfrlab as its AI), e.g. `cfrlab bot koikoi --agent search`.")
def bot(
    game: str = typer.Argument("koikoi", help="Koi-Koi game spec: koikoi, 'koikoi(rules=koikoi_japan)', ..."),
    agent: str = typer.Option("search", "--agent", help="search[:N][:points|match], cfr[:N|:Tms] (search refined "
                                                        "by the CFR blueprint), blueprint (the blueprint alone), "
                                                        "greedy or random."),
    rollouts: Optional[int] = typer.Option(None, "--rollouts", help="Playouts per action of the search agent "
                                                                    "(default 200)."),
    objective: Optional[str] = typer.Option(None, "--objective", help="What the search agent maximises: points (the "
                                                                      "round's) or match (the match-win probability)."),
    seed: int = typer.Option(0, min=0, help="Random seed (hidden-card completions and the agent's sampling)."),
    schema: bool = typer.Option(False, "--schema", help="Print the observation's JSON Schema and exit."),
) -> None:
    if schema:
        from cfrlab.games.koikoi.observation import OBSERVATION_SCHEMA

        print(json.dumps(OBSERVATION_SCHEMA, indent=2))
        return
    from cfrlab.agents import make_agent, with_search_options_for
    from cfrlab.game import parse_spec
    from cfrlab.games.koikoi.game import match_rounds_of
    from cfrlab.registry import load_game

    name, params = parse_spec(game)
    if not name.startswith("koikoi"):
        raise ValueError(f"the bot plays Koi-Koi only, not {game!r}")
    params.setdefault("rounds", match_rounds_of(name, params))
    if agent.startswith("policy:"):
        raise ValueError("the bot plays search[:N], cfr, blueprint, greedy or random (a tabular policy needs the full "
                         "history)")
    g = load_game(name, **params)
    [agent] = with_search_options_for([agent], rollouts, objective)
    player = make_agent(agent, g)
    if serve_lines(g, player, sys.stdin, sys.stdout, seed):
        raise SystemExit(2)
