"""The OOS agent: its online exploitability (searches along matches, memory reused) falls with the budget, it is
deterministic for a seed, it never reads a hidden card, and it plays from the CLI."""

from __future__ import annotations

import io

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.agents.oos import OOSAgent, online_policy
from cfrlab.eval import exploitability
from cfrlab.game import CHANCE
from cfrlab.registry import load_game
from cfrlab.tree import load_tree


@pytest.mark.parametrize("spec", ["kuhn", "leduc"])
def test_online_exploitability_falls_with_the_budget(spec):
    """Three budgets, three seeds; each search continues from the tables of the player's earlier moves. (Leduc's
    means: 2.38, 2.09, 1.91; with 1,000 samples 1.58, at twice the cost.)"""
    budgets, seeds = (10, 100, 300), (0, 1, 2)
    game = load_game(spec)
    tree = load_tree(game)
    curves = np.array([[exploitability(tree, online_policy(game, tree, b, seed=s)) for b in budgets]
                       for s in seeds])
    mean = curves.mean(axis=0)
    assert np.all(np.diff(mean) < 0), curves
    assert np.all(curves[:, -1] < curves[:, 0]), curves


def _completions(game, state_path):
    """States reached by the same public actions with every other deal of the hidden cards (same infoset)."""
    root = game.new_initial_state()
    target = None
    state = root
    for a in state_path:
        state = state.child(a)
    target = state.information_state_key(state.current_player())
    found = []

    def walk(s, depth):
        if depth == len(state_path):
            if s.current_player() >= 0 and s.information_state_key(s.current_player()) == target:
                found.append(s)
            return
        actions = [a for a, _ in s.chance_outcomes()] if s.current_player() == CHANCE else [state_path[depth]]
        for a in actions:
            if a in s.legal_actions():
                walk(s.child(a), depth + 1)

    walk(root, 0)
    return found


def test_same_seed_same_move_and_hidden_cards_unread(leduc):
    # player 0 holds card 0, the opponent some card; player 0 bets, player 1 ... acts at its infoset
    state = leduc.new_initial_state()
    path = [state.chance_outcomes()[0][0]]
    state = state.child(path[0])
    path.append(state.chance_outcomes()[2][0])
    completions = _completions(leduc, path)
    assert len(completions) >= 2  # the opponent's card differs between them
    moves = set()
    for s in completions:
        agent = OOSAgent(leduc, samples=300)
        moves.add(agent.act(s, np.random.default_rng(4)))
    assert len(moves) == 1
    a1 = OOSAgent(leduc, samples=300).act(completions[0], np.random.default_rng(9))
    a2 = OOSAgent(leduc, samples=300).act(completions[0], np.random.default_rng(9))
    assert a1 == a2


def test_agent_names_and_budget_errors(kuhn):
    assert make_agent("oos:0.01", kuhn).name == "oos:0.01s"
    for bad in ("oos:0", "oos:-1", "oos:abc", "oos:nan"):
        with pytest.raises(ValueError, match="seconds"):
            make_agent(bad, kuhn)
    with pytest.raises(ValueError, match="budget"):
        OOSAgent(kuhn)
    with pytest.raises(ValueError, match="no public states"):  # refused before play, not at the first move
        make_agent("oos:0.1:pst", load_game("random_game"))


def test_play_and_arena_against_oos(capsys, monkeypatch):
    import io

    from cfrlab.cli.main import main

    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n1\n\n1\n1\n1\n"))
    assert main(["play", "kuhn", "--opponent", "oos", "--seconds", "0.02", "--hands", "2", "--seed", "1"]) == 0
    assert "oos" in capsys.readouterr().out
    assert main(["arena", "kuhn", "oos:0.01", "random", "--rounds", "4", "--json"]) == 0
    assert '"agent_a": "oos:0.01s"' in capsys.readouterr().out
    assert main(["play", "kuhn", "--opponent", "random", "--seconds", "1"]) == 2
    assert main(["play", "kuhn", "--opponent", "oos", "--seconds", "-1"]) == 2


def test_play_times_the_oos_opponent_on_the_wall_clock(kuhn, monkeypatch):
    """``cfrlab play --seconds S`` is the time a person waits: the search stops after S wall-clock seconds even
    when it uses no CPU time (a loaded machine); an agent spec counts CPU time unless it says ``wall``."""
    import time

    from cfrlab.agents.base import on_wall_clock
    from cfrlab.cli.main import main

    assert [on_wall_clock(s) for s in ("oos", "oos:0.5", "oos:0.5:pst:match", "oos:match", "oos:0.5:cpu",
                                       "greedy")] == ["oos:wall", "oos:0.5:wall", "oos:0.5:wall:pst:match",
                                                      "oos:wall:match", "oos:0.5:cpu", "greedy"]
    assert make_agent("oos:0.5", kuhn).clock == "cpu" and make_agent("oos:0.5:wall:pst", kuhn).clock == "wall"
    with pytest.raises(ValueError, match="oos:SECONDS"):
        make_agent("oos:0.5:pst:wall", kuhn)  # out of order
    agents = []
    monkeypatch.setattr("cfrlab.agents.opponents.make_agent",
                        lambda name, game: agents.append(make_agent(name, game)) or agents[-1])
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    main(["play", "kuhn", "--opponent", "oos", "--seconds", "0.05", "--hands", "1", "--seed", "1"])
    agent = agents[0]
    assert agent.clock == "wall" and agent.name == "oos:0.05s:wall"
    calls = []

    def idle(n: int) -> None:  # a search step that waits without using CPU time, as on a busy machine
        calls.append(n)
        assert len(calls) < 100, "the wall-clock budget did not stop the search"
        time.sleep(0.01)

    monkeypatch.setattr(agent.solver, "iterate", idle)
    state = kuhn.new_initial_state()
    while state.is_chance_node():
        state = state.child(state.legal_actions()[0])
    start = time.perf_counter()
    agent.action_probabilities(state, np.random.default_rng(0))
    assert 0.05 <= time.perf_counter() - start < 0.5 and 3 <= len(calls) <= 20


def test_online_policy_reuses_the_tables_of_earlier_moves(kuhn):
    """Player 0's move after (pass, bet) is searched from the tables its first move left, as in a match: replaying
    the two searches with one agent gives the policy's row; a fresh agent's single search does not."""
    tree = load_tree(kuhn)
    policy = online_policy(kuhn, tree, 50, seed=3)
    streams = np.random.default_rng(3).integers(0, 2**63 - 1, size=tree.num_infosets)
    first, second = tree.infoset_index("0:J:"), tree.infoset_index("0:J:pb")
    agent = OOSAgent(kuhn, samples=50)
    agent.search("0:J:", 0, np.random.default_rng(int(streams[first])))
    replay = agent.search("0:J:pb", 0, np.random.default_rng(int(streams[second])))
    fresh = OOSAgent(kuhn, samples=50).search("0:J:pb", 0, np.random.default_rng(int(streams[second])))
    row = dict(zip(range(kuhn.max_actions), policy.probs[second]))
    assert replay == pytest.approx(row) and fresh != pytest.approx(row)


def test_online_policy_is_the_same_on_both_paths(kuhn):
    """The numba tree path and the game-protocol path play the same strategy along matches for a seed."""
    tree = load_tree(kuhn)
    fast = online_policy(kuhn, tree, 30, seed=1, path="tree")
    slow = online_policy(kuhn, tree, 30, seed=1, path="generic")
    assert np.array_equal(fast.probs, slow.probs)
