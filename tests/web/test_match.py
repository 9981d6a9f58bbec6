"""Matches on the web page: Koi-Koi over N rounds (match score, STOP value, round summaries) and poker sessions of
N hands with a running total and its 95 % interval."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")

from fastapi.testclient import TestClient

from cfrlab.registry import load_game
from cfrlab.web.app import build_opponent, create_app


def _client(spec: str, seed: int = 0, **kwargs: Any) -> TestClient:
    """A client of the page for ``spec``, Koi-Koi against ``greedy`` (a decision in a few microseconds)."""
    game = load_game(spec)
    opponent = build_opponent(game, "greedy" if spec.startswith("koikoi") else None)
    return TestClient(create_app(game, opponent, seed_source=lambda: seed, **kwargs))


def _post(client: TestClient, path: str, body: dict[str, Any] | None = None, status: int = 200) -> dict[str, Any]:
    response = client.post(path, json=body or {})
    assert response.status_code == status, response.text
    return response.json()


def test_koikoi_match_reports_stop_values_round_summaries_and_the_match_score() -> None:
    client = _client("koikoi(rounds=6)", seed=0)  # a deal sequence with STOP decisions for seat 0
    snap = _post(client, "/api/sessions", {"seat": 0}, status=201)
    session = client.app.state.store.get(snap["session"])
    decisions = 0
    while not snap["finished"]:
        view = snap["view"]
        assert view["rounds"] == 6 and view["totals"] == [session.state.es.totals[0], session.state.es.totals[1]]
        labels = [a["label"] for a in snap["legal_actions"]]
        if view["stop_value"] is not None:  # the decision says what stopping scores, as the engine would pay it
            es, eng = session.state.es, session.game.engine
            paid = eng.scorer.round_points(eng.score(es, 0), es.calls[0], es.calls[1], es.field_brights)
            assert view["stop_value"]["points"] == paid and f"STOP 勝負: score {paid} now" in labels
            assert "KOI-KOI こいこい: play on for more" in labels
            decisions += 1
        snap = _post(client, f"/api/sessions/{snap['session']}/actions", {"action": snap["legal_actions"][0]["id"]})
    ends = [e["text"] for e in snap["log"] if re.match(r"Round \d+ over\.", e["text"])]
    assert len(ends) == 6
    totals = session.state.es.totals
    assert ends[-1].endswith(f"Match score: you {totals[0]}, the opponent {totals[1]}.")
    assert snap["view"]["last_round"]["round"] == 6 and snap["view"]["last_round"]["totals"] == list(totals)
    assert any(e["text"].startswith(("You capture", "The opponent captures")) for e in snap["log"])
    # the match's end gives the match score and does not repeat the last round's line (the page shows that apart)
    result = snap["result"]["text"]
    assert result.startswith(f"The match is over: you {totals[0]}, the opponent {totals[1]}. ")
    assert snap["view"]["last_round"]["text"] not in result
    assert snap["words"] == ["match", "matches"] and client.get("/api/info").json()["words"] == ["match", "matches"]
    assert decisions > 0


@pytest.mark.parametrize(("spec", "words"), [("koikoi", ["round", "rounds"]), ("kuhn", ["hand", "hands"])])
def test_the_page_names_what_a_session_plays(spec: str, words: list[str]) -> None:
    """A Koi-Koi session plays rounds (or matches), never hands; a single round's end says how it was scored."""
    client = _client(spec)
    assert client.get("/api/info").json()["words"] == words
    snap = _post(client, "/api/sessions", {"seat": 0}, status=201)
    assert snap["words"] == words
    while not snap["finished"]:
        snap = _post(client, f"/api/sessions/{snap['session']}/actions", {"action": snap["legal_actions"][0]["id"]})
    if spec == "koikoi":
        assert snap["view"]["last_round"]["text"] in snap["result"]["text"]


def test_poker_session_of_n_hands_with_interval() -> None:
    client = _client("kuhn", hands=3)
    assert client.get("/api/info").json()["hands"] == 3
    snap = _post(client, "/api/sessions", {"seat": 0}, status=201)
    for hand in range(1, 4):
        while not snap["finished"]:
            snap = _post(client, f"/api/sessions/{snap['session']}/actions", {"action": snap["legal_actions"][0]["id"]})
        assert snap["hands"] == 3 and snap["score"]["hands"] == hand and snap["session_over"] == (hand == 3)
        if hand < 3:
            snap = _post(client, f"/api/sessions/{snap['session']}/hands")
    score = snap["score"]
    assert score["low"] <= score["mean"] <= score["high"]
    refused = client.post(f"/api/sessions/{snap['session']}/hands", json={})
    assert refused.status_code == 409 and "session of 3 hands is over" in refused.json()["detail"]
