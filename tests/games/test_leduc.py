"""Leduc hold'em: hand-checked showdowns and folds, raise caps, keys, and parity with OpenSpiel."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, IllegalActionError, State
from cfrlab.games.leduc_state import CALL, FOLD, RAISE
from cfrlab.registry import load_game
from cfrlab.testing import assert_same_game, check_game

# Card ids: rank * suits + suit -> Js=0 Jh=1 Qs=2 Qh=3 Ks=4 Kh=5.
JS, JH, QS, QH, KS, KH = range(6)
F, C, R = FOLD, CALL, RAISE


def play(game: Game, actions: list[int]) -> State:
    state = game.new_initial_state()
    for action in actions:
        state = state.child(action)
    return state


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        # p0 Js, p1 Kh, public Jh: p0 pairs the board and wins the antes.
        ([JS, KH, C, C, JH, C, C], [1.0, -1.0]),
        # p0 Qs, p1 Kh, public Js: no pair, the higher private card (K) wins.
        ([QS, KH, C, C, JS, C, C], [-1.0, 1.0]),
        # Two raises in each round: each puts 1 + 2 + 2 + 4 + 4 = 13; p1's K pairs the public K.
        ([JS, KH, R, R, C, KS, R, R, C], [-13.0, 13.0]),
        # Equal ranks (Js vs Jh) without a pair split the pot whatever was bet.
        ([JS, JH, R, C, QS, C, R, C], [0.0, 0.0]),
        # p0 raises (3 in), p1 folds (1 in): p1 loses its ante.
        ([JS, KH, R, F], [1.0, -1.0]),
        # check, raise, re-raise, fold: p1 put in 3 and folds to p0's 5.
        ([JS, KH, C, R, R, F], [3.0, -3.0]),
        # Round 2 fold: 1 each after round 1, p0 raises 4, p1 folds.
        ([QS, KH, C, C, JH, R, F], [1.0, -1.0]),
        # Round 1 raise-call (3 each), round 2 check, raise, call (7 each); p0's Q pairs the board.
        ([QS, KH, R, C, QH, C, R, C], [7.0, -7.0]),
    ],
)
def test_hand_checked_returns(leduc: Game, history: list[int], expected: list[float]) -> None:
    state = play(leduc, history)
    assert state.current_player() == TERMINAL
    assert state.returns() == expected


def test_deal_and_round_structure(leduc: Game) -> None:
    root = leduc.new_initial_state()
    assert root.current_player() == CHANCE
    assert root.chance_outcomes() == [(c, pytest.approx(1 / 6)) for c in range(6)]
    state = play(leduc, [QH, KS])
    assert state.current_player() == 0
    assert state.legal_actions() == [C, R]  # no fold without a raise to face
    state = state.child(C)
    assert state.current_player() == 1
    state = state.child(C)
    assert state.current_player() == CHANCE  # public card
    assert [a for a, _ in state.chance_outcomes()] == [JS, JH, QS, KH]
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    state = state.child(JH)
    assert state.current_player() == 0  # player 0 opens round 2 as well


def test_raise_cap_per_round(leduc: Game) -> None:
    assert play(leduc, [JS, KH, R]).legal_actions() == [F, C, R]
    assert play(leduc, [JS, KH, R, R]).legal_actions() == [F, C]
    assert play(leduc, [JS, KH, C, R, R]).legal_actions() == [F, C]
    with pytest.raises(IllegalActionError, match="legal actions"):
        play(leduc, [JS, KH, R, R, R])
    # The cap resets in round 2.
    assert play(leduc, [JS, KH, R, R, C, QS, R]).legal_actions() == [F, C, R]
    bigger = load_game("leduc", max_raises=3)
    assert play(bigger, [JS, KH, R, R]).legal_actions() == [F, C, R]
    assert play(bigger, [JS, KH, R, R, R]).legal_actions() == [F, C]
    # 1 + 3 * 2 in round 1, called, then 3 * 4 in round 2: p1's K beats p0's J.
    assert play(bigger, [JS, KH, R, R, R, C, QS, R, R, R, C]).returns() == [-19.0, 19.0]
    assert bigger.info.max_utility == 19.0


def test_keys_are_readable_and_private(leduc: Game) -> None:
    state = play(leduc, [QH, KS, R, C, KH, R])
    assert state.information_state_key(1) == "1:Ks:rc/Kh:r"
    assert state.information_state_key(0) == "0:Qh:rc/Kh:r"
    assert play(leduc, [QH, KS]).information_state_key(0) == "0:Qh:"
    # The opponent's card never shows in a key.
    other = play(leduc, [QH, JS, R, C, KH, R])
    assert other.information_state_key(0) == state.information_state_key(0)
    assert other.information_state_key(1) != state.information_state_key(1)


def test_information_state_tensor_layout(leduc: Game) -> None:
    state = play(leduc, [QH, KS, C, R, C, KH, R])
    tensor = state.information_state_tensor(1)
    assert tensor.shape == (30,) == (leduc.information_state_tensor_size(),)
    expected = np.zeros(30, dtype=np.float32)
    expected[1] = 1  # player 1
    expected[2 + KS] = 1  # private card
    expected[8 + KH] = 1  # public card
    expected[14 + 0] = 1  # round 1: call
    expected[14 + 3] = 1  # round 1: raise
    expected[14 + 4] = 1  # round 1: call
    expected[22 + 1] = 1  # round 2: raise
    np.testing.assert_array_equal(tensor, expected)


def test_parity_with_openspiel_leduc_poker(leduc: Game) -> None:
    """Same histories, actions, chance, returns, infoset partition and tensors as pyspiel."""
    pytest.importorskip("pyspiel")
    reference = load_game("openspiel:leduc_poker")
    assert assert_same_game(leduc, reference, tensors=True) == 9457
    assert leduc.info.max_utility == reference.info.max_utility
    assert leduc.info.min_utility == reference.info.min_utility
    assert leduc.info.max_chance_outcomes == reference.info.max_chance_outcomes


def test_default_tree_size_and_conformance(leduc: Game) -> None:
    report = check_game(leduc)
    assert report.enumerated
    assert report.states == 9457
    assert report.infosets == {0: 468, 1: 468}  # 936 in all, as OpenSpiel


def test_larger_variant_is_conformant() -> None:
    game = load_game("leduc(ranks=4,suits=2,raise_sizes=[1,3],max_raises=1)")
    report = check_game(game)
    assert report.enumerated
    assert game.info.max_chance_outcomes == 8
    assert game.info.max_utility == 5.0
    state = play(game, [6, 7])  # As and Ah
    assert state.information_state_key(0) == "0:As:"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"ranks": 0}, "ranks must be from 1 to 1,000"),
        ({"ranks": 1.5}, "ranks must be a positive integer"),
        ({"ranks": 1, "suits": 2}, "at least 3 cards"),
        ({"raise_sizes": [2]}, "raise_sizes must be two positive numbers"),
        ({"max_raises": -1}, "max_raises must be from 0 to 100"),
        ({"players": 3}, "unknown parameter"),
    ],
)
def test_invalid_parameters(params: dict[str, object], message: str) -> None:
    with pytest.raises(GameDefinitionError, match=message):
        load_game("leduc", **params)
