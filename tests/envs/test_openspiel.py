"""OpenSpiel both ways: a native game's strategy as its OpenSpiel twin's ``TabularPolicy`` (pyspiel's exploitability
equal to cfrlab's), any cfrlab game registered as an OpenSpiel Python game (OpenSpiel's CFR agreeing with cfrlab's),
and refusals whose suggestions work."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from cfrlab.envs.openspiel import register_in_openspiel  # noqa: E402
from cfrlab.eval import exploitability  # noqa: E402
from cfrlab.game import GameDefinitionError  # noqa: E402
from cfrlab.registry import load_game  # noqa: E402
from cfrlab.solvers.cfr import AlternatingCFR, CFRPlus  # noqa: E402
from cfrlab.tree import load_tree  # noqa: E402

SMALL_HOLDEM = "holdem(ranks=3,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[2,4],max_raises=[1,1])"


@pytest.mark.parametrize("spec", ["leduc", "kuhn", "kuhn(players=3)", SMALL_HOLDEM])
def test_native_strategies_evaluate_in_pyspiel_at_cfrlabs_exploitability(spec: str) -> None:
    from open_spiel.python.algorithms import exploitability as os_exploitability

    game = load_game(spec)
    policy = CFRPlus(game).iterate(25).average_policy()
    os_policy = policy.to_openspiel(game=game)  # the twin: leduc_poker, kuhn_poker, universal_poker
    assert os_policy.game.get_type().short_name == game.openspiel_twin()[0]
    theirs = os_exploitability.nash_conv(os_policy.game, os_policy) / game.num_players
    assert theirs == pytest.approx(exploitability(load_tree(game), policy), abs=1e-12)


def test_a_native_strategy_without_its_game_says_what_to_pass() -> None:
    game = load_game("leduc")
    policy = CFRPlus(game).iterate(2).average_policy()
    with pytest.raises(KeyError, match="game=GAME"):
        policy.to_openspiel(pyspiel.load_game("leduc_poker"))
    with pytest.raises(ValueError, match="no game equal"):
        policy.to_openspiel(game=load_game("leduc(ranks=4)"))


def test_openspiels_cfr_on_a_registered_cfrlab_game_agrees_with_cfrlabs() -> None:
    game = load_game("kuhn")
    os_game = pyspiel.load_game(register_in_openspiel(game))
    assert register_in_openspiel(game) == "cfrlab_kuhn"  # registering again: the same name
    for os_cls, ours in ((pyspiel.CFRSolver, AlternatingCFR(game)),
                         (pyspiel.CFRPlusSolver, CFRPlus(game, average_in="own"))):
        theirs = os_cls(os_game)
        for _ in range(20):
            theirs.evaluate_and_update_policy()
        ours.iterate(20)
        mine, average = ours.average_policy(), theirs.average_policy()
        for key in mine.keys:
            row = mine.action_probabilities(key)
            got = dict(average.get_state_policy(key))
            assert max(abs(got[a] - p) for a, p in row.items()) < 1e-12, key
        assert pyspiel.nash_conv(os_game, average) / 2 == pytest.approx(
            exploitability(load_tree(game), mine), abs=1e-12)


def test_a_registered_game_keeps_cfrlabs_states() -> None:
    os_game = pyspiel.load_game(register_in_openspiel("leduc"))
    state = os_game.new_initial_state()
    for action in (0, 3, 1, 2):
        state.apply_action(action)
    native = load_game("leduc").new_initial_state().child(0).child(3).child(1).child(2)
    assert state.information_state_string(0) == native.information_state_key(0)
    np.testing.assert_array_equal(state.information_state_tensor(1), native.information_state_tensor(1))
    assert state.legal_actions() == native.legal_actions()
    with pytest.raises(ValueError, match="already has a game"):
        register_in_openspiel("kuhn(players=3)", short_name="cfrlab_leduc")


def test_refusals_suggest_only_what_works() -> None:
    with pytest.raises(GameDefinitionError) as simultaneous:
        load_game("openspiel:goofspiel(num_cards=3,imp_info=true)")
    suggested = str(simultaneous.value).split('load_game("', 1)[1].split('")', 1)[0]
    assert load_game(suggested).num_players == 2
    with pytest.raises(GameDefinitionError, match="mean-field") as mean_field:
        load_game("openspiel:mfg_crowd_modelling")
    assert "load_game(" not in str(mean_field.value)
