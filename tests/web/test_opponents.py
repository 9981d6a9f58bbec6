"""The opponent a person meets by default (the family's strongest at a human pace) and the ones the page lets them
pick, at fixed strengths; any other choice is one clear 400."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cfrlab.agents.names import offered
from cfrlab.agents.opponents import default_opponent_name
from cfrlab.game import State
from cfrlab.games.koikoi.ui.terminal import run_play
from cfrlab.registry import load_game
from cfrlab.web.app import build_opponent, create_app
from cfrlab.web.opponents import TIMES


class Tagged:
    """An agent of no kind the menu knows: the server's own opponent."""

    name = "tagged"

    def act(self, state: State, rng: np.random.Generator) -> int:
        return state.legal_actions()[0]


def test_the_default_opponent_is_the_strongest_that_plays_the_game() -> None:
    koikoi, mini = load_game("koikoi"), load_game("koikoi_mini")
    assert default_opponent_name(koikoi) == "cfr:500ms"
    assert default_opponent_name(mini) == "search:500ms"  # the blueprint plays full Koi-Koi only
    assert default_opponent_name(load_game("kuhn")) == "random"
    assert build_opponent(koikoi).name == "cfr:500ms" and build_opponent(mini).name == "search:500ms"


def test_cfrlab_play_koikoi_meets_the_default_and_keeps_opponent() -> None:
    for opponent, shown in ((None, "against cfr:500ms."), ("greedy", "against greedy.")):
        lines: list[str] = []
        run_play("koikoi", opponent, seed=3, input_fn=lambda prompt: "q", print_fn=lines.append)
        assert shown in lines[0]


def test_the_page_offers_the_family_agents_at_fixed_strengths() -> None:
    game = load_game("koikoi")
    client = TestClient(create_app(game, build_opponent(game, "cfr:500ms")))
    info = client.get("/api/info").json()
    rows = {row["kind"]: row for row in info["opponents"]}
    assert info["choice"] == {"kind": "cfr", "strength": "500ms"} and info["opponent"] == "cfr:500ms"
    assert {"random", "greedy", "search", "cfr", "oos"} <= set(rows) <= set(offered(game))
    assert "policy" not in rows  # it needs a file
    assert rows["cfr"]["strengths"] == list(TIMES) and rows["greedy"]["strengths"] == []
    assert rows["oos"]["strengths"] == ["0.1", "0.5", "1"]
    mini = TestClient(create_app(load_game("koikoi_mini"))).get("/api/info").json()
    assert mini["choice"] == {"kind": "search", "strength": "500ms"}
    assert not {"cfr", "blueprint"} & {row["kind"] for row in mini["opponents"]}  # they play full Koi-Koi only


def _session(client: TestClient, **body: Any) -> Any:
    return client.post("/api/sessions", json={"seat": 0, **body})


def test_a_session_plays_the_opponent_picked() -> None:
    game = load_game("koikoi")
    app = create_app(game, build_opponent(game, "greedy"), seed_source=lambda: 1)
    client = TestClient(app)
    for name in ("search:20ms", "random", "greedy", None):
        response = _session(client, opponent=name)
        assert response.status_code == 201, response.text
        snap = response.json()
        assert snap["opponent"] == (name or "greedy")
        session = app.state.store.get(snap["session"])
        assert (session.agent is app.state.agent) == (name in (None, "greedy"))  # a pick gets its own agent
        while not session.finished:  # the picked agent plays the whole round
            snap = client.post(f"/api/sessions/{snap['session']}/actions",
                               json={"action": snap["legal_actions"][0]["id"]}).json()
        assert snap["finished"] and snap["opponent"] == (name or "greedy")


@pytest.mark.parametrize("choice", ["cfr:5000ms", "search:400", "policy:/etc/passwd", "nobody", "cfr", "oos:2",
                                    "search:20ms:match", "x" * 150])
def test_an_opponent_the_page_does_not_offer_is_one_400(choice: str) -> None:
    game = load_game("koikoi")
    client = TestClient(create_app(game, build_opponent(game, "greedy")))
    response = _session(client, opponent=choice)
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("unknown opponent ") and "\n" not in detail and "search:500ms" in detail
    assert len(client.app.state.store) == 0


def test_malformed_opponent_fields_are_one_422() -> None:
    client = TestClient(create_app(load_game("kuhn"), Tagged()))
    for body in ({"opponent": 3}, {"opponent": "y" * 201}, {"opponent": ["random"]}):
        response = _session(client, **body)
        assert response.status_code == 422 and response.json()["detail"].startswith("opponent: ")


def test_the_server_own_opponent_is_the_first_choice() -> None:
    client = TestClient(create_app(load_game("kuhn"), Tagged()))
    info = client.get("/api/info").json()
    assert info["opponents"][0]["kind"] == "tagged" and info["choice"] == {"kind": "tagged", "strength": ""}
    assert [row["kind"] for row in info["opponents"][1:]] == ["random", "oos"]
    assert _session(client, opponent="tagged").json()["opponent"] == "tagged"
    assert _session(client, opponent="oos:0.1").json()["opponent"] == "oos:0.1"
