"""Kuhn poker, 2 and 3 players: hand-checked returns, keys, and parity with OpenSpiel's kuhn_poker."""

from __future__ import annotations

import pytest

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, State
from cfrlab.games.kuhn import BET, PASS
from cfrlab.registry import load_game
from cfrlab.testing import assert_same_game, check_game

P, B = PASS, BET
J, Q, K, A = range(4)


def play(game: Game, cards: list[int], actions: list[int]) -> State:
    state = game.new_initial_state()
    for action in [*cards, *actions]:
        state = state.child(action)
    return state


@pytest.mark.parametrize(
    ("cards", "actions", "expected"),
    [
        ([J, Q], [P, P], [-1.0, 1.0]),  # showdown of antes, Q wins
        ([K, J], [P, P], [1.0, -1.0]),
        ([J, Q], [B, P], [1.0, -1.0]),  # bet, fold: the bettor takes the antes
        ([J, Q], [B, B], [-2.0, 2.0]),  # bet, call: showdown for 2 each
        ([K, Q], [P, B, P], [-1.0, 1.0]),  # check, bet, fold
        ([K, Q], [P, B, B], [2.0, -2.0]),  # check, bet, call: K wins
    ],
)
def test_two_player_returns(kuhn: Game, cards: list[int], actions: list[int], expected: list[float]) -> None:
    state = play(kuhn, cards, actions)
    assert state.current_player() == TERMINAL
    assert state.returns() == expected


@pytest.mark.parametrize(
    ("cards", "actions", "expected"),
    [
        ([J, Q, K], [P, P, P], [-1.0, -1.0, 2.0]),  # all check: K takes 3 antes
        ([J, Q, K], [B, P, P], [2.0, -1.0, -1.0]),  # both fold to the bet
        ([J, Q, K], [B, B, P], [-2.0, 3.0, -1.0]),  # p1 calls and beats the bettor; p2 folds
        ([J, Q, K], [P, B, B, P], [-1.0, -2.0, 3.0]),  # p0 folds last; p2's K beats p1
        ([K, J, Q], [P, P, B, B, B], [4.0, -2.0, -2.0]),  # everyone calls p2's bet; K wins 4
    ],
)
def test_three_player_returns(kuhn3: Game, cards: list[int], actions: list[int], expected: list[float]) -> None:
    state = play(kuhn3, cards, actions)
    assert state.current_player() == TERMINAL
    assert state.returns() == expected


def test_betting_continues_until_everyone_answered(kuhn3: Game) -> None:
    state = play(kuhn3, [J, Q, K], [P, B])
    assert state.current_player() == 2
    state = state.child(P)
    assert state.current_player() == 0  # p0 still has to answer p1's bet
    assert play(kuhn3, [J, Q, K], []).current_player() == 0
    assert play(kuhn3, [J, Q], []).current_player() == CHANCE
    assert [a for a, _ in play(kuhn3, [J, Q], []).chance_outcomes()] == [K, A]


def test_keys(kuhn: Game) -> None:
    state = play(kuhn, [K, J], [P, B])
    assert state.information_state_key(0) == "0:K:pb"
    assert state.information_state_key(1) == "1:J:pb"


@pytest.mark.parametrize(("players", "states", "infosets"), [(2, 58, 6), (3, 617, 16)])
def test_tree_size_and_conformance(players: int, states: int, infosets: int) -> None:
    report = check_game(load_game("kuhn", players=players))
    assert report.enumerated
    assert report.states == states
    assert report.infosets == {p: infosets for p in range(players)}


@pytest.mark.parametrize("players", [2, 3])
def test_parity_with_openspiel_kuhn_poker(players: int) -> None:
    """Same histories, returns, infoset partition and tensors as pyspiel, state by state."""
    pytest.importorskip("pyspiel")
    ours = load_game("kuhn", players=players)
    theirs = load_game(f"openspiel:kuhn_poker(players={players})")
    assert assert_same_game(ours, theirs, tensors=True) > 0
    assert (ours.info.min_utility, ours.info.max_utility) == (theirs.info.min_utility, theirs.info.max_utility)


def test_invalid_players() -> None:
    with pytest.raises(GameDefinitionError, match="players must be from 2 to 64"):
        load_game("kuhn(players=1)")
    with pytest.raises(GameDefinitionError, match="players must be an integer >= 2"):
        load_game("kuhn(players=2.5)")
