"""Limit hold'em: hand-checked hands, the protocol on small variants, and parity with OpenSpiel's universal_poker."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, State
from cfrlab.games.holdem.rules.cards import parse_card
from cfrlab.games.holdem.rules.game import CALL, FOLD, RAISE
from cfrlab.games.openspiel import OpenSpielGame
from cfrlab.registry import load_game
from cfrlab.testing import assert_same_game, check_game

F, C, R = FOLD, CALL, RAISE
TINY = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"
SMALL = "holdem(ranks=6,suits=3,board_cards=[0,2,1],raise_sizes=[10,20,20],max_raises=[2,2,3])"


def cards(text: str) -> list[int]:
    """``"AsKs"`` -> the full deck's card ids."""
    return [parse_card(text[i : i + 2], 13, 4) for i in range(0, len(text), 2)]


def play(game: Game, actions: list[int]) -> State:
    state = game.new_initial_state()
    for action in actions:
        state = state.child(action)
    return state


@pytest.fixture(scope="module")
def holdem() -> Game:
    return load_game("holdem")


@pytest.mark.parametrize(
    ("deal", "betting", "expected"),
    [
        # The small blind (player 1) folds at once: it loses its 5.
        ("AsKs2c7d", [F], [5.0, -5.0]),
        # Limp, check; four checked rounds; the aces win the 10 each put in.
        ("AsAd2c7d" + "Kh9c3s" + "5h" + "Jd", [C, C, C, C, C, C, C, C], [10.0, -10.0]),
        # Capped pre-flop (SB raises, BB, SB, BB re-raise: 4 bets = 40 each), then a flop bet and fold.
        ("2c7dAsAd" + "Kh9c3s", [R, R, R, C, R, F], [40.0, -40.0]),
        # A flush for player 1 on the river beats player 0's two pair; one big bet on the river, called.
        ("AsKd2h7h" + "AhKc9h" + "3h" + "4c", [C, C, C, C, C, C, R, C], [-30.0, 30.0]),
        # Same straight (board 5-9) for both: the pot splits.
        ("2c3d2h3h" + "5s6s7d" + "8c" + "9h", [C, C, R, C, C, C, C, C], [0.0, 0.0]),
    ],
)
def test_hand_checked_returns(holdem: Game, deal: str, betting: list[int], expected: list[float]) -> None:
    state = play(holdem, cards(deal[:8]))
    board = cards(deal[8:])
    for action in betting:
        while state.current_player() == CHANCE:
            state = state.child(board.pop(0))
        state = state.child(action)
    assert state.current_player() == TERMINAL
    assert state.returns() == expected


def test_blinds_order_and_caps(holdem: Game) -> None:
    state = play(holdem, cards("AsKs2c7d"))
    assert state.current_player() == 1 and state.contributions() == [10.0, 5.0]
    assert state.legal_actions() == [F, C, R]  # the small blind faces the big blind
    state = state.child(C)
    assert state.current_player() == 0 and state.legal_actions() == [C, R]  # no fold without a bet to face
    for _ in range(3):  # three raises after the big blind: 4 bets, the cap
        state = state.child(R)
    assert state.legal_actions() == [F, C] and state.contributions() == [40.0, 30.0]
    state = state.child(C)
    assert state.current_player() == CHANCE
    state = play(holdem, [*cards("AsKs2c7d"), C, C, *cards("Kh9c3s")])
    assert state.current_player() == 0  # the big blind opens after the flop
    assert state.information_state_key(0) == "0:AsKs/:cc/Kh9c3s:"
    assert state.information_state_key(1) == "1:7d2c/:cc/Kh9c3s:"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"ranks": 14}, "ranks"),
        ({"board_cards": [0, 3], "raise_sizes": [10]}, "one entry per round"),
        ({"ranks": 2, "suits": 2}, "deck"),
        ({"blinds": [10]}, "blinds"),
        ({"board_cards": [0, 3, 1, 2], "max_raises": [3, 4, 4, 4]}, "at most 7"),
    ],
)
def test_bad_parameters(params: dict[str, object], message: str) -> None:
    with pytest.raises(GameDefinitionError, match=message):
        load_game("holdem", **params)


def test_small_variant_passes_check_game() -> None:
    report = check_game(load_game(SMALL), max_states=5_000, playouts=100)
    assert report.states > 5_000


def test_tiny_variant_tree_size() -> None:
    report = check_game(load_game(TINY), max_states=20_000)
    assert report.enumerated and report.infosets == {0: 352, 1: 352}


def openspiel_twin(game: Game) -> OpenSpielGame:
    return OpenSpielGame("universal_poker", **game.universal_poker_params())


@pytest.mark.parametrize(("spec", "deals"), [(TINY, 8), (SMALL, 8), ("holdem", 1)])
def test_same_as_universal_poker_on_random_deals(spec: str, deals: int) -> None:
    """Every betting sequence of a random deal: players, legal actions, returns, infoset partition."""
    game = load_game(spec)
    twin = openspiel_twin(game)
    for seed in range(deals):
        assert assert_same_game(game, twin, deal_rng=seed, max_states=10**6) > 0


def spent(os_state: State) -> list[float]:
    """The chips each player has put in, from pyspiel's state text (``Spent: [P0: 10  P1: 5  ]``)."""
    match = re.search(r"Spent: \[P0: (\d+)\s+P1: (\d+)", str(os_state.pyspiel_state))
    assert match, str(os_state)
    return [float(match.group(1)), float(match.group(2))]


@pytest.mark.parametrize(("spec", "hands"), [(TINY, 300), (SMALL, 300), ("holdem", 400)])
def test_pot_and_returns_match_universal_poker_on_random_hands(spec: str, hands: int) -> None:
    """Random deals and random play, with few folds so most hands reach the showdown."""
    game = load_game(spec)
    twin = openspiel_twin(game)
    rng = np.random.default_rng(7)
    showdowns = 0
    for _ in range(hands):
        mine, theirs = game.new_initial_state(), twin.new_initial_state()
        while not mine.is_terminal():
            legal = mine.legal_actions()
            assert legal == theirs.legal_actions()
            if mine.current_player() != CHANCE:
                assert mine.contributions() == spent(theirs)
                weights = np.array([0.05 if a == F else 1.0 for a in legal])
                action = legal[int(rng.choice(len(legal), p=weights / weights.sum()))]
            else:
                action = legal[int(rng.integers(len(legal)))]
            mine, theirs = mine.child(action), theirs.child(action)
        assert theirs.is_terminal()
        assert mine.returns() == theirs.returns()
        showdowns += not mine.folded()
    assert showdowns > hands // 2
