"""A third party's game family plugs in through ``register_family`` alone: its game loads by name, its heuristic
agent by name, and a person plays it against that agent in the terminal (`cfrlab play`) and on the web page."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
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
    with pytest.raises(ValueError, match=r"unknown agent 'genius'; choose random, sly, mc\[:N\], oos\[:SECONDS\] or "
                                         "policy"):
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


def test_an_outside_option_and_agent_kind_reach_the_commands(toy: object, capsys: pytest.CaptureFixture) -> None:
    """The family's ``mc[:N]`` agent and its ``--playouts`` option of ``arena`` and ``play``: listed by ``-h`` and
    ``cfrlab agents``, set into the agent's spec, refused for another family's game and where it changes nothing."""
    import json

    from cfrlab.cli.main import main

    assert main(["arena", "takeaway", "mc", "sly", "--playouts", "7", "-n", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agent_a"] == "mc:7"
    assert main(["arena", "takeaway", "mc:3", "random", "-n", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agent_a"] == "mc:3"
    for command in ("arena", "play"):
        assert main([command, "-h"]) == 0
        assert "--playouts" in capsys.readouterr().out
    assert main(["agents", "takeaway"]) == 0
    listed = capsys.readouterr().out
    assert "mc[:N]  random playouts per action" in listed and "filled in by --playouts" in listed
    for args, says in ((["arena", "kuhn", "random", "random", "--playouts", "3"], "--playouts is an option of "
                        "Take-away games, not of kuhn"),
                       (["arena", "takeaway", "mc:3", "sly", "--playouts", "5"], "would change no agent"),
                       (["arena", "takeaway", "mc:0", "sly"], "mc[:N] needs a positive number of playouts"),
                       (["arena", "takeaway", "sly:3", "mc"], "unknown agent 'sly:3'; sly takes no options")):
        assert main([*args, "-n", "1"]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, (args, err)


def test_the_mc_agent_plays_from_its_playouts(toy: object) -> None:
    """With enough playouts ``mc`` leaves a multiple of 3 from a pile of 4: played on at random, taking 1 wins 3/4 of
    the time and taking 2 half of it."""
    from cfrlab.agents import make_agent
    from cfrlab.registry import load_game

    game = load_game("takeaway")
    state = game.new_initial_state().child(4)
    agent = make_agent("mc:400", game)
    assert agent.playouts == 400 and [agent.act(state, np.random.default_rng(s)) for s in range(3)] == [1, 1, 1]


def test_an_outside_prepare_and_refusal_reach_solve(toy: object, capsys: pytest.CaptureFixture) -> None:
    """``solve`` runs the family's ``prepare`` before its work and asks its ``refusal`` first: one line, exit
    code 2, for an algorithm the family turns away; nothing prepared then."""
    from cfrlab.cli.main import main

    assert main(["solve", "takeaway", "-n", "5", "--no-eval"]) == 0
    assert "Take-away: the mover wins the piles [1, 2, 4, 5]" in capsys.readouterr().err  # the progress console
    assert main(["solve", "takeaway", "-a", "outcome", "-n", "5", "--no-eval"]) == 2
    captured = capsys.readouterr()
    assert "has 20 nodes: solve it exactly with a full-tree algorithm (cfr+), not outcome" in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and "the mover wins" not in captured.err
