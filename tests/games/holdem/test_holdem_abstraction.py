"""E[HS^2] abstraction on reduced decks against brute-force enumeration in plain Python."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from cfrlab.games.holdem.abstraction.abstraction import EHS2Abstraction, build_abstraction, load_abstraction
from cfrlab.games.holdem.rules.game import LimitHoldem
from cfrlab.registry import load_game

# A 10-card deck with the real round structure (2 private, 3 + 1 + 1 board).
DECK10 = "holdem(ranks=5,suits=2,board_cards=[0,3,1,1])"
# 8 cards, one private card and three rounds: every deal is enumerable in Python.
DECK8 = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


@pytest.fixture(scope="module")
def deck10() -> tuple[LimitHoldem, EHS2Abstraction]:
    game = load_game(DECK10)
    return game, build_abstraction(game, [3, 3, 2, 2])


@pytest.fixture(scope="module")
def deck8() -> tuple[LimitHoldem, EHS2Abstraction]:
    game = load_game(DECK8)
    return game, build_abstraction(game, [2, 3, 2])


def brute_hs(game: LimitHoldem, hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """HS by enumerating every opponent hand."""
    mine = game.hand_value(hole + board)
    rest = [c for c in range(game.deck_size) if c not in hole + board]
    score = []
    for other in combinations(rest, game.hole_cards):
        theirs = game.hand_value(other + board)
        score.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return float(np.mean(score))


def brute_ehs2(game: LimitHoldem, hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """E[HS^2] by enumerating every board completion, then every opponent hand."""
    rest = [c for c in range(game.deck_size) if c not in hole + board]
    missing = sum(game.board_cards) - len(board)
    return float(np.mean([brute_hs(game, hole, board + more) ** 2 for more in combinations(rest, missing)]))


def random_sequence(game: LimitHoldem, rounds: int,
                    rng: np.random.Generator) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    cards = [int(c) for c in rng.permutation(game.deck_size)]
    hole, cards = tuple(cards[: game.hole_cards]), cards[game.hole_cards :]
    boards = []
    for k in range(rounds):
        boards.append(tuple(cards[: game.board_cards[k]]))
        cards = cards[game.board_cards[k] :]
    return hole, boards


@pytest.mark.parametrize("round_index", [0, 1, 2, 3])
def test_ehs2_matches_brute_force(deck10: tuple[LimitHoldem, EHS2Abstraction], round_index: int) -> None:
    game, abstraction = deck10
    classes = abstraction.rounds[round_index]
    rng = np.random.default_rng(round_index)
    for _ in range(6):
        hole, boards = random_sequence(game, round_index + 1, rng)
        board = tuple(c for b in boards for c in b)
        value = classes.value[abstraction.class_index(hole, boards)]
        assert value == pytest.approx(brute_ehs2(game, hole, board), abs=1e-6)


def test_flop_classes_count_raw_sequences_and_merge_suit_swaps(deck10: tuple[LimitHoldem, EHS2Abstraction]) -> None:
    """Round-1 weights add up to every (hole, flop) of the deck; a suit swap keeps the class and its value."""
    game, abstraction = deck10
    classes = abstraction.rounds[1]
    assert classes.weights.sum() == 45 * 56  # C(10,2) private hands x C(8,3) flops
    assert len(classes.keys) < classes.weights.sum() / 1.9  # two suits: classes come in pairs
    rng = np.random.default_rng(5)
    for _ in range(4):
        hole, boards = random_sequence(game, 2, rng)
        swapped = tuple(c ^ 1 for c in hole), [tuple(c ^ 1 for c in b) for b in boards]  # swap the two suits
        assert abstraction.class_index(hole, boards) == abstraction.class_index(*swapped)
        assert classes.value[abstraction.class_index(hole, boards)] == pytest.approx(
            brute_ehs2(game, hole, boards[0] + boards[1]), abs=1e-6)


def test_river_strength_matches_brute_force(deck10: tuple[LimitHoldem, EHS2Abstraction]) -> None:
    game, abstraction = deck10
    rng = np.random.default_rng(11)
    river = abstraction.rounds[3]
    for _ in range(20):
        hole, boards = random_sequence(game, 4, rng)
        board = tuple(c for b in boards for c in b)
        value = river.value[abstraction.class_index(hole, boards)]
        assert value == pytest.approx(brute_hs(game, hole, board) ** 2, abs=1e-6)


@pytest.mark.parametrize("fixture", ["deck10", "deck8"])
def test_buckets_equal_sized_and_nested(fixture: str, request: pytest.FixtureRequest) -> None:
    game, abstraction = request.getfixturevalue(fixture)
    for k, classes in enumerate(abstraction.rounds):
        n = abstraction.buckets[k]
        if k > 0:
            parent_sequence = abstraction.rounds[k - 1].sequence[classes.parent]
            assert np.array_equal(classes.sequence // n, parent_sequence)  # nested
            groups = np.bincount(parent_sequence, weights=classes.weights)
        else:
            groups = np.array([classes.weights.sum()])
        sizes = np.bincount(classes.sequence, weights=classes.weights, minlength=len(groups) * n).reshape(-1, n)
        group = classes.sequence // n
        _, run = np.unique(group * (classes.count.max() + 1) + classes.count, return_inverse=True)
        largest = np.bincount(run.ravel(), weights=classes.weights).max()  # classes of one value stay together
        assert np.all(np.abs(sizes - groups[:, None] / n) <= largest)  # equal up to one run of equal values
        for g in range(len(groups)):  # a value never straddles two buckets of a group
            in_g = group == g
            assert len(np.unique(classes.count[in_g])) == len(
                np.unique(classes.count[in_g] * n + classes.sequence[in_g] % n))
        # percentile order: within a group, a higher bucket never holds a lower E[HS^2]
        for g in range(len(groups)):
            low = [classes.value[(classes.sequence == g * n + b)] for b in range(n)]
            for a, b in zip(low, low[1:]):
                if len(a) and len(b):
                    assert a.max() <= b.min() + 1e-12


def test_joint_table_matches_every_deal(deck8: tuple[LimitHoldem, EHS2Abstraction]) -> None:
    game, abstraction = deck8
    n = abstraction.num_sequences(game.num_rounds - 1)
    joint, result = np.zeros((n, n)), np.zeros((n, n))
    for deal in combinations(range(game.deck_size), 4):
        for order in {(a, b, c, d) for a in deal for b in deal for c in deal for d in deal if len({a, b, c, d}) == 4}:
            h0, h1, flop, turn = (order[0],), (order[1],), (order[2],), (order[3],)
            boards = [(), flop, turn]
            s0, s1 = abstraction.bucket_sequence(h0, boards), abstraction.bucket_sequence(h1, boards)
            v0, v1 = game.hand_value(h0 + flop + turn), game.hand_value(h1 + flop + turn)
            joint[s0, s1] += 1
            result[s0, s1] += np.sign(v0 - v1)
    assert joint.sum() == 8 * 7 * 6 * 5
    np.testing.assert_allclose(abstraction.joint, joint / joint.sum(), atol=1e-12)
    np.testing.assert_allclose(abstraction.showdown,
                               np.divide(result, joint, out=np.zeros_like(result), where=joint > 0), atol=1e-12)


def test_cache_round_trip_and_bad_buckets(deck8: tuple[LimitHoldem, EHS2Abstraction]) -> None:
    game, built = deck8
    first = load_abstraction(game, [2, 3, 2])
    again = load_abstraction(game, [2, 3, 2])
    np.testing.assert_array_equal(first.joint, built.joint)
    for a, b in zip(again.rounds, built.rounds):
        np.testing.assert_array_equal(a.sequence, b.sequence)
    with pytest.raises(ValueError, match="one per round"):
        build_abstraction(game, [2, 3])
    with pytest.raises(ValueError, match="at most"):
        build_abstraction(load_game("holdem"), [5, 5, 5, 5])
