"""The OOS agent on full Koi-Koi rounds (through the conditioned deal): it never reads a hidden card, the same
seed gives the same move, and it plays from the CLI."""

from __future__ import annotations

import io

import numpy as np
import pytest

from cfrlab.agents.oos import OOSAgent
from cfrlab.games.koikoi.rules.observation import observation, state_from_observation
from cfrlab.registry import load_game
from tests.solvers.oos_reference import random_decision as _decision


def test_another_completion_of_the_hidden_cards_gives_the_same_move():
    game = load_game("koikoi")
    state = _decision(game, 7, earlier=5)
    player = state.current_player()
    other = state_from_observation(observation(state, player), game.rules, rng=3)
    assert other.information_state_key(player) == state.information_state_key(player)
    assert other.es.hands[1 - player] != state.es.hands[1 - player]  # the opponent holds other cards there
    agents = [OOSAgent(game, samples=60) for _ in range(2)]
    moves = {agent.act(s, np.random.default_rng(11)) for agent, s in zip(agents, (state, other))}
    assert len(moves) == 1 and moves <= set(state.legal_actions())
    key = state.information_state_key(player)  # the whole search agrees, not only the move drawn from it
    assert agents[0].solver.policy_at(key) == agents[1].solver.policy_at(key)
    assert agents[0].solver.path == "koikoi"  # the numba walk (``games.koikoi.solvers.oos_walk``)
    tables = [agent.solver.regret_table() for agent in agents]
    assert tables[0].keys() == tables[1].keys() and all(np.array_equal(tables[0][k], tables[1][k]) for k in tables[0])


def test_oos_searches_koikoi_and_keeps_its_tables():
    game = load_game("koikoi")
    agent = OOSAgent(game, samples=40)
    state = _decision(game, 1, earlier=2)
    player = state.current_player()
    probs = agent.search(state.information_state_key(player), player, np.random.default_rng(0))
    assert set(probs) == set(state.legal_actions()) and abs(sum(probs.values()) - 1.0) < 1e-9
    stored = len(agent.solver.regret_table())
    assert stored > 1
    rng = np.random.default_rng(2)
    while True:  # a later decision of the same round
        state = state.child(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[-1])
        if not state.is_chance_node() and len(state.legal_actions()) >= 2:
            break
    agent.act(state, np.random.default_rng(0))
    assert len(agent.solver.regret_table()) > stored  # the next move adds to the same tables


def test_play_and_arena_koikoi_against_oos(capsys, monkeypatch):
    from cfrlab.cli.main import main

    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 40))
    assert main(["play", "koikoi", "--opponent", "oos", "--seconds", "0.02", "--seed", "1"]) == 0
    assert "oos:0.02s" in capsys.readouterr().out
    assert main(["arena", "koikoi", "oos:0.02", "greedy", "--rounds", "1", "--json"]) == 0
    assert '"agent_a": "oos:0.02s"' in capsys.readouterr().out


def test_the_web_page_plays_koikoi_against_oos():
    pytest.importorskip("fastapi")
    from tests.web.test_api import act, client_for, start

    client = client_for("koikoi", OOSAgent(load_game("koikoi"), samples=20))
    snap = start(client, seat=1, seed=4)  # the oos agent is oya: it has moved before the first answer
    for _ in range(6):
        if snap["finished"]:
            break
        snap = act(client, snap, snap["legal_actions"][0]["id"])
    assert snap["finished"] or snap["legal_actions"]


def test_oos_with_the_network_beyond_its_tree_reads_no_hidden_card_and_cuts_its_passes():
    """``KoiKoiSearch.set_evaluator``: the passes stop where they leave the stored tree and take the network's value
    there; the search stays a function of the player's information and the seed, and its passes are shorter."""
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES
    from cfrlab.games.koikoi.neural.weights import random_weights

    net = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(0), 0.2)
    game = load_game("koikoi")
    state = _decision(game, 7, earlier=5)
    player = state.current_player()
    other = state_from_observation(observation(state, player), game.rules, rng=3)
    agents = [OOSAgent(game, samples=200) for _ in range(3)]
    for agent in agents[:2]:
        agent.solver.store.set_evaluator(net)
    key = state.information_state_key(player)
    moves = [agent.act(s, np.random.default_rng(11)) for agent, s in zip(agents, (state, other, state))]
    assert moves[0] == moves[1] and agents[0].solver.policy_at(key) == agents[1].solver.policy_at(key)
    assert agents[0].solver.policy_at(key) != agents[2].solver.policy_at(key)
    assert agents[0].solver.nodes_visited < 0.8 * agents[2].solver.nodes_visited
    agents[0].solver.store.set_evaluator(None)
    assert not agents[0].solver.store.round.cut
    match = OOSAgent(load_game("koikoi(rounds=12)"), samples=10, objective="match")
    match.act(_decision(load_game("koikoi(rounds=12)"), 2, earlier=2), np.random.default_rng(0))
    with pytest.raises(ValueError, match="match-win probability"):
        match.solver.store.set_evaluator(net)
