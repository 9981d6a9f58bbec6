"""The batched simulator agrees with the engine game for game, and reproduces the random-play rates of sec. 11."""

from __future__ import annotations

from math import sqrt

import numpy as np
import pytest

from cfrlab.games.koikoi import engine as E
from cfrlab.games.koikoi.batched import REASONS, check_supported, random_rounds, sample_inputs, simulate
from cfrlab.games.koikoi.rules import RuleSet


def replay_in_engine(eng: E.Engine, inputs, g: int, koikoi_prob: float) -> tuple[E.EngineState, list[int]]:
    """Play game ``g`` of ``inputs`` through the engine with the batched policy's rule for the uniforms."""
    s = eng.deal(eng.initial_state(), int(inputs.ko[g]), int(inputs.field[g]), int(inputs.oya[g]))
    assert s.redeals == 0
    k = 0
    log: list[int] = []
    while s.phase != E.TERMINAL:
        if s.phase == E.DRAW:
            a = int(inputs.order[g, s.turn])
        elif s.phase == E.DECIDE:
            a = E.KOIKOI if inputs.u[g, k] < koikoi_prob else E.STOP
            k += 1
        else:
            legal = eng.legal_actions(s)
            a = legal[int(inputs.u[g, k] * len(legal))]
            k += 1
        log.append(a)
        s = eng.step(s, a)
    return s, log


@pytest.mark.parametrize(
    "rules,koikoi_prob",
    [
        (RuleSet(rounds=1), 0.0),
        (RuleSet(rounds=1), 0.5),
        (RuleSet(rounds=1, koikoi_limit=0, opponent_koikoi_multiplier="none"), 0.7),
        (RuleSet(rounds=1, teyaku="off", exhaustive_draw="oya_ken", seven_plus_double=False), 0.3),
        (RuleSet(rounds=1, gokou=15, sankou=6, viewing_points=0, koikoi_min_points=3), 0.5),
        (RuleSet.mini(), 0.5),
    ],
)
def test_batched_and_engine_agree_game_for_game(rules: RuleSet, koikoi_prob: float) -> None:
    eng = E.Engine(rules)
    inputs = sample_inputs(rules, 400, np.random.default_rng(17))
    res = simulate(rules, inputs, koikoi_prob)
    decided = 0
    for g in range(400):
        end, log = replay_in_engine(eng, inputs, g, koikoi_prob)
        assert end.result.winner == res.winner[g] and end.result.points == res.points[g], g
        assert end.result.reason == REASONS[res.reason[g]]
        if end.result.reason != "teyaku" and end.result.reason != "void_teyaku":
            assert (end.piles[0], end.piles[1]) == (int(res.piles[g, 0]), int(res.piles[g, 1]))
            assert end.field == int(res.field[g])
        assert log == [int(x) for x in res.log[g, : res.log_len[g]]]
        decided += (E.STOP in log) or (E.KOIKOI in log)
    assert decided > 20  # the decision paths were exercised


def test_unsupported_options_raise() -> None:
    for rules in (RuleSet.fudawiki(), RuleSet.koikoi_japan(), RuleSet(exhaustive_draw="last_yaku_maker"),
                  RuleSet(teyaku="redeal")):
        with pytest.raises(NotImplementedError, match="batched"):
            check_supported(rules)


def test_same_seed_same_games() -> None:
    a = random_rounds(RuleSet(rounds=1), 500, np.random.default_rng(9), 0.5)
    b = random_rounds(RuleSet(rounds=1), 500, np.random.default_rng(9), 0.5)
    assert np.array_equal(a.log, b.log) and np.array_equal(a.points, b.points)


# sec. 11: (koi-koi probability, oya wins, ko wins, draw, teyaku oya, teyaku ko, points oya, points ko)
SEC11 = [(0.0, 0.522, 0.447, 0.019, 0.0060, 0.0061, 2.40, 2.10),
         (0.5, 0.512, 0.434, 0.042, 0.0059, 0.0059, 3.53, 3.14)]


@pytest.mark.parametrize("row", SEC11, ids=["always-stop", "koikoi-half"])
def test_random_play_rates_of_section_11(row: tuple) -> None:
    """200 000 rounds; each rate within 5 combined standard errors (ours and the reference's 0.1 pp / 0.01)."""
    prob, oya, ko, draw, t_oya, t_ko, p_oya, p_ko = row
    n = 200_000
    res = random_rounds(RuleSet(rounds=1), n, np.random.default_rng(123), prob)
    stop = res.reason == 0
    rates = {
        "oya": (np.mean(stop & (res.winner == 0)), oya),
        "ko": (np.mean(stop & (res.winner == 1)), ko),
        "draw": (np.mean(res.reason == 2), draw),
        "teyaku oya": (np.mean((res.reason == 1) & (res.winner == 0)), t_oya),
        "teyaku ko": (np.mean((res.reason == 1) & (res.winner == 1)), t_ko),
    }
    for name, (got, ref) in rates.items():
        se = sqrt(ref * (1 - ref) / n + 0.001 ** 2)
        assert abs(got - ref) < 5 * se, (name, got, ref)
    for who, ref in ((0, p_oya), (1, p_ko)):
        pts = np.where(res.winner == who, res.points, 0).astype(np.float64)
        se = sqrt(pts.var() / n + 0.01 ** 2)
        assert abs(pts.mean() - ref) < 5 * se, (who, pts.mean(), ref)
