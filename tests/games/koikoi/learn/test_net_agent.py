"""The ``net`` agent: the policy a weights file's head gives (``neural.act``), over the legal actions, from what the
seat to move knows; its spec's errors in one line; and it plays in the arena."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.agents.base import make_agent
from cfrlab.games.koikoi.neural.features import NUM_FEATURES, encode_state
from cfrlab.games.koikoi.neural.infer import forward_batch
from cfrlab.games.koikoi.neural.weights import random_weights, save_weights
from cfrlab.registry import load_game


@pytest.fixture(scope="module")
def weights():
    return random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(2), 0.4)


def states(game, n: int, seed: int = 0):
    """Decision states of random play."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < n:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng)) if hasattr(s, "sample_chance") else s.child(
                    s.chance_outcomes()[0][0])
                continue
            found.append(s)
            legal = s.legal_actions()
            s = s.child(legal[int(rng.integers(len(legal)))])
    return found[:n]


@pytest.mark.parametrize("head", ["q", "policy"])
def test_the_policy_is_the_heads_over_the_legal_actions(tmp_path, weights, head) -> None:
    save_weights(tmp_path / "w.npz", weights, head=head)
    game = load_game("koikoi")
    agent = make_agent(f"net:{tmp_path / 'w.npz'}", game)
    for s in states(game, 30):
        probs = agent.action_probabilities(s, None)
        legal = s.legal_actions()
        assert sorted(probs) == sorted(legal) and sum(probs.values()) == pytest.approx(1.0)
        idx = encode_state(game.engine, s.es, s.current_player())
        row = np.full((1, 80), -1)
        row[0, :len(idx)] = idx
        logits = forward_batch(weights, row)[1][0][legal]
        if head == "q":
            assert probs[legal[int(np.argmax(logits))]] == 1.0
        else:
            expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
            assert np.allclose([probs[a] for a in legal], expected, atol=1e-6)
        assert agent.act(s, np.random.default_rng(0)) in legal


def test_spec_errors_are_one_clear_error(tmp_path, weights) -> None:
    game = load_game("koikoi")
    with pytest.raises(FileNotFoundError, match="do not exist"):
        make_agent(f"net:{tmp_path / 'missing.npz'}", game)
    save_weights(tmp_path / "odd.npz", weights, head="value")
    with pytest.raises(ValueError, match="head 'value' is not one of q, policy"):
        make_agent(f"net:{tmp_path / 'odd.npz'}", game)
    (tmp_path / "torn.npz").write_bytes(b"PK\x03\x04 torn")
    with pytest.raises(ValueError, match="torn.npz"):
        make_agent(f"net:{tmp_path / 'torn.npz'}", game)
    with pytest.raises(ValueError, match="plays Koi-Koi only"):
        make_agent(f"net:{tmp_path / 'odd.npz'}", load_game("kuhn"))


def test_it_plays_in_the_arena_command(tmp_path, weights, capsys) -> None:
    from cfrlab.cli.main import main

    save_weights(tmp_path / "weights.npz", weights, head="q")
    assert main(["arena", "koikoi_mini", f"net:{tmp_path}", "greedy", "-n", "4"]) == 0
    assert "net:" in capsys.readouterr().out
    assert main(["arena", "koikoi", "net:", "greedy", "-n", "1"]) == 2
    assert "needs a path" in capsys.readouterr().err


def test_it_plays_a_round_on_the_web_page(tmp_path, weights) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from cfrlab.web.app import create_app

    save_weights(tmp_path / "weights.npz", weights, head="policy")
    game = load_game("koikoi")
    client = TestClient(create_app(game, make_agent(f"net:{tmp_path}", game)))
    snap = client.post("/api/sessions", json={"seat": 1}).json()
    for _ in range(80):
        if snap["finished"]:
            break
        snap = client.post(f"/api/sessions/{snap['session']}/actions",
                           json={"action": snap["legal_actions"][0]["id"]}).json()
    assert snap["finished"] and snap["opponent"] == f"net:{tmp_path}"
