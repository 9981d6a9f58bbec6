"""The numba hand evaluator: hand-checked categories and agreement with eval7 on random hands.

The test compares 200,000 random 7-card hands (plus 5- and 6-card hands);
``benchmarks/bench_holdem.py --evaluator`` compares 1,000,000 and times both.
"""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.holdem.rules.evaluator import category, hand_value, hand_values

eval7 = pytest.importorskip("eval7")
NAMES = [r + s for r in "23456789TJQKA" for s in "cdhs"]  # absolute id = 4 * rank + suit


def ids(text: str) -> list[int]:
    return [NAMES.index(text[i : i + 2]) for i in range(0, len(text), 2)]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("AhKhQhJhTh2c3d", "Straight flush"),
        ("Ah2h3h4h5h9c9d", "Straight flush"),
        ("9s9h9d9c2c3dKs", "Four of a kind"),
        ("9s9h9d2c2d3c3d", "Full house"),
        ("9s9h9d2c2d2h3d", "Full house"),
        ("Ah2h7h4h9hAcAd", "Flush"),
        ("As2d3c4h5sKdKc", "Straight"),
        ("7s7d7c2h4d9cJs", "Three of a kind"),
        ("7s7d2c2h4d4cJs", "Two pair"),
        ("7s7d2c3h4d9cJs", "Pair"),
        ("7s8d2c3h4dKcJs", "High card"),
        ("AsAd", "Pair"),
        ("As", "High card"),
    ],
)
def test_categories(hand: str, expected: str) -> None:
    assert category(hand_value(ids(hand))) == expected


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("6s2d3c4h5s", "As2d3c4h5s"),  # a six-high straight beats the wheel
        ("AsAd2c2h4d", "KsKdQcQh4d"),  # two pair: top pair first
        ("AsAd2c2h5d", "AsAd2c2h4d"),  # then the kicker
        ("7s7d7cAhKd9c8s", "7s7d7cAhQdJcTs"),  # only the best five cards count
        ("AsKd", "AsQd"),  # kickers in short hands
        ("2s2d", "AsKd"),
    ],
)
def test_ordering(better: str, worse: str) -> None:
    assert hand_value(ids(better)) > hand_value(ids(worse))
    assert hand_value(ids(better)[::-1]) == hand_value(ids(better))  # order of the cards is irrelevant


def assert_same_order(mine: np.ndarray, reference: np.ndarray) -> None:
    """The two valuations sort the hands identically: same order and same ties."""
    order = np.lexsort((reference, mine))
    m, r = mine[order], reference[order]
    assert np.all(np.diff(r) >= 0), "a hand valued higher by cfrlab is valued lower by eval7"
    assert np.array_equal(np.diff(m) == 0, np.diff(r) == 0), "the two evaluators tie different hands"


@pytest.mark.parametrize(("size", "count"), [(7, 200_000), (6, 30_000), (5, 30_000)])
def test_agrees_with_eval7_on_random_hands(size: int, count: int) -> None:
    rng = np.random.default_rng(size)
    hands = np.argsort(rng.random((count, 52)), axis=1)[:, :size]
    deck = [eval7.Card(n) for n in NAMES]
    reference = np.array([eval7.evaluate([deck[c] for c in hand]) for hand in hands.tolist()])
    assert_same_order(hand_values(hands), reference)
    assert len(np.unique(reference)) > 1000


def test_bad_hand_size() -> None:
    with pytest.raises(ValueError, match="1 to 7"):
        hand_value(list(range(8)))
