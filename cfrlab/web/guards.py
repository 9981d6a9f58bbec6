"""What keeps the web server from being abused: a Host header check, a request body limit, and validation
errors that are one sentence and never echo the input.

* ``HostCheck``: a page served on 127.0.0.1 answers only requests whose ``Host`` header names the server
  (its address, ``localhost`` or ``::1``), so a site the person visits cannot reach it by DNS rebinding
  (a hostile name that resolves to 127.0.0.1). A server on every interface (``0.0.0.0``) accepts any host.
* ``BodyLimit``: a request body larger than ``limit`` bytes gets 413 before it is parsed, whether it
  declares its length or streams in chunks.
* ``validation_error_response``: 422 with ``{"detail": "sentence"}``; pydantic's list of errors would echo
  the input, and a NaN in it cannot even be written as JSON.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Iterable
from urllib.parse import urlsplit

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")
ANY_INTERFACE = ("0.0.0.0", "::", "")
MAX_BODY_BYTES = 64 * 1024
"""Every request the page makes is a few dozen bytes of JSON."""


def allowed_hosts(bound: str) -> tuple[str, ...] | None:
    """The host names a server bound to ``bound`` answers to (None: any, for a server on every interface)."""
    if bound in ANY_INTERFACE:
        return None
    if bound in LOCAL_NAMES:
        return LOCAL_NAMES
    return (bound.strip("[]").lower(),)


async def _reply(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class HostCheck:
    """ASGI middleware: 400 unless the ``Host`` header names one of ``hosts`` (any port)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        try:
            name = urlsplit("//" + header).hostname or ""
        except ValueError:
            name = ""
        if name not in self.hosts:
            await _reply(send, 400, f"the Host header {header[:80]!r} does not name this server; open it by its "
                                    f"address ({', '.join(sorted(self.hosts))})")
            return
        await self.app(scope, receive, send)


class _TooLarge(HTTPException):
    """Raised while the body streams in; FastAPI passes ``HTTPException`` through its body parsing untouched."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, detail=f"request body larger than {limit} bytes")


class BodyLimit:
    """ASGI middleware: 413 for a request body over ``limit`` bytes, declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge(self.limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        await _reply(send, 413, f"request body larger than {self.limit} bytes")


async def validation_error_response(request: Request, exc: Exception) -> JSONResponse:
    """422 with one sentence naming the field and the problem, never the value that was sent."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    parts = []
    for error in errors[:3]:
        where = ".".join(str(x) for x in error.get("loc", ()) if x != "body") or "body"
        message = str(error.get("msg", "invalid"))
        if error.get("type") == "extra_forbidden":
            message = "is not accepted (deal seeds are chosen by the server)" if where == "seed" else "is not accepted"
        parts.append(f"{where}: {message}")
    return JSONResponse({"detail": "; ".join(parts) or "invalid request body"}, status_code=422)
