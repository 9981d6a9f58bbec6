"""Yaku and scoring: pure functions of a capture pile (a 48-bit mask) and the ``RuleSet``.

Rules (koikoi-rules.md sec. 5-6, ``nintendo``): Lights, Animals and Ribbons each score their best yaku; the groups,
the viewing yaku and Kasu add up.
  Lights: Goko 10 (all 5), Shiko 8 (4 without the rain man), Ame-shiko 7 (rain man + 3), Sanko 5 (3, no rain man).
  Hanami-zake 5 (curtain + sake cup), Tsukimi-zake 5 (moon + sake cup).
  Animals: Inoshikacho 5 + 1 per animal beyond 3, else Tane 1 + 1 per animal beyond 5 (the sake cup counts).
  Ribbons: Akatan + Aotan 10 + 1 per ribbon beyond 6, else Akatan or Aotan 5 + 1 per ribbon beyond 3, else Tan
  1 + 1 per ribbon beyond 5.  Kasu: 1 + 1 per chaff beyond 10 (the sake cup counts).
Round points (sec. 6): S doubled when S >= 7, doubled again when the opponent called koi-koi.

Specification in cfrlab:
* ``Scorer(rules).yaku(pile, field=, month=, own_calls=)`` lists ``(name, points)``; ``score`` is their sum (the
  base score S). ``field`` matters only for the field-weather rain rule, ``month`` (the round's month) for
  tsukifuda and seasonal viewing, ``own_calls`` for koikoi_japan's viewing values.
* ``round_points`` applies the multipliers of the rule set to a stop.
* Every option of ``RuleSet`` that touches scoring is read here, and once more by ``kernels.kernel_rules``, which
  turns it into the numba paths' arrays (tested equal to ``Scorer``: ``tests/games/koikoi/test_flow.py``).
"""

from __future__ import annotations

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.rules import RuleSet

YAKU_NAMES_JA = {
    "Goko": "五光", "Shiko": "四光", "Ame-shiko": "雨四光", "Sanko": "三光", "Hanami-zake": "花見酒",
    "Tsukimi-zake": "月見酒", "Inoshikacho": "猪鹿蝶", "Tane": "タネ", "Akatan-Aotan": "赤短・青短の重複",
    "Akatan": "赤短", "Aotan": "青短", "Tan": "タン", "Kasu": "カス", "Tsukifuda": "月札", "Teshi": "手四",
    "Kuttsuki": "くっつき",
}
"""Each yaku's Japanese name (koikoi-rules.md sec. 3 and 5); the card names are ``cards.NAME_JA``."""
CALL_NAMES_JA = {"STOP": "勝負", "KOI-KOI": "こいこい"}
"""The two calls at a decision, as players name them (koikoi-rules.md sec. 1)."""


