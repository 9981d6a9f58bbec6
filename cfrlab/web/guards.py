"""What keeps the web server from being abused: a Host header check, a request body limit, and validation
errors that are one sentence and never echo the input.

* ``HostCheck``: a page served on 127.0.0.1 answers only requests whose ``Host`` header names the server
  (its address, ``localhost`` or ``::1``), so a site the person visits cannot reach it by DNS rebinding
  (a hostile name that resolves to 127.0.0.1). A server on every interface (``0.0.0.0``) accepts any host.
* ``BodyLimit``: a request body larger than ``limit`` bytes gets 413 before it is parsed, whether it
  declares its length or streams in chunks.
* ``validation_error_response``: 422 with ``{"detail": "sentence"}``; pydantic's list of errors would echo
  the input, and a NaN in it cannot even be written as JSON. ``http_error_response`` sends FastAPI's and
  Starlette's own errors (404 of an unknown path or session, 405, 400) as ``SafeJSON`` too, with their headers.
* ``RequestDeadline``: the HTTP protocol closes a connection whose request (headers and body) is not complete
  ``REQUEST_SECONDS`` after the connection opened or the last response ended (uvicorn has no such timeout:
  200 half-sent requests were held open for ever, the "slowloris" attack).
* ``SafeJSON``: every answer of the server, errors and the middlewares' refusals included, shows a name's control
  characters as escapes (``file_checks.terminal_safe``: an ESC sequence or a right-to-left override in an ``.efg``
  label, a path or field a request sent) and writes ``<``, ``>``, ``&`` and ``'`` as
  JSON escapes (\\u003c), so a label such as ``</script><script>`` is text wherever the JSON lands; the page itself
  renders names with ``textContent`` under a CSP without inline scripts.
* ``listening_socket``: the server's socket, bound before the URL is printed, so a busy port, an address
  that is not the machine's or an empty ``--host`` is one line instead of uvicorn's message after the URL.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")
ANY_INTERFACE = ("0.0.0.0", "::")
MAX_BODY_BYTES = 64 * 1024
"""Every request the page makes is a few dozen bytes of JSON."""
REQUEST_SECONDS = 20.0
"""Time a client has to send one whole request (the page's are a few hundred bytes)."""


def allowed_hosts(bound: str) -> tuple[str, ...] | None:
    """The host names a server bound to ``bound`` answers to (None: any, for a server on every interface)."""
    if bound in ANY_INTERFACE:
        return None
    if bound in LOCAL_NAMES:
        return LOCAL_NAMES
    return (bound.strip("[]").lower(),)


async def _reply(send: Send, status: int, detail: str) -> None:
    body = SafeJSON({"detail": detail}).body  # the Host header a request sent is echoed, shown as text
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
    return SafeJSON({"detail": "; ".join(parts) or "invalid request body"}, status_code=422)


async def http_error_response(request: Request, exc: Exception) -> Response:
    """An ``HTTPException`` (FastAPI's or Starlette's: an unknown path, a method not allowed, a session not found)
    as ``SafeJSON``: its detail may quote the path or a field the request sent. Its headers (``Allow``) kept."""
    status = getattr(exc, "status_code", 500)
    if status in (204, 304):  # no body allowed
        return Response(status_code=status, headers=getattr(exc, "headers", None))
    detail = getattr(exc, "detail", None) or "error"
    return SafeJSON({"detail": detail}, status_code=status, headers=getattr(exc, "headers", None))


_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027"))
"""Characters that mean something to HTML, written as JSON escapes (they only occur inside JSON strings)."""


class SafeJSON(JSONResponse):
    """The API's responses: names from files and games shown, never interpreted (see the module's docstring)."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(_shown(content), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        for char, escape in _HTML_ESCAPES:
            text = text.replace(char, escape)
        return text.encode("utf-8")


def _shown(value: Any) -> Any:
    """``value`` with ``terminal_safe`` applied to every string in it, keys included."""
    from cfrlab.file_checks import terminal_safe

    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(v) for v in value]
    return value


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening; ``ValueError`` in one line when it cannot be."""
    if not host.strip():
        raise ValueError("--host is empty; give 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError, ValueError) as exc:
        raise ValueError(f"--host {host!r} is not an address or a name of this machine ({exc})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port or --host") \
            from None
    return sock


def request_deadline_protocol() -> type:
    """uvicorn's h11 protocol with ``REQUEST_SECONDS`` to send each request (``uvicorn.Config(http=...)``)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class RequestDeadline(H11Protocol):
        deadline = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.DONE and self.deadline is not None:
                self.deadline.cancel()  # the whole request is in; the response is the app's business

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this kept-alive connection gets its own time

        def connection_lost(self, exc: Exception | None) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            self.deadline = self.loop.call_later(REQUEST_SECONDS, self._expire)

        def _expire(self) -> None:
            if not self.transport.is_closing():
                self.transport.close()

    return RequestDeadline
