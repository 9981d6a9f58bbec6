"""The tuned playout policy: greedy's weights play greedy, the kernel equals a Python transcription of the rule on the
engine game for game, the tuned weights beat greedy; the kernels' bit count."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from cfrlab.games.koikoi.players.cfr import policy_edge
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
from cfrlab.games.koikoi.rules.cards import CARD_VALUE
from cfrlab.games.koikoi.rules.game import game_for_rules
from cfrlab.games.koikoi.rules.kernels import popcount
from cfrlab.games.koikoi.rules.playout_policy import (
    GREEDY_WEIGHTS,
    TUNED_WEIGHTS,
    W_DENY,
    W_EXPOSE,
    W_GAIN,
    W_PAIR,
    W_THREAT,
)
from cfrlab.games.koikoi.rules.rules import RuleSet


@nb.njit(cache=True)
def _count_bits(xs):
    out = np.empty(xs.shape[0], dtype=np.int64)
    for i in range(xs.shape[0]):
        out[i] = popcount(xs[i])
    return out


def test_bit_count_equals_python() -> None:
    xs = np.random.default_rng(0).integers(0, 2**63, 2000, dtype=np.uint64) | np.uint64(1 << 63)
    xs[:3] = (0, 1, (1 << 48) - 1)
    assert _count_bits(xs).tolist() == [int(x).bit_count() for x in xs]


def _value(mask: int) -> int:
    return sum(CARD_VALUE[c] for c in C.cards_of(mask))


def tuned_choice(eng: E.Engine, s: E.EngineState, w: tuple[float, ...]) -> int:
    """The tuned rule of ``playout_policy``'s docstring, written again on the engine state."""
    p = eng.mover(s)
    hand, field, pile, opp = s.hands[p], s.field, s.piles[p], s.piles[1 - p]
    month = eng.round_month(s)

    def score(cards: int, calls: int) -> int:
        return eng.scorer.score(cards, field, month, calls)

    base, obase = score(pile, s.calls[p]), score(opp, s.calls[1 - p])

    def capture_key(gained: int) -> float:
        key = w[W_GAIN] * (score(pile | gained, s.calls[p]) - base) + _value(gained)
        return key + w[W_DENY] * (score(opp | gained, s.calls[1 - p]) - obase)

    if s.phase in (E.PLAY_CAPTURE, E.DRAW_CAPTURE):
        options = C.cards_of(field & C.CARD_MONTH_MASK[s.pending])
        keys = [capture_key(1 << s.pending | 1 << c) for c in options]
        return options[int(np.argmax(keys))]
    unseen = C.FULL_DECK & ~(hand | field | pile | opp)
    captures, discards = [], []
    for c in C.cards_of(hand):
        mon = C.CARD_MONTH_MASK[c]
        m = field & mon
        if m:
            if m.bit_count() == 2:  # the more valuable of the two, the lower id on a tie
                m = 1 << max(C.cards_of(m), key=lambda x: (CARD_VALUE[x], -x))
            captures.append((capture_key(m | 1 << c), c))
        else:
            key = -CARD_VALUE[c]
            if unseen & mon:
                threat = score(opp | 1 << c | (unseen & mon), s.calls[1 - p]) - obase
                key -= w[W_EXPOSE] * (CARD_VALUE[c] + w[W_THREAT] * threat)
            if (hand & mon).bit_count() >= 2:
                key += w[W_PAIR]
            discards.append((key, c))
    pool = captures or discards
    best = max(k for k, _ in pool)
    return min(c for k, c in pool if k == best)


@pytest.mark.parametrize("rules", [RuleSet(rounds=1), RuleSet.koikoi_japan(), RuleSet.fudawiki()],
                         ids=["nintendo", "koikoi_japan", "fudawiki"])
def test_tuned_kernel_equals_the_rule_on_the_engine(rules: RuleSet) -> None:
    """Seat 0 tuned, seat 1 greedy-weighted: every card and capture of the kernel's logs is the transcription's
    choice on the engine state (greedy's weights through the same transcription), and the logs replay to the same
    result."""
    n = 40
    inputs = sample_inputs(rules, n, np.random.default_rng(3), policy="greedy")
    weights = np.array([TUNED_WEIGHTS, GREEDY_WEIGHTS])
    res = simulate(rules, inputs, policy="greedy", weights=weights)
    eng = game_for_rules(rules.replace(rounds=1)).engine
    checked = 0
    for g in range(n):
        s = eng.deal(eng.initial_state(), int(inputs.ko[g]), int(inputs.field[g]), int(inputs.oya[g]))
        for a in (int(x) for x in res.log[g, : res.log_len[g]]):
            if s.phase in (E.PLAY, E.PLAY_CAPTURE, E.DRAW_CAPTURE):
                assert tuned_choice(eng, s, tuple(weights[eng.mover(s)])) == a, g
                checked += 1
            s = eng.step(s, a)
        if s.phase == E.TERMINAL:
            assert (s.result.winner, s.result.points) == (res.winner[g], res.points[g]), g
    assert checked > 300


def test_greedy_weights_play_greedy_game_for_game() -> None:
    rules = RuleSet(rounds=1)
    inputs = sample_inputs(rules, 500, np.random.default_rng(1), policy="greedy")
    plain = simulate(rules, inputs, policy="greedy", epsilon=0.1)
    weighted = simulate(rules, inputs, policy="greedy", epsilon=0.1, weights=np.array([GREEDY_WEIGHTS] * 2))
    np.testing.assert_array_equal(plain.log, weighted.log)
    np.testing.assert_array_equal(plain.points, weighted.points)


def test_tuned_weights_beat_greedy_in_duplicate_self_play() -> None:
    assert policy_edge(weights=GREEDY_WEIGHTS, rounds=2000, seed=4).stderr == 0.0
    edge = policy_edge(weights=TUNED_WEIGHTS, rounds=20000, seed=4)
    assert edge.low > 0.1, edge
