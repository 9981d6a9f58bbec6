"""Games of no family (a Gambit .efg file) play on the web page and in the terminal through ``GenericView``:
the player sees their information-state key, their own moves by name, and never another player's move."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cfrlab.cli.table_game import run_table_game
from cfrlab.registry import load_game
from cfrlab.web.app import build_opponent, create_app

POKER = Path(__file__).parent.parent / "data" / "one_card_poker.efg"


def test_an_efg_game_plays_on_the_web_page_showing_only_the_seats_information():
    game = load_game(f"efg:{POKER}")
    client = TestClient(create_app(game, build_opponent(game, None, None)))
    for seed in range(50):  # a deal where random Fred raises, so that Alice acts
        client.app.state.seed_source = lambda: seed
        snap = client.post("/api/sessions", json={"seat": 1}).json()
        assert snap["family"] == "generic"
        if snap["to_act"] == "you":
            break
        assert snap["finished"] and snap["view"] == {"information": None} and \
            snap["result"]["your_return"] in (-1.0, 1.0)
    assert snap["view"] == {"information": "1:1"}  # Alice's one infoset: Fred's card is not shown
    assert [a["label"] for a in snap["legal_actions"]] == ["Meet", "Pass"]
    texts = [e["text"] for e in snap["log"]]
    assert texts == ["Chance moves.", "Player 1 moves."]  # neither the card nor Fred's move is named
    done = client.post(f"/api/sessions/{snap['session']}/actions", json={"action": 0}).json()
    assert done["finished"] and done["log"][-1]["text"] == "You choose Meet."
    assert done["result"]["your_return"] in (-2.0, 2.0)


def test_an_efg_game_plays_in_the_terminal():
    lines: list[str] = []
    answers = iter(["1", "q"])
    run_table_game(f"efg:{POKER}", seat=0, hands=1, seed=1, input_fn=lambda prompt: next(answers),
                   print_fn=lines.append)
    text = "\n".join(lines)
    assert "information: 0:" in text and "You choose Raise." in text and "Score:" in text
