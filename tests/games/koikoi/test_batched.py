"""The batched simulator agrees with the engine game for game, and reproduces the random-play rates of sec. 11."""

from __future__ import annotations

from math import sqrt

import numpy as np
import pytest

from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.batched import REASONS, random_rounds, sample_inputs, simulate
from cfrlab.games.koikoi.rules.game import KoiKoiState, game_for_rules
from cfrlab.games.koikoi.rules.kernels import deal_result, hands_play_on, kernel_rules, misdeal
from cfrlab.games.koikoi.rules.rules import RuleSet


def replay_in_engine(rules: RuleSet, inputs, g: int, koikoi_prob: float, policy: str = "uniform",
                     epsilon: float = 0.0, round_index: int = 0) -> tuple[E.EngineState, list[int]]:
    """Play game ``g`` of ``inputs`` through the engine with the batched policy's rule for the uniforms; the engine
    runs a longer match so that the next oya is visible after the round."""
    game = game_for_rules(rules.replace(rounds=round_index + 2, bust_ends_match=False))
    eng = game.engine
    greedy = GreedyAgent()
    s = eng.deal(eng.initial_state()._replace(round=round_index), int(inputs.ko[g]), int(inputs.field[g]),
                 int(inputs.oya[g]))
    assert s.redeals == 0
    k = 0
    log: list[int] = []
    while s.phase != E.TERMINAL and s.round == round_index:
        legal = eng.legal_actions(s)
        if s.phase == E.DRAW:
            a = int(inputs.order[g, s.turn])
        elif policy == "uniform":
            a = (E.KOIKOI if inputs.u[g, k] < koikoi_prob else E.STOP) if s.phase == E.DECIDE else \
                legal[int(inputs.u[g, k] * len(legal))]
            k += 1
        else:
            x, y = inputs.u[g, k], inputs.u[g, k + 1]
            k += 2
            if x < epsilon and s.phase != E.DECIDE:
                a = legal[int(y * len(legal))]
            else:
                a = greedy.act(KoiKoiState(game, s), np.random.default_rng(0))
        log.append(a)
        prev, s = s, eng.step(s, a)
    if log:  # the same last step under a match that ends with this round keeps the final piles and field
        last = E.Engine(eng.rules.replace(rounds=round_index + 1)).step(prev, log[-1])
        assert last.phase == E.TERMINAL
        s = s._replace(piles=last.piles, field=last.field)
    return s, log


CASES = [
    (RuleSet(rounds=1), 0.0),
    (RuleSet(rounds=1), 0.5),
    (RuleSet.fudawiki(), 0.6),
    (RuleSet.koikoi_japan(), 0.7),
    (RuleSet.hanafuda_flash(), 0.5),
    (RuleSet.mini(), 0.5),
    (RuleSet(rounds=1, koikoi_limit=0, opponent_koikoi_multiplier="none"), 0.7),
    (RuleSet(rounds=1, teyaku="off", exhaustive_draw="oya_ken", seven_plus_double=False), 0.3),
    (RuleSet(rounds=1, gokou=15, sankou=6, viewing_points=0, koikoi_min_points=3), 0.5),
    (RuleSet(teyaku="redeal", redeal_field_three_of_month=True, redeal_field_four_pairs=True), 0.5),
    (RuleSet(field_four_of_month="none", teyaku_both="ignore", kuttsuki_definition="even", teyaku_stack=True), 0.5),
    (RuleSet(field_four_of_month="oya_wins", teyaku_both="void_same_oya"), 0.5),
    (RuleSet(viewing_mode="limited", rain_rule="ame_nagare", viewing_seasonal="double", sake_cup="either",
             double_chaff_cards=(43, 45), koikoi_limit=0), 0.6),
    (RuleSet(rain_rule="field_weather", viewing_seasonal="only", sake_cup="animal", tsukifuda=4,
             koikoi_trigger="new_yaku"), 0.6),
    (RuleSet(sake_cup="chaff", animal_model="stacking", ribbon_model="stacking", koikoi_limit=0,
             opponent_koikoi_multiplier="calls_plus_one", own_koikoi_bonus="cumulative",
             bright_field_multiplier="count", exhaustive_draw="last_yaku_maker"), 0.7),
    (RuleSet(koikoi_limit=3, opponent_koikoi_multiplier="anyone_double", bright_field_multiplier="count_plus_one",
             exhaustive_draw="nothing_oya_stays", viewing_points_after_own_koikoi=2), 0.6),
    (RuleSet(koikoi_limit=0, opponent_koikoi_multiplier="own_double", own_koikoi_bonus="koikoi_japan",
             forced_stop_on_empty_hand=False, exhaustive_draw="last_yaku_maker"), 0.8),
]


