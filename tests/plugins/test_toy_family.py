"""A third party's game family plugs in through ``register_family`` alone: its game loads by name, its heuristic
agent by name, and a person plays it against that agent in the terminal (`cfrlab play`) and on the web page."""

from __future__ import annotations

import io
import re
import sys

import pytest

from cfrlab import registry
from cfrlab.registry import register_family


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> object:
    """The toy family registered for one test; the registry's tables restored after it."""
    registry.list_games()
    for table in ("_REGISTRY", "_families_loaded", "_family_of_game", "FAMILIES"):
        monkeypatch.setattr(registry, table, type(getattr(registry, table))(getattr(registry, table)))
    from toy_family import FAMILY

    register_family(FAMILY)
    return FAMILY


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).parent))


def test_the_family_brings_its_game_and_agent(toy: object) -> None:
    from cfrlab.agents import make_agent
    from cfrlab.registry import family_of, load_game

    game = load_game("takeaway")
    assert "takeaway" in registry.list_games() and family_of(game) is toy
    assert make_agent("sly", game).name == "sly" and make_agent("random", game).name == "random"
    with pytest.raises(ValueError, match="no sly agent for game 'kuhn': the sly agent plays Take-away only"):
        make_agent("sly", load_game("kuhn"))
    with pytest.raises(ValueError, match=r"unknown agent 'genius'; choose random, sly, oos\[:SECONDS\] or policy"):
        make_agent("genius", game)


def test_play_it_in_the_terminal(toy: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from cfrlab.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 10))
    assert main(["play", "takeaway", "--hands", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "Take-away against sly." in out and "The dealer sets a pile of" in out
    # taking 1 stone each time against sly loses every pile of 4, 5 or 6 (sly leaves 3, then takes the rest)
    assert len(re.findall(r"You lose 1 chip\.", out)) == 2 and "You win" not in out
    assert main(["play", "takeaway", "--rounds", "3"]) == 2


def test_play_it_on_the_web_page(toy: object) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from cfrlab.registry import load_game
    from cfrlab.web.app import create_app

    client = TestClient(create_app(load_game("takeaway")))
    client.app.state.seed_source = lambda: 1
    snap = client.post("/api/sessions", json={"seat": 0}).json()
    assert snap["family"] == "takeaway" and "stones_left" in snap["view"]
    while not snap["finished"]:
        assert [a["label"] for a in snap["legal_actions"]][:1] == ["take 1"]
        snap = client.post(f"/api/sessions/{snap['session']}/actions", json={"action": 1}).json()
    assert snap["log"][0]["text"].startswith("The dealer sets a pile of")
    assert snap["result"]["your_return"] == -1.0 and snap["result"]["text"] == "You lose 1 chip."
