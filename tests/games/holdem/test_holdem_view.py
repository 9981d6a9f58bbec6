"""Limit hold'em on the web page and in the terminal: own hole cards, the board round by round, blinds, and the
opponent's cards only at a showdown."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from cfrlab.games.holdem.rules.cards import card_name
from cfrlab.registry import load_game
from cfrlab.web.app import create_app

SPEC = "holdem(ranks=6,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"


def test_holdem_hands_never_show_the_opponent_cards_before_a_showdown() -> None:
    game = load_game(SPEC)
    showdowns = 0
    rng = np.random.default_rng(0)
    for seed in range(16):
        client = TestClient(create_app(game, seed_source=lambda: seed))
        snap = client.post("/api/sessions", json={"seat": seed % 2}).json()
        state = client.app.state.store.get(snap["session"]).state
        hidden = card_name(state.hole(1 - snap["seat"])[0], game.suits)
        said = hidden[:-1] + {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}[hidden[-1]]  # as in sentences
        while True:
            text = str({k: v for k, v in snap.items() if k != "session"})
            if snap["finished"] and snap["result"]["showdown"]:
                assert said in snap["result"]["text"] and hidden not in snap["result"]["text"]
                showdowns += 1
                break
            assert f"'{hidden}'" not in text and f" {hidden}" not in text and f" {said}" not in text, text
            if snap["finished"]:
                break
            assert snap["view"]["your_cards"] and snap["view"]["rounds"] == 2
            action = int(rng.choice([a["id"] for a in snap["legal_actions"]]))
            snap = client.post(f"/api/sessions/{snap['session']}/actions", json={"action": action}).json()
    assert showdowns > 0


def test_play_holdem_in_the_terminal() -> None:
    from cfrlab.cli.table_game import run_table_game

    lines: list[str] = []
    score = run_table_game(SPEC, seat=1, hands=2, seed=3, input_fn=lambda prompt: "c", print_fn=lines.append)
    text = "\n".join(lines)
    assert score["hands"] == 2 and "Your card: " in text and "small blind" in text


def test_the_abstract_game_is_refused_with_the_real_game_to_name(capsys) -> None:
    """``serve``/``play`` of ``holdem_ehs2``: one line naming the real game, on which its strategy plays."""
    from cfrlab.cli.main import main

    abstract = SPEC.replace("holdem(", "holdem_ehs2(buckets=2,")
    assert main(["play", abstract]) == 2
    err = capsys.readouterr().err
    assert "plays the real game (holdem)" in err and f"name the real game, {load_game(SPEC).spec()!r}" in err
    assert "Traceback" not in err
