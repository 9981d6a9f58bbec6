"""The web server gives nothing away and cannot be locked: server seeds, strict bodies, per-client LRU sessions,
Host header check, body size limit."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cfrlab.cli.serve import build_app
from cfrlab.games.kuhn import PASS
from cfrlab.registry import load_game
from cfrlab.web.app import create_app
from cfrlab.web.sessions import GameSession


def own_cards_over_hands(client: TestClient, body: dict[str, Any], hands: int) -> tuple[list[Any], list[int]]:
    """Play ``hands`` Kuhn hands (always check, then fold), recording the person's own card and the opponent's
    true card (read on the server, for the test's check only)."""
    response = client.post("/api/sessions", json=body)
    if response.status_code == 422:
        return [], []
    assert response.status_code == 201, response.text
    snap = response.json()
    seen, hidden = [], []
    for _ in range(hands):
        seen.append(snap["view"]["your_cards"])
        session = client.app.state.store.get(snap["session"])
        hidden.append(_private(session)[1 - snap["seat"]])
        while not snap["finished"]:
            legal = [a["id"] for a in snap["legal_actions"]]
            snap = client.post(f"/api/sessions/{snap['session']}/actions",
                               json={"action": PASS if PASS in legal else legal[0]}).json()
        snap = client.post(f"/api/sessions/{snap['session']}/hands", json={}).json()
    return seen, hidden


def _private(session: GameSession) -> list[int]:
    state = session.state
    return list(state.cards if hasattr(state, "cards") else state.private)


def replay(game: Any, table: Any, agent: Any, seed: int, seat: int, hands: int) -> tuple[list[Any], list[int]]:
    """The attacker's local copy: the server's session code run with a seed the attacker guesses."""
    from cfrlab.web.views import table_view

    session = GameSession("local", game, table_view(game), agent, seat, seed=seed)
    seen, hidden = [], []
    for _ in range(hands):
        seen.append(session.snapshot()["view"]["your_cards"])
        hidden.append(_private(session)[1 - seat])
        while not session.finished:
            legal = session.state.legal_actions()
            session.act(PASS if PASS in legal else legal[0])
        session.new_hand()
    return seen, hidden


def test_the_hidden_card_attack_fails() -> None:
    """A client that chooses or guesses the deal seed cannot recompute the opponent's hidden cards."""
    game = load_game("kuhn")
    app = create_app(game)
    client = TestClient(app)
    hands = 12
    guesses = list(range(64)) + [2**32 - 1, 2**63 - 1]
    derived = 0
    for chosen in [*guesses[:8], None]:
        body = {"seat": 0} if chosen is None else {"seat": 0, "seed": chosen}
        seen, hidden = own_cards_over_hands(client, body, hands)
        if not seen:
            continue  # the server refused the client's seed
        for guess in guesses:
            local_seen, local_hidden = replay(game, app.state.table, app.state.agent, guess, 0, hands)
            if local_seen == seen:
                derived += local_hidden == hidden
    assert derived == 0
    # what the client chose: a seed in the body is refused, on new sessions and new hands alike
    response = client.post("/api/sessions", json={"seat": 0, "seed": 7})
    assert response.status_code == 422 and "seed" in response.json()["detail"]
    snap = client.post("/api/sessions", json={"seat": 0}).json()
    assert "seed" not in json.dumps(snap).lower()


def test_two_sessions_from_the_same_request_get_different_deals() -> None:
    client = TestClient(create_app(load_game("leduc")))
    views = [json.dumps(own_cards_over_hands(client, {"seat": 0}, 6)[0]) for _ in range(6)]
    assert len(set(views)) > 1


@pytest.mark.parametrize("raw", ['{"action": NaN}', '{"action": Infinity}', '{"action": -Infinity}',
                                 '{"action": true}', '{"action": 1.5}', '{"action": 1.0}', '{"action": "1"}',
                                 '{"action": 1e400}', '{"action": null}', '{"action": []}', '{}', '[]', 'null'])
def test_non_integer_actions_are_a_422_without_echo(raw: str) -> None:
    client = TestClient(create_app(load_game("kuhn")))
    snap = client.post("/api/sessions", json={"seat": 0}).json()
    before = client.get(f"/api/sessions/{snap['session']}").json()
    response = client.post(f"/api/sessions/{snap['session']}/actions", content=raw,
                           headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "action" in detail or "body" in detail
    assert client.get(f"/api/sessions/{snap['session']}").json() == before


@pytest.mark.parametrize("raw", ['{"seat": true}', '{"seat": 0.0}', '{"seat": NaN}', '{"seat": "0"}',
                                 '{"seat": 0, "extra": 1}'])
def test_non_integer_seats_are_a_422(raw: str) -> None:
    client = TestClient(create_app(load_game("kuhn")))
    response = client.post("/api/sessions", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_one_client_cannot_lock_everyone_out() -> None:
    app = create_app(load_game("kuhn"), max_sessions=16, max_sessions_per_client=4, clock=Clock())
    attacker = TestClient(app, client=("10.0.0.66", 5000))
    player = TestClient(app, client=("10.0.0.7", 5000))
    mine = player.post("/api/sessions", json={"seat": 0}).json()["session"]
    made = [attacker.post("/api/sessions", json={"seat": 0}) for _ in range(256)]
    assert all(r.status_code == 201 for r in made)
    assert len(app.state.store) <= 16
    assert player.get(f"/api/sessions/{mine}").status_code == 200  # the attacker evicted only its own
    live = [r.json()["session"] for r in made if attacker.get(f"/api/sessions/{r.json()['session']}").status_code
            == 200]
    assert live == [r.json()["session"] for r in made[-4:]]  # its 4 most recent


def test_a_full_server_evicts_the_least_recently_used_session() -> None:
    app = create_app(load_game("kuhn"), max_sessions=3, max_sessions_per_client=3, clock=Clock())
    clients = [TestClient(app, client=(f"10.0.0.{i}", 1)) for i in range(4)]
    sids = [c.post("/api/sessions", json={"seat": 0}).json()["session"] for c in clients[:3]]
    assert clients[0].get(f"/api/sessions/{sids[0]}").status_code == 200  # the first becomes the most recent
    assert clients[3].post("/api/sessions", json={"seat": 0}).status_code == 201
    assert clients[1].get(f"/api/sessions/{sids[1]}").status_code == 404
    assert clients[0].get(f"/api/sessions/{sids[0]}").status_code == 200


@pytest.mark.parametrize("host,good,bad", [
    ("127.0.0.1", ["127.0.0.1:8000", "localhost:8000", "127.0.0.1", "[::1]:8000"],
     ["evil.example:8000", "evil.example", "127.0.0.1.evil.example", ""]),
    ("192.168.1.5", ["192.168.1.5:8000"], ["evil.example:8000", "localhost:8000"]),
])
def test_the_host_header_must_name_the_server(host: str, good: list[str], bad: list[str]) -> None:
    app = build_app("kuhn", None, None, host=host)
    client = TestClient(app)
    for value in good:
        assert client.get("/api/info", headers={"host": value}).status_code == 200, value
    for value in bad:
        response = client.get("/api/info", headers={"host": value})
        assert response.status_code == 400 and "Host" in response.json()["detail"], value


def test_a_server_on_every_interface_accepts_any_host() -> None:
    client = TestClient(build_app("kuhn", None, None, host="0.0.0.0"))
    assert client.get("/api/info", headers={"host": "my-box.lan:8000"}).status_code == 200


def test_large_bodies_are_refused_before_parsing() -> None:
    client = TestClient(create_app(load_game("kuhn")))
    huge = b'{"seat": 0, "pad": "' + b"x" * (1 << 20) + b'"}'
    response = client.post("/api/sessions", content=huge, headers={"content-type": "application/json"})
    assert response.status_code == 413

    def chunks():  # no Content-Length: the limit counts what arrives
        for _ in range(64):
            yield b" " * 65536

    response = client.post("/api/sessions", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert len(client.app.state.store) == 0


def test_server_seeds_come_from_the_os(monkeypatch: pytest.MonkeyPatch) -> None:
    """No fixed default: with the OS generator patched to a constant, two sessions deal alike (so the deal
    comes from it), and unpatched they differ."""
    import cfrlab.web.app as web_app

    monkeypatch.setattr(web_app.secrets, "randbits", lambda bits: 12345)
    client = TestClient(create_app(load_game("leduc")))
    a, b = (client.post("/api/sessions", json={"seat": 0}).json() for _ in range(2))
    assert a["view"] == b["view"]
