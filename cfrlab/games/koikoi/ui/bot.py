"""``cfrlab bot koikoi --agent search``: cfrlab as the AI of another program, one JSON observation per line.

Each input line is an observation (schema: ``cfrlab.games.koikoi.rules.observation``; docs/site/guides/koikoi-bot.md
walks through a round); each answer is one JSON line, ``{"action": 12, "name": "Play Wisteria Cuckoo (Apr,
animal)"}`` (0-47 a card to play or take, 48 STOP, 49 KOI-KOI), or ``{"error": "line 3: ..."}`` for a line that
is not a valid observation. The bot answers every line in order and keeps serving after an error; its exit code is
2 if any line was refused. Blank lines are skipped. Before it reads its first line the bot answers one observation
of its own (loading and compiling what the agent uses), so the first answer takes as long as the others; with
``--ready`` it then writes ``{"ready": true}``, for a client that starts its move clock only once the bot is up.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS, MAX_SEED

BOT_HELP = """Answer Koi-Koi observations read as JSON lines on stdin with actions as JSON lines (a hanafuda program in
any language can use cfrlab as its AI), e.g. `cfrlab bot koikoi --agent search`.

\b
Observation: one JSON object a line (--schema prints its JSON Schema; a worked
round: docs/site/guides/koikoi-bot.md). Card ids 0-47, seats 0 and 1.
  player, oya   your seat; this round's dealer (plays first)
  hand          your hand now: a card you played is in history, not here
  dealt_field   the field as dealt at the start of the round
  history       this round's events, both players': ["play", c],
                ["capture", c], ["draw", c], ["koikoi"]; at a capture
                choice it ends with the play or draw that matched two cards
  phase         optional: play, play_capture, draw_capture or decide
                (checked against the history)
  round         optional: round of the match counted from 1 (not 0)
  totals        optional: match totals by seat before this round
  field, piles, calls   optional: checked against the history

\b
Answer: one JSON line per observation, in order.
  {"action": 0-47, "name": ...}  the card to play, or the field card to take
  {"action": 48 or 49, ...}      STOP or KOI-KOI
  {"error": "line N: ..."}       a refused line (the bot goes on; exit code 2)

The bot loads and compiles its kernels before it reads its first line, so the first answer is as fast as the
others; --ready writes {"ready": true} once it is up."""


def serve_lines(game, agent, lines: IO[str], out: IO[str], seed: int = 0) -> int:
    """Answer each observation line of ``lines`` on ``out``; the number of refused lines."""
    import numpy as np

    from cfrlab.file_checks import JSONInputError, parse_json
    from cfrlab.games.koikoi.rules.observation import ObservationError

    rng = np.random.default_rng(seed)
    refused = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            answer = _answer(game, agent, parse_json(line, "the observation"), rng)  # bounded depth
        except (JSONInputError, ObservationError) as exc:
            answer, refused = {"error": f"line {number}: {exc}"}, refused + 1
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return refused


def _answer(game, agent, obs: Any, rng) -> dict[str, Any]:
    from cfrlab.games.koikoi.rules.observation import state_from_observation

    state = state_from_observation(obs, game.rules, rng)
    action = int(agent.act(state, rng))
    return {"action": action, "name": state.action_to_string(action)}


def warm_up(game, agent, seed: int = 0) -> None:
    """Answer one observation of a dealt round through the whole path of a line (parsing aside), so that the
    kernels the agent uses are loaded and compiled before the first real line arrives."""
    import numpy as np

    from cfrlab.games.koikoi.rules.observation import observation

    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.child(state.sample_chance(rng))
    _answer(game, agent, observation(state, state.current_player()), rng)


@app.command(short_help="Answer Koi-Koi observations (JSON lines) with actions.", help=BOT_HELP)
def bot(
    game: str = typer.Argument("koikoi", help="Koi-Koi game spec: koikoi, 'koikoi(rules=koikoi_japan)', ..."),
    agent: str = typer.Option("search", "--agent", help="search[:N|:Tms][:points|match], cfr[:N|:Tms] (search "
                                                        "refined by the CFR blueprint), neural[:N|:Tms][:DIR] "
                                                        "(search valued by a learned network), blueprint (the "
                                                        "blueprint alone), net[:DIR] (a learned policy alone), "
                                                        "greedy or random."),
    rollouts: int | None = typer.Option(None, "--rollouts", min=1, max=MAX_DEALS,
                                        help="Playouts per action of the search agent "
                                                                    "(default 200)."),
    objective: str | None = typer.Option(None, "--objective", help="What the search agent maximises: points (the "
                                                                      "round's) or match (the match-win probability)."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED,
                             help="Random seed (hidden-card completions and the agent's sampling)."),
    ready: bool = typer.Option(False, "--ready", help='Write {"ready": true} once the bot is up (kernels loaded), '
                                                      "before reading the first observation."),
    schema: bool = typer.Option(False, "--schema", help="Print the observation's JSON Schema and exit."),
) -> None:
    if schema:
        from cfrlab.games.koikoi.rules.observation import OBSERVATION_SCHEMA

        print(json.dumps(OBSERVATION_SCHEMA, indent=2))
        return
    from cfrlab.agents.names import fill_agents, make_agent, parse_agent
    from cfrlab.game_spec import parse_spec
    from cfrlab.games.koikoi.rules.game import match_rounds_of
    from cfrlab.registry import load_game

    name, params = parse_spec(game)
    if not name.startswith("koikoi"):
        raise ValueError(f"the bot plays Koi-Koi only, not {game!r}")
    params.setdefault("rounds", match_rounds_of(name, params))
    if agent.startswith("policy:"):
        raise ValueError("the bot plays search[:N|:Tms], cfr, neural, blueprint, net, greedy or random (a tabular "
                         "policy needs the full history)")
    g = load_game(name, **params)
    [spec] = fill_agents([parse_agent(agent, g)], {"count": ("--rollouts", rollouts),
                                                    "objective": ("--objective", objective)})
    player = make_agent(spec, g)
    warm_up(g, player, seed)
    if ready:
        print(json.dumps({"ready": True}), flush=True)
    if serve_lines(g, player, sys.stdin, sys.stdout, seed):
        raise SystemExit(2)
