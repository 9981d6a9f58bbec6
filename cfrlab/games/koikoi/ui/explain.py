"""Koi-Koi in words for players: the rules summary, the yaku table of a rule set, and how a round was scored.

Specification in cfrlab: ``rules_summary(rules)`` and ``yaku_table(rules)`` read their numbers from the
``RuleSet`` (so a preset's points are the ones shown); ``round_text(result, me)`` names the yaku of a finished
round with their points and every multiplier applied (``RoundResult.yaku`` and ``.steps`` from the engine);
``captured(before, after)`` says which cards each player took in one step. Used by the terminal game and the web
page (koikoi-rules.md sec. 3-6).
"""

from __future__ import annotations

from typing import Any

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.rules import RuleSet

_REASONS = {
    "stop": "{who} called STOP",
    "teyaku": "{who} held a hand yaku (teyaku)",
    "field_four": "four cards of one month lay on the field",
    "draw": "the hands ran out (exhaustive draw)",
    "void_teyaku": "both hands held a hand yaku: the round is void",
}


def yaku_table(rules: RuleSet) -> list[tuple[str, str, str]]:
    """(yaku, points, what it takes) under ``rules``."""
    r = rules
    rows = [
        ("Goko", f"{r.gokou}", "all five brights"),
        ("Shiko", f"{r.shikou}", "four brights without the rain man"),
        ("Ame-shiko", f"{r.ame_shikou}", "the rain man and three other brights"),
        ("Sanko", f"{r.sankou}", "three brights without the rain man"),
    ]
    if r.viewing_points:
        rows += [("Hanami-zake", f"{r.viewing_points}", "the curtain (March bright) and the sake cup"),
                 ("Tsukimi-zake", f"{r.viewing_points}", "the moon (August bright) and the sake cup")]
    rows += [
        ("Inoshikacho", f"{r.inoshikacho} +1 per extra animal", "boar, deer and butterflies"),
        ("Tane", f"{r.tane} +1 per extra", "five animals"),
        ("Akatan-Aotan", f"{r.akatan_aotan} +1 per extra ribbon", "the three red poem and three blue ribbons"),
        ("Akatan", f"{r.akatan} +1 per extra ribbon", "the three red poem ribbons"),
        ("Aotan", f"{r.aotan} +1 per extra ribbon", "the three blue ribbons"),
        ("Tan", f"{r.tan} +1 per extra", "five ribbons"),
        ("Kasu", f"{r.kasu} +1 per extra", "ten chaff (the sake cup counts)"),
    ]
    if r.tsukifuda:
        rows.append(("Tsukifuda", f"{r.tsukifuda}", "all four cards of the round's month"))
    if r.teyaku == "score":
        rows += [("Teshi (hand yaku)", f"{r.teshi_points}", "all four cards of a month dealt to one hand"),
                 ("Kuttsuki (hand yaku)", f"{r.kuttsuki_points}", "a dealt hand of four pairs of months")]
    return rows


def rules_summary(rules: RuleSet) -> str:
    """A short account of play and scoring under ``rules``, with the yaku table."""
    r = rules
    lines = [
        f"Koi-Koi, {r.name} rules: {r.rounds} round{'s' if r.rounds != 1 else ''}; the dealer (oya) plays first.",
        "Each turn: play a card from your hand. If a field card has the same month you capture both (two matches:",
        "you choose one; three: you take all); else your card stays on the field. Then the top card of the deck is",
        "drawn and captures the same way. Captured cards score yaku.",
        "When your score rises you choose: STOP (the round ends and you score now) or KOI-KOI (play on for more,",
        "but if the opponent scores first they win the round).",
    ]
    mult = []
    if r.seven_plus_double:
        mult.append(f"x2 when the base score is {r.double_threshold} or more")
    if r.opponent_koikoi_multiplier == "double":
        mult.append("x2 when the other player had called koi-koi")
    elif r.opponent_koikoi_multiplier != "none":
        mult.append(f"koi-koi multiplier: {r.opponent_koikoi_multiplier.replace('_', ' ')}")
    if mult:
        lines.append("Multipliers on a stop: " + "; ".join(mult) + ".")
    lines.append("Yaku:")
    width = max(len(name) for name, _, _ in yaku_table(r))
    for name, points, what in yaku_table(r):
        lines.append(f"  {name:<{width}}  {points:<26} {what}")
    return "\n".join(lines)


def yaku_text(yaku: Any) -> str:
    """``Tan 1 + Tane 2`` (or ``no yaku``)."""
    return " + ".join(f"{name} {points}" for name, points in yaku) if yaku else "no yaku"


def round_text(result: Any, me: int) -> str:
    """How a round ended, from player ``me``'s side: who scored, with which yaku and multipliers."""
    who = "nobody" if result.winner < 0 else ("you" if result.winner == me else "the opponent")
    how = _REASONS.get(result.reason, result.reason).format(who=who)
    text = how[0].upper() + how[1:]
    if result.winner < 0 or not result.points:
        return f"{text}: nobody scores."
    text += f": {who} score{'' if who == 'you' else 's'} {result.points}"
    if result.yaku:
        text += f" ({yaku_text(result.yaku)}"
        steps = list(result.steps[1:])
        if steps:
            text += f" = {result.steps[0][1]}; " + "; ".join(f"{label} = {pts}" for label, pts in steps)
        text += ")"
    return text + "."


def captured(before: Any, after: Any) -> list[tuple[int, list[int]]]:
    """``[(player, cards)]`` taken into each capture pile between two engine states of the same round."""
    if after.round != before.round:
        return []
    return [(p, C.cards_of(after.piles[p] & ~before.piles[p])) for p in (0, 1) if after.piles[p] & ~before.piles[p]]