@pytest.mark.parametrize("rules,koikoi_prob", CASES, ids=[f"{r.name}-{i}" for i, (r, _) in enumerate(CASES)])
def test_batched_and_engine_agree_game_for_game(rules: RuleSet, koikoi_prob: float) -> None:
    """Every preset and every option value: same winner, points, reason, next oya, piles, field and action log."""
    n = 300
    inputs = sample_inputs(rules, n, np.random.default_rng(17))
    round_index = 7 if rules.tsukifuda or rules.viewing_seasonal != "off" else 0  # August: tsukimi's month
    res = simulate(rules, inputs, koikoi_prob, round_index=round_index)
    decided = 0
    for g in range(n):
        end, log = replay_in_engine(rules, inputs, g, koikoi_prob, round_index=round_index)
        _agree(end, log, res, g)
        decided += (E.STOP in log) or (E.KOIKOI in log)
    assert decided > 20  # the decision paths were exercised


def _agree(end: E.EngineState, log: list[int], res, g: int) -> None:
    assert end.result.winner == res.winner[g] and end.result.points == res.points[g], g
    assert end.result.reason == REASONS[res.reason[g]], g
    if end.phase != E.TERMINAL:
        assert end.oya == res.next_oya[g], g
    assert log == [int(x) for x in res.log[g, : res.log_len[g]]], g
    if end.result.reason in ("stop", "draw"):
        assert (end.piles[0], end.piles[1], end.field) == (int(res.piles[g, 0]), int(res.piles[g, 1]),
                                                           int(res.field[g])), g


@pytest.mark.parametrize("rules", [RuleSet(rounds=1), RuleSet.koikoi_japan(), RuleSet.fudawiki()],
                         ids=["nintendo", "koikoi_japan", "fudawiki"])
def test_batched_greedy_self_play_equals_greedy_agent_on_the_engine(rules: RuleSet) -> None:
    n = 60
    inputs = sample_inputs(rules, n, np.random.default_rng(5), policy="greedy")
    res = simulate(rules, inputs, policy="greedy", epsilon=0.3)
    for g in range(n):
        end, log = replay_in_engine(rules, inputs, g, 0.0, policy="greedy", epsilon=0.3)
        _agree(end, log, res, g)


def test_deal_checks_equal_the_engine_deal() -> None:
    """The kernels' misdeal and teyaku resolution against ``Engine.deal`` on random and hand-built deals."""
    rng = np.random.default_rng(4)
    teshi, kutt = C.mask_of([0, 1, 2, 3]), C.mask_of([4, 5, 8, 9, 12, 13, 16, 17])
    for rules in (RuleSet(), RuleSet(teyaku="redeal", redeal_field_three_of_month=True),
                  RuleSet(teyaku_both="ignore", kuttsuki_definition="even", teyaku_stack=True,
                          redeal_field_four_pairs=True), RuleSet.koikoi_japan(),
                  RuleSet(field_four_of_month="oya_wins", teyaku_both="void_same_oya"),
                  RuleSet(field_four_of_month="none", redeal_field_three_of_month=True)):
        eng = E.Engine(rules.replace(rounds=3))
        F = kernel_rules(rules).F
        for i in range(1500):
            perm = [int(c) for c in rng.permutation(48)]
            if i % 5 == 0:  # a teshi and/or a kuttsuki hand, or four of a month on the field
                pick = [teshi, kutt, teshi | C.mask_of([20, 21, 24, 25]), C.mask_of([40, 41, 42, 43])][i // 5 % 4]
                first = C.cards_of(pick)
                perm = first + [c for c in perm if c not in first]
                if i % 3 == 0:
                    perm = perm[8:16] + perm[:8] + perm[16:]
            ko, field, oya = (C.mask_of(perm[a:b]) for a, b in ((0, 8), (8, 16), (16, 24)))
            s = eng.deal(eng.initial_state(), ko, field, oya)
            bad = misdeal(np.uint64(ko), np.uint64(field), np.uint64(oya), F)
            assert bad == (s.redeals == 1), (rules.name, i)
            if bad:
                continue
            w, pts, why, nxt = deal_result(np.uint64(field), np.uint64(oya), np.uint64(ko), F)
            if s.phase == E.PLAY:
                assert w == -2
                assert hands_play_on(np.uint64(oya), np.uint64(ko), F) and eng.hands_play_on(oya, ko)
            else:
                assert (w, pts, REASONS[why], nxt) == (s.result.winner, s.result.points, s.result.reason, s.oya)
                assert eng.hands_play_on(oya, ko) == hands_play_on(np.uint64(oya), np.uint64(ko), F)
                assert why == 4 or not eng.hands_play_on(oya, ko)  # a round ended by the hands: no play on them


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
