"""The rules engine: captures, koi-koi, teyaku, redeals, draws, matches, properties of sec. 11, errors."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.game import GameDefinitionError, IllegalActionError
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import FULL_DECK, MONTH_MASK, cards_of, mask_of
from cfrlab.games.koikoi.rules.rules import PRESETS, RuleSet

from .helpers import position, random_playout


@pytest.fixture(scope="module")
def eng() -> E.Engine:
    return E.Engine(RuleSet(rounds=1))


# ---------------------------------------------------------------- capture rule (sec. 4.2)
def test_capture_with_zero_one_two_three_matches(eng: E.Engine) -> None:
    base = dict(hands=([0, 4, 8, 12], [47]), stock=[46])
    s = position(eng, field=[], **base)
    assert eng.step(s, 0).field == mask_of([0]) and eng.step(s, 0).phase == E.DRAW  # k = 0: stays
    s = position(eng, field=[2], **base)
    t = eng.step(s, 0)
    assert t.piles[0] == mask_of([0, 2]) and t.field == 0  # k = 1
    s = position(eng, field=[2, 3, 5], **base)
    t = eng.step(s, 0)
    assert t.phase == E.PLAY_CAPTURE and eng.legal_actions(t) == [2, 3]  # k = 2: mover chooses
    t = eng.step(t, 3)
    assert t.piles[0] == mask_of([0, 3]) and t.field == mask_of([2, 5]) and t.phase == E.DRAW
    s = position(eng, field=[1, 2, 3], **base)
    t = eng.step(s, 0)
    assert t.piles[0] == mask_of([0, 1, 2, 3]) and t.field == 0  # k = 3: all


def test_drawn_card_captures_and_may_take_the_card_just_played(eng: E.Engine) -> None:
    s = position(eng, hands=([0, 4], [47]), field=[], stock=[2, 46])
    s = eng.step(s, 0)  # Pine Crane to the field
    s = eng.step(s, 2)  # draws Pine Chaff: captures the crane
    assert s.piles[0] == mask_of([0, 2]) and s.field == 0
    s = position(eng, hands=([0, 4], [47]), field=[1, 3], stock=[2, 46])
    s = eng.step(eng.step(s, 0), 1)  # play crane, take the ribbon
    s = eng.step(s, 2)  # draw chaff: 1 match (Pine Chaff 2)
    assert s.piles[0] == mask_of([0, 1, 2, 3])
    s = position(eng, hands=([4, 5], [47]), field=[1, 3], stock=[2, 46])
    s = eng.step(s, 4)
    s = eng.step(s, 2)  # drawn chaff with 2 matches: DRAW_CAPTURE for the same player
    assert s.phase == E.DRAW_CAPTURE and eng.mover(s) == 0
    assert eng.legal_actions(s) == [1, 3]


# ---------------------------------------------------------------- koi-koi (sec. 4.3, 6)
def sanko_position(eng: E.Engine, calls: tuple[int, int] = (0, 0), hand: list[int] | None = None) -> E.EngineState:
    """Player 0 (oya) holds the moon; the geese are on the field; crane and curtain already in the pile."""
    return position(eng, hands=(hand or [28, 47], [46, 45]), field=[29], piles=([0, 8], []), stock=[12, 13],
                    calls=calls)


def test_rise_offers_stop_or_koikoi_and_stop_scores(eng: E.Engine) -> None:
    s = eng.step(eng.step(sanko_position(eng), 28), 12)
    assert s.phase == E.DECIDE and eng.legal_actions(s) == [E.STOP, E.KOIKOI]
    end = eng.step(s, E.STOP)
    assert end.phase == E.TERMINAL and end.result[:3] == (0, 5, "stop")
    assert eng.returns(end) == (5.0, -5.0)


def test_koikoi_then_opponent_rise_scores_double_for_opponent(eng: E.Engine) -> None:
    s = eng.step(eng.step(eng.step(sanko_position(eng), 28), 12), E.KOIKOI)
    assert s.calls == (1, 0) and s.phase == E.PLAY and s.turn == 1
    # hand the ko a ready Tane on their turn: 4 animals in the pile, the boar to play onto Clover Chaff
    s = s._replace(piles=(s.piles[0], mask_of([4, 16, 41, 36])), hands=(s.hands[0], mask_of([24, 46])),
                   field=s.field | mask_of([26]), stock=mask_of([38, 39]))
    s = eng.turn_start(s)
    s = eng.step(eng.step(s, 24), 39)
    # ko's base score rose (Tane 1): koi-koi already called this round, so the round ends at once
    assert s.phase == E.TERMINAL
    assert s.result[:3] == (1, 2, "stop")  # 1 x 2 for the oya's koi-koi
    assert s.result.yaku == (("Tane", 1),)
    assert s.result.steps == (("base score", 1), ("x2: the other player had called koi-koi", 2))
    assert eng.returns(s) == (-2.0, 2.0)


def test_koikoi_caller_rising_again_scores_without_second_doubling(eng: E.Engine) -> None:
    s = sanko_position(eng, calls=(1, 0))
    s = eng.step(eng.step(s, 28), 12)
    assert s.result[:3] == (0, 5, "stop")


def test_forced_stop_on_empty_hand(eng: E.Engine) -> None:
    s = sanko_position(eng, hand=[28])
    s = eng.step(eng.step(s, 28), 12)
    assert s.phase == E.TERMINAL and s.result.points == 5


def test_unlimited_koikoi_and_new_yaku_trigger() -> None:
    free = E.Engine(RuleSet(rounds=1, koikoi_limit=0))
    s = eng_step_all(free, sanko_position(free, calls=(0, 1)), [28, 12])
    assert s.phase == E.DECIDE  # the opponent's call does not close the round
    strict = E.Engine(RuleSet(rounds=1, koikoi_trigger="new_yaku"))
    # Kasu already held; one more chaff is an improvement but not a new yaku
    chaff = [2, 3, 6, 7, 10, 11, 14, 15, 18, 19]
    s = position(strict, hands=([22, 47], [45]), field=[23], piles=(chaff, []), stock=[12, 13])
    s = strict.step(strict.step(s, 22), 12)
    assert s.phase == E.PLAY and s.turn == 1
    rise = E.Engine(RuleSet(rounds=1))
    s = position(rise, hands=([22, 47], [45]), field=[23], piles=(chaff, []), stock=[12, 13])
    assert rise.step(rise.step(s, 22), 12).phase == E.DECIDE


def eng_step_all(eng: E.Engine, s: E.EngineState, actions: list[int]) -> E.EngineState:
    for a in actions:
        s = eng.step(s, a)
    return s


# ---------------------------------------------------------------- exhaustive draw (sec. 6.3)
@pytest.mark.parametrize(
    "mode,winner,points,next_oya",
    [("nothing_oya_passes", -1, 0, 1), ("nothing_oya_stays", -1, 0, 0), ("oya_ken", 0, 6, 0),
     ("oya_plus_one", 0, 1, 0), ("last_yaku_maker", -1, 0, 1)],
)
def test_exhaustive_draw_options(mode: str, winner: int, points: int, next_oya: int) -> None:
    eng = E.Engine(RuleSet(rounds=2, exhaustive_draw=mode))
    s = position(eng, hands=([], [47]), field=[], stock=[13, 14], turn=15, oya=0)
    s = eng_step_all(eng, s, [47, 13])
    assert s.phase == E.DEAL and s.round == 1 and s.oya == next_oya
    assert s.result[:3] == (winner, points, "draw")


def test_last_yaku_maker_scores_at_exhaustive_draw() -> None:
    eng = E.Engine(RuleSet(rounds=1, exhaustive_draw="last_yaku_maker"))
    s = position(eng, hands=([], [47]), field=[], piles=([0, 8, 28], []), stock=[13, 14], turn=15, oya=0,
                 calls=(1, 0))
    s = eng_step_all(eng, s._replace(last_riser=0), [47, 13])
    assert s.result[:3] == (0, 5, "draw")


# ---------------------------------------------------------------- deal, redeal, teyaku (sec. 3.2)
def test_deal_codec_round_trips(eng: E.Engine) -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        deal = eng.sample_deal(rng)
        a = eng.encode_deal(*deal)
        assert 0 <= a < eng.num_deals and eng.decode_deal(a) == deal
    assert eng.num_deals == 377_348_994 * 76_904_685 * 10_518_300


def test_field_four_of_a_month_redeals_with_same_oya(eng: E.Engine) -> None:
    s = eng.initial_state()
    field = MONTH_MASK[0] | mask_of([4, 8, 12, 16])
    ko, oya = mask_of(range(20, 28)), mask_of(range(28, 36))
    t = eng.deal(s, ko, field, oya)
    assert t.phase == E.DEAL and t.redeals == 1 and t.oya == s.oya and t.round == 0
    oya_wins = E.Engine(RuleSet(rounds=1, field_four_of_month="oya_wins"))
    t = oya_wins.deal(oya_wins.initial_state(), ko, field, oya)
    assert t.result[:3] == (0, 6, "field_four")


def test_teyaku_end_the_round_for_six(eng: E.Engine) -> None:
    teshi = MONTH_MASK[2] | mask_of([16, 20, 24, 28])
    plain = mask_of([0, 4, 12, 36, 40, 44, 47, 33])
    field = mask_of([1, 5, 13, 17, 21, 25, 29, 37])
    t = eng.deal(eng.initial_state(), plain, field, teshi)  # oya (player 0) holds teshi
    assert t.result[:3] == (0, 6, "teyaku") and eng.returns(t) == (6.0, -6.0)
    assert t.result.yaku == (("Teshi", 6),)
    kuttsuki = mask_of([0, 1, 4, 5, 16, 17, 20, 21])
    plain2 = mask_of([12, 36, 40, 44, 47, 33, 24, 29])
    field2 = mask_of([2, 6, 13, 18, 22, 25, 30, 37])
    t = eng.deal(eng.initial_state(), kuttsuki, field2, plain2)  # the ko holds kuttsuki
    assert t.result[:3] == (1, 6, "teyaku") and t.result.yaku == (("Kuttsuki", 6),)
    teshi2 = MONTH_MASK[2] | mask_of([12, 36, 40, 44])
    both = eng.deal(eng.initial_state(), kuttsuki, field2, teshi2)
    assert both.result[:3] == (-1, 0, "void_teyaku")
    off = E.Engine(RuleSet(rounds=1, teyaku="off"))
    assert off.deal(off.initial_state(), plain, field, teshi).phase == E.PLAY


def test_teyaku_definitions() -> None:
    strict = E.Engine(RuleSet())
    even = E.Engine(RuleSet(kuttsuki_definition="even", teyaku_stack=True))
    aaaabbcc = MONTH_MASK[0] | mask_of([4, 5, 8, 9])
    assert strict.teyaku_points(aaaabbcc) == 6  # teshi only
    assert even.teyaku_points(aaaabbcc) == 12  # teshi + even kuttsuki, stacked
    assert E.Engine(RuleSet(kuttsuki_definition="even")).teyaku_points(aaaabbcc) == 6


# ---------------------------------------------------------------- properties of sec. 11
def test_cards_conserved_and_phase_legal_sets_in_random_play() -> None:
    rng = np.random.default_rng(11)
    for preset in PRESETS:
        eng = E.Engine(RuleSet.preset(preset, rounds=2), first_oya=None)
        for _ in range(15):
            s = eng.initial_state()
            while s.phase != E.TERMINAL:
                if s.phase in (E.PLAY, E.PLAY_CAPTURE, E.DRAW, E.DRAW_CAPTURE, E.DECIDE):
                    parts = [*s.hands, s.field, *s.piles, s.stock] + ([1 << s.pending] if s.pending >= 0 else [])
                    union = 0
                    for part in parts:
                        assert union & part == 0
                        union |= part
                    assert union == eng.deck
                    mover = eng.mover(s)
                    legal = eng.legal_actions(s)
                    if s.phase == E.PLAY:
                        assert legal == cards_of(s.hands[mover]) and legal
                        h = eng.rules.hand_size
                        assert s.hands[s.oya].bit_count() == h - (s.turn + 1) // 2
                        assert s.hands[1 - s.oya].bit_count() == h - s.turn // 2
                    elif s.phase in (E.PLAY_CAPTURE, E.DRAW_CAPTURE):
                        assert len(legal) == 2 and all(s.field >> c & 1 for c in legal)
                        assert all(c // 4 == s.pending // 4 for c in legal)
                    elif s.phase == E.DRAW:
                        assert legal == cards_of(s.stock)
                    else:
                        assert legal == [E.STOP, E.KOIKOI] and s.hands[mover]
                    a = legal[int(rng.integers(len(legal)))]
                else:
                    a = eng.sample_chance(s, rng)
                s = eng.step(s, a)
            r = eng.returns(s)
            assert r[0] + r[1] == 0.0


def test_replay_of_a_recorded_game_gives_the_same_terminal_state() -> None:
    eng = E.Engine(RuleSet(rounds=12), first_oya=None)
    record: list[int] = []
    final = random_playout(eng, np.random.default_rng(3), koikoi_prob=0.5, record=record)
    s = eng.initial_state()
    for a in record:
        s = eng.step(s, a)
    assert s == final and s.phase == E.TERMINAL


def test_match_rotates_oya_and_adds_scores() -> None:
    eng = E.Engine(RuleSet(rounds=12), first_oya=None)
    rng = np.random.default_rng(8)
    s = eng.initial_state()
    totals, net = [0, 0], 0
    rounds_seen = 0
    while s.phase != E.TERMINAL:
        before = s
        if s.phase in E.CHANCE_PHASES:
            s = eng.step(s, eng.sample_chance(s, rng))
        else:
            legal = eng.legal_actions(s)
            s = eng.step(s, E.KOIKOI if E.KOIKOI in legal and rng.random() < 0.5 else legal[-1 if E.STOP in legal
                                                                                            else 0])
        if s.round != before.round or s.phase == E.TERMINAL:
            rounds_seen += 1
            res = s.result
            if res.winner >= 0:
                totals[res.winner] += res.points
                net += res.points if res.winner == 0 else -res.points
            if s.phase != E.TERMINAL:
                expected_oya = res.winner if res.winner >= 0 else 1 - before.oya
                assert s.oya == expected_oya
    assert rounds_seen == 12 and list(s.totals) == totals and eng.returns(s) == (net, -net)


def test_koikoi_japan_match_ends_on_bust() -> None:
    eng = E.Engine(RuleSet.koikoi_japan(), first_oya=0)
    s = position(eng, hands=([], [44]), field=[47], piles=([], [0, 8]), stock=[13], turn=15)
    s = eng_step_all(eng, s._replace(totals=(3, 57)), [44, 13])  # Sanko on the ko's last card: forced stop
    assert s.result[:3] == (1, 5, "stop")
    assert s.phase == E.TERMINAL and s.round == 0 and s.totals == (-2, 62)  # transfer scoring; bust ends it


# ---------------------------------------------------------------- errors leave the state intact
def test_illegal_and_out_of_phase_actions_raise_and_leave_state(eng: E.Engine) -> None:
    s = sanko_position(eng)
    snapshot = tuple(s)
    for bad in (29, E.STOP, E.KOIKOI, 50, -1, 3.5, True):
        with pytest.raises(IllegalActionError):
            eng.step(s, bad)
    assert tuple(s) == snapshot
    d = eng.step(eng.step(s, 28), 12)
    for bad in (0, 47, 12):
        with pytest.raises(IllegalActionError, match="STOP"):
            eng.step(d, bad)
    end = eng.step(d, E.STOP)
    with pytest.raises(IllegalActionError, match="terminal"):
        eng.step(end, E.STOP)
    with pytest.raises(IllegalActionError):
        eng.decode_deal(eng.num_deals)
    with pytest.raises(GameDefinitionError, match="sampled"):
        eng.legal_actions(eng.initial_state())
    with pytest.raises(IllegalActionError):
        eng.encode_deal(1, 1, 2)


def test_engine_rejects_bad_parameters() -> None:
    with pytest.raises(GameDefinitionError):
        E.Engine(RuleSet(), first_oya=2)
    with pytest.raises(GameDefinitionError):
        E.Engine(RuleSet(), match_utility="money")
    assert E.Engine(RuleSet()).deck == FULL_DECK
