"""``cfrlab serve GAME [--strategy FILE]``: play GAME in the browser against a strategy file or an agent."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cfrlab.cli.app import app
from cfrlab.cli.common import MAX_DEALS, MAX_SECONDS, MAX_SESSIONS, console, number_in, prepare_agents

if TYPE_CHECKING:
    from fastapi import FastAPI

    from cfrlab.cli.family_options import Given
    from cfrlab.game import Game
    from cfrlab.policy import TabularPolicy

_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Largest tree ``serve`` enumerates to check a strategy file's coverage (Leduc has 9,457 nodes)."""


def build_app(
    game: str, strategy: Path | None, opponent: str | None, max_sessions: int = 256, session_ttl: float = 60.0,
    host: str = "127.0.0.1", max_sessions_per_client: int | None = None, hands: int | None = None,
    options: Given | None = None,
) -> FastAPI:
    """Check everything a server needs (game with the family's ``options``, opponent, strategy file) and build the
    app; ``ValueError`` if not."""
    from cfrlab.agents import PolicyAgent
    from cfrlab.cli.family_options import load_with_options
    from cfrlab.web.app import build_opponent, create_app  # without the web extras: the CLI's install hint
    from cfrlab.web.views import table_view

    the_game = load_with_options(game, options or {})
    table_view(the_game)  # unsupported games fail before the strategy file is read
    agent = build_opponent(the_game, opponent, strategy)
    prepare_agents(agent)
    if strategy is not None and isinstance(agent, PolicyAgent):  # abstract hold'em strategies cover their own game
        _warn_partial_coverage(the_game, agent.policy)
    from cfrlab.web.guards import allowed_hosts

    per_client: dict[str, Any] = {"max_sessions_per_client": max_sessions_per_client} if max_sessions_per_client else {}
    return create_app(the_game, agent, max_sessions=max_sessions, ttl_seconds=session_ttl * 60.0,
                      hosts=allowed_hosts(host), hands=hands, **per_client)


def _warn_partial_coverage(game: Game, policy: TabularPolicy) -> None:
    """Check the file's infosets and legal actions against the game's tree, and say, as ``eval`` does, how many
    infosets the file lacks (those are played uniformly)."""
    coverage = policy.check_fits_game(game)
    if coverage is None:
        console.print(f"note: {game.spec()} is too large to enumerate, so the file's coverage is not checked; "
                      "infosets missing from it are played uniformly", soft_wrap=True)
        return
    missing, infosets = coverage
    if missing:
        console.print(f"[yellow]warning:[/] {missing} of {infosets} infosets are not in the strategy file "
                      "and are played uniformly", soft_wrap=True)


@app.command(short_help="Play a game in the browser.",
             help="Play GAME in the browser against a strategy file (--strategy), random play or, for Koi-Koi, "
             "the strongest agent, cfr:500ms (the page lets the player pick another and its strength). Serves on "
             "http://127.0.0.1:8000 by default. A game family adds options of its own (Koi-Koi: --rounds).")
def serve(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="Game spec: kuhn, leduc, 'leduc(ranks=4)', koikoi, koikoi_mini."),
    strategy: Path | None = typer.Option(None, "--strategy", "-s", help="Strategy file (.npz) from "
                                            "`cfrlab solve --out`, computed for GAME."),
    opponent: str | None = typer.Option(None, help="policy (needs --strategy), random, oos[:SECONDS] (Online "
                                           "Outcome Sampling), or an agent of the game's family (`cfrlab agents "
                                           "GAME`; Koi-Koi: greedy, search[:N|:Tms], cfr[:N|:Tms][:DIR], "
                                           "neural[:N|:Tms][:DIR], blueprint[:DIR], net[:DIR]). Default: policy with "
                                           "--strategy; for Koi-Koi cfr:500ms (search:500ms on the small variants); "
                                           "else random."),
    host: str = typer.Option("127.0.0.1", help="Address to listen on; keep 127.0.0.1 unless you mean to share."),
    port: int = typer.Option(8000, min=1, max=65535, help="Port to listen on."),
    max_sessions: int = typer.Option(256, min=1, max=MAX_SESSIONS,
                                     help="Most game sessions alive at once (then the least recently "
                                     "used one makes room)."),
    max_sessions_per_client: int | None = typer.Option(
        None, min=1, max=MAX_SESSIONS, help="Most sessions one client address keeps alive (default 64; the least "
        "recently used makes room for a new one)."),
    session_ttl: float = typer.Option(60.0, callback=number_in(0.0, MAX_SECONDS / 60, low_included=False),
                                      help="Minutes after which an idle session is dropped."),
    hands: int | None = typer.Option(None, min=1, max=MAX_DEALS,
                                     help="Play sessions of this many hands, with a running total "
                                        "and its 95 % interval (default: deal as long as you like)."),
) -> None:
    from cfrlab.cli.family_options import given

    web_app = build_app(game, strategy, opponent, max_sessions=max_sessions, session_ttl=session_ttl, host=host,
                        max_sessions_per_client=max_sessions_per_client, hands=hands,
                        options=given(ctx, "serve", game))
    import uvicorn

    from cfrlab.web.guards import listening_socket, request_deadline_protocol

    sock = listening_socket(host, port)  # a busy port or a foreign address: one line, before the URL is shown
    if host not in _LOCAL_HOSTS:
        console.print(f"[yellow]warning:[/] listening on {host}: anyone who can reach it can play; there is no login",
                      soft_wrap=True)
    shown = f"[{host}]" if ":" in host else host
    console.print(f"Playing {web_app.state.game.spec()} against {web_app.state.agent.name}: "
                  f"open http://{shown}:{port}/ in a browser (Ctrl+C stops the server)", soft_wrap=True)
    config = uvicorn.Config(web_app, log_level="warning", http=request_deadline_protocol())
    uvicorn.Server(config).run(sockets=[sock])
