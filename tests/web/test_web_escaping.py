"""Names from a file reach the web page as text: a crafted ``.efg`` game whose title, players and action labels
carry ``<script>``, quotes, ``&`` and ESC bytes is sent with none of them raw (``cfrlab.web.guards.SafeJSON``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cfrlab.registry import load_game
from cfrlab.web.app import STATIC_DIR, build_opponent, create_app

LABEL = "</script><script>alert('x')</script>\x1b]0;pwned\x07&amp;\u202e"
HOSTILE = f'''EFG 2 R "{LABEL}" {{ "Fred{LABEL}" "Alice" }}
""

c "" 1 "" {{ "Red" 1/2 "Black" 1/2 }} 0
p "" 1 1 "red" {{ "R{LABEL}" "F'" }} 0
t "" 1 "a" {{ 1, -1 }}
t "" 2 "b" {{ -1, 1 }}
p "" 1 2 "black" {{ "R{LABEL}" "F'" }} 0
t "" 3 "c" {{ 1, -1 }}
t "" 4 "d" {{ -1, 1 }}
'''
RAW = ("<", ">", "&", "'", "\x1b", "\x07", "\u202e")


def test_names_from_a_crafted_game_are_sent_as_escaped_text(tmp_path: Path) -> None:
    path = tmp_path / "hostile.efg"
    path.write_text(HOSTILE, encoding="utf-8")
    game = load_game(f"efg:{path}")
    assert game.new_initial_state().child(0).action_to_string(0) == f"R{LABEL}"  # the reader keeps the label
    client = TestClient(create_app(game, build_opponent(game, None, None)))
    answers = [client.get("/api/info")]
    answers.append(client.post("/api/sessions", json={"seat": 0}))
    snap = answers[-1].json()
    assert snap["to_act"] == "you"
    labels = [a["label"] for a in snap["legal_actions"]]
    assert labels[0] == "R</script><script>alert('x')</script>\\x1b]0;pwned\\x07&amp;\\u202e"  # shown, not run
    answers.append(client.post(f"/api/sessions/{snap['session']}/actions", json={"action": 0}))
    for answer in answers:
        assert answer.status_code in (200, 201) and answer.headers["content-type"].startswith("application/json")
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        body = answer.content.decode("utf-8")
        assert not any(char in body for char in RAW), body
        json.loads(body)  # still JSON, the escapes decode to the shown text
    assert answers[-1].json()["log"][-1]["text"] == f"You choose {labels[0]}."  # the log shows it the same way


def test_the_page_renders_names_as_text_only() -> None:
    """The page's script puts what the server sends into the document only as text (``textContent``, ``title``,
    ``value``), never as HTML."""
    script = (STATIC_DIR / "app.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink


def test_error_answers_show_what_the_request_sent_as_text() -> None:
    """FastAPI's and Starlette's own answers (404 of a path or session, 405, 422 of a malformed body or an extra
    field, the Host check's 400) go through ``SafeJSON`` like the API's: a hostile path, key, value or Host header
    comes back escaped (``cfrlab.web.guards.http_error_response``)."""
    from urllib.parse import quote

    game = load_game("kuhn")
    client = TestClient(create_app(game, build_opponent(game, None, None), hosts=("127.0.0.1", "localhost", "::1")),
                        base_url="http://127.0.0.1")
    hostile = quote(LABEL.replace("/", ""), safe="")  # a path segment: the session id or card the route reads
    requests = [
        ("get", f"/api/sessions/{hostile}", {}, 404),
        ("post", f"/api/sessions/{hostile}/actions", {"json": {"action": 0}}, 404),
        ("delete", f"/api/sessions/{hostile}", {}, 404),
        ("get", f"/api/{hostile}", {}, 404),
        ("get", f"/static/{hostile}", {}, 404),
        ("put", "/api/sessions", {}, 405),
        ("post", "/api/sessions", {"content": f'{{"seat": "{LABEL}"'.encode(),
                                   "headers": {"content-type": "application/json"}}, 422),
        ("post", "/api/sessions", {"json": {LABEL: 1}}, 422),
        ("post", "/api/sessions", {"json": {"seat": LABEL}}, 422),
        ("post", "/api/sessions", {"json": {"seat": 0, "opponent": LABEL}}, 400),
        ("get", f"/api/cards/{hostile}.svg", {}, 422),
        ("get", "/api/info", {"headers": {"host": "<script>\x1b&'.example"}}, 400),
    ]
    for method, url, kwargs, status in requests:
        answer = getattr(client, method)(url, **kwargs)
        assert answer.status_code == status, (url, answer.content)
        assert answer.headers["content-type"].startswith("application/json")
        body = answer.content.decode("utf-8")
        assert not any(char in body for char in RAW), (url, body)
        assert json.loads(body)["detail"]
    assert "GET" in client.put("/api/info").headers["allow"]  # the 405's own header is kept
