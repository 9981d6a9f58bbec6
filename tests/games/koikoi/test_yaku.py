"""Scoring: the worked examples of koikoi-rules.md sec. 5.3, a table of cases per option and preset, monotonicity."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfrlab.game import GameDefinitionError
from cfrlab.games.koikoi.rules.cards import CHAFF_CARDS, FULL_DECK, cards_of, mask_of
from cfrlab.games.koikoi.rules.rules import PRESETS, RuleSet
from cfrlab.games.koikoi.rules.yaku import Scorer, base_score

NINE_CHAFF = [2, 3, 6, 7, 10, 11, 14, 15, 18]

# sec. 5.3, verbatim: pile, base S, points of a plain stop (no opponent koi-koi)
WORKED_EXAMPLES = [
    ([0, 8, 28], 5, 5),
    ([0, 8, 28, 40], 7, 14),
    ([0, 8, 28, 40, 44], 10, 20),
    ([8, 28, 32], 10, 20),
    ([1, 5, 9, 13, 17], 7, 14),
    ([1, 5, 9, 21, 33, 37], 10, 20),
    ([1, 5, 9, 21, 33, 37, 42], 11, 22),
    ([20, 24, 36, 4, 12], 7, 14),
    ([4, 12, 16, 29, 32], 1, 1),
    (NINE_CHAFF + [32], 1, 1),
    ([40, 0, 8], 0, 0),
]


@pytest.mark.parametrize("pile,base,points", WORKED_EXAMPLES)
def test_worked_examples_of_section_5_3(pile: list[int], base: int, points: int) -> None:
    scorer = Scorer(RuleSet())
    assert scorer.score(mask_of(pile)) == base
    assert sum(p for _, p in scorer.yaku(mask_of(pile))) == base  # the list form agrees with the fast path
    assert scorer.round_points(base, own_calls=0, opp_calls=0) == points


def test_named_yaku_of_the_examples() -> None:
    s = Scorer(RuleSet())
    assert s.yaku(mask_of([8, 28, 32])) == [("Hanami-zake", 5), ("Tsukimi-zake", 5)]
    assert s.yaku(mask_of([1, 5, 9, 13, 17])) == [("Akatan", 7)]  # not Akatan 5 + Tan 1
    assert s.yaku(mask_of([0, 8, 28, 44])) == [("Shiko", 8)]
    assert s.yaku(mask_of([40, 0, 8, 28])) == [("Ame-shiko", 7)]


def test_group_maxima_of_section_5_2() -> None:
    s = Scorer(RuleSet())
    ribbons = mask_of([1, 5, 9, 13, 17, 21, 25, 33, 37, 42])
    animals = mask_of([4, 12, 16, 20, 24, 29, 32, 36, 41])
    assert s.score(ribbons) == 14
    assert s.score(animals) == 11 + 0  # the sake cup alone is one chaff, no Kasu
    assert s.score(CHAFF_CARDS | 1 << 32) == 16


# (rule overrides, pile, expected base score, why)
OPTION_CASES = [
    ({"gokou": 15}, [0, 8, 28, 40, 44], 15, "Goko 15"),
    ({"sankou": 6}, [0, 8, 28], 6, "Sanko 6"),
    ({"shikou": 10, "ame_shikou": 8}, [0, 8, 28, 44], 10, "Shiko 10"),
    ({"shikou": 10, "ame_shikou": 8}, [0, 8, 28, 40], 8, "Ame-shiko 8"),
    ({"viewing_points": 0}, [8, 28, 32], 0, "viewing yaku off"),
    ({"viewing_points": 3}, [8, 32], 3, "viewing 3"),
    ({"viewing_mode": "limited"}, [8, 32], 0, "limited: alone it does not count"),
    ({"viewing_mode": "limited"}, [8, 32, 0, 28], 15, "limited: with Sanko it counts (5 + 5 + 5)"),
    ({"rain_rule": "ame_nagare"}, [8, 32, 40], 0, "rain man voids hanami"),
    ({"rain_rule": "none"}, [8, 32, 40], 5, "no rain rule"),
    ({"viewing_seasonal": "only"}, [8, 32], 0, "hanami outside March (round month 1)"),
    ({"viewing_seasonal": "double"}, [28, 32], 5, "tsukimi outside August is single"),
    ({"sake_cup": "animal"}, NINE_CHAFF + [32], 0, "sake cup not chaff"),
    ({"sake_cup": "chaff"}, [4, 12, 16, 29, 32], 0, "sake cup not an animal"),
    ({"sake_cup": "chaff"}, NINE_CHAFF + [32], 1, "sake cup as chaff"),
    ({"sake_cup": "either"}, [4, 12, 16, 29, 32] + NINE_CHAFF, 1, "either: one of Tane or Kasu, not both"),
    ({"sake_cup": "both"}, [4, 12, 16, 29, 32] + NINE_CHAFF, 2, "both: Tane and Kasu"),
    ({"animal_model": "stacking"}, [20, 24, 36, 4, 12], 6, "Inoshikacho 5 flat + Tane 1"),
    ({"animal_model": "stacking"}, [20, 24, 36, 4], 5, "Inoshikacho 5 flat, no Tane"),
    ({"inoshikacho": 6}, [20, 24, 36], 6, "Inoshikacho 6"),
    ({"ribbon_model": "stacking"}, [1, 5, 9, 13, 17], 6, "flat Akatan 5 + Tan 1"),
    ({"ribbon_model": "stacking"}, [1, 5, 9, 21, 33, 37], 12, "Akatan 5 + Aotan 5 + Tan 2"),
    ({"ribbon_model": "stacking", "akatan": 6, "aotan": 6}, [21, 33, 37], 6, "flat Aotan 6"),
    ({"ribbon_model": "koikoi_japan"}, [1, 5, 9, 21, 33, 37], 22, "5 + 5 + 10 + Tan 2"),
    ({"double_chaff_cards": (43,)}, NINE_CHAFF + [43], 2, "lightning counts twice"),
    ({"double_chaff_cards": (45,)}, NINE_CHAFF[:8] + [45], 1, "yellow paulownia: 8 + 2 = 10 chaff"),
    ({"tsukifuda": 4}, [0, 1, 2, 3], 4, "all of January in round 1"),
    ({"tsukifuda": 0}, [0, 1, 2, 3], 0, "tsukifuda off"),
    ({"tane": 2, "tan": 2, "kasu": 2}, [4, 12, 16, 29, 41], 2, "Tane base 2"),
]


@pytest.mark.parametrize("overrides,pile,expected,why", OPTION_CASES, ids=[c[3] for c in OPTION_CASES])
def test_scoring_options(overrides: dict, pile: list[int], expected: int, why: str) -> None:
    assert Scorer(RuleSet(**overrides)).score(mask_of(pile)) == expected, why


def test_field_weather_and_seasons_read_the_context() -> None:
    weather = Scorer(RuleSet(rain_rule="field_weather"))
    assert weather.score(mask_of([8, 32]), field=mask_of([41])) == 0  # November on the field: no hanami
    assert weather.score(mask_of([8, 32]), field=mask_of([45])) == 5  # December spoils tsukimi, not hanami
    assert weather.score(mask_of([28, 32]), field=mask_of([45])) == 0
    seasonal = Scorer(RuleSet(viewing_seasonal="only"))
    assert seasonal.score(mask_of([8, 32]), month=3) == 5
    assert Scorer(RuleSet(viewing_seasonal="double")).score(mask_of([28, 32]), month=8) == 10
    assert Scorer(RuleSet(tsukifuda=4)).score(mask_of([4, 5, 6, 7]), month=2) == 4
    after = Scorer(RuleSet(viewing_points=1, viewing_points_after_own_koikoi=3))
    assert after.score(mask_of([8, 32]), own_calls=0) == 1
    assert after.score(mask_of([8, 32]), own_calls=1) == 3


# (rule overrides, base, own calls, opponent calls, field brights, points)
MULTIPLIER_CASES = [
    ({}, 6, 0, 0, 0, 6),
    ({}, 7, 0, 0, 0, 14),
    ({}, 6, 0, 1, 0, 12),
    ({}, 7, 0, 1, 0, 28),  # both doublings stack: x4
    ({}, 5, 1, 0, 0, 5),  # own call: no bonus under nintendo
    ({"seven_plus_double": False}, 9, 0, 0, 0, 9),
    ({"double_threshold": 10}, 9, 0, 0, 0, 9),
    ({"opponent_koikoi_multiplier": "none"}, 5, 0, 1, 0, 5),
    ({"opponent_koikoi_multiplier": "calls_plus_one", "seven_plus_double": False}, 5, 1, 2, 0, 20),
    ({"opponent_koikoi_multiplier": "anyone_double"}, 5, 1, 0, 0, 10),
    ({"opponent_koikoi_multiplier": "own_double"}, 5, 0, 1, 0, 5),
    ({"opponent_koikoi_multiplier": "own_double"}, 5, 1, 0, 0, 10),
    ({"own_koikoi_bonus": "koikoi_japan", "seven_plus_double": False}, 5, 2, 0, 0, 7),
    ({"own_koikoi_bonus": "koikoi_japan", "seven_plus_double": False}, 5, 5, 0, 0, 15),
    ({"own_koikoi_bonus": "cumulative"}, 3, 2, 0, 0, 9),
    ({"bright_field_multiplier": "count"}, 3, 0, 0, 2, 6),
    ({"bright_field_multiplier": "count"}, 3, 0, 0, 0, 3),
    ({"bright_field_multiplier": "count_plus_one"}, 3, 0, 0, 2, 9),
]


@pytest.mark.parametrize("overrides,base,own,opp,brights,points", MULTIPLIER_CASES)
def test_round_point_multipliers(overrides: dict, base: int, own: int, opp: int, brights: int, points: int) -> None:
    assert Scorer(RuleSet(**overrides)).round_points(base, own, opp, brights) == points


# (preset, pile, base) -- one distinguishing case per preset
PRESET_CASES = [
    ("nintendo", [0, 8, 28, 40, 44], 10),
    ("fudawiki", [0, 8, 28, 40, 44], 15),
    ("fudawiki", [0, 8, 28], 6),
    ("fudawiki", [8, 32], 5),
    ("koikoi_japan", [8, 32], 1),
    ("koikoi_japan", [20, 24, 36, 4, 12], 6),
    ("koikoi_japan", [1, 5, 9, 21, 33, 37], 22),
    ("hanafuda_flash", [0, 8, 28, 40, 44], 15),
    ("hanafuda_flash", [0, 8, 28, 44], 10),
    ("hanafuda_flash", [8, 28, 32], 0),  # no viewing yaku; 2 non-rain brights is no Sanko
    ("hanafuda_flash", [21, 33, 37], 6),
    ("hanafuda_flash", [1, 5, 9, 13, 17], 7),  # flat Akatan 6 + Tan 1
    ("mini", [28, 32], 5),
]


@pytest.mark.parametrize("preset,pile,base", PRESET_CASES)
def test_presets_score(preset: str, pile: list[int], base: int) -> None:
    assert Scorer(RuleSet.preset(preset)).score(mask_of(pile)) == base


def test_preset_round_points() -> None:
    japan = Scorer(RuleSet.koikoi_japan())
    assert japan.round_points(8, own_calls=0, opp_calls=1) == 8  # no 7+ doubling, opponent's call irrelevant
    assert Scorer(RuleSet.fudawiki()).round_points(8, 0, 1) == 32


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 47), unique=True, max_size=30), st.integers(0, 47), st.sampled_from(PRESETS))
def test_base_score_never_decreases_as_cards_are_added(pile: list[int], extra: int, preset: str) -> None:
    """sec. 4.3 / 11: S is monotone under every preset (koikoi_japan's own-call values aside)."""
    scorer = Scorer(RuleSet.preset(preset))
    m = mask_of(pile)
    assert scorer.score(m | 1 << extra) >= scorer.score(m)


def test_full_deck_scores_and_empty_pile() -> None:
    assert base_score(0) == 0
    assert base_score(FULL_DECK) == 10 + 10 + 11 + 14 + 16
    assert cards_of(mask_of([47, 0, 13])) == [0, 13, 47]


@pytest.mark.parametrize(
    "bad",
    [
        {"sake_cup": "beer"},
        {"koikoi_limit": -1},
        {"months": (0, 1)},
        {"months": (8, 8)},
        {"hand_size": 9, "months": (1, 2, 3, 4)},
        {"gokou": "ten"},
        {"exhaustive_draw": "oya_takes_all"},
        {"double_chaff_cards": (48,)},
    ],
)
def test_malformed_rule_options_raise_clearly(bad: dict) -> None:
    with pytest.raises(GameDefinitionError, match="koikoi rules"):
        RuleSet(**bad)


def test_unknown_preset_and_option() -> None:
    with pytest.raises(GameDefinitionError, match="unknown preset"):
        RuleSet.preset("casino")
    with pytest.raises(GameDefinitionError, match="unknown option"):
        RuleSet.preset("nintendo", goko=15)
