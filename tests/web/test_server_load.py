"""The server under load: many games from one address (a classroom behind one NAT, many tabs) and clients that
never finish sending a request (the "slowloris" attack). Request counts are budgets; the one timing is the
server's own request deadline, set to a fraction of a second here."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
import uvicorn
from fastapi.testclient import TestClient

from cfrlab.registry import load_game
from cfrlab.web import guards
from cfrlab.web.app import create_app
from cfrlab.web.sessions import MAX_SESSIONS_PER_CLIENT, SessionStore


def test_many_games_from_one_address_keep_the_recent_ones_and_say_what_was_closed() -> None:
    client = TestClient(create_app(load_game("kuhn"), None))
    sessions = [client.post("/api/sessions", json={"seat": 0}).json() for _ in range(200)]
    assert [s["notice"] is None for s in sessions] == [True] * MAX_SESSIONS_PER_CLIENT + [False] * (200 - 64)
    assert "was closed to make room" in sessions[-1]["notice"]
    alive = [client.get(f"/api/sessions/{s['session']}").status_code for s in sessions]
    assert alive == [404] * (200 - MAX_SESSIONS_PER_CLIENT) + [200] * MAX_SESSIONS_PER_CLIENT
    assert MAX_SESSIONS_PER_CLIENT >= 64  # a class of 30 with two tabs each keeps every game


def test_a_game_in_play_outlives_idle_ones_of_its_address() -> None:
    """The session evicted is the one left idle longest, so a game being played is never the one closed."""
    client = TestClient(create_app(load_game("kuhn"), None, max_sessions_per_client=3))
    playing = client.post("/api/sessions", json={"seat": 0}).json()["session"]
    for _ in range(10):
        client.post("/api/sessions", json={"seat": 0})
        assert client.get(f"/api/sessions/{playing}").status_code == 200


@pytest.mark.parametrize("ttl", [0.0, 1e-300 * 60, 0.5, float("nan")])
def test_a_session_lifetime_that_expires_every_session_at_once_is_refused(ttl: float) -> None:
    with pytest.raises(ValueError, match="at least 1 second"):
        SessionStore(ttl_seconds=ttl)


def serving(app: Any) -> tuple[uvicorn.Server, threading.Thread, int]:
    sock = guards.listening_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off",
                                           http=guards.request_deadline_protocol()))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.02)
    return server, thread, sock.getsockname()[1]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(guards, "REQUEST_SECONDS", 0.5)
    server, thread, port = serving(create_app(load_game("kuhn"), None))
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def read_response(conn: socket.socket) -> bytes:
    """One whole HTTP response (headers, then Content-Length bytes of body): the status line and headers."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        assert chunk, "the server closed the connection"
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    headers = dict(line.split(b":", 1) for line in head.split(b"\r\n")[1:])
    length = int({k.lower(): v for k, v in headers.items()}[b"content-length"])
    while len(body) < length:
        body += conn.recv(4096)
    return head


def closed_by_server(conn: socket.socket, wait: float) -> bool:
    conn.settimeout(wait)
    try:
        return conn.recv(1) == b""
    except TimeoutError:
        return False


def test_half_sent_requests_are_closed_and_whole_ones_answered(server: int) -> None:
    half = []
    for partial in (b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                    b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"se", b""):
        conn = socket.create_connection(("127.0.0.1", server))
        conn.sendall(partial)
        half.append(conn)
    whole = socket.create_connection(("127.0.0.1", server))
    whole.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert read_response(whole).startswith(b"HTTP/1.1 200")
    assert all(closed_by_server(conn, 5.0) for conn in half)
    for conn in (*half, whole):
        conn.close()


def test_a_kept_alive_connection_gets_a_deadline_per_request(server: int) -> None:
    conn = socket.create_connection(("127.0.0.1", server))
    for _ in range(3):  # three whole requests, each sent within its deadline, on one connection
        time.sleep(0.3)
        conn.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_response(conn).startswith(b"HTTP/1.1 200")
    conn.sendall(b"GET /api/info HTTP/1.1\r\n")
    assert closed_by_server(conn, 5.0)
    conn.close()


@pytest.mark.parametrize("host,says", [("", "--host is empty"), ("999.1.1.1", "not an address"),
                                       ("8.8.8.8", "cannot listen on")])
def test_a_host_the_server_cannot_listen_on_is_one_line(host: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        guards.listening_socket(host, 0)
