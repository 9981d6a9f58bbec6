"""The one round flow in numba (``rules.flow``): a playout cut at a half-turn and continued ends as the uncut
one (the cut a learned evaluator will value), and the batched simulator's rounds are the flow's own.

The flow itself is stepped beside the engine node for node in
``tests/games/koikoi/solvers/test_oos_koikoi_numba.py``; the simulator and the search's playouts are cross-tested
against the engine in ``test_batched.py`` and ``test_search.py``."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.rules import flow, playout
from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
from cfrlab.games.koikoi.rules.kernels import PLAY, kernel_rules
from cfrlab.games.koikoi.rules.playout_policy import make_policy
from cfrlab.games.koikoi.rules.rules import RuleSet, month_of_round
from cfrlab.registry import load_game

END = 1 << 30


def _played(rules, inputs, g, policy, cuts):
    """Round ``g`` of ``inputs`` dealt and played out with a cut at each half-turn of ``cuts``: the final arrays and
    the log, and whether some cut stopped the round before its end."""
    kr = kernel_rules(rules)
    st, cards = flow.new_position()
    flow.begin(st, cards, 0, False, month_of_round(rules, 0), np.uint64(0))
    assert flow.deal(st, cards, inputs.ko[g], inputs.field[g], inputs.oya[g], kr)
    log, n, stopped = np.full(80, -1, dtype=np.int16), 0, False
    for until in (*cuts, END):
        n += playout.play_out(st, cards, inputs.order[g], inputs.u[g], policy, kr, log[n:], until)
        if until < END and st[flow.S_PHASE] != flow.TERMINAL:
            assert st[flow.S_PHASE] == PLAY and st[flow.S_TURN] == until  # cut at the start of that half-turn
            stopped = True
    return st, cards, log[:n], stopped


@pytest.mark.parametrize("spec", ["koikoi", "koikoi(rules=hanafuda_flash,koikoi_trigger=new_yaku)"])
@pytest.mark.parametrize("kind", ["uniform", "greedy"])
def test_a_cut_playout_continued_ends_as_the_uncut_one(spec, kind):
    rules = load_game(spec).rules
    inputs = sample_inputs(rules, 60, np.random.default_rng(7), policy="greedy")
    policy = make_policy(kind, epsilon=0.2, koikoi_prob=0.5)
    stops = 0
    for g in range(60):
        whole = _played(rules, inputs, g, policy, ())
        cut = _played(rules, inputs, g, policy, (2, 3, 9))
        stops += cut[3]
        for a, b in zip(whole[:3], cut[:3]):
            assert np.array_equal(a, b)
    assert stops > 30


def test_the_simulator_plays_the_flow():
    rules = RuleSet(rounds=1)
    inputs = sample_inputs(rules, 40, np.random.default_rng(3), policy="greedy")
    result = simulate(rules, inputs, policy="greedy", epsilon=0.1)
    for g in range(40):
        st, cards, log, _ = _played(rules, inputs, g, make_policy("greedy", epsilon=0.1), ())
        assert (result.winner[g], result.points[g], result.reason[g], result.next_oya[g]) == (
            st[flow.S_WINNER], st[flow.S_POINTS], st[flow.S_REASON], st[flow.S_NEXT])
        assert np.array_equal(result.log[g, :result.log_len[g]], log)
        assert tuple(result.piles[g]) == (cards[flow.C_PILES], cards[flow.C_PILES + 1])


def test_the_fast_scoring_path_equals_the_general_one_and_the_reference():
    """``score`` under Nintendo-shaped options (``_score_nintendo``) against the general kernel (the same options
    with ``P_FAST`` off) and against ``yaku.Scorer``, on random piles of every size."""
    from cfrlab.games.koikoi.rules.kernels import P_FAST, score
    from cfrlab.games.koikoi.rules.yaku import Scorer

    rules = RuleSet(rounds=1)
    kr = kernel_rules(rules)
    assert kr.P[P_FAST]
    general = kr.P.copy()
    general[P_FAST] = 0
    scorer, rng = Scorer(rules), np.random.default_rng(11)
    for _ in range(3000):
        pile = int(np.bitwise_or.reduce(np.left_shift(np.uint64(1), rng.choice(48, rng.integers(0, 30),
                                                                                    replace=False).astype(np.uint64)),
                                        initial=np.uint64(0)))
        fast = score(np.uint64(pile), np.uint64(0), 1, 0, kr.P, kr.M)
        assert fast == score(np.uint64(pile), np.uint64(0), 1, 0, general, kr.M) == scorer.score(pile)
