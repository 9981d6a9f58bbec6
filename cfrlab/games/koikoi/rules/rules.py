"""Koi-Koi rule options: one frozen ``RuleSet`` with every disputed point as a named field, and the presets.

Rules: koikoi-rules.md sec. 8 (options) and sec. 9 (where sources disagree). The default is ``nintendo``: the rules
Nintendo publishes (12 rounds, 8/8/8 deal, teyaku 6, koi-koi once per round, 7+ doubles, the opponent's koi-koi
doubles, exhaustive draw scores nothing and passes the oya).

Specification in cfrlab:
* ``RuleSet()`` is ``nintendo``; ``RuleSet.fudawiki()``, ``RuleSet.koikoi_japan()``, ``RuleSet.hanafuda_flash()``
  ``RuleSet.mini()`` and ``RuleSet.mini_tsukifuda()`` are the named presets, ``RuleSet.preset(name, **overrides)``
  builds any of them by name.
* Every field is validated on construction; a bad value raises ``GameDefinitionError`` naming the allowed values.
* ``months``, ``hand_size`` and ``field_size`` make the mini variants: the same engine over a subset of months.
* Deviations from the rules page, all deliberate and documented at the field: the "both players hold teyaku" and
  field-redeal outcomes follow sec. 3.2 defaults; ``bga`` is not a preset because its yaku values were not captured.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from cfrlab.game import GameDefinitionError

MAX_ROUNDS = 100
"""Most rounds of a match (a full match has 12): the game's ``rounds`` and the commands' ``--rounds``."""
MAX_RULE_NUMBER = 1000
"""Largest number a rule option may set (points, thresholds, limits; the presets' largest is 30)."""

_CHOICES: dict[str, tuple[Any, ...]] = {
    "scoring": ("winner_only", "transfer"),
    "field_four_of_month": ("redeal", "oya_wins", "none"),
    "teyaku": ("score", "off", "redeal"),
    "kuttsuki_definition": ("strict", "even"),
    "teyaku_both": ("void_oya_passes", "void_same_oya", "ignore"),
    "viewing_mode": ("on", "limited"),
    "rain_rule": ("none", "ame_nagare", "field_weather"),
    "viewing_seasonal": ("off", "only", "double"),
    "sake_cup": ("both", "animal", "chaff", "either"),
    "animal_model": ("nintendo", "stacking"),
    "ribbon_model": ("nintendo", "stacking", "koikoi_japan"),
    "koikoi_trigger": ("rise", "new_yaku"),
    "opponent_koikoi_multiplier": ("double", "none", "calls_plus_one", "anyone_double", "own_double"),
    "own_koikoi_bonus": ("none", "koikoi_japan", "cumulative"),
    "exhaustive_draw": ("nothing_oya_passes", "nothing_oya_stays", "oya_ken", "oya_plus_one", "last_yaku_maker"),
    "bright_field_multiplier": ("off", "count", "count_plus_one"),
    "match_tie": ("draw",),
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every Koi-Koi rule option (koikoi-rules.md sec. 8); the defaults are ``nintendo``."""

    name: str = "nintendo"
    """Preset name this rule set started from (informational; fingerprints use every field)."""
    # --- match ---
    rounds: int = 12
    """Rounds in a match (each round is one deal played out)."""
    initial_points: int = 0
    """Points each player starts the match with (30 in koikoi_japan)."""
    bust_ends_match: bool = False
    """End the match as soon as a player's total is <= 0 (koikoi_japan)."""
    scoring: str = "winner_only"
    """'winner_only': the winner adds P; 'transfer': the loser also pays P (same difference)."""
    # --- deck and deal ---
    months: tuple[int, ...] = tuple(range(1, 13))
    """Months in the deck (a subset gives a mini variant)."""
    hand_size: int = 8
    field_size: int = 8
    field_four_of_month: str = "redeal"
    """Field showing all four cards of a month: 'redeal' (same oya), 'oya_wins' (oya scores teyaku_points) or
    'none' (play on; the four cards then stay on the field)."""
    redeal_field_four_pairs: bool = False
    """Redeal when the field is four pairs (fudawiki)."""
    redeal_field_three_of_month: bool = False
    """Redeal when the field shows three (or four) cards of one month (suzukiplan's engine; checked right after
    ``field_four_of_month``)."""
    redeal_hand_four_of_month: bool = False
    """Redeal when a hand holds four of a month (koikoi_japan, where teyaku do not score)."""
    # --- teyaku ---
    teyaku: str = "score"
    """'score': a hand with teshi or kuttsuki wins the round at once; 'off': ignored; 'redeal': redeal instead."""
    teshi_points: int = 6
    kuttsuki_points: int = 6
    kuttsuki_definition: str = "strict"
    """'strict': month counts exactly (2,2,2,2); 'even': every month count even."""
    teyaku_both: str = "void_oya_passes"
    """Both hands hold a teyaku: void like a draw with the oya passing, void with the same oya, or ignore both."""
    teyaku_stack: bool = False
    """A hand holding both teshi and (even) kuttsuki scores both (12) instead of the larger."""
    # --- lights ---
    gokou: int = 10
    shikou: int = 8
    ame_shikou: int = 7
    sankou: int = 5
    # --- viewing yaku ---
    viewing_points: int = 5
    """Hanami-zake and Tsukimi-zake points each; 0 switches them off."""
    viewing_points_after_own_koikoi: int = -1
    """Points of each viewing yaku once the scorer has called koi-koi (koikoi_japan: 3); -1 = unchanged."""
    viewing_mode: str = "on"
    """'limited': viewing yaku count only together with another yaku."""
    rain_rule: str = "none"
    """'ame_nagare': the rain man in the pile voids the viewing yaku; 'field_weather': November cards on the field
    void hanami, December cards void tsukimi."""
    viewing_seasonal: str = "off"
    """'only': hanami only in round month 3 and tsukimi only in month 8; 'double': doubled in their month."""
    # --- animals, ribbons, chaff ---
    sake_cup: str = "both"
    """The sake cup counts as 'both' animal and chaff, 'animal' only, 'chaff' only, or 'either' (the better)."""
    animal_model: str = "nintendo"
    """'nintendo': Inoshikacho + 1 per extra animal, exclusive with Tane; 'stacking': Inoshikacho flat + Tane."""
    inoshikacho: int = 5
    tane: int = 1
    ribbon_model: str = "nintendo"
    """'nintendo': best of Akatan/Aotan (+1 per extra ribbon), both 10 (+1 per extra), Tan; 'stacking': Akatan and
    Aotan flat, stacking with each other and Tan; 'koikoi_japan': red, blue, red-and-blue bonus and Tan all stack."""
    akatan: int = 5
    aotan: int = 5
    akatan_aotan: int = 10
    tan: int = 1
    kasu: int = 1
    double_chaff_cards: tuple[int, ...] = ()
    """Card ids counted as two chaff (lightning 43, yellow paulownia 45, sake cup 32 in some houses)."""
    tsukifuda: int = 0
    """Points for all four cards of the round's month; 0 = off."""
    # --- koi-koi and multipliers ---
    seven_plus_double: bool = True
    double_threshold: int = 7
    koikoi_allowed: bool = True
    """False: every first or improved yaku stops the round at once (no koi-koi decision at all)."""
    koikoi_limit: int = 1
    """Koi-koi calls allowed per round, both players together; 0 = unlimited."""
    koikoi_trigger: str = "rise"
    """What allows a stop/koi-koi decision: any 'rise' of the base score, or a 'new_yaku' only."""
    koikoi_min_points: int = 0
    """A decision (and a win) needs at least this base score."""
    opponent_koikoi_multiplier: str = "double"
    own_koikoi_bonus: str = "none"
    """'koikoi_japan': +n for n <= 3 own calls, x(n-2) beyond; 'cumulative': x(n+1)."""
    forced_stop_on_empty_hand: bool = True
    """A rise on the player's own last turn stops at once (koi-koi could never pay)."""
    exhaustive_draw: str = "nothing_oya_passes"
    oya_ken_points: int = 6
    bright_field_multiplier: str = "off"
    """Multiply the winner's points by the brights dealt to the field ('count') or by that plus one."""
    match_tie: str = "draw"

    def __post_init__(self) -> None:
        for key, allowed in _CHOICES.items():
            value = getattr(self, key)
            if value not in allowed:
                raise GameDefinitionError(
                    f"koikoi rules: {key}={value!r} is not an option; choose one of {', '.join(map(repr, allowed))}"
                )
        ints = [f.name for f in fields(self) if f.type == "int"]
        for key in ints:
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise GameDefinitionError(f"koikoi rules: {key} must be an integer, got {value!r}")
        for key in ("rounds", "hand_size"):
            if getattr(self, key) < 1:
                raise GameDefinitionError(f"koikoi rules: {key} must be >= 1, got {getattr(self, key)}")
        if self.field_size < 0 or self.koikoi_limit < 0 or self.viewing_points < 0:
            raise GameDefinitionError("koikoi rules: field_size, koikoi_limit and viewing_points must be >= 0")
        months = tuple(self.months)
        if not months or len(set(months)) != len(months) or not all(
            isinstance(m, int) and 1 <= m <= 12 for m in months
        ):
            raise GameDefinitionError(f"koikoi rules: months must be distinct integers in 1..12, got {self.months!r}")
        cards = 4 * len(months)
        needed = 2 * self.hand_size + self.field_size + 2 * self.hand_size
        if needed > cards:
            raise GameDefinitionError(
                f"koikoi rules: {len(months)} months give {cards} cards, but hands of {self.hand_size}, a field of "
                f"{self.field_size} and one draw per turn need {needed}; use fewer cards or more months"
            )
        for c in self.double_chaff_cards:
            if not isinstance(c, int) or not 0 <= c < 48:
                raise GameDefinitionError(f"koikoi rules: double_chaff_cards must be card ids 0..47, got {c!r}")

    # ----- presets -----
    @classmethod
    def nintendo(cls, **overrides: Any) -> RuleSet:
        """Nintendo's published rules (the default; koikoi-rules.md sec. 0)."""
        return cls(**{"name": "nintendo", **overrides})

    @classmethod
    def fudawiki(cls, **overrides: Any) -> RuleSet:
        """FudaWiki's Koi-Koi: Goko 15, Sanko 6, tsukifuda 4, unlimited koi-koi, draw keeps the dealer."""
        base = dict(
            name="fudawiki", gokou=15, sankou=6, tsukifuda=4, teyaku_both="void_same_oya",
            redeal_field_four_pairs=True, koikoi_limit=0, exhaustive_draw="nothing_oya_stays",
        )
        return cls(**{**base, **overrides})

    @classmethod
    def koikoi_japan(cls, **overrides: Any) -> RuleSet:
        """guansanghai/KoiKoi-AI's rules: 8 rounds, 30 points each, transfer scoring, no teyaku, stacking yaku."""
        base = dict(
            name="koikoi_japan", rounds=8, initial_points=30, bust_ends_match=True, scoring="transfer",
            redeal_hand_four_of_month=True, teyaku="off", animal_model="stacking", ribbon_model="koikoi_japan",
            viewing_points=1, viewing_points_after_own_koikoi=3, seven_plus_double=False, koikoi_limit=0,
            opponent_koikoi_multiplier="none", own_koikoi_bonus="koikoi_japan", exhaustive_draw="oya_plus_one",
        )
        return cls(**{**base, **overrides})

    @classmethod
    def hanafuda_flash(cls, **overrides: Any) -> RuleSet:
        """GameDesign's Hanafuda Flash: Goko 15, Shiko 10, Ame-shiko 8, Sanko 6, flat Akatan/Aotan 6, oya-ken."""
        base = dict(
            name="hanafuda_flash", gokou=15, shikou=10, ame_shikou=8, sankou=6, viewing_points=0,
            ribbon_model="stacking", akatan=6, aotan=6, akatan_aotan=12, tsukifuda=4, exhaustive_draw="oya_ken",
        )
        return cls(**{**base, **overrides})

    @classmethod
    def mini(cls, **overrides: Any) -> RuleSet:
        """Mini Koi-Koi: Nintendo scoring over August and September only, hands of 2, an empty field.

        Small enough to enumerate (420 deals) and solve exactly; Tsukimi-zake (moon + sake cup) is the one yaku
        these months allow. Teyaku need 8-card hands, so they are off."""
        base = dict(name="mini", months=(8, 9), hand_size=2, field_size=0, teyaku="off", rounds=1)
        return cls(**{**base, **overrides})

    @classmethod
    def mini_tsukifuda(cls, **overrides: Any) -> RuleSet:
        """Mini Koi-Koi where koi-koi matters: ``mini`` plus Tsukifuda (all four August cards) worth 2.

        Tsukimi-zake (5) and Tsukifuda (2) make 7, which the 7+ rule doubles to 14, so a player holding
        Tsukimi-zake with a card left weighs 5 now against 14 or nothing (a koi-koi caller who never improves
        forfeits at the exhaustive draw), while the opponent can only block. Exactly solved, the equilibrium calls
        koi-koi, and both the calls and the doubling change its value (BENCHMARKS.md, "Mini Koi-Koi")."""
        base = dict(name="mini_tsukifuda", months=(8, 9), hand_size=2, field_size=0, teyaku="off", rounds=1,
                    tsukifuda=2)
        return cls(**{**base, **overrides})

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> RuleSet:
        """The preset called ``name`` with ``overrides`` applied; unknown names and fields raise clearly."""
        if name not in PRESETS:
            raise GameDefinitionError(f"koikoi rules: unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise GameDefinitionError(f"koikoi rules: unknown option(s) {unknown}; options: {sorted(known)}")
        fixed = {k: (tuple(v) if isinstance(v, list) else v) for k, v in overrides.items()}
        return getattr(cls, name)(**fixed)

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with ``changes`` (validated)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def month_of_round(rules: RuleSet, round_index: int) -> int:
    """The month (1-12) of round ``round_index`` (0-based): rounds run through ``rules.months`` (all twelve: Jan, Feb,
    ...), for tsukifuda and seasonal viewing."""
    months = rules.months
    return months[round_index % len(months)] if len(months) < 12 else round_index % 12 + 1


def match_rounds(preset: str) -> int:
    """Rounds of a match under ``preset``: its own count (koikoi_japan: 8), or 12 where the preset is one round."""
    rounds = RuleSet.preset(preset).rounds
    return rounds if rounds > 1 else 12


PRESETS: tuple[str, ...] = ("nintendo", "fudawiki", "koikoi_japan", "hanafuda_flash", "mini", "mini_tsukifuda")
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(RuleSet))
