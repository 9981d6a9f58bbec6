"""Sanity numbers of koikoi-rules.md sec. 11: exact deal probabilities by counting, and random-play rates."""

from __future__ import annotations

from fractions import Fraction
from math import comb, sqrt

import numpy as np
import pytest

from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import MONTH_MASK
from cfrlab.games.koikoi.rules.rules import RuleSet

from .helpers import random_playout


def _count_patterns(classify) -> Fraction:
    """Exact probability that an 8-card set from 48 satisfies ``classify``, summed over month-count vectors.

    A vector (c_1..c_12) with sum 8 has prod C(4, c_m) card sets; each vector is classified through a
    representative hand built from it, so the engine's own teyaku code is what gets counted."""
    total = 0
    hits = 0
    # multisets of nonzero counts over months, placed on months 1..k (all placements have equal weight)
    for counts in _compositions(8, 12):
        weight = 1
        hand = 0
        for m, c in enumerate(counts):
            weight *= comb(4, c)
            hand |= MONTH_MASK[m] & ((1 << (4 * m + c)) - 1) & ~((1 << 4 * m) - 1)
        total += weight
        if classify(hand):
            hits += weight
    assert total == comb(48, 8)
    return Fraction(hits, total)


def _compositions(n: int, k: int):
    """All (c_1..c_k) with 0 <= c_i <= 4 and sum n."""
    def rec(i: int, left: int, acc: list[int]):
        if i == k:
            if left == 0:
                yield tuple(acc)
            return
        for c in range(0, min(4, left) + 1):
            acc.append(c)
            yield from rec(i + 1, left - c, acc)
            acc.pop()
    yield from rec(0, n, [])


def test_exact_teyaku_and_field_probabilities() -> None:
    strict = E.Engine(RuleSet())
    no_kutt = E.Engine(RuleSet(kuttsuki_points=0))  # teshi alone
    only_kutt = E.Engine(RuleSet(teshi_points=0))
    even = E.Engine(RuleSet(teshi_points=0, kuttsuki_definition="even"))
    p_teshi = _count_patterns(lambda h: no_kutt.teyaku_points(h) > 0)
    assert p_teshi == Fraction(1_628_946, 377_348_994)  # sec. 3.2, exact
    assert float(p_teshi) == pytest.approx(0.004317, abs=5e-7)
    assert float(_count_patterns(lambda h: only_kutt.teyaku_points(h) > 0)) == pytest.approx(0.001700, abs=5e-7)
    assert float(_count_patterns(lambda h: strict.teyaku_points(h) > 0)) == pytest.approx(0.006017, abs=5e-7)
    assert float(_count_patterns(lambda h: even.teyaku_points(h) > 0)) == pytest.approx(0.001763, abs=5e-7)


def test_field_four_of_a_month_rate_is_the_redeal_rate() -> None:
    """The engine's redeal decision, counted exactly over field month patterns (the hands do not matter)."""
    eng = E.Engine(RuleSet(teyaku="off"))

    def misdeal(field: int) -> bool:
        rest = [c for c in range(48) if not field >> c & 1]
        ko, oya = sum(1 << c for c in rest[:8]), sum(1 << c for c in rest[8:16])
        return eng.deal(eng.initial_state(), ko, field, oya).redeals == 1

    p = _count_patterns(misdeal)
    assert p == Fraction(1_628_946, 377_348_994)


# Scratch-simulator figures of sec. 11 (200 000 rounds, standard errors ~0.1 pp and ~0.01 points).
REFERENCE = {"oya": 0.522, "ko": 0.447, "draw": 0.019}
REF_POINTS = {"oya": 2.40, "ko": 2.10}
REF_SE_RATE, REF_SE_POINTS = 0.001, 0.01


def test_random_play_rates_with_always_stop() -> None:
    """Oya 52.2 %, ko 44.7 %, draw 1.9 % (wins by play; teyaku apart) within 5 combined standard errors.

    The engine itself, 12 000 rounds; ``test_batched`` checks the same figures on 200 000 rounds."""
    eng = E.Engine(RuleSet(rounds=1))
    rng = np.random.default_rng(2024)
    n = 12_000
    wins = {"oya": 0, "ko": 0, "draw": 0}
    points = {"oya": 0.0, "ko": 0.0}
    sq = {"oya": 0.0, "ko": 0.0}
    for _ in range(n):
        s = random_playout(eng, rng)
        res = s.result
        if res.winner < 0:
            wins["draw"] += res.reason == "draw"
            continue
        who = "oya" if res.winner == s.oya else "ko"
        wins[who] += res.reason == "stop"  # the sec. 11 table lists teyaku wins apart
        points[who] += res.points
        sq[who] += res.points ** 2
    for key, ref in REFERENCE.items():
        rate = wins[key] / n
        se = sqrt(ref * (1 - ref) / n + REF_SE_RATE ** 2)
        assert abs(rate - ref) < 5 * se, (key, rate, ref)
    for key, ref in REF_POINTS.items():
        mean = points[key] / n
        se = sqrt(max(sq[key] / n - mean ** 2, 1e-9) / n + REF_SE_POINTS ** 2)
        assert abs(mean - ref) < 5 * se, (key, mean, ref)
    assert 0.006 < 1 - sum(wins.values()) / n < 0.018  # teyaku rounds, about 1.2 % (5 sigma)
