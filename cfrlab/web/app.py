"""The web app: play a game in the browser against a strategy file, uniform random or a heuristic agent.

Specification in cfrlab (``create_app(game, opponent)``; ``cfrlab serve`` runs it on 127.0.0.1 by default):

=======================================  ============================================================
``GET  /``                               the page (``static/index.html``; no build step, no CDN)
``GET  /api/info``                       game, opponent, the opponents to pick from, seat labels
``POST /api/sessions``                   ``{"seat": 0, "opponent": "cfr:500ms"}`` -> 201, a new session's
                                         snapshot (seeds are the server's; opponent: one the page offers,
                                         ``opponents.OpponentMenu``; 400 for another, default the server's)
``GET  /api/sessions/{id}``              the snapshot (404 for unknown or expired ids)
``POST /api/sessions/{id}/actions``      ``{"action": 1}`` -> snapshot; 400 and no change if illegal
``POST /api/sessions/{id}/hands``        ``{"seat": null}`` -> a new hand; 409 while a hand is in play or
                                         once a session of ``hands`` hands is over
``DELETE /api/sessions/{id}``            204
``GET  /api/cards/{card}.svg``           a card's picture (``TableView.card_picture``), 404 where none
=======================================  ============================================================

A snapshot (``GameSession.snapshot``) carries only the person's view: their own cards, public cards and
actions, the opponent's cards only at a poker showdown. Errors are ``{"detail": "..."}`` sentences.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from cfrlab.agents import Agent
from cfrlab.agents.opponents import OPPONENTS, build_opponent  # noqa: F401 - part of this module's API
from cfrlab.game import Game, IllegalActionError
from cfrlab.web.guards import BodyLimit, HostCheck, SafeJSON, http_error_response, validation_error_response
from cfrlab.web.opponents import OpponentMenu
from cfrlab.web.sessions import (
    MAX_SESSIONS_PER_CLIENT,
    GameSession,
    HandInProgressError,
    SessionNotFoundError,
    SessionStore,
)
from cfrlab.web.views import table_view

STATIC_DIR = Path(__file__).parent / "static"
_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"


class _Strict(BaseModel):
    """Request bodies: integers only as JSON integers (not ``true``, ``1.0`` or ``NaN``), no unknown fields."""

    model_config = ConfigDict(strict=True, extra="forbid")


class NewSession(_Strict):
    seat: int = Field(0, description="The person's seat (0 acts first in poker).")
    opponent: str | None = Field(None, max_length=200, description="An opponent the page offers (default: the "
                                 "server's).")


class Move(_Strict):
    action: int = Field(..., description="A legal action id from the snapshot's legal_actions.")


class NewHand(_Strict):
    seat: int | None = Field(None, description="Change seat for the new hand (default: keep it).")


def create_app(
    game: Game,
    opponent: Agent | None = None,
    *,
    max_sessions: int = 256,
    max_sessions_per_client: int = MAX_SESSIONS_PER_CLIENT,
    ttl_seconds: float = 3600.0,
    clock: Callable[[], float] | None = None,
    hosts: Iterable[str] | None = None,
    seed_source: Callable[[], int] | None = None,
    hands: int | None = None,
) -> FastAPI:
    """The FastAPI app serving ``game`` against ``opponent`` (default: ``build_opponent(game)``).

    Deal seeds come from ``seed_source`` (default: 128 bits from the OS's generator), never from the client.
    ``hosts``: the names the ``Host`` header may carry (``guards.allowed_hosts``; None: any). Sessions are
    capped per client address and in all; a full store evicts the least recently used session.

    ``hands``: each session is a match of that many hands, with a running total and its 95 % interval
    (None: hands until the person stops). A Koi-Koi match of 12 rounds is one hand of ``koikoi(rounds=12)``.

    Raises ``UnsupportedGameError`` (a ``ValueError``) at once for games the page cannot show.
    """
    if hands is not None and hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    table = table_view(game)
    app = FastAPI(title="cfrlab", docs_url=None, redoc_url=None, openapi_url=None, default_response_class=SafeJSON)
    app.state.game, app.state.table, app.state.hands = game, table, hands
    app.state.agent = opponent if opponent is not None else build_opponent(game)
    app.state.menu = OpponentMenu(game, app.state.agent)
    app.state.menu.entries  # noqa: B018 - each kind is built once now, not while the page waits for /api/info
    app.state.store = SessionStore(max_sessions, ttl_seconds, max_per_client=max_sessions_per_client,
                                   **({"clock": clock} if clock else {}))
    app.state.seed_source = seed_source or (lambda: secrets.randbits(128))
    _guard(app, hosts)
    app.include_router(_api)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _guard(app: FastAPI, hosts: Iterable[str] | None) -> None:
    """Bounded request bodies, the ``Host`` check, one-sentence validation errors and security headers."""
    app.add_exception_handler(RequestValidationError, validation_error_response)
    app.add_exception_handler(StarletteHTTPException, http_error_response)  # FastAPI's HTTPException derives from it
    app.add_middleware(BodyLimit)
    if hosts is not None:
        app.add_middleware(HostCheck, hosts=hosts)

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        if request.url.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response


_api = APIRouter()
"""The page and the session API; each route reads the game, agent and sessions from ``request.app.state``."""


def _lookup(request: Request, sid: str) -> GameSession:
    try:
        return request.app.state.store.get(sid)
    except SessionNotFoundError as exc:
        raise HTTPException(404, detail=str(exc)) from None


@_api.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html")


@_api.get("/api/info")
def info(request: Request) -> dict[str, Any]:
    state = request.app.state
    return {
        "game": state.game.spec(),
        "title": state.table.title(),
        "family": state.table.family,
        "unit": state.table.unit,
        "opponent": state.agent.name,
        "opponents": state.menu.entries,
        "choice": state.menu.choice,
        "seats": state.table.seat_labels(),
        "words": list(state.table.episode_words()),
        "hands": state.hands,
    }


@_api.get("/api/cards/{card}.svg", include_in_schema=False)
def card_picture(card: int, request: Request) -> Response:
    svg = request.app.state.table.card_picture(card)
    if svg is None:
        raise HTTPException(404, detail=f"no picture of card {card}")
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


@_api.post("/api/sessions", status_code=201)
def new_session(body: NewSession, request: Request) -> dict[str, Any]:
    state = request.app.state
    try:
        agent = state.menu.agent(body.opponent)
    except ValueError as exc:
        raise HTTPException(400, detail=str(exc)) from None

    def make(sid: str, now: float) -> GameSession:
        return GameSession(sid, state.game, state.table, agent, body.seat, seed=state.seed_source(), now=now,
                           hands=state.hands)

    try:
        session = state.store.create(make, client=request.client.host if request.client else "")
    except ValueError as exc:
        raise HTTPException(400, detail=str(exc)) from None
    with session.lock:
        return session.snapshot()


@_api.get("/api/sessions/{sid}")
def get_session(sid: str, request: Request) -> dict[str, Any]:
    session = _lookup(request, sid)
    with session.lock:
        return session.snapshot()


@_api.post("/api/sessions/{sid}/actions")
def act(sid: str, body: Move, request: Request) -> dict[str, Any]:
    session = _lookup(request, sid)
    with session.lock:
        try:
            session.act(body.action)
        except IllegalActionError as exc:
            raise HTTPException(400, detail=str(exc)) from None
        return session.snapshot()


@_api.post("/api/sessions/{sid}/hands")
def new_hand(sid: str, request: Request, body: NewHand | None = None) -> dict[str, Any]:
    session = _lookup(request, sid)
    with session.lock:
        try:
            session.new_hand(None if body is None else body.seat)
        except HandInProgressError as exc:
            raise HTTPException(409, detail=str(exc)) from None
        except ValueError as exc:
            raise HTTPException(400, detail=str(exc)) from None
        return session.snapshot()


@_api.delete("/api/sessions/{sid}", status_code=204)
def close(sid: str, request: Request) -> Response:
    try:
        request.app.state.store.remove(sid)
    except SessionNotFoundError as exc:
        raise HTTPException(404, detail=str(exc)) from None
    return Response(status_code=204)
