"""Real-game hold'em agents: the fixed rules, and an abstract strategy played on real cards."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.eval import expected_values, exploitability
from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
from cfrlab.games.holdem.players.agents import (
    AbstractionAgent,
    AlwaysRaise,
    HandStrengthAgent,
    abstraction_action_probs,
    strength_now,
)
from cfrlab.games.holdem.rules.cards import parse_card
from cfrlab.games.holdem.rules.game import CALL, FOLD, RAISE
from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
from cfrlab.policy import TabularPolicy
from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.registry import load_game
from cfrlab.tree import load_tree

TINY = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"


def deal(game, text: str):
    state = game.new_initial_state()
    for i in range(0, len(text), 2):
        state = state.child(parse_card(text[i : i + 2], game.ranks, game.suits))
    return state


def test_rule_agents() -> None:
    holdem = load_game("holdem")
    rng = np.random.default_rng(0)
    state = deal(holdem, "AsAd7c2d")  # player 1 (7c 2d) acts first, facing the big blind
    assert strength_now(state, 0) == pytest.approx(1 - 0.5 / 1225)  # only the other two aces (one hand) tie
    assert HandStrengthAgent().act(state, rng) == FOLD  # 7-2 offsuit, facing a bet
    state = state.child(CALL)
    assert HandStrengthAgent().act(state, rng) == RAISE  # aces
    for _ in range(3):
        state = state.child(RAISE)
    assert AlwaysRaise().act(state, rng) == CALL  # capped


def test_abstract_strategy_keeps_its_value_in_the_real_game(tmp_path) -> None:
    """The joint table is exact, so the lifted strategy's self-play value in the real game is the abstract one."""
    real = load_game(TINY)
    abstract = with_abstraction(real, "ehs2:2,2")
    solver = VectorHoldemCFRPlus(abstract).iterate(200)
    agent = AbstractionAgent(abstract, solver.average_policy())
    tree = load_tree(real)
    lifted = tabulate_policy(real, tree, abstraction_action_probs(agent))
    assert expected_values(tree, lifted)[0] == pytest.approx(solver.expected_value(), abs=1e-9)
    assert exploitability(tree, lifted) < exploitability(tree, TabularPolicy.uniform(tree))


def test_cli_arena_in_mbb(capsys, tmp_path) -> None:
    out = tmp_path / "a.npz"
    assert main(["solve", TINY, "--abstraction", "ehs2:2,2", "--algo", "vector-cfr+", "-n", "50", "--out", str(out),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["arena", TINY, f"policy:{out}", "call", "-n", "200"]) == 0
    assert "mb/h" in capsys.readouterr().out
    assert main(["arena", TINY, "policy:" + str(out), "nobody", "-n", "2"]) == 2
    assert main(["arena", "holdem", f"policy:{out}", "call", "-n", "2"]) == 2
    assert "not for holdem" in capsys.readouterr().err


def test_play_and_serve_take_an_abstract_strategy(tmp_path) -> None:
    from cfrlab.agents.opponents import build_opponent

    out = tmp_path / "a.npz"
    assert main(["solve", TINY, "--abstraction", "ehs2:2,2", "--algo", "vector-cfr+", "-n", "20", "--out", str(out),
                 "--quiet"]) == 0
    agent = build_opponent(load_game(TINY), "policy", out)
    assert isinstance(agent, AbstractionAgent)
    state = deal(load_game(TINY), "5c4d")
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