class Scorer:
    """Yaku evaluation for one ``RuleSet`` (table of the options, read once)."""

    __slots__ = ("rules", "_double_chaff", "_nintendo_fast")

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._double_chaff = C.mask_of(rules.double_chaff_cards)
        r = rules
        self._nintendo_fast = (
            r.viewing_mode == "on" and r.rain_rule == "none" and r.viewing_seasonal == "off" and r.sake_cup == "both"
            and r.animal_model == "nintendo" and r.ribbon_model == "nintendo" and not r.double_chaff_cards
            and r.tsukifuda == 0 and r.viewing_points_after_own_koikoi < 0
        )

    # ------------------------------------------------------------------ base score
    def score(self, pile: int, field: int = 0, month: int = 1, own_calls: int = 0) -> int:
        """Base score S of ``pile`` (sum of the yaku points)."""
        if self._nintendo_fast:
            return self._score_nintendo(pile)
        return sum(p for _, p in self.yaku(pile, field, month, own_calls))

    def _score_nintendo(self, pile: int) -> int:
        # Same as yaku() under the nintendo-shaped options, without building the list (the engine's hot path).
        r = self.rules
        s = 0
        n = (pile & C.NON_RAIN_BRIGHTS).bit_count()
        rain = (pile >> C.RAIN_MAN) & 1
        if n == 4:
            s += r.gokou if rain else r.shikou
        elif n == 3:
            s += r.ame_shikou if rain else r.sankou
        if (pile >> C.SAKE_CUP) & 1 and r.viewing_points:
            s += r.viewing_points * (((pile >> C.CURTAIN) & 1) + ((pile >> C.MOON) & 1))
        a = (pile & C.ANIMALS).bit_count()
        if pile & C.INOSHIKACHO == C.INOSHIKACHO:
            s += r.inoshikacho + a - 3
        elif a >= 5:
            s += r.tane + a - 5
        rb = (pile & C.RIBBONS).bit_count()
        red = pile & C.AKATAN == C.AKATAN
        blue = pile & C.AOTAN == C.AOTAN
        if red and blue:
            s += r.akatan_aotan + rb - 6
        elif red:
            s += r.akatan + rb - 3
        elif blue:
            s += r.aotan + rb - 3
        elif rb >= 5:
            s += r.tan + rb - 5
        ch = (pile & C.CHAFF_CARDS).bit_count() + ((pile >> C.SAKE_CUP) & 1)
        if ch >= 10:
            s += r.kasu + ch - 10
        return s

    # ------------------------------------------------------------------ yaku list
    def yaku(self, pile: int, field: int = 0, month: int = 1, own_calls: int = 0) -> list[tuple[str, int]]:
        """The yaku in ``pile`` as ``(name, points)``, Lights, viewing, Animals, Ribbons, Kasu, Tsukifuda."""
        if self.rules.sake_cup == "either":
            as_animal = self._yaku(pile, field, month, own_calls, "animal")
            as_chaff = self._yaku(pile, field, month, own_calls, "chaff")
            return max(as_animal, as_chaff, key=lambda ys: sum(p for _, p in ys))
        return self._yaku(pile, field, month, own_calls, self.rules.sake_cup)

    def _yaku(self, pile: int, field: int, month: int, own_calls: int, sake: str) -> list[tuple[str, int]]:
        r = self.rules
        out: list[tuple[str, int]] = []
        # Lights
        n = (pile & C.NON_RAIN_BRIGHTS).bit_count()
        rain = bool((pile >> C.RAIN_MAN) & 1)
        if n == 4:
            out.append(("Goko", r.gokou) if rain else ("Shiko", r.shikou))
        elif n == 3:
            out.append(("Ame-shiko", r.ame_shikou) if rain else ("Sanko", r.sankou))
        # Viewing yaku (the sake cup is the sake cup whatever it counts as)
        viewing: list[tuple[str, int]] = []
        v = r.viewing_points
        if own_calls > 0 and r.viewing_points_after_own_koikoi >= 0:
            v = r.viewing_points_after_own_koikoi
        if v and (pile >> C.SAKE_CUP) & 1 and not (r.rain_rule == "ame_nagare" and rain):
            for name, card, season, spoiler in (("Hanami-zake", C.CURTAIN, 3, C.NOVEMBER),
                                                ("Tsukimi-zake", C.MOON, 8, C.DECEMBER)):
                if not (pile >> card) & 1:
                    continue
                if r.rain_rule == "field_weather" and field & spoiler:
                    continue
                pts = v
                if r.viewing_seasonal == "only" and month != season:
                    continue
                if r.viewing_seasonal == "double" and month == season:
                    pts = 2 * v
                viewing.append((name, pts))
        # Animals
        animals = pile & C.ANIMALS
        if sake == "chaff":
            animals &= ~(1 << C.SAKE_CUP)
        a = animals.bit_count()
        ino = pile & C.INOSHIKACHO == C.INOSHIKACHO
        if r.animal_model == "nintendo":
            if ino:
                out.append(("Inoshikacho", r.inoshikacho + a - 3))
            elif a >= 5:
                out.append(("Tane", r.tane + a - 5))
        else:
            if ino:
                out.append(("Inoshikacho", r.inoshikacho))
            if a >= 5:
                out.append(("Tane", r.tane + a - 5))
        # Ribbons
        rb = (pile & C.RIBBONS).bit_count()
        red = pile & C.AKATAN == C.AKATAN
        blue = pile & C.AOTAN == C.AOTAN
        if r.ribbon_model == "nintendo":
            if red and blue:
                out.append(("Akatan-Aotan", r.akatan_aotan + rb - 6))
            elif red:
                out.append(("Akatan", r.akatan + rb - 3))
            elif blue:
                out.append(("Aotan", r.aotan + rb - 3))
            elif rb >= 5:
                out.append(("Tan", r.tan + rb - 5))
        else:
            if red:
                out.append(("Akatan", r.akatan))
            if blue:
                out.append(("Aotan", r.aotan))
            if red and blue and r.ribbon_model == "koikoi_japan":
                out.append(("Akatan-Aotan", r.akatan_aotan))
            if rb >= 5:
                out.append(("Tan", r.tan + rb - 5))
        # Chaff
        chaff = pile & C.CHAFF_CARDS
        if sake != "animal":
            chaff |= pile & (1 << C.SAKE_CUP)
        ch = chaff.bit_count() + (pile & self._double_chaff).bit_count()
        if ch >= 10:
            out.append(("Kasu", r.kasu + ch - 10))
        # Tsukifuda: all four cards of the round's month
        if r.tsukifuda and 1 <= month <= 12 and pile & C.MONTH_MASK[month - 1] == C.MONTH_MASK[month - 1]:
            out.append(("Tsukifuda", r.tsukifuda))
        # 'limited' viewing yaku count only next to another yaku
        if viewing and (r.viewing_mode == "on" or out):
            out.extend(viewing)
        return out

    def yaku_names(self, pile: int, field: int = 0, month: int = 1, own_calls: int = 0) -> frozenset[str]:
        """Names of the yaku present (for the 'new_yaku' koi-koi trigger)."""
        return frozenset(name for name, _ in self.yaku(pile, field, month, own_calls))

    # ------------------------------------------------------------------ round points
    def round_points(self, base: int, own_calls: int, opp_calls: int, field_brights: int = 0) -> int:
        """Points for stopping with base score ``base`` (sec. 6.1-6.2 and the multiplier options)."""
        return self.round_points_steps(base, own_calls, opp_calls, field_brights)[-1][1]

    def round_points_steps(self, base: int, own_calls: int, opp_calls: int,
                           field_brights: int = 0) -> list[tuple[str, int]]:
        """How a stop is paid, step by step: ``[("base score", 8), ("x2: 7 points or more", 16), ...]``."""
        r = self.rules
        pts = base
        steps = [("base score", pts)]
        if r.own_koikoi_bonus == "koikoi_japan" and own_calls:
            pts = pts + own_calls if own_calls <= 3 else pts * (own_calls - 2)
            steps.append((f"own koi-koi bonus ({own_calls} call{'s' if own_calls > 1 else ''})", pts))
        elif r.own_koikoi_bonus == "cumulative" and own_calls:
            pts *= own_calls + 1
            steps.append((f"x{own_calls + 1}: {own_calls} own koi-koi call{'s' if own_calls > 1 else ''}", pts))
        if r.seven_plus_double and base >= r.double_threshold:
            pts *= 2
            steps.append((f"x2: base score {r.double_threshold} or more", pts))
        mult = r.opponent_koikoi_multiplier
        if mult == "double" and opp_calls:
            pts *= 2
            steps.append(("x2: the other player had called koi-koi", pts))
        elif mult == "calls_plus_one" and own_calls + opp_calls:
            pts *= own_calls + opp_calls + 1
            steps.append((f"x{own_calls + opp_calls + 1}: koi-koi calls plus one", pts))
        elif mult == "anyone_double" and (own_calls or opp_calls):
            pts *= 2
            steps.append(("x2: koi-koi was called", pts))
        elif mult == "own_double" and own_calls:
            pts *= 2
            steps.append(("x2: own koi-koi call", pts))
        if r.bright_field_multiplier == "count" and field_brights > 1:
            pts *= field_brights
            steps.append((f"x{field_brights}: brights dealt to the field", pts))
        elif r.bright_field_multiplier == "count_plus_one":
            pts *= field_brights + 1
            if field_brights:
                steps.append((f"x{field_brights + 1}: brights dealt to the field plus one", pts))
        return steps


def base_score(pile: int, rules: RuleSet | None = None) -> int:
    """Base score of ``pile`` under ``rules`` (default ``nintendo``); convenience for tests and tools."""
    return Scorer(rules or RuleSet()).score(pile)
