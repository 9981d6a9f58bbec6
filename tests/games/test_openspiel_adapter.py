"""The OpenSpiel adapter: pyspiel games behave as cfrlab games, with pyspiel's ids and values."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from cfrlab.game import CHANCE, GameDefinitionError, IllegalActionError  # noqa: E402
from cfrlab.games.openspiel import OpenSpielGame, split_key  # noqa: E402
from cfrlab.registry import load_game  # noqa: E402
from cfrlab.testing import check_game  # noqa: E402


def test_load_by_spec_and_info() -> None:
    game = load_game("openspiel:kuhn_poker(players=3)")
    assert isinstance(game, OpenSpielGame)
    assert game.spec() == "openspiel:kuhn_poker(players=3)"
    assert game.num_players == 3
    assert game.info.max_actions == 2
    assert game.info.max_chance_outcomes == 4
    assert game.info.zero_sum
    assert game.information_state_tensor_size() == 3 + 4 + 2 * 5
    # The spec string given whole to the constructor means the same game.
    assert OpenSpielGame("kuhn_poker(players=3)").fingerprint() == game.fingerprint()


def test_values_are_pyspiel_values() -> None:
    game = load_game("openspiel:leduc_poker")
    reference = pyspiel.load_game("leduc_poker")
    state, ref = game.new_initial_state(), reference.new_initial_state()
    for action in [0, 3, 2, 2, 1, 5, 1, 2, 0]:
        assert state.current_player() == ref.current_player()
        assert state.legal_actions() == ref.legal_actions()
        if state.current_player() == CHANCE:
            assert state.chance_outcomes() == [(a, p) for a, p in ref.chance_outcomes()]
        else:
            player = state.current_player()
            assert split_key(state.information_state_key()) == (player, ref.information_state_string(player))
            np.testing.assert_array_equal(state.information_state_tensor(), ref.information_state_tensor(player))
        assert state.action_to_string(action) == ref.action_to_string(ref.current_player(), action)
        state, ref = state.child(action), ref.child(action)
    assert state.is_terminal()
    assert state.returns() == ref.returns() == [-5.0, 5.0]


def test_keys_are_prefixed_so_players_never_share_them() -> None:
    """pyspiel's Kuhn strings do not name the player; the adapter's keys must still be distinct."""
    game = load_game("openspiel:kuhn_poker")
    state = game.new_initial_state().child(0).child(1).child(0)
    assert state.information_state_key(1) == "1:" + state.pyspiel_state.information_state_string(1)
    assert state.information_state_key(0).startswith("0:")
    report = check_game(game)
    assert report.infosets == {0: 6, 1: 6}


def test_child_does_not_mutate_and_illegal_actions_raise() -> None:
    state = load_game("openspiel:kuhn_poker").new_initial_state().child(2).child(0)
    history = list(state.pyspiel_state.history())
    child = state.child(1)
    assert list(state.pyspiel_state.history()) == history
    assert list(child.pyspiel_state.history()) == [*history, 1]
    with pytest.raises(IllegalActionError, match="legal actions: 0=Pass, 1=Bet"):
        state.child(7)
    assert list(state.pyspiel_state.history()) == history


def test_fingerprint_follows_the_pyspiel_game() -> None:
    assert load_game("openspiel:kuhn_poker").fingerprint() == load_game("openspiel:kuhn_poker(players=2)").fingerprint()
    assert load_game("openspiel:kuhn_poker").fingerprint() != load_game("openspiel:kuhn_poker(players=3)").fingerprint()
    assert load_game("openspiel:kuhn_poker").fingerprint() != load_game("kuhn").fingerprint()


@pytest.mark.parametrize(
    "spec",
    [
        "openspiel:kuhn_poker(players=3)",
        "openspiel:leduc_poker",
        "openspiel:liars_dice",
        "openspiel:turn_based_simultaneous_game(game=goofspiel(num_cards=3,imp_info=true))",
    ],
)
def test_wrapped_games_pass_the_conformance_check(spec: str) -> None:
    check_game(load_game(spec), max_states=12_000, playouts=100)


def test_clear_errors() -> None:
    with pytest.raises(GameDefinitionError, match="OpenSpiel could not load 'no_such_game'"):
        load_game("openspiel:no_such_game")
    with pytest.raises(GameDefinitionError, match="turn_based_simultaneous_game"):
        load_game("openspiel:goofspiel")


def test_missing_open_spiel_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` fail
    from cfrlab.extras import install_hint, missing_extra

    with pytest.raises(ImportError) as caught:
        load_game("openspiel:kuhn_poker")
    assert str(missing_extra(caught.value)).endswith(f"{install_hint('pyspiel')}")
    assert "[openspiel]'" in str(install_hint("pyspiel"))
