"""Koi-Koi on the web API: no response carries the opponent's hand, and a missing view module is named (the API
itself: tests/web/test_api.py)."""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi")

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.registry import load_game
from cfrlab.web.app import build_opponent, create_app
from cfrlab.web.views import UnsupportedGameError
from tests.web.test_api import AlwaysBet, act, client_for, server_state, start


def test_koikoi_responses_never_carry_the_opponent_hand() -> None:
    client = client_for("koikoi", build_opponent(load_game("koikoi"), "greedy"))
    rng = np.random.default_rng(5)
    for seed, seat in ((0, 0), (1, 1)):
        snap = start(client, seat=seat, seed=seed)
        labels = {a["label"] for a in snap["legal_actions"]}
        assert snap["finished"] or any(label.startswith("Play ") for label in labels)
        steps = 0
        while True:
            state: Any = server_state(client, snap)
            opp_hand = C.cards_of(state.es.hands[1 - seat])
            text = json.dumps(snap)
            ids = {c["id"] for key in ("hand", "field", "pile", "opponent_pile") for c in snap["view"][key]}
            for card in opp_hand:
                assert C.NAME_EN[card] not in text, (C.NAME_EN[card], steps)
                assert card not in ids
            assert "Deal#" not in text
            assert snap["view"]["opponent_hand_size"] == len(opp_hand)
            if snap["finished"]:
                break
            snap = act(client, snap, int(rng.choice([a["id"] for a in snap["legal_actions"]])))
            steps += 1
        assert snap["result"]["returns"] == state.returns() and sum(state.returns()) == 0
        assert snap["result"]["text"]


def test_koikoi_without_the_view_module_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cfrlab.games.koikoi.rules.view", None)  # import now raises ImportError
    with pytest.raises(UnsupportedGameError, match="needs the player's view module"):
        create_app(load_game("koikoi"), AlwaysBet())
